//! PartitionedCall: a call of the body `f`; its outputs are the body's.

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, NamedAttrs};

pub(super) fn schemas() -> Vec<OpSchema> {
    let call = OpSchema::new("PartitionedCall")
        .input(PortDef::new("args", ParamType::Dynamic))
        .output(PortDef::new("output", ParamType::Dynamic))
        .attr(
            "f",
            AttrType::NamedAttrs,
            Some(AttrValue::NamedAttrs(NamedAttrs::default())),
        )
        .infer_dtype(op_fn(copy_body_outputs))
        .infer_shape(op_fn(copy_body_outputs));
    vec![call]
}

fn copy_body_outputs(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(body) = ctx.subgraph("f") else {
        bail!("it has no body named 'f'");
    };
    if body.outputs().len() != ctx.output_count() {
        bail!(
            "its body 'f' has {} outputs but the call has {}",
            body.outputs().len(),
            ctx.output_count()
        );
    }
    for (i, &edge) in body.outputs().iter().enumerate() {
        let desc = body.tensor(edge).clone();
        ctx.set_output_dtype(i, desc.dtype)?;
        ctx.set_output_shape(i, desc.origin_shape)?;
        ctx.set_output_format(i, desc.origin_format)?;
        if let Some(range) = desc.shape_range {
            ctx.set_output_shape_range(i, range)?;
        }
        if let Some(value) = desc.value {
            ctx.set_output_value(i, value)?;
        }
    }
    Ok(())
}
