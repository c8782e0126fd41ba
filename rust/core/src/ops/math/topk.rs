//! TopKV2 (TensorFlow: along the last axis) and TopK (GE: along `dim`,
//! default -1, with `largest`): the `k` largest entries and their INT32
//! indices. `k` is a value-depend scalar; `k` above the axis size is an error.
//!
//! For ONNX TopK (opsets 1–11; `sorted` is opset 11's attribute) GE's TopK
//! also takes `k` as a 1-element 1-D tensor (ONNX's shape `[1]`) and gives
//! INT64 indices when its attribute `indices_dtype` (default INT32) says so;
//! TopKV2 keeps TensorFlow's rules.

use super::dtypes::*;
use super::range_rules;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::normalize_axis;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let v2 = schema(
        "TopKV2",
        ["input", "k", "values", "indices"],
        &[DataType::Int32],
    );
    let ge = schema(
        "TopK",
        ["x", "k", "values", "indices"],
        &[DataType::Int32, DataType::Int64],
    )
    .attr("dim", AttrType::Int, Some(AttrValue::Int(-1)))
    .attr("largest", AttrType::Bool, Some(AttrValue::Bool(true)))
    .attr(
        "indices_dtype",
        AttrType::DataType,
        Some(AttrValue::DataType(DataType::Int32)),
    )
    .infer_dtype(op_fn(infer_indices_dtype));
    vec![v2, ge]
}

/// GE TopK's indices dtype: `indices_dtype`, INT32 or INT64.
fn infer_indices_dtype(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    match ctx.attr_dtype("indices_dtype")? {
        dtype @ (DataType::Int32 | DataType::Int64) => ctx.set_output_dtype(1, dtype),
        other => bail!("indices_dtype is {other}, expected INT32 or INT64"),
    }
}

fn schema(op_type: &str, [x, k, values, indices]: [&str; 4], index_types: &[DataType]) -> OpSchema {
    OpSchema::new(op_type)
        .input(PortDef::new(x, ParamType::Required).dtypes(REAL))
        .input(
            PortDef::new(k, ParamType::Required)
                .dtype_list(&[DataType::Int16, DataType::Int32, DataType::Int64])
                .value_depend(ValueDepend::Required),
        )
        .output(
            PortDef::new(values, ParamType::Required)
                .dtypes(REAL)
                .follow(x, FollowType::Format),
        )
        .output(
            PortDef::new(indices, ParamType::Required)
                .dtype_list(index_types)
                .follow(x, FollowType::Format),
        )
        .attr("sorted", AttrType::Bool, Some(AttrValue::Bool(true)))
        .infer_shape(op_fn(infer_top_k))
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_top_k(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let k_shape = ctx.input_shape(1)?;
    // GE's TopK (the one with `dim`) also takes ONNX's 1-element vector.
    let onnx_k = ctx.schema().attr_def("dim").is_some()
        && matches!(k_shape.dims(), [1 | UNKNOWN_DIM])
        && k_shape.rank() == Some(1);
    if k_shape.rank().is_some_and(|r| r > 0) && !onnx_k {
        bail!("k must be a scalar, got shape {k_shape}");
    }
    let k = match ctx.input_value(1).and_then(|v| v.to_ints()).as_deref() {
        Some(&[k]) if k < 0 => bail!("k must be non-negative, got {k}"),
        Some(&[k]) => k,
        _ => UNKNOWN_DIM,
    };
    let input = ctx.input_shape(0)?;
    let out = match input.rank() {
        None => Shape::unknown_rank(),
        Some(0) => bail!("the input must have rank >= 1, got a scalar"),
        Some(rank) => {
            let axis = match ctx.schema().attr_def("dim") {
                Some(_) => normalize_axis(ctx.attr_int("dim")?, rank)?,
                None => rank - 1,
            };
            let mut dims = input.dims().to_vec();
            if k != UNKNOWN_DIM && dims[axis] != UNKNOWN_DIM && k > dims[axis] {
                bail!(
                    "k ({k}) is larger than the size {} of axis {axis} of the input {input}",
                    dims[axis]
                );
            }
            dims[axis] = k;
            Shape::from_dims(dims)
        }
    };
    ctx.set_output_shape(0, out.clone())?;
    ctx.set_output_shape(1, out)?;
    // Both outputs: the input's dims, the axis k (at most the axis if unknown).
    for o in 0..2 {
        range_rules::propagate(ctx, o, |ctx| {
            let mut r = ranges::of_input(ctx, 0)?;
            let axis = match ctx.schema().attr_def("dim") {
                Some(_) => normalize_axis(ctx.attr_int("dim").ok()?, r.len()).ok()?,
                None => r.len().checked_sub(1)?,
            };
            r[axis] = match k {
                UNKNOWN_DIM => range_rules::up_to(r[axis]),
                k => (k, k),
            };
            Some(r)
        })?;
    }
    Ok(())
}
