//! CenterCropPad (ONNX opset 18): crops or pads `input_data` about its
//! centre so that the dims listed in `axes` (all dims when empty) take the
//! sizes of the value-depend `shape`.

use super::distinct_axes;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    vec![OpSchema::new("CenterCropPad")
        .input(PortDef::new("input_data", ParamType::Required))
        .input(
            PortDef::new("shape", ParamType::Required)
                .dtype_list(&[DataType::Int32, DataType::Int64])
                .value_depend(ValueDepend::Optional),
        )
        .output(
            PortDef::new("output_data", ParamType::Required)
                .follow("input_data", FollowType::Dtype),
        )
        .attr(
            "axes",
            AttrType::ListInt,
            Some(AttrValue::ListInt(Vec::new())),
        )
        .infer_shape(op_fn(infer_crop_pad))]
}

fn infer_crop_pad(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let axes = match ctx.attr_ints("axes")? {
        [] => (0..rank).collect(),
        listed => distinct_axes(listed, rank, "axes entry")?,
    };
    let sizes = ctx.input_value(1).and_then(|v| v.to_ints());
    if let Some(s) = &sizes {
        if s.len() != axes.len() {
            bail!("shape has {} values for {} axes", s.len(), axes.len());
        }
        if let Some(d) = s.iter().find(|&&d| d < 0) {
            bail!("shape {s:?} has {d}; every size must be >= 0");
        }
    }
    let mut dims = input.dims().to_vec();
    for (k, &a) in axes.iter().enumerate() {
        dims[a] = sizes.as_ref().map_or(UNKNOWN_DIM, |s| s[k]);
    }
    ctx.set_output_shape(0, Shape::from_dims(dims))
}
