//! ROIAlign (GE; ONNX RoiAlign): one `output_height x output_width` pooled
//! window of the NCHW features `x` per region of interest. `rois` is
//! `[num_rois, 4]` and `batch_indices` `[num_rois]` (which image each
//! region reads); the output is `[num_rois, C, output_height,
//! output_width]` in x's dtype. How many regions there are is their count,
//! often data-dependent (after NonMaxSuppression).

use super::dims::{merge_dim, with_rank};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges::{self, ANY};
use crate::types::{AttrType, AttrValue, DataType, Shape};

const FLOATS: &[DataType] = &[
    DataType::Float16,
    DataType::Float,
    DataType::Double,
    DataType::Bf16,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let int = |v: i64| Some(AttrValue::Int(v));
    let roi_align = OpSchema::new("ROIAlign")
        .input(PortDef::new("x", ParamType::Required).dtype_list(FLOATS))
        .input(PortDef::new("rois", ParamType::Required).dtype_list(FLOATS))
        .input(
            PortDef::new("batch_indices", ParamType::Required)
                .dtype_list(&[DataType::Int32, DataType::Int64]),
        )
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("output_height", AttrType::Int, int(1))
        .attr("output_width", AttrType::Int, int(1))
        .attr("sampling_ratio", AttrType::Int, int(0))
        .attr(
            "spatial_scale",
            AttrType::Float,
            Some(AttrValue::Float(1.0)),
        )
        .attr("mode", AttrType::Str, Some(AttrValue::Str("avg".into())))
        .attr(
            "coordinate_transformation_mode",
            AttrType::Str,
            Some(AttrValue::Str("half_pixel".into())),
        )
        .verify(op_fn(verify_roi_align))
        .infer_shape(op_fn(infer_roi_align));
    vec![roi_align]
}

fn verify_roi_align(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    for name in ["output_height", "output_width"] {
        let v = ctx.attr_int(name)?;
        if v < 1 {
            bail!("{name} is {v}; it must be >= 1");
        }
    }
    if ctx.attr_int("sampling_ratio")? < 0 {
        bail!("sampling_ratio must be >= 0 (0: adaptive)");
    }
    match ctx.attr_str("mode")? {
        "avg" | "max" => Ok(()),
        other => bail!("mode is '{other}', expected avg or max"),
    }
}

fn infer_roi_align(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = with_rank(ctx.input_shape(0)?, 4, "features x")?;
    let rois = with_rank(ctx.input_shape(1)?, 2, "rois")?;
    merge_dim(rois[1], 4, "rois must be [num_rois, 4]; its last dim")?;
    let indices = with_rank(ctx.input_shape(2)?, 1, "batch_indices")?;
    let n = merge_dim(
        rois[0],
        indices[0],
        "rois and batch_indices disagree on num_rois",
    )?;
    let (h, w) = (
        ctx.attr_int("output_height")?,
        ctx.attr_int("output_width")?,
    );
    ctx.set_output_shape(0, Shape::from_dims([n, x[1], h, w]))?;
    if ranges::wanted(ctx, 0) {
        let of = |i: usize, rank: usize| {
            ranges::of_input(ctx, i)
                .filter(|r| r.len() == rank)
                .unwrap_or_else(|| vec![ANY; rank])
        };
        let rois = ranges::intersect(of(1, 2)[0], of(2, 1)[0]).unwrap_or(ANY);
        ranges::set(ctx, 0, vec![rois, of(0, 4)[1], (h, h), (w, w)])?;
    }
    Ok(())
}
