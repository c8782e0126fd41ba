//! Trilu, ONNX Trilu from opset 14: the upper (`upper` = 1) or lower
//! triangle of each innermost matrix of `x`, shifted by the optional
//! diagonal offset `k`. TensorFlow's MatrixBandPart takes two band widths
//! instead. The output is `x`'s shape and dtype.

use super::INDEX;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue};

pub(super) fn schemas() -> Vec<OpSchema> {
    let trilu = OpSchema::new("Trilu")
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("k", ParamType::Optional).dtype_list(INDEX))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .attr("upper", AttrType::Int, Some(AttrValue::Int(1)))
        .verify(op_fn(verify));
    vec![trilu]
}

fn verify(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let upper = ctx.attr_int("upper")?;
    if upper != 0 && upper != 1 {
        bail!("attribute 'upper' is {upper}; it must be 0 or 1");
    }
    if ctx.input_shape(0)?.rank().is_some_and(|r| r < 2) {
        bail!(
            "x must have rank >= 2 (matrices), got shape {}",
            ctx.input_shape(0)?
        );
    }
    if let Some(k) = ctx.optional_input_desc(1)? {
        if k.shape()
            .num_elements()
            .ok()
            .flatten()
            .is_some_and(|n| n != 1)
        {
            bail!("input 'k' must be one value, got shape {}", k.shape());
        }
    }
    Ok(())
}
