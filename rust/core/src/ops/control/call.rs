//! PartitionedCall / StatefulPartitionedCall: a call of the body `f`; its
//! outputs are the body's.

use super::body::{body_outputs, check_output_count, set_output};
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue};

pub(super) fn schemas() -> Vec<OpSchema> {
    ["PartitionedCall", "StatefulPartitionedCall"]
        .into_iter()
        .map(call)
        .collect()
}

fn call(op_type: &str) -> OpSchema {
    let text = || Some(AttrValue::Str(String::new()));
    OpSchema::new(op_type)
        .input(PortDef::new("args", ParamType::Dynamic))
        .output(PortDef::new("output", ParamType::Dynamic))
        .attr(
            "f",
            AttrType::NamedAttrs,
            Some(AttrValue::NamedAttrs(Box::default())),
        )
        .attr("config", AttrType::Str, text())
        .attr("config_proto", AttrType::Str, text())
        .attr("executor_type", AttrType::Str, text())
        .infer_dtype(op_fn(copy_body_outputs))
        .infer_shape(op_fn(copy_body_outputs))
}

fn copy_body_outputs(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let outputs = body_outputs(ctx, "f")?;
    check_output_count(ctx, "call", "f", &outputs)?;
    for (i, desc) in outputs.into_iter().enumerate() {
        set_output(ctx, i, desc)?;
    }
    Ok(())
}
