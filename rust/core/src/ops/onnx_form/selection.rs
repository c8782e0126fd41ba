//! ONNX ops whose output size depends on the data: Compress (opsets 9–22:
//! the slices of `input` along `axis`, or of its flattened elements, where
//! `condition` is true) and `OnnxUnique` (ONNX Unique, 11–22: the distinct
//! elements or slices along `axis` with their first indices, inverse
//! indices and counts; TensorFlow's Unique is 1-D with two outputs). A
//! selected count is unknown (`-1`) with the range `[0, bound]`, except
//! that Compress counts a known condition exactly. `flatten` (true when
//! the ONNX node has no `axis`) selects over the flattened elements.

use super::{at_most_outputs, onnx_axis};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::ranges::{self, Range, UNBOUNDED};
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let compress = OpSchema::new("Compress")
        .input(PortDef::new("input", ParamType::Required))
        .input(
            PortDef::new("condition", ParamType::Required)
                .dtype_list(&[DataType::Bool])
                .value_depend(ValueDepend::Optional),
        )
        .output(PortDef::new("output", ParamType::Required).follow("input", FollowType::Dtype))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("flatten", AttrType::Bool, Some(AttrValue::Bool(true)))
        .infer_shape(op_fn(infer_compress));
    let unique = OpSchema::new("OnnxUnique")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        // indices, inverse_indices, counts: as many as the node uses.
        .output(PortDef::new("indices", ParamType::Dynamic).dtype_list(&[DataType::Int64]))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("flatten", AttrType::Bool, Some(AttrValue::Bool(true)))
        .attr("sorted", AttrType::Int, Some(AttrValue::Int(1)))
        .verify(at_most_outputs(4, "y, indices, inverse_indices, counts"))
        .infer_dtype(op_fn(|ctx| {
            for o in 1..ctx.output_count() {
                ctx.set_output_dtype(o, DataType::Int64)?;
            }
            Ok(())
        }))
        .infer_shape(op_fn(infer_unique));
    vec![compress, unique]
}

/// The axis normalised against `rank`, or `None` when the op selects over
/// the flattened elements (ONNX: the node has no `axis`).
fn axis(ctx: &OpContext<'_>, rank: usize) -> Result<Option<usize>, OpError> {
    if ctx.attr_bool("flatten")? {
        return Ok(None);
    }
    onnx_axis(ctx.attr_int("axis")?, rank, "axis").map(Some)
}

/// The number of elements of `shape`'s range, when bounded.
fn element_bound(ctx: &OpContext<'_>, i: usize) -> i64 {
    ranges::of_input(ctx, i).map_or(UNBOUNDED, |r| crate::ops::array::range_rules::product(&r).1)
}

fn infer_compress(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?.clone();
    let condition = ctx.input_shape(1)?;
    if condition.rank().is_some_and(|r| r != 1) {
        bail!("condition must be 1-D, got shape {condition}");
    }
    let cond_len = condition.dims().first().copied().unwrap_or(UNKNOWN_DIM);
    // A BOOL value is one byte per element.
    let selected = ctx
        .input_value(1)
        .map(|v| v.bytes().iter().filter(|&&b| b != 0).count() as i64);
    let flat = ctx.attr_bool("flatten")?;
    let Some(rank) = input.rank() else {
        let shape = if !flat {
            Shape::unknown_rank()
        } else {
            Shape::from_dims([selected.unwrap_or(UNKNOWN_DIM)])
        };
        return ctx.set_output_shape(0, shape);
    };
    let (mut dims, at, available) = match axis(ctx, rank)? {
        Some(a) => {
            let d = input.dims()[a];
            (input.dims().to_vec(), a, d)
        }
        None => {
            let n = input.num_elements().ok().flatten().unwrap_or(UNKNOWN_DIM);
            (vec![n], 0, n)
        }
    };
    if cond_len != UNKNOWN_DIM && available != UNKNOWN_DIM && cond_len > available {
        bail!("condition has {cond_len} entries but the selected axis has only {available}");
    }
    dims[at] = selected.unwrap_or(UNKNOWN_DIM);
    ctx.set_output_shape(0, Shape::from_dims(dims.clone()))?;
    if selected.is_none() {
        let bound = [cond_len, available]
            .into_iter()
            .filter(|&d| d != UNKNOWN_DIM)
            .min()
            .unwrap_or(UNBOUNDED);
        let mut r: Vec<Range> = ranges::of_input(ctx, 0)
            .filter(|_| !flat)
            .unwrap_or_else(|| dims.iter().map(|&d| ranges::of_dim(d, None)).collect());
        r[at] = (0, bound);
        ranges::set(ctx, 0, r)?;
    }
    Ok(())
}

fn infer_unique(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?.clone();
    let outputs = ctx.output_count();
    let Some(rank) = x.rank() else {
        for o in 0..outputs {
            let shape = if o == 0 && !ctx.attr_bool("flatten")? {
                Shape::unknown_rank()
            } else {
                Shape::from_dims([UNKNOWN_DIM])
            };
            ctx.set_output_shape(o, shape)?;
        }
        return Ok(());
    };
    let (y, at, length, bound) = match axis(ctx, rank)? {
        Some(a) => {
            let mut dims = x.dims().to_vec();
            let d = dims[a];
            dims[a] = UNKNOWN_DIM;
            (dims, a, d, d)
        }
        None => {
            let n = x.num_elements().ok().flatten().unwrap_or(UNKNOWN_DIM);
            let bound = if n == UNKNOWN_DIM {
                element_bound(ctx, 0)
            } else {
                n
            };
            (vec![UNKNOWN_DIM], 0, n, bound)
        }
    };
    // An empty input has no distinct values; any other has at least one.
    let range = match bound {
        0 => (0, 0),
        UNBOUNDED => (0, UNBOUNDED),
        b => (1, b),
    };
    let count = if bound == 0 { 0 } else { UNKNOWN_DIM };
    let mut y = y;
    if count == 0 {
        y[at] = 0;
    }
    ctx.set_output_shape(0, Shape::from_dims(y.clone()))?;
    for o in 1..outputs {
        // inverse_indices (output 2) has one entry per input element or slice.
        let shape = if o == 2 { length } else { count };
        ctx.set_output_shape(o, Shape::from_dims([shape]))?;
    }
    if count == UNKNOWN_DIM {
        let mut r: Vec<Range> = y.iter().map(|&d| ranges::of_dim(d, None)).collect();
        r[at] = range;
        ranges::set(ctx, 0, r)?;
        for o in [1, 3] {
            if o < outputs {
                ranges::set(ctx, o, vec![range])?;
            }
        }
    }
    Ok(())
}
