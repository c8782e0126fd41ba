//! Identity: passes its input through, value included.

use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};

pub(super) fn schemas() -> Vec<OpSchema> {
    let identity = OpSchema::new("Identity")
        .input(PortDef::new("x", ParamType::Required))
        .output(
            PortDef::new("y", ParamType::Required)
                .follow("x", FollowType::All)
                .reuses_input("x"),
        )
        .fold(op_fn(fold_identity));
    vec![identity]
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
