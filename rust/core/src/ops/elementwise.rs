//! Element-wise ops: Identity and broadcasting binary arithmetic.

use super::broadcast_shapes;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::DataType;

/// The dtypes TensorFlow's Add accepts (strings aside), as GE lists them.
const ARITHMETIC: &[DataType] = &[
    DataType::Float,
    DataType::Float16,
    DataType::Bf16,
    DataType::Double,
    DataType::Int8,
    DataType::Uint8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::Complex64,
    DataType::Complex128,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let identity = OpSchema::new("Identity")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .fold(op_fn(fold_identity));
    vec![identity, binary("Add")]
}

/// `y = x1 op x2` with numpy broadcasting; the dtypes must match.
fn binary(op_type: &str) -> OpSchema {
    OpSchema::new(op_type)
        .input(PortDef::new("x1", ParamType::Required).dtypes(ARITHMETIC))
        .input(PortDef::new("x2", ParamType::Required).dtypes(ARITHMETIC))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(ARITHMETIC)
                .follow("x1", FollowType::Format),
        )
        .infer_shape(op_fn(infer_broadcast))
}

/// Identity passes a known value (or partial shape value) through.
fn fold_identity(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input(0)?;
    let (value, shape_value) = (input.value.clone(), input.shape_value.clone());
    if let Some(value) = value {
        ctx.set_output_value(0, value)?;
    }
    if let Some(shape_value) = shape_value {
        ctx.set_output_shape_value(0, shape_value)?;
    }
    Ok(())
}

fn infer_broadcast(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let shape = broadcast_shapes(ctx.input_shape(0)?, ctx.input_shape(1)?).map_err(OpError::new)?;
    ctx.set_output_shape(0, shape)
}
