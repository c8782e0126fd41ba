//! StridedSliceV2 (GE's name), ONNX Slice from opset 10 (inputs `starts`,
//! `ends`, optional `axes` and `steps`; opset 1's attributes become these
//! inputs in the plugin). Unlike TensorFlow's StridedSlice there are no
//! masks: `axes` names the sliced dims (the rest are whole), a missing
//! `axes` means the first `len(begin)` dims, a missing `strides` means 1.
//! Negative begin / end count from the end of the dim and are clamped to
//! `[0, dim]` (`[0, dim - 1]` and `[-1, dim - 1]` for negative steps), so
//! INT64_MAX / INT64_MIN mean "to the end". The rank never changes.

use super::{distinct_axes, ints, vector_len, Ints, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::array::host::{for_each_index, strides as row_strides, Elems};
use crate::ops::array::range_rules;
use crate::ops::ranges;
use crate::types::{Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let index = |name: &str, param| {
        PortDef::new(name, param)
            .dtype_list(INDEX)
            .value_depend(ValueDepend::Required)
    };
    let slice = OpSchema::new("StridedSliceV2")
        .input(PortDef::new("x", ParamType::Required))
        .input(index("begin", ParamType::Required))
        .input(index("end", ParamType::Required))
        .input(index("axes", ParamType::Optional))
        .input(index("strides", ParamType::Optional))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .infer_shape(op_fn(infer))
        .fold(op_fn(fold));
    vec![slice]
}

const NAMES: [&str; 5] = ["x", "begin", "end", "axes", "strides"];

/// One input dim's slice: first index, step, element count (`-1` unknown).
#[derive(Clone, Copy, Debug, PartialEq)]
struct DimSlice {
    begin: i64,
    step: i64,
    size: i64,
}

/// ONNX's per-axis rule on a known dim.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "the bounds are computed in i128 from i64 values; the step is non-zero"
)]
fn slice_dim(dim: i64, start: i64, end: i64, step: i64) -> DimSlice {
    if dim == UNKNOWN_DIM {
        return DimSlice {
            begin: start,
            step,
            size: UNKNOWN_DIM,
        };
    }
    let d = i128::from(dim);
    let from_end = |v: i64| {
        let v = i128::from(v);
        if v < 0 {
            v + d
        } else {
            v
        }
    };
    let (s, e) = (from_end(start), from_end(end));
    // Clamp with max-then-min: for dim 0 and a negative step the bounds
    // cross, and the slice is empty whatever they are.
    let (s, e) = if step > 0 {
        (s.max(0).min(d), e.max(0).min(d))
    } else {
        (s.max(0).min(d - 1), e.max(-1).min(d - 1))
    };
    let (length, step128) = (e - s, i128::from(step));
    let size = if length == 0 || (length < 0) != (step128 < 0) {
        0
    } else {
        length / step128 + i128::from(length % step128 != 0)
    };
    DimSlice {
        begin: i64::try_from(s.max(0)).unwrap_or(0),
        step,
        size: i64::try_from(size).unwrap_or(UNKNOWN_DIM),
    }
}

/// Every input dim's slice from known begin / end / axes / strides.
fn plan(
    dims: &[i64],
    begin: &[i64],
    end: &[i64],
    axes: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> Result<Vec<DimSlice>, OpError> {
    let n = begin.len();
    if end.len() != n {
        bail!(
            "begin and end must have the same length, got {n} and {}",
            end.len()
        );
    }
    let axes = match axes {
        Some(a) if a.len() != n => {
            bail!("axes has {} entries but begin has {n}", a.len())
        }
        Some(a) => distinct_axes(a, dims.len(), "axis")?,
        None if n > dims.len() => {
            bail!(
                "begin has {n} entries but the input has only {} dims",
                dims.len()
            )
        }
        None => (0..n).collect(),
    };
    let steps = match steps {
        Some(s) if s.len() != n => {
            bail!("strides has {} entries but begin has {n}", s.len())
        }
        Some(s) => s.to_vec(),
        None => vec![1; n],
    };
    if let Some(i) = steps.iter().position(|&s| s == 0) {
        bail!("strides[{i}] is 0; steps must be non-zero");
    }
    let mut out: Vec<DimSlice> = dims
        .iter()
        .map(|&d| DimSlice {
            begin: 0,
            step: 1,
            size: d,
        })
        .collect();
    for (k, &a) in axes.iter().enumerate() {
        out[a] = slice_dim(dims[a], begin[k], end[k], steps[k]);
    }
    Ok(out)
}

/// The plan when the input rank and every present index input are known;
/// `Ok(None)` when something is not known yet.
fn known_plan(ctx: &OpContext<'_>) -> Result<Option<Vec<DimSlice>>, OpError> {
    let values = (1..5)
        .map(|i| ints(ctx, i, NAMES[i]))
        .collect::<Result<Vec<_>, _>>()?;
    let input = ctx.input_shape(0)?;
    if input.rank().is_none() {
        return Ok(None);
    }
    let known = |v: &Ints| match v {
        Ints::Absent => Some(None),
        Ints::Unknown => None,
        Ints::Known(v) => Some(Some(v.clone())),
    };
    let (Some(Some(b)), Some(Some(e)), Some(a), Some(s)) = (
        known(&values[0]),
        known(&values[1]),
        known(&values[2]),
        known(&values[3]),
    ) else {
        return Ok(None);
    };
    plan(input.dims(), &b, &e, a.as_deref(), s.as_deref()).map(Some)
}

fn infer(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        // Validate the index inputs' ranks even so.
        for (i, name) in NAMES.iter().enumerate().skip(1) {
            ints(ctx, i, name)?;
        }
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    if let Some(plan) = known_plan(ctx)? {
        let dims: Vec<i64> = plan.iter().map(|d| d.size).collect();
        ctx.set_output_shape(0, Shape::from_dims(dims))?;
        return range_rules::propagate(ctx, 0, ranges_of);
    }
    // Values missing: dims the (known) axes do not name are whole.
    let dims = match ints(ctx, 3, "axes")? {
        Ints::Known(axes) => {
            let sliced = distinct_axes(&axes, rank, "axis")?;
            let mut dims = input.dims().to_vec();
            for a in sliced {
                dims[a] = UNKNOWN_DIM;
            }
            dims
        }
        Ints::Absent => {
            // The first len(begin) dims are sliced, when that length is known.
            let n = vector_len(ctx, 1).or_else(|| vector_len(ctx, 2));
            let mut dims = input.dims().to_vec();
            let n = n.unwrap_or(rank).min(rank);
            for d in dims.iter_mut().take(n) {
                *d = UNKNOWN_DIM;
            }
            dims
        }
        Ints::Unknown => vec![UNKNOWN_DIM; rank],
    };
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    // A slice never lengthens a dim: each sliced dim is at most the input's.
    let Some(input) = ranges::of_input(ctx, 0) else {
        return Ok(());
    };
    ranges::set_if_bounded(ctx, 0, input.into_iter().map(range_rules::up_to).collect())
}

/// Each unknown input dim's slice length over its range (the spec is known
/// here: the shape was planned), with the clamp points of the begin / end
/// values as the places where the length can turn.
fn ranges_of(ctx: &OpContext<'_>) -> Option<Vec<ranges::Range>> {
    let input = ranges::of_input(ctx, 0)?;
    let value = |i: usize| match ints(ctx, i, NAMES[i]).ok()? {
        Ints::Known(v) => Some(Some(v)),
        Ints::Absent => Some(None),
        Ints::Unknown => None,
    };
    let (b, e) = (value(1)??, value(2)??);
    let (a, s) = (value(3)?, value(4)?);
    let dims = ctx.input_shape(0).ok()?.dims();
    let out = ctx.output_desc(0)?.shape().dims();
    let breaks = range_rules::slice_breaks(&[b.as_slice(), &e].concat());
    let step = s
        .as_deref()
        .unwrap_or(&[1])
        .iter()
        .map(|v| v.saturating_abs())
        .max()
        .unwrap_or(1);
    let shape_of = |d: &[i64]| {
        let plan = plan(d, &b, &e, a.as_deref(), s.as_deref()).ok()?;
        Some(plan.iter().map(|p| p.size).collect())
    };
    Some(range_rules::strided_slice(
        dims, &input, out, &breaks, step, shape_of,
    ))
}

/// Output element `k` reads input coordinate `begin + k * step` per dim.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (Some(plan), Some(input)) = (known_plan(ctx)?, Elems::input(ctx, 0)) else {
        return Ok(());
    };
    let out_dims: Vec<i64> = plan.iter().map(|d| d.size).collect();
    if out_dims.contains(&UNKNOWN_DIM) {
        return Ok(());
    }
    let in_strides = row_strides(&input.dims);
    let mut sources = Vec::new();
    for_each_index(&out_dims, |index| {
        let flat = index
            .iter()
            .zip(&plan)
            .zip(&in_strides)
            .map(|((&k, d), &s)| (d.begin + k * d.step) as usize * s)
            .sum();
        sources.push(Some(flat));
    });
    input.pick(&out_dims, sources).write(ctx, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(dims: &[i64], b: &[i64], e: &[i64], a: Option<&[i64]>, s: Option<&[i64]>) -> Vec<i64> {
        plan(dims, b, e, a, s)
            .unwrap()
            .iter()
            .map(|d| d.size)
            .collect()
    }

    // Expected sizes are numpy's: len(np.arange(d)[b:e:s]).
    #[test]
    fn onnx_clamping_and_negative_steps() {
        assert_eq!(sizes(&[10], &[2], &[8], None, Some(&[3])), [2]);
        assert_eq!(sizes(&[10], &[-1], &[i64::MIN], None, Some(&[-1])), [10]);
        assert_eq!(sizes(&[10], &[0], &[i64::MAX], None, None), [10]);
        assert_eq!(sizes(&[4, 6], &[1], &[-1], Some(&[-1]), None), [4, 4]);
        assert_eq!(sizes(&[0], &[-1], &[i64::MIN], None, Some(&[-1])), [0]);
        assert_eq!(sizes(&[5], &[20], &[-20], None, Some(&[-2])), [3]);
        assert_eq!(sizes(&[-1, 3], &[0], &[2], Some(&[1]), None), [-1, 2]);
    }

    #[test]
    fn bad_specs_are_errors() {
        assert!(plan(&[4, 4], &[0, 0], &[1, 1], Some(&[1, -1]), None).is_err());
        assert!(plan(&[4], &[0], &[1], None, Some(&[0])).is_err());
        assert!(plan(&[4], &[0], &[1, 2], None, None).is_err());
        assert!(plan(&[4], &[0, 0], &[1, 2], None, None).is_err());
        assert!(plan(&[4], &[0], &[1], Some(&[1]), None).is_err());
        assert!(plan(&[4], &[0], &[1], Some(&[0]), Some(&[1, 1])).is_err());
    }
}
