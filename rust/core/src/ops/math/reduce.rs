//! Reductions over the axes given by a value-depend input: TensorFlow's
//! Sum / Mean / Max / Min / Prod / All / Any (`input`, `reduction_indices`
//! -> `output`) and GE's ReduceSum ... ReduceAny (`x`, `axes` -> `y`), both
//! with `keep_dims`.
//!
//! TensorFlow semantics: an empty axes vector reduces nothing, an axis may
//! repeat (it is reduced once), negative axes count from the end.
//!
//! The GE names also serve ONNX's ReduceX (opsets 1-18, and the
//! attribute-free forms of 13 / 18): their `axes` input is optional and
//! the `noop_with_empty_axes` attribute (default true, TensorFlow's meaning)
//! says what an empty or absent axes vector does; the ONNX plugins set it
//! false, so that reduces every dim. ReduceL1 ... ReduceSumSquare exist
//! only under GE names (TensorFlow has no such ops).

use super::dtypes::*;
use super::range_rules;
use super::reduce_fold::{fold_int_reduction, IntReduction};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::normalize_axis;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape};
use std::sync::Arc;

/// (TensorFlow name, GE name, dtypes).
const REDUCTIONS: &[(&str, &str, &[DataType])] = &[
    ("Sum", "ReduceSum", NUMBER),
    ("Mean", "ReduceMean", NUMBER),
    ("Prod", "ReduceProd", NUMBER),
    ("Max", "ReduceMax", REAL),
    ("Min", "ReduceMin", REAL),
    ("All", "ReduceAll", BOOL),
    ("Any", "ReduceAny", BOOL),
];

/// The ONNX-only reductions (GE names, no TensorFlow op).
const ONNX_ONLY: &[&str] = &[
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceSumSquare",
];

pub(super) fn schemas() -> Vec<OpSchema> {
    REDUCTIONS
        .iter()
        .flat_map(|&(tf, ge, dtypes)| {
            [
                schema(tf, ["input", "reduction_indices", "output"], dtypes),
                ge_schema(ge, dtypes),
            ]
        })
        .chain(ONNX_ONLY.iter().map(|&ge| ge_schema(ge, NUMBER)))
        .collect()
}

/// A GE-named reduction: the axes may be absent, and
/// `noop_with_empty_axes` says whether no axes reduce nothing (TensorFlow)
/// or everything (ONNX).
fn ge_schema(op_type: &str, dtypes: &[DataType]) -> OpSchema {
    let mut schema = schema(op_type, ["x", "axes", "y"], dtypes).attr(
        "noop_with_empty_axes",
        AttrType::Bool,
        Some(AttrValue::Bool(true)),
    );
    schema.inputs[1].param_type = ParamType::Optional;
    schema
}

/// The axes as given: `Some(empty)` when absent or known to be empty,
/// `None` when their values are unknown.
fn given_axes(ctx: &OpContext<'_>) -> Result<Option<Vec<i64>>, OpError> {
    let Some(desc) = ctx.input_desc(1) else {
        return Ok(Some(Vec::new()));
    };
    Ok(match ctx.input_value(1).and_then(|v| v.to_ints()) {
        Some(axes) => Some(axes),
        None if desc.shape().dims() == [0] => Some(Vec::new()),
        None => None,
    })
}

/// Whether an empty axes vector reduces every dim (ONNX, with
/// `noop_with_empty_axes` false) rather than none.
fn empty_reduces_all(ctx: &OpContext<'_>) -> Result<bool, OpError> {
    Ok(match ctx.attr("noop_with_empty_axes") {
        None => false,
        Some(_) => !ctx.attr_bool("noop_with_empty_axes")?,
    })
}

/// The axes to reduce: `None` when unknown; an empty list under ONNX's
/// rule is every axis of the input (`None` when its rank is unknown).
pub(super) fn effective_axes(ctx: &OpContext<'_>) -> Result<Option<Vec<i64>>, OpError> {
    let axes = given_axes(ctx)?;
    if axes.as_ref().is_some_and(Vec::is_empty) && empty_reduces_all(ctx)? {
        return Ok(ctx
            .input_shape(0)?
            .rank()
            .map(|rank| (0..rank as i64).collect()));
    }
    Ok(axes)
}

fn schema(op_type: &str, [x, axes, y]: [&str; 3], dtypes: &[DataType]) -> OpSchema {
    let schema = OpSchema::new(op_type)
        .input(PortDef::new(x, ParamType::Required).dtypes(dtypes))
        .input(
            PortDef::new(axes, ParamType::Required)
                .dtype_list(INDEX)
                .value_depend(ValueDepend::Required),
        )
        .output(
            PortDef::new(y, ParamType::Required)
                .dtypes(dtypes)
                .follow(x, FollowType::Format),
        )
        .attr("keep_dims", AttrType::Bool, Some(AttrValue::Bool(false)))
        .infer_shape(op_fn(infer_reduce));
    match IntReduction::of(op_type) {
        Some(reduction) => schema.fold(Arc::new(move |ctx: &mut OpContext<'_>| {
            fold_int_reduction(ctx, reduction)
        })),
        None => schema,
    }
}

fn infer_reduce(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    if let Some(axes_shape) = ctx.input_desc(1).map(|d| d.shape()) {
        if axes_shape.rank().is_some_and(|r| r > 1) {
            bail!("the axes must be a scalar or a 1-D vector, got shape {axes_shape}");
        }
    }
    let keep_dims = ctx.attr_bool("keep_dims")?;
    let all = given_axes(ctx)?.is_some_and(|a| a.is_empty()) && empty_reduces_all(ctx)?;
    let axes = effective_axes(ctx)?;
    let out = match (axes, input.rank()) {
        (Some(axes), Some(rank)) => reduced_shape(input, &axes, rank, keep_dims)?,
        // Every dim of an unknown rank: a scalar, or all 1s of that rank.
        (_, None) if all && !keep_dims => Shape::scalar(),
        // No axes at all: nothing is reduced, whatever the values.
        (Some(axes), None) if axes.is_empty() => input.clone(),
        // Which axes go is unknown; with keep_dims the rank stays.
        (_, Some(rank)) if keep_dims => Shape::unknown_dims(rank),
        _ => Shape::unknown_rank(),
    };
    ctx.set_output_shape(0, out)?;
    range_rules::propagate(ctx, 0, |ctx| {
        let axes = effective_axes(ctx).ok()?;
        range_rules::reduce(ranges::of_input(ctx, 0)?, axes.as_deref(), keep_dims)
    })
}

/// `input` with `axes` reduced: dropped, or kept as 1 with `keep_dims`.
fn reduced_shape(
    input: &Shape,
    axes: &[i64],
    rank: usize,
    keep_dims: bool,
) -> Result<Shape, OpError> {
    let mut reduced = vec![false; rank];
    for &axis in axes {
        reduced[normalize_axis(axis, rank)?] = true;
    }
    let dims: Vec<i64> = input
        .dims()
        .iter()
        .zip(&reduced)
        .filter_map(|(&d, &r)| match (r, keep_dims) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    Ok(Shape::from_dims(dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(dims: &[i64], axes: &[i64], keep: bool) -> Result<Vec<i64>, OpError> {
        let input = Shape::from_dims(dims);
        Ok(reduced_shape(&input, axes, dims.len(), keep)?
            .dims()
            .to_vec())
    }

    #[test]
    fn axes_repeat_count_from_the_end_and_may_be_empty() {
        assert_eq!(reduce(&[2, 3, 4], &[1], false).unwrap(), [2, 4]);
        assert_eq!(reduce(&[2, 3, 4], &[-1, 0], true).unwrap(), [1, 3, 1]);
        assert_eq!(reduce(&[2, 3, 4], &[2, -1], false).unwrap(), [2, 3]);
        assert_eq!(reduce(&[2, -1, 4], &[], false).unwrap(), [2, -1, 4]);
        assert_eq!(reduce(&[2, -1], &[0, 1], false).unwrap(), [] as [i64; 0]);
        assert!(reduce(&[2, 3], &[2], false).is_err());
        assert!(reduce(&[2, 3], &[-3], true).is_err());
        assert!(reduce(&[], &[0], false).is_err());
    }
}
