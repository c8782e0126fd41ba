//! ONNX's variadic element-wise ops over any number of inputs with numpy
//! broadcasting across all of them: `MaxN` (Max), `MinN` (Min), `SumN`
//! (Sum) and `MeanN` (Mean), opsets 8 on. GE's AddN needs equal shapes and
//! TensorFlow's Maximum / Minimum take two inputs, so a Sum or Max of three
//! broadcasting inputs has no single GE op. `y` has the inputs' dtype.

use super::{FLOATS, NUMBERS};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::broadcast_shapes;
use crate::types::Shape;

pub(super) fn schemas() -> Vec<OpSchema> {
    [
        ("MaxN", NUMBERS),
        ("MinN", NUMBERS),
        ("SumN", FLOATS),
        ("MeanN", FLOATS),
    ]
    .into_iter()
    .map(|(op_type, dtypes)| {
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Dynamic).dtype_list(dtypes))
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
            .verify(op_fn(verify))
            .infer_shape(op_fn(infer))
    })
    .collect()
}

fn verify(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let n = ctx.input_count();
    if n == 0 {
        bail!("it needs at least one input");
    }
    let first = ctx.input_dtype(0)?;
    for i in 1..n {
        let dtype = ctx.input_dtype(i)?;
        if dtype != first {
            bail!("input {i} is {dtype} but input 0 is {first}; every input must share one dtype");
        }
    }
    Ok(())
}

fn infer(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let mut out: Shape = ctx.input_shape(0)?.clone();
    for i in 1..ctx.input_count() {
        let next = ctx.input_shape(i)?;
        out = broadcast_shapes(&out, next)
            .map_err(|e| OpError::new(format!("input {i} does not broadcast: {e}")))?;
    }
    ctx.set_output_shape(0, out)
}
