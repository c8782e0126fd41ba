//! Graph inputs and constants: Data (and TensorFlow's Placeholder), Const.

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType};

pub(super) fn schemas() -> Vec<OpSchema> {
    let input = |op_type: &str| {
        let mut s = OpSchema::new(op_type)
            .output(PortDef::new("y", ParamType::Required))
            .attr("index", AttrType::Int, Some(AttrValue::Int(0)))
            .infer_dtype(op_fn(check_input_desc))
            .infer_shape(op_fn(|_| Ok(())));
        s.source = true;
        s
    };
    // The value lives in the output descriptor (borrowed weights stay
    // unmodelled as attributes); a `value` tensor attribute, when a frontend
    // sets one, takes precedence.
    let mut constant = OpSchema::new("Const")
        .output(PortDef::new("y", ParamType::Required))
        .optional_attr("value")
        .infer_dtype(op_fn(infer_const))
        .infer_shape(op_fn(|_| Ok(())));
    constant.source = true;
    vec![input("Data"), input("Placeholder"), constant]
}

fn check_input_desc(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    match ctx.output_desc(0) {
        Some(d) if d.dtype != DataType::Undefined => Ok(()),
        _ => bail!("the graph input has no dtype; give one when adding it"),
    }
}

/// The value comes from the `value` attribute when set, else it is the host
/// value the Const was built with. A constant without host bytes (a
/// TensorFlow string tensor) keeps the dtype and shape it was built with.
fn infer_const(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if let Some(AttrValue::Tensor(t)) = ctx.attr("value") {
        let t = t.clone();
        ctx.set_output_dtype(0, t.dtype())?;
        ctx.set_output_shape(0, t.shape().clone())?;
        return ctx.set_output_value(0, t);
    }
    match ctx.output_desc(0) {
        Some(d) if d.value.is_some() || d.dtype != DataType::Undefined => Ok(()),
        _ => bail!("the Const has no value"),
    }
}
