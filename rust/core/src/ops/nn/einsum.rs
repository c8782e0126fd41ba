//! Einsum: the output shape of an Einstein-summation `equation` over a
//! dynamic input, with numpy's rules — letters label dims, `...` stands for
//! broadcast batch dims, a label's size may broadcast from 1 across operands
//! (but must match within one operand), and without `->` the output is the
//! ellipsis dims followed by the labels used once, in ASCII order.

use super::dims::merge_dim;
use super::range_rules::TermRef;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::broadcast_shapes;
use crate::types::{AttrType, DataType, Dims, Shape, UNKNOWN_DIM};

const TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Float,
    DataType::Double,
    DataType::Bf16,
    DataType::Int32,
    DataType::Int64,
    DataType::Complex64,
    DataType::Complex128,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let einsum = OpSchema::new("Einsum")
        .input(PortDef::new("x", ParamType::Dynamic).dtype_list(TYPES))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("equation", AttrType::Str, None)
        .infer_shape(op_fn(infer_einsum));
    vec![einsum]
}

/// One side of the equation: its labels, and where `...` sits (if present).
#[derive(Debug, PartialEq)]
struct Term {
    labels: Vec<u8>,
    ellipsis: Option<usize>,
}

fn parse_term(term: &str) -> Result<Term, OpError> {
    let mut labels = Vec::new();
    let mut ellipsis = None;
    // Characters, not bytes: a non-ASCII letter is reported as itself.
    let mut chars = term.char_indices();
    while let Some((at, c)) = chars.next() {
        if c == '.' {
            if !term[at..].starts_with("...") || ellipsis.is_some() {
                bail!("'{term}' has a stray '.' or more than one '...'");
            }
            ellipsis = Some(labels.len());
            chars.nth(1); // the other two dots
            continue;
        }
        if !c.is_ascii_alphabetic() {
            bail!("'{term}' uses '{c}': only letters (ASCII) and '...' are supported");
        }
        labels.push(c as u8); // ASCII, so one byte
    }
    Ok(Term { labels, ellipsis })
}

struct Equation {
    inputs: Vec<Term>,
    output: Option<Term>,
}

fn parse(equation: &str) -> Result<Equation, OpError> {
    let compact: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match compact.split_once("->") {
        Some((l, r)) if !r.contains("->") => (l, Some(r)),
        Some(_) => bail!("equation '{equation}' has more than one '->'"),
        None => (compact.as_str(), None),
    };
    let inputs = lhs
        .split(',')
        .map(parse_term)
        .collect::<Result<Vec<_>, _>>()?;
    let output = rhs.map(parse_term).transpose()?;
    if let Some(out) = &output {
        let mut seen = [false; 256];
        for &l in &out.labels {
            if std::mem::replace(&mut seen[l as usize], true) {
                bail!("the output of '{equation}' repeats '{}'", l as char);
            }
            if !inputs.iter().any(|t| t.labels.contains(&l)) {
                bail!(
                    "the output label '{}' of '{equation}' appears in no input",
                    l as char
                );
            }
        }
    }
    Ok(Equation { inputs, output })
}

/// One label seen in two operands must have one size (TensorFlow and
/// numpy; only the `...` dims broadcast).
fn label_dim(a: i64, b: i64, label: u8) -> Result<i64, OpError> {
    Ok(match (a, b) {
        _ if a == b => a,
        (UNKNOWN_DIM, d) | (d, UNKNOWN_DIM) => d,
        _ => bail!("label '{}' has sizes {a} and {b}", label as char),
    })
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_einsum(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let equation = ctx.attr_str("equation")?;
    let eq = parse(equation)?;
    let count = ctx.dynamic_input_count(0)?;
    if eq.inputs.len() != count {
        bail!(
            "equation '{equation}' has {} operands but the node has {count} inputs",
            eq.inputs.len()
        );
    }
    let mut sizes: [Option<i64>; 256] = [None; 256];
    let mut batch = Some(Shape::scalar()); // None: unknown ellipsis dims
    let mut any_ellipsis = false;
    for (i, term) in eq.inputs.iter().enumerate() {
        let shape = ctx.dynamic_input_desc(0, i)?.shape();
        any_ellipsis |= term.ellipsis.is_some();
        let Some(rank) = shape.rank() else {
            if term.ellipsis.is_some() {
                batch = None;
            }
            continue;
        };
        let n = term.labels.len();
        let extra = match term.ellipsis {
            None if rank != n => {
                bail!("operand {i} has rank {rank} but '{equation}' gives it {n} labels")
            }
            Some(_) if rank < n => bail!("operand {i} has rank {rank}, fewer than its {n} labels"),
            _ => rank - n,
        };
        let at = term.ellipsis.unwrap_or(n);
        let dims = shape.dims();
        let mut own: [Option<i64>; 256] = [None; 256];
        for (k, &l) in term.labels.iter().enumerate() {
            let d = dims[if k < at { k } else { k + extra }];
            let slot = &mut own[l as usize];
            *slot = Some(match *slot {
                None => d,
                Some(prev) => merge_dim(
                    prev,
                    d,
                    &format!("the repeated label '{}' of operand {i}", l as char),
                )?,
            });
        }
        for l in 0..256 {
            if let Some(d) = own[l] {
                let slot = &mut sizes[l];
                *slot = Some(match *slot {
                    None => d,
                    Some(prev) => label_dim(prev, d, l as u8)?,
                });
            }
        }
        if let (Some(b), true) = (&batch, term.ellipsis.is_some()) {
            let this = Shape::from_dims(&dims[at..at + extra]);
            batch = Some(broadcast_shapes(b, &this).map_err(|e| {
                OpError::new(format!(
                    "the '...' dims of operand {i} cannot be broadcast: {e}"
                ))
            })?);
        }
    }
    let output = match eq.output {
        Some(out) => out,
        None => implicit_output(&eq.inputs, any_ellipsis),
    };
    let out = assemble(&output, &sizes, batch, equation)?;
    ctx.set_output_shape(0, out)?;
    fn term(t: &Term) -> TermRef<'_> {
        TermRef {
            labels: &t.labels,
            ellipsis: t.ellipsis,
        }
    }
    let inputs: Vec<_> = eq.inputs.iter().map(term).collect();
    super::range_rules::einsum(ctx, &inputs, &term(&output))
}

/// numpy's implicit output: `...` first, then labels used exactly once.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn implicit_output(inputs: &[Term], any_ellipsis: bool) -> Term {
    let mut counts = [0usize; 256];
    for t in inputs {
        for &l in &t.labels {
            counts[l as usize] += 1;
        }
    }
    let labels = (0u8..=255).filter(|&l| counts[l as usize] == 1).collect();
    Term {
        labels,
        ellipsis: any_ellipsis.then_some(0),
    }
}

fn assemble(
    output: &Term,
    sizes: &[Option<i64>; 256],
    batch: Option<Shape>,
    equation: &str,
) -> Result<Shape, OpError> {
    let batch_dims: Dims = match (&batch, output.ellipsis) {
        (Some(b), Some(_)) => b.dims().iter().copied().collect(),
        (None, Some(_)) => return Ok(Shape::unknown_rank()),
        (Some(b), None) if !b.dims().is_empty() => {
            bail!("'{equation}' drops the '...' dims {b} but its output has no '...'")
        }
        _ => Dims::new(),
    };
    let label_dims = output
        .labels
        .iter()
        .map(|&l| sizes[l as usize].unwrap_or(UNKNOWN_DIM));
    let at = output.ellipsis.unwrap_or(output.labels.len());
    let mut dims: Dims = label_dims.clone().take(at).collect();
    dims.extend(batch_dims);
    dims.extend(label_dims.skip(at));
    Ok(Shape::from_dims(dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing() {
        let t = parse_term("ab...c").unwrap();
        assert_eq!(t.labels, b"abc");
        assert_eq!(t.ellipsis, Some(2));
        assert!(parse_term("a..b").is_err());
        assert!(parse_term("a1").is_err());
        assert!(parse_term("...a...").is_err());
        assert!(parse("ij->ii").is_err());
        assert!(parse("ij->k").is_err());
        assert!(parse("i->j->k").is_err());
        // Non-ASCII letters are named as the character, not a byte of it.
        for (equation, bad) in [("éj,jk->ék", 'é'), ("ij,jk->iΩ", 'Ω'), ("a…", '…')] {
            let e = parse(equation).err().unwrap();
            assert!(e.message.contains(&format!("uses '{bad}'")), "{e}");
            assert!(!e.message.contains('Ã'), "{e}");
        }
        let t = parse_term("...").unwrap();
        assert_eq!((t.labels.len(), t.ellipsis), (0, Some(0)));
        let implicit = implicit_output(&parse("Ba,ab").unwrap().inputs, false);
        assert_eq!(implicit.labels, b"Bb");
    }
}
