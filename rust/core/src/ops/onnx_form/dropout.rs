//! ONNX's Dropout at inference, where it must keep what Identity cannot:
//! `ratio` and `training_mode` inputs (opset 12) and the `mask` output.
//! `output` is x itself (a view, as Identity), `mask` all true in x's shape,
//! BOOL (opset 10 on; `bool_mask`) or x's dtype (before).
//! Neither input changes a shape. x's value passes through unless
//! `training_mode` may be true (then the output is random). (The ONNX
//! plugin maps a Dropout with one input and no mask to Identity.)

use super::at_most_outputs;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::types::{AttrType, AttrValue, DataType};

pub(super) fn schemas() -> Vec<OpSchema> {
    let dropout = OpSchema::new("OnnxDropout")
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("ratio", ParamType::Optional))
        .input(
            PortDef::new("training_mode", ParamType::Optional)
                .dtype_list(&[DataType::Bool])
                .value_depend(ValueDepend::Optional),
        )
        .output(
            PortDef::new("y", ParamType::Required)
                .follow("x", FollowType::All)
                .reuses_input("x"),
        )
        .output(PortDef::new("mask", ParamType::Dynamic))
        .attr("bool_mask", AttrType::Bool, Some(AttrValue::Bool(true)))
        .verify(at_most_outputs(2, "output, mask"))
        .infer_dtype(op_fn(|ctx| {
            mask(ctx, |ctx| ctx.set_output_dtype(1, DataType::Bool))
        }))
        .infer_shape(op_fn(|ctx| {
            let x = ctx.input_shape(0)?.clone();
            mask(ctx, |ctx| ctx.set_output_shape(1, x))
        }))
        .fold(op_fn(fold));
    vec![dropout]
}

/// x's value, when the node does not train (no `training_mode`, or a known
/// false one).
fn fold(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let training = match ctx.optional_input_desc(2)? {
        None => false,
        Some(_) => ctx
            .input_value(2)
            .is_none_or(|mode| mode.bytes().as_ref().iter().any(|&b| b != 0)),
    };
    match ctx.input(0)?.value.clone() {
        Some(value) if !training => ctx.set_output_value(0, value),
        _ => Ok(()),
    }
}

/// `set` on the mask output, when the node has one.
fn mask(
    ctx: &mut OpContext<'_>,
    set: impl FnOnce(&mut OpContext<'_>) -> Result<(), OpError>,
) -> Result<(), OpError> {
    if ctx.output_count() > 1 {
        set(ctx)?;
    }
    Ok(())
}
