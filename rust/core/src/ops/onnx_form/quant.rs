//! ONNX's quantisation ops (the QDQ and QOperator forms that quantised
//! exports use): QuantizeLinear (opsets 10–23: `y` has the zero point's
//! dtype, else `output_dtype`, else UINT8), DequantizeLinear (10–23: `y`
//! has the scale's dtype, or `output_dtype`), DynamicQuantizeLinear (11:
//! UINT8 `y`, FLOAT scalar scale, UINT8 scalar zero point),
//! MatMulInteger (10: INT32 numpy matmul) and QLinearMatMul (10, 21: `y`
//! has `y_zero_point`'s dtype). Shapes follow ONNX's numpy matmul rule:
//! 1-D operands are promoted and their added dim removed again.

use super::matmul_shape::numpy_matmul;
use super::FLOATS;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType, Shape};

/// ONNX's 8-bit (and wider) quantised integer types.
const QUANTISED: &[DataType] = &[
    DataType::Int8,
    DataType::Uint8,
    DataType::Int16,
    DataType::Uint16,
    DataType::Int32,
    DataType::Int4,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let undefined = || Some(AttrValue::DataType(DataType::Undefined));
    let quantize = OpSchema::new("QuantizeLinear")
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("y_scale", ParamType::Required))
        .input(PortDef::new("y_zero_point", ParamType::Optional))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Format))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("output_dtype", AttrType::DataType, undefined())
        .verify(op_fn(|ctx| check_scale(ctx, 1)))
        .infer_dtype(op_fn(|ctx| {
            let dtype = match ctx.optional_input_desc(2)? {
                Some(zero_point) => zero_point.dtype,
                None => match ctx.attr_dtype("output_dtype")? {
                    DataType::Undefined => DataType::Uint8,
                    dtype => dtype,
                },
            };
            ctx.set_output_dtype(0, dtype)
        }))
        .infer_shape(op_fn(same_shape));
    let dequantize = OpSchema::new("DequantizeLinear")
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("x_scale", ParamType::Required).dtype_list(FLOATS))
        .input(PortDef::new("x_zero_point", ParamType::Optional))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Format))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("output_dtype", AttrType::DataType, undefined())
        .verify(op_fn(|ctx| check_scale(ctx, 1)))
        .infer_dtype(op_fn(|ctx| {
            let dtype = match ctx.attr_dtype("output_dtype")? {
                DataType::Undefined => ctx.input_dtype(1)?,
                dtype => dtype,
            };
            ctx.set_output_dtype(0, dtype)
        }))
        .infer_shape(op_fn(same_shape));
    let dynamic = OpSchema::new("DynamicQuantizeLinear")
        .input(PortDef::new("x", ParamType::Required).dtype_list(&[DataType::Float]))
        .output(PortDef::new("y", ParamType::Required).dtype_list(&[DataType::Uint8]))
        .output(PortDef::new("y_scale", ParamType::Required).dtype_list(&[DataType::Float]))
        .output(PortDef::new("y_zero_point", ParamType::Required).dtype_list(&[DataType::Uint8]))
        .infer_dtype(op_fn(|ctx| {
            ctx.set_output_dtype(0, DataType::Uint8)?;
            ctx.set_output_dtype(1, DataType::Float)?;
            ctx.set_output_dtype(2, DataType::Uint8)
        }))
        .infer_shape(op_fn(|ctx| {
            same_shape(ctx)?;
            ctx.set_output_shape(1, Shape::scalar())?;
            ctx.set_output_shape(2, Shape::scalar())
        }));
    let matmul_integer = OpSchema::new("MatMulInteger")
        .input(PortDef::new("a", ParamType::Required).dtype_list(QUANTISED))
        .input(PortDef::new("b", ParamType::Required).dtype_list(QUANTISED))
        .input(PortDef::new("a_zero_point", ParamType::Optional))
        .input(PortDef::new("b_zero_point", ParamType::Optional))
        .output(PortDef::new("y", ParamType::Required).dtype_list(&[DataType::Int32]))
        .infer_dtype(op_fn(|ctx| ctx.set_output_dtype(0, DataType::Int32)))
        .infer_shape(op_fn(|ctx| matmul(ctx, 0, 1)));
    let mut qlinear = OpSchema::new("QLinearMatMul");
    for name in [
        "a",
        "a_scale",
        "a_zero_point",
        "b",
        "b_scale",
        "b_zero_point",
        "y_scale",
        "y_zero_point",
    ] {
        qlinear = qlinear.input(PortDef::new(name, ParamType::Required));
    }
    let qlinear = qlinear
        .output(PortDef::new("y", ParamType::Required).follow("y_zero_point", FollowType::Dtype))
        .verify(op_fn(|ctx| {
            check_scale(ctx, 1)?;
            check_scale(ctx, 4)?;
            check_scale(ctx, 6)
        }))
        .infer_shape(op_fn(|ctx| matmul(ctx, 0, 3)));
    vec![quantize, dequantize, dynamic, matmul_integer, qlinear]
}

/// A scale is a scalar (per tensor), a vector (per axis) or, for blocked
/// quantisation, a tensor of x's rank; a float either way.
fn check_scale(ctx: &OpContext<'_>, i: usize) -> Result<(), OpError> {
    let dtype = ctx.input_dtype(i)?;
    if !FLOATS.contains(&dtype) {
        bail!("input {i} (a scale) must be a float tensor, got {dtype}");
    }
    Ok(())
}

fn same_shape(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?.clone();
    ctx.set_output_shape(0, x)
}

fn matmul(ctx: &mut OpContext<'_>, a: usize, b: usize) -> Result<(), OpError> {
    let out = numpy_matmul(ctx.input_shape(a)?, ctx.input_shape(b)?)?;
    ctx.set_output_shape(0, out)
}
