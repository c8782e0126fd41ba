//! StridedSlice with TensorFlow's exact semantics (`ValidateStridedSliceOp`):
//! the sparse spec (begin / end / strides and the five masks) is expanded
//! to one entry per input dim, each canonicalised like a Python slice.

use super::host::{for_each_index, strides as row_strides, Elems};
use super::{int_value, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let vector = |name: &str| {
        PortDef::new(name, ParamType::Required)
            .dtypes(INDEX)
            .value_depend(ValueDepend::Required)
    };
    let mut s = OpSchema::new("StridedSlice")
        .input(PortDef::new("x", ParamType::Required))
        .input(vector("begin"))
        .input(vector("end"))
        .input(vector("strides"))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype));
    for mask in MASKS {
        s = s.attr(mask, AttrType::Int, Some(AttrValue::Int(0)));
    }
    vec![s.infer_shape(op_fn(infer)).fold(op_fn(fold))]
}

const MASKS: [&str; 5] = [
    "begin_mask",
    "end_mask",
    "ellipsis_mask",
    "new_axis_mask",
    "shrink_axis_mask",
];

/// The five masks, in [`MASKS`] order.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Masks {
    pub begin: i64,
    pub end: i64,
    pub ellipsis: i64,
    pub new_axis: i64,
    pub shrink: i64,
}

fn bit(mask: i64, i: usize) -> bool {
    i < 64 && (mask >> i) & 1 == 1
}

/// Where output dim `k` comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Out {
    Dim(usize),
    NewAxis,
}

/// One input dim's slice: first index, step, element count (`-1` unknown).
#[derive(Clone, Copy, Debug, PartialEq)]
struct DenseDim {
    begin: i64,
    stride: i64,
    size: i64,
    shrink: bool,
}

#[derive(Debug)]
struct Plan {
    dense: Vec<DenseDim>,
    out: Vec<Out>,
}

impl Plan {
    fn shape(&self) -> Shape {
        let dims: Vec<i64> = self
            .out
            .iter()
            .map(|o| match o {
                Out::Dim(j) => self.dense[*j].size,
                Out::NewAxis => 1,
            })
            .collect();
        Shape::from_dims(dims)
    }
}

/// TensorFlow's algorithm over known begin / end / strides.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn plan(
    dims: &[i64],
    begin: &[i64],
    end: &[i64],
    strides: &[i64],
    m: Masks,
) -> Result<Plan, OpError> {
    let n = begin.len();
    if end.len() != n || strides.len() != n {
        bail!(
            "begin, end and strides must have the same length, got {}, {} and {}",
            n,
            end.len(),
            strides.len()
        );
    }
    if n > 64 {
        bail!("the slice spec has {n} entries; the masks cover at most 64");
    }
    if m.ellipsis & m.ellipsis.wrapping_sub(1) != 0 {
        bail!("ellipsis_mask {} marks more than one ellipsis", m.ellipsis);
    }
    if let Some(i) = strides.iter().position(|&s| s == 0) {
        bail!("strides[{i}] is 0; strides must be non-zero");
    }
    // Step 1: an implicit ellipsis at the end; count new axes after it.
    let mut ellipsis = m.ellipsis;
    let (mut seen, mut new_after) = (false, 0usize);
    for i in 0..n {
        if seen && bit(m.new_axis, i) {
            new_after += 1;
        }
        if bit(ellipsis, i) {
            seen = true;
        }
    }
    let sparse = if seen {
        n
    } else {
        ellipsis |= 1 << n;
        n + 1
    };
    // Step 2: the dense spec, one entry per input dim.
    let rank = dims.len();
    let mut dense = Vec::with_capacity(rank);
    let mut out = Vec::new();
    let mut masked = Vec::with_capacity(rank); // (begin masked, end masked)
    let mut full = 0usize;
    for i in 0..sparse {
        if bit(ellipsis, i) {
            let next = (rank + 1 + new_after).saturating_sub(sparse - i).min(rank);
            while full < next {
                dense.push((0, 0, 1, false));
                masked.push((true, true));
                out.push(Out::Dim(full));
                full += 1;
            }
        } else if bit(m.new_axis, i) {
            out.push(Out::NewAxis);
        } else {
            if full == rank {
                bail!("the slice spec indexes dim {full}, but the input has only {rank} dims");
            }
            let shrink = bit(m.shrink, i);
            dense.push((begin[i], end[i], strides[i], shrink));
            masked.push((bit(m.begin, i), bit(m.end, i)));
            if !shrink {
                out.push(Out::Dim(full));
            }
            full += 1;
        }
    }
    // The ellipsis may have consumed fewer dims than the input has left.
    while full < rank {
        dense.push((0, 0, 1, false));
        masked.push((true, true));
        out.push(Out::Dim(full));
        full += 1;
    }
    // Step 3: canonicalise each dim.
    let dense = dense
        .iter()
        .zip(&masked)
        .zip(dims)
        .enumerate()
        .map(|(i, ((&(b, e, s, shrink), &(bm, em)), &dim))| {
            canonical(i, dim, b, e, s, shrink, bm, em)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Plan { dense, out })
}

#[allow(clippy::too_many_arguments)]
#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; divisors were checked >= 1 above"
)]
fn canonical(
    i: usize,
    dim: i64,
    begin: i64,
    end: i64,
    stride: i64,
    shrink: bool,
    begin_masked: bool,
    end_masked: bool,
) -> Result<DenseDim, OpError> {
    if shrink && stride <= 0 {
        bail!("strides[{i}] is {stride}; a shrunk (indexed) dim needs a positive stride");
    }
    if dim == UNKNOWN_DIM {
        let size = if shrink { 1 } else { UNKNOWN_DIM };
        return Ok(DenseDim {
            begin,
            stride,
            size,
            shrink,
        });
    }
    if shrink {
        let at = if begin < 0 {
            dim.saturating_add(begin)
        } else {
            begin
        };
        if at < 0 || at >= dim {
            bail!("index {begin} of dim {i} is out of bounds for size {dim}");
        }
        return Ok(DenseDim {
            begin: at,
            stride,
            size: 1,
            shrink,
        });
    }
    // Python slice rules: masked ends take the whole range in the stride's
    // direction; others count from the end when negative and are clamped.
    let (lo, hi) = if stride > 0 { (0, dim) } else { (-1, dim - 1) };
    let pick = |x: i64, masked: bool, first: bool| -> i64 {
        if masked {
            return if (stride > 0) == first { lo } else { hi };
        }
        let fwd = if x < 0 { dim.saturating_add(x) } else { x };
        fwd.clamp(lo, hi)
    };
    let (b, e) = (
        pick(begin, begin_masked, true),
        pick(end, end_masked, false),
    );
    let length = i128::from(e) - i128::from(b);
    let step = i128::from(stride);
    let size = if length == 0 || (length < 0) != (step < 0) {
        0
    } else {
        length / step + i128::from(length % step != 0)
    };
    Ok(DenseDim {
        begin: b,
        stride,
        size: size as i64,
        shrink: false,
    })
}

fn masks(ctx: &OpContext<'_>) -> Result<Masks, OpError> {
    Ok(Masks {
        begin: ctx.attr_int("begin_mask")?,
        end: ctx.attr_int("end_mask")?,
        ellipsis: ctx.attr_int("ellipsis_mask")?,
        new_axis: ctx.attr_int("new_axis_mask")?,
        shrink: ctx.attr_int("shrink_axis_mask")?,
    })
}

/// The plan when the input rank and all three vectors are known.
fn known_plan(ctx: &OpContext<'_>) -> Result<Option<Plan>, OpError> {
    for i in 1..4 {
        let shape = ctx.input_shape(i)?;
        if shape.rank().is_some_and(|r| r != 1) {
            let name = ["", "begin", "end", "strides"][i];
            bail!("input '{name}' must be a 1-D vector, got shape {shape}");
        }
    }
    let m = masks(ctx)?;
    let input = ctx.input_shape(0)?;
    let (Some(_), Some(b), Some(e), Some(s)) = (
        input.rank(),
        int_value(ctx, 1),
        int_value(ctx, 2),
        int_value(ctx, 3),
    ) else {
        return Ok(None);
    };
    plan(input.dims(), &b, &e, &s, m).map(Some)
}

fn infer(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    match known_plan(ctx)? {
        Some(plan) => ctx.set_output_shape(0, plan.shape())?,
        None => {
            let shape = rank_only(ctx)?.unwrap_or_else(Shape::unknown_rank);
            return ctx.set_output_shape(0, shape);
        }
    }
    range_rules::propagate(ctx, 0, ranges_of)
}

/// The output when the input rank and the spec's length are known but not
/// all of its values (`x[:n]` with `n` computed): the masks alone fix the
/// rank, as in TensorFlow's shape function, and the dims the spec does not
/// touch (after an ellipsis, or past its end) keep their size. Found by
/// planning with two different made-up specs: a dim that comes out the same
/// in both does not depend on the values; the others are unknown.
fn rank_only(ctx: &OpContext<'_>) -> Result<Option<Shape>, OpError> {
    let input = ctx.input_shape(0)?;
    if input.rank().is_none() {
        return Ok(None);
    }
    let length = (1..4).find_map(|i| match ctx.input_shape(i).ok()?.dims() {
        [n] => usize::try_from(*n).ok(),
        _ => None,
    });
    let Some(n) = length else {
        return Ok(None);
    };
    let m = masks(ctx)?;
    let made_up = |end: i64, stride: i64| {
        plan(
            input.dims(),
            &vec![0; n],
            &vec![end; n],
            &vec![stride; n],
            m,
        )
    };
    let (Ok(one), Ok(other)) = (made_up(0, 1), made_up(1, 2)) else {
        return Ok(None);
    };
    let (a, b) = (one.shape(), other.shape());
    let dims: Vec<i64> = a
        .dims()
        .iter()
        .zip(b.dims())
        .map(|(&x, &y)| if x == y { x } else { UNKNOWN_DIM })
        .collect();
    Ok(Some(Shape::from_dims(dims)))
}

/// Each unknown input dim's slice length over its range (the spec is known
/// here: the shape was planned).
fn ranges_of(ctx: &OpContext<'_>) -> Option<Vec<ranges::Range>> {
    let input = ranges::of_input(ctx, 0)?;
    let (b, e, s) = (int_value(ctx, 1)?, int_value(ctx, 2)?, int_value(ctx, 3)?);
    let m = masks(ctx).ok()?;
    let dims = ctx.input_shape(0).ok()?.dims();
    let out = ctx.output_desc(0)?.shape().dims();
    let breaks = range_rules::slice_breaks(&[b.as_slice(), &e].concat());
    let step = s.iter().map(|v| v.saturating_abs()).max().unwrap_or(1);
    let shape_of = |d: &[i64]| Some(plan(d, &b, &e, &s, m).ok()?.shape().dims().to_vec());
    Some(range_rules::strided_slice(
        dims, &input, out, &breaks, step, shape_of,
    ))
}

/// Output element `k` reads input coordinate `begin + k * stride` per dim.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (Some(plan), Some(input)) = (known_plan(ctx)?, Elems::input(ctx, 0)) else {
        return Ok(());
    };
    let out_dims: Vec<i64> = plan.shape().dims().to_vec();
    let in_strides = row_strides(&input.dims);
    let mut sources = Vec::new();
    for_each_index(&out_dims, |index| {
        let mut coord: Vec<i64> = plan.dense.iter().map(|d| d.begin).collect();
        for (o, &k) in plan.out.iter().zip(index) {
            if let Out::Dim(j) = *o {
                coord[j] = plan.dense[j].begin + k * plan.dense[j].stride;
            }
        }
        let flat = coord
            .iter()
            .zip(&in_strides)
            .map(|(&c, &s)| c as usize * s)
            .sum();
        sources.push(Some(flat));
    });
    input.pick(&out_dims, sources).write(ctx, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(dims: &[i64], b: &[i64], e: &[i64], s: &[i64], m: Masks) -> Result<Vec<i64>, OpError> {
        plan(dims, b, e, s, m).map(|p| p.shape().dims().to_vec())
    }

    #[test]
    fn python_slices() {
        let none = Masks::default();
        assert_eq!(shape(&[10], &[2], &[8], &[3], none).unwrap(), vec![2]);
        assert_eq!(shape(&[10], &[-1], &[-11], &[-1], none).unwrap(), vec![10]);
        let shrink = Masks { shrink: 1, ..none };
        assert_eq!(
            shape(&[-1, 224, 3], &[0], &[1], &[1], shrink).unwrap(),
            vec![224, 3]
        );
        assert!(shape(&[4], &[4], &[5], &[1], shrink).is_err());
        // x[..., None, 1:]: an ellipsis, a new axis, then a slice of the last dim.
        let m = Masks {
            ellipsis: 1,
            new_axis: 2,
            ..none
        };
        assert_eq!(
            shape(&[2, 3, 4], &[0, 0, 1], &[0, 0, 4], &[1, 1, 1], m).unwrap(),
            vec![2, 3, 1, 3]
        );
        assert!(shape(&[2], &[0, 0], &[1, 1], &[1, 1], none).is_err());
        assert!(shape(&[2], &[0], &[1], &[0], none).is_err());
    }
}
