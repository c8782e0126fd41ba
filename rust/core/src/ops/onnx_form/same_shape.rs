//! ONNX ops whose output has x's dtype and shape, with attributes that
//! must fit x's rank: Hardmax (opsets 1–22, `axis`), LpNormalization (1–22,
//! `axis`, `p` 1 or 2), MeanVarianceNormalization (9–22, `axes`),
//! RMSNormalization (23, `axis`, a `scale` broadcasting against the
//! normalised dims) and RotaryEmbedding (23, x `[batch, seq, hidden]` or
//! `[batch, heads, seq, head_size]`).

use super::FLOATS;
use super::{distinct_axes, onnx_axis};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType};

fn like_x(op_type: &str) -> OpSchema {
    OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Required).dtypes(FLOATS))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(FLOATS)
                .follow("x", FollowType::All),
        )
}

pub(super) fn schemas() -> Vec<OpSchema> {
    let int = |v: i64| Some(AttrValue::Int(v));
    let hardmax = like_x("Hardmax")
        .attr("axis", AttrType::Int, int(-1))
        .verify(op_fn(|ctx| check_axis(ctx, "axis")));
    let lp = like_x("LpNormalization")
        .attr("axis", AttrType::Int, int(-1))
        .attr("p", AttrType::Int, int(2))
        .verify(op_fn(|ctx| {
            let p = ctx.attr_int("p")?;
            if p != 1 && p != 2 {
                bail!("p is {p}; LpNormalization takes 1 or 2");
            }
            check_axis(ctx, "axis")
        }));
    let mvn = like_x("MeanVarianceNormalization")
        .attr(
            "axes",
            AttrType::ListInt,
            Some(AttrValue::ListInt(vec![0, 2, 3])),
        )
        .verify(op_fn(|ctx| {
            if let Some(rank) = ctx.input_shape(0)?.rank() {
                distinct_axes(ctx.attr_ints("axes")?, rank, "axes entry")?;
            }
            Ok(())
        }));
    let rms = like_x("RMSNormalization")
        .input(PortDef::new("scale", ParamType::Required).dtypes(FLOATS))
        .attr("axis", AttrType::Int, int(-1))
        .attr("epsilon", AttrType::Float, Some(AttrValue::Float(1e-5)))
        .attr("stash_type", AttrType::Int, int(1))
        .verify(op_fn(verify_rms));
    let rotary = like_x("RotaryEmbedding")
        .input(PortDef::new("cos_cache", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("sin_cache", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("position_ids", ParamType::Optional).dtype_list(&[DataType::Int64]))
        .attr("interleaved", AttrType::Int, int(0))
        .attr("rotary_embedding_dim", AttrType::Int, int(0))
        .attr("num_heads", AttrType::Int, int(0))
        .verify(op_fn(|ctx| {
            let x = ctx.input_shape(0)?;
            if x.rank().is_some_and(|r| r != 3 && r != 4) {
                bail!("x must be [batch, seq, hidden] or [batch, heads, seq, head_size], got shape {x}");
            }
            Ok(())
        }));
    vec![hardmax, lp, mvn, rms, rotary]
}

fn check_axis(ctx: &OpContext<'_>, name: &str) -> Result<(), OpError> {
    if let Some(rank) = ctx.input_shape(0)?.rank() {
        onnx_axis(ctx.attr_int(name)?, rank, name)?;
    }
    Ok(())
}

/// The scale broadcasts against x's dims from `axis` on.
fn verify_rms(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    check_axis(ctx, "axis")?;
    let (x, scale) = (ctx.input_shape(0)?, ctx.input_shape(1)?);
    let (Some(rank), Some(_)) = (x.rank(), scale.rank()) else {
        return Ok(());
    };
    let axis = onnx_axis(ctx.attr_int("axis")?, rank, "axis")?;
    let normalised = crate::types::Shape::from_dims(&x.dims()[axis..]);
    if crate::ops::broadcast_shapes(&normalised, scale)
        .ok()
        .is_none_or(|b| b.rank() != normalised.rank())
    {
        bail!("scale {scale} does not broadcast against the normalised dims {normalised} of x {x}");
    }
    Ok(())
}
