//! `OneHotV2` serves ONNX OneHot (opsets 9, 11): indices, depth (a
//! value-depend scalar or 1-element tensor of any numeric type, a float
//! depth truncated as onnxruntime does), values `[off, on]` whose dtype is
//! the output's; the new dim of size depth goes at `axis` (default -1, in
//! `[-(r + 1), r]`). TensorFlow's OneHot instead takes separate on_value /
//! off_value scalars and an int32 depth.

use super::values::floats;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::normalize_axis;
use crate::types::{AttrType, AttrValue, Shape, UNKNOWN_DIM};

/// The largest depth accepted from a float value (beyond, an error).
const MAX_FLOAT_DEPTH: f64 = 9.0e18;

pub(super) fn schemas() -> Vec<OpSchema> {
    let op = OpSchema::new("OneHotV2")
        .input(PortDef::new("indices", ParamType::Required))
        .input(PortDef::new("depth", ParamType::Required).value_depend(ValueDepend::Required))
        .input(PortDef::new("values", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).follow("values", FollowType::Dtype))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(-1)))
        .infer_shape(op_fn(infer_one_hot));
    vec![op]
}

/// The depth when its value is known, checked.
#[allow(
    clippy::cast_possible_truncation,
    reason = "the float is checked finite and inside the int64 range first"
)]
fn depth(ctx: &OpContext<'_>) -> Result<i64, OpError> {
    let shape = ctx.input_shape(1)?;
    if !shape.is_unknown_rank() && !matches!(shape.dims(), [] | [1] | [UNKNOWN_DIM]) {
        bail!("depth must be a scalar or a 1-element tensor, got shape {shape}");
    }
    let Some(value) = ctx.input_value(1) else {
        return Ok(UNKNOWN_DIM);
    };
    let d = match (value.to_ints(), floats(value)) {
        (Some(v), _) => v.first().copied(),
        (None, Some(v)) => match v.first() {
            Some(&f) if f.is_finite() && f.abs() < MAX_FLOAT_DEPTH => Some(f.trunc() as i64),
            Some(&f) => bail!("depth {f} is not a valid size"),
            None => None,
        },
        (None, None) => return Ok(UNKNOWN_DIM),
    };
    match d {
        Some(d) if d < 0 => bail!("depth must be >= 0, got {d}"),
        Some(d) => Ok(d),
        None => Ok(UNKNOWN_DIM),
    }
}

fn infer_one_hot(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let values = ctx.input_shape(2)?;
    if !values.is_unknown_rank() && !matches!(values.dims(), [2] | [UNKNOWN_DIM]) {
        bail!("values must be [off_value, on_value] (shape [2]), got shape {values}");
    }
    let depth = depth(ctx)?;
    let indices = ctx.input_shape(0)?;
    let Some(rank) = indices.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let axis = normalize_axis(ctx.attr_int("axis")?, rank.saturating_add(1))?;
    let mut dims = indices.dims().to_vec();
    dims.insert(axis, depth);
    ctx.set_output_shape(0, Shape::from_dims(dims))
}
