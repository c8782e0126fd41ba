//! ArgMax / ArgMin: the index of the extreme value along the axis given by
//! the value-depend `dimension` input (TensorFlow's inputs and
//! `output_type`, default INT64). The axis is removed from the shape.

use super::dtypes::*;
use super::range_rules;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::normalize_axis;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape};

/// The index dtypes TensorFlow's `output_type` allows.
const OUTPUT_TYPES: &[DataType] = &[
    DataType::Int16,
    DataType::Uint16,
    DataType::Int32,
    DataType::Int64,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    ["ArgMax", "ArgMin"].into_iter().map(schema).collect()
}

fn schema(op_type: &str) -> OpSchema {
    let mut dtypes = NUMBER.to_vec();
    dtypes.push(DataType::Bool);
    OpSchema::new(op_type)
        .input(PortDef::new("input", ParamType::Required).dtype_list(&dtypes))
        .input(
            PortDef::new("dimension", ParamType::Required)
                .dtype_list(&[DataType::Int16, DataType::Int32, DataType::Int64])
                .value_depend(ValueDepend::Required),
        )
        .output(PortDef::new("output", ParamType::Required).follow("input", FollowType::Format))
        .attr(
            "output_type",
            AttrType::DataType,
            Some(AttrValue::DataType(DataType::Int64)),
        )
        // ONNX's keepdims: the axis stays, as a dim of 1.
        .attr("keep_dims", AttrType::Bool, Some(AttrValue::Bool(false)))
        .verify(op_fn(verify_arg))
        .infer_dtype(op_fn(|ctx| {
            let dtype = ctx.attr_dtype("output_type")?;
            ctx.set_output_dtype(0, dtype)
        }))
        .infer_shape(op_fn(infer_arg))
}

fn verify_arg(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let output_type = ctx.attr_dtype("output_type")?;
    if !OUTPUT_TYPES.contains(&output_type) {
        bail!("output_type must be INT16, UINT16, INT32 or INT64, got {output_type}");
    }
    let dimension = ctx.input_shape(1)?;
    if dimension.rank().is_some_and(|r| r > 0) {
        bail!("the dimension must be a scalar, got shape {dimension}");
    }
    Ok(())
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_arg(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let keep = ctx.attr_bool("keep_dims")?;
    let axis = ctx.input_value(1).and_then(|v| v.to_ints());
    let Some(&[axis]) = axis.as_deref() else {
        // The axis is unknown: one dim goes (or becomes 1), which one is unknown.
        if rank == 0 {
            bail!("the input must have rank >= 1 (it has no axis to reduce)");
        }
        return ctx.set_output_shape(0, Shape::unknown_dims(rank - usize::from(!keep)));
    };
    let axis = normalize_axis(axis, rank)?;
    let mut dims = input.dims().to_vec();
    if dims[axis] == 0 {
        bail!("cannot take an arg extremum over axis {axis}, which is empty in shape {input}");
    }
    if keep {
        dims[axis] = 1;
    } else {
        dims.remove(axis);
    }
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    range_rules::propagate(ctx, 0, |ctx| {
        let mut r = ranges::of_input(ctx, 0)?;
        if keep {
            r[axis] = (1, 1);
        } else {
            r.remove(axis);
        }
        Some(r)
    })
}
