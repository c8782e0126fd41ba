//! Identity: passes its input through, value included; EnsureShape does
//! too, and asserts a shape.

use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::nn::dims::merge_shapes;
use crate::ops::nn::range_rules;
use crate::types::{AttrType, Shape, UNKNOWN_RANK};

pub(super) fn schemas() -> Vec<OpSchema> {
    let identity = OpSchema::new("Identity")
        .input(PortDef::new("x", ParamType::Required))
        .output(
            PortDef::new("y", ParamType::Required)
                .follow("x", FollowType::All)
                .reuses_input("x"),
        )
        .fold(op_fn(fold_identity));
    // TensorFlow's EnsureShape: `shape` has -1 for a dim it leaves open, or
    // is [-2] for no assertion at all.
    let ensure_shape = OpSchema::new("EnsureShape")
        .input(PortDef::new("x", ParamType::Required))
        .output(
            PortDef::new("y", ParamType::Required)
                .follow("x", FollowType::All)
                .reuses_input("x"),
        )
        .attr("shape", AttrType::ListInt, None)
        .infer_shape(op_fn(infer_ensure_shape))
        .fold(op_fn(fold_identity));
    vec![identity, ensure_shape]
}

/// x's shape merged with the asserted one: a dim x leaves unknown takes the
/// asserted size, and a known dim that differs is an error.
fn infer_ensure_shape(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let asserted = ctx.attr_ints("shape")?;
    if asserted == [UNKNOWN_RANK] {
        return Ok(()); // x's shape and range follow
    }
    if let Some(bad) = asserted.iter().find(|&&d| d < -1) {
        crate::bail!("shape has dim {bad}; dims must be >= 0, or -1 for unknown");
    }
    let asserted = Shape::new(asserted).map_err(|e| OpError::new(format!("shape: {e}")))?;
    let x = ctx.input_shape(0)?;
    let merged = merge_shapes(
        x,
        &asserted,
        "x does not have the shape EnsureShape asserts",
    )?;
    ctx.set_output_shape(0, merged)?;
    range_rules::copy(ctx, 0, 0)
}

/// Identity passes a known value (or partial shape value and value range)
/// through.
fn fold_identity(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input(0)?;
    let (value, shape_value) = (input.value.clone(), input.shape_value.as_deref().cloned());
    let bounds = input.value_range.clone();
    if let Some(list) = input.list {
        ctx.set_output_list(0, list)?;
    }
    if let Some(value) = value {
        ctx.set_output_value(0, value)?;
    }
    if let Some(shape_value) = shape_value {
        ctx.set_output_shape_value(0, shape_value)?;
    }
    if let Some(bounds) = bounds {
        ctx.set_output_value_range(0, bounds.to_vec())?;
    }
    Ok(())
}
