//! Softmax-like ops: the output has the input's shape; what they check is
//! the axis. TensorFlow's Softmax / LogSoftmax normalise the last axis; GE's
//! SoftmaxV2 / LogSoftmaxV2 take `axes` (default `[-1]`).

use super::dtypes::*;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::normalize_axis;
use crate::types::{AttrType, AttrValue};

pub(super) fn schemas() -> Vec<OpSchema> {
    let tf = |op_type: &str, x: &str, y: &str| {
        same_shape(op_type, x, y)
            .verify(op_fn(verify_last_axis))
            .infer_shape(op_fn(infer_same_shape))
    };
    let ge = |op_type: &str| {
        same_shape(op_type, "x", "y")
            .attr(
                "axes",
                AttrType::ListInt,
                Some(AttrValue::ListInt(vec![-1])),
            )
            .verify(op_fn(verify_axes))
            .infer_shape(op_fn(infer_same_shape))
    };
    vec![
        tf("Softmax", "logits", "softmax"),
        tf("LogSoftmax", "logits", "logsoftmax"),
        ge("SoftmaxV2"),
        ge("LogSoftmaxV2"),
    ]
}

fn same_shape(op_type: &str, x: &str, y: &str) -> OpSchema {
    OpSchema::new(op_type)
        .input(PortDef::new(x, ParamType::Required).dtypes(FLOATS))
        .output(
            PortDef::new(y, ParamType::Required)
                .dtypes(FLOATS)
                .follow(x, FollowType::All),
        )
}

/// The input shape, explicitly, so shape functions run after the checks.
pub(super) fn infer_same_shape(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let shape = ctx.input_shape(0)?.clone();
    ctx.set_output_shape(0, shape)?;
    super::range_rules::propagate(ctx, 0, |ctx| crate::ops::ranges::of_input(ctx, 0))
}

/// TensorFlow's Softmax needs at least one axis.
fn verify_last_axis(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if ctx.input_shape(0)?.rank() == Some(0) {
        bail!("the logits must have rank >= 1, got a scalar");
    }
    Ok(())
}

fn verify_axes(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let axes = ctx.attr_ints("axes")?;
    if axes.is_empty() {
        bail!("axes must name at least one axis");
    }
    if let Some(rank) = ctx.input_shape(0)?.rank() {
        let mut seen = vec![false; rank];
        for &axis in axes {
            if std::mem::replace(&mut seen[normalize_axis(axis, rank)?], true) {
                bail!("axes {axes:?} repeat axis {axis}");
            }
        }
    }
    Ok(())
}
