//! PadV3 (GE's name), ONNX Pad from opset 11 (pads as an input; opset 2's
//! attribute becomes a constant input in the plugin) through opset 18's
//! `axes`. Unlike TensorFlow's Pad / PadV2 / MirrorPad (an `[rank, 2]`
//! paddings matrix), `paddings` is ONNX's flat layout
//! `[b_0 .. b_{n-1}, e_0 .. e_{n-1}]`, over every dim or over the dims
//! `axes` names (`n = len(axes)`); negative pads crop. The mode is an
//! attribute: "constant" (with the optional `constant_values` scalar),
//! "reflect", "edge" or "wrap".

use super::{distinct_axes, ints, Ints, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::array::range_rules;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let index = |name: &str, param| {
        PortDef::new(name, param)
            .dtype_list(INDEX)
            .value_depend(ValueDepend::Required)
    };
    let pad = OpSchema::new("PadV3")
        .input(PortDef::new("x", ParamType::Required))
        .input(index("paddings", ParamType::Required))
        .input(PortDef::new("constant_values", ParamType::Optional))
        .input(index("axes", ParamType::Optional))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr(
            "mode",
            AttrType::Str,
            Some(AttrValue::Str("constant".to_owned())),
        )
        .verify(op_fn(verify))
        .infer_shape(op_fn(infer));
    vec![pad]
}

const MODES: [&str; 4] = ["constant", "reflect", "edge", "wrap"];

fn verify(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let mode = ctx.attr_str("mode")?;
    if !MODES.contains(&mode) {
        bail!("attribute 'mode' is {mode:?}; expected one of {MODES:?}");
    }
    if let Some(value) = ctx.optional_input_desc(2)? {
        let x = ctx.input_dtype(0)?;
        if value.dtype != x {
            bail!(
                "input 'constant_values' is {} but x is {x}; they must match",
                value.dtype
            );
        }
        if value
            .shape()
            .num_elements()
            .ok()
            .flatten()
            .is_some_and(|n| n > 1)
        {
            bail!(
                "input 'constant_values' must be one value, got shape {}",
                value.shape()
            );
        }
    }
    Ok(())
}

/// `d + begin + end` per padded dim (unknown stays unknown); a negative
/// result is an error, and so is a mirror that reaches past the dim: in
/// "reflect" mode a pad is at most the dim (after the crops) less one, in
/// "edge" mode the dim must have an element to repeat (as onnxruntime and
/// GE's PadV3 require).
fn padded_dims(
    dims: &[i64],
    pads: &[i64],
    axes: Option<&[i64]>,
    mode: &str,
) -> Result<Vec<i64>, OpError> {
    let rank = dims.len();
    let axes = match axes {
        Some(a) => distinct_axes(a, rank, "axis")?,
        None => (0..rank).collect(),
    };
    let n = axes.len();
    if Some(pads.len()) != n.checked_mul(2) {
        bail!(
            "paddings has {} entries; {} dims are padded, so it needs {}",
            pads.len(),
            n,
            n.saturating_mul(2)
        );
    }
    let (begins, ends) = pads.split_at(n);
    let mut out = dims.to_vec();
    for ((&a, &b), &e) in axes.iter().zip(begins).zip(ends) {
        if out[a] == UNKNOWN_DIM {
            continue;
        }
        check_mirror(mode, a, out[a], b, e)?;
        let d = i128::from(out[a])
            .saturating_add(i128::from(b))
            .saturating_add(i128::from(e));
        if d < 0 {
            bail!(
                "dim {a} of size {} padded by {b} and {e} would be {d}; it must be >= 0",
                out[a]
            );
        }
        out[a] = match i64::try_from(d) {
            Ok(d) if d != i64::MAX => d,
            _ => bail!(
                "dim {a} of size {} padded by {b} and {e} overflows int64",
                out[a]
            ),
        };
    }
    Ok(out)
}

/// The mirror modes' limits on padding dim `axis` of size `dim` by
/// `(b, e)` (negative pads crop first).
fn check_mirror(mode: &str, axis: usize, dim: i64, b: i64, e: i64) -> Result<(), OpError> {
    let cropped = i128::from(dim)
        .saturating_add(i128::from(b.min(0)))
        .saturating_add(i128::from(e.min(0)));
    let most = i128::from(b.max(e));
    if most <= 0 {
        return Ok(());
    }
    match mode {
        "reflect" if most >= cropped => bail!(
            "dim {axis} of size {cropped} is padded by {b} and {e} in reflect mode, which mirrors at most {} on each side",
            cropped.saturating_sub(1).max(0)
        ),
        "edge" if cropped <= 0 => {
            bail!("dim {axis} is empty, so edge mode has no value to pad it with ({b} and {e})")
        }
        _ => Ok(()),
    }
}

fn infer(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let pads = ints(ctx, 1, "paddings")?;
    let axes = ints(ctx, 3, "axes")?;
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let dims = input.dims();
    // Which dims may change: those named by the axes (all without them),
    // and of those only the ones with a non-zero pad when the pads are known.
    let named = match &axes {
        Ints::Known(a) => {
            let mut named = vec![false; rank];
            for i in distinct_axes(a, rank, "axis")? {
                named[i] = true;
            }
            named
        }
        _ => vec![true; rank],
    };
    let (out, padded) = match (&pads, &axes) {
        (Ints::Known(p), Ints::Absent | Ints::Known(_)) => {
            let a = match &axes {
                Ints::Known(a) => Some(a.as_slice()),
                _ => None,
            };
            let mode = ctx.attr_str("mode")?;
            let out = padded_dims(dims, p, a, mode)?;
            let (b, e) = p.split_at(p.len() / 2);
            let listed: Vec<usize> = match a {
                Some(a) => distinct_axes(a, rank, "axis")?,
                None => (0..rank).collect(),
            };
            let mut padded = vec![Some(0); rank];
            for ((&i, &b), &e) in listed.iter().zip(b).zip(e) {
                padded[i] = Some(b.saturating_add(e));
            }
            (out, padded)
        }
        _ => {
            let out = dims
                .iter()
                .zip(&named)
                .map(|(&d, &n)| if n { UNKNOWN_DIM } else { d })
                .collect();
            let growth = named.iter().map(|&n| (!n).then_some(0)).collect();
            (out, growth)
        }
    };
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    // An unknown dim keeps its range moved by its known pads (never below
    // 0); one whose pads are unknown has none.
    range_rules::propagate(ctx, 0, |ctx| {
        let r = ranges::of_input(ctx, 0)?;
        Some(
            r.into_iter()
                .zip(padded)
                .map(|(r, growth)| match growth {
                    // Clamped at 0 before the sentinel is read: a crop
                    // can take a bound to -1, which is not "unbounded".
                    Some(g) => {
                        let lo = r.0.saturating_add(g).max(0);
                        let hi = match r.1 {
                            ranges::UNBOUNDED => ranges::UNBOUNDED,
                            hi => hi.saturating_add(g).max(0),
                        };
                        (lo, hi)
                    }
                    None => ranges::ANY,
                })
                .collect(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onnx_layout_negative_pads_and_axes() {
        let constant = |d: &[i64], p: &[i64], a: Option<&[i64]>| padded_dims(d, p, a, "constant");
        assert_eq!(constant(&[2, 3], &[1, 0, 2, 1], None).unwrap(), [5, 4]);
        assert_eq!(constant(&[4, 3], &[-1, 0, -2, 0], None).unwrap(), [1, 3]);
        assert_eq!(constant(&[2, 3], &[1, 1], Some(&[-1])).unwrap(), [2, 5]);
        assert_eq!(constant(&[-1, 3], &[1, 1, 1, 1], None).unwrap(), [-1, 5]);
        assert!(constant(&[2, 3], &[-3, 0, 0, 0], None).is_err());
        assert!(constant(&[2, 3], &[1, 1], None).is_err());
        assert!(constant(&[2, 3], &[1, 1, 1, 1], Some(&[0, 0])).is_err());
        assert!(constant(&[2], &[i64::MAX, 1], None).is_err());
    }

    #[test]
    fn mirrors_stay_inside_the_dim_they_mirror() {
        // numpy.pad(mode="reflect") of a length-1 axis by 1 has nothing to
        // mirror; onnxruntime refuses it ("axis length >= 2").
        let reflect = |d: &[i64], p: &[i64]| padded_dims(d, p, None, "reflect");
        assert_eq!(reflect(&[3], &[2, 2]).unwrap(), [7]);
        let error = reflect(&[1], &[1, 1]).unwrap_err().to_string();
        assert!(error.contains("mirrors at most 0"), "{error}");
        assert!(reflect(&[3], &[3, 0]).is_err());
        // Crops come first: [5] cropped by 2 is 3 long, so 2 still mirrors.
        assert_eq!(reflect(&[5], &[-2, 2]).unwrap(), [5]);
        assert!(reflect(&[5], &[-3, 2]).is_err());
        assert_eq!(reflect(&[-1], &[4, 4]).unwrap(), [-1]);
        let edge = |d: &[i64], p: &[i64]| padded_dims(d, p, None, "edge");
        assert_eq!(edge(&[1], &[3, 3]).unwrap(), [7]);
        assert!(edge(&[0], &[1, 0]).is_err());
        assert_eq!(edge(&[0], &[0, 0]).unwrap(), [0]);
    }
}
