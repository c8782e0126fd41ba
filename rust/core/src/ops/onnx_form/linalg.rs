//! Det, ONNX Det (opsets 11–22): the determinant of each innermost square
//! matrix of x, `[*, M, M]` → `[*]`, in x's dtype.

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let floats = [
        DataType::Float16,
        DataType::Bf16,
        DataType::Float,
        DataType::Double,
    ];
    vec![OpSchema::new("Det")
        .input(PortDef::new("x", ParamType::Required).dtype_list(&floats))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .infer_shape(op_fn(infer_det))]
}

fn infer_det(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    if x.is_unknown_rank() {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    }
    let [batch @ .., m, n] = x.dims() else {
        bail!("x must be [*, M, M] (rank >= 2), got shape {x}");
    };
    if *m != UNKNOWN_DIM && *n != UNKNOWN_DIM && m != n {
        bail!("x's innermost matrices must be square, got shape {x}");
    }
    let out = Shape::from_dims(batch);
    ctx.set_output_shape(0, out)
}
