//! ONNX normalisations over `[N, C, ...]` inputs: `BatchNorm` serves ONNX
//! BatchNormalization (opsets 7–15), `InstanceNormalization` (1–22) and
//! `GroupNormalization` (18, 21). y has x's dtype and shape.
//!
//! BatchNorm takes GE's name but ONNX's inputs (x, scale, b, mean, var) and
//! attributes (epsilon, momentum, training_mode, and opset 7's `spatial`:
//! 0 makes the parameters `x.shape[1:]` instead of `[C]`), where
//! TensorFlow's FusedBatchNorm has NHWC/NCHW 4-D inputs and five outputs.
//! Its `running_mean` / `running_var` outputs (opset 14+, training_mode 1)
//! are DYNAMIC ports with zero or one instance each, shape `[C]`: the IR
//! has no OPTIONAL outputs. Opsets 7–9's training outputs (mean, var,
//! saved_mean, saved_var) are not modelled.
//!
//! GroupNormalization's scale and bias are `[num_groups]` in opset 18 and
//! `[C]` in opset 21; both lengths are accepted.

use super::dims::{channel_vector, merge_dim};
use super::FLOATS;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, Shape, UNKNOWN_DIM};

fn param(name: &str) -> PortDef {
    PortDef::new(name, ParamType::Required).dtype_list(FLOATS)
}

fn y() -> PortDef {
    PortDef::new("y", ParamType::Required).follow("x", FollowType::All)
}

pub(super) fn schemas() -> Vec<OpSchema> {
    let eps = Some(AttrValue::Float(1e-5));
    let running = |name: &str| {
        PortDef::new(name, ParamType::Dynamic)
            .dtype_list(FLOATS)
            .follow("mean", FollowType::Dtype)
    };
    let batch = OpSchema::new("BatchNorm")
        .input(PortDef::new("x", ParamType::Required).dtype_list(FLOATS))
        .input(param("scale"))
        .input(param("b"))
        .input(param("mean"))
        .input(param("var"))
        .output(y())
        .output(running("running_mean"))
        .output(running("running_var"))
        .attr("epsilon", AttrType::Float, eps.clone())
        .attr("momentum", AttrType::Float, Some(AttrValue::Float(0.9)))
        .attr("training_mode", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("spatial", AttrType::Int, Some(AttrValue::Int(1)))
        .verify(op_fn(verify_batch_norm))
        .infer_shape(op_fn(infer_batch_norm));
    let instance = OpSchema::new("InstanceNormalization")
        .input(PortDef::new("x", ParamType::Required).dtype_list(FLOATS))
        .input(param("scale"))
        .input(param("b"))
        .output(y())
        .attr("epsilon", AttrType::Float, eps.clone())
        .verify(op_fn(verify_instance_norm));
    let group = OpSchema::new("GroupNormalization")
        .input(PortDef::new("x", ParamType::Required).dtype_list(FLOATS))
        .input(param("scale"))
        .input(param("bias"))
        .output(y())
        .attr("num_groups", AttrType::Int, None)
        .attr("epsilon", AttrType::Float, eps)
        .attr("stash_type", AttrType::Int, Some(AttrValue::Int(1)))
        .verify(op_fn(verify_group_norm));
    vec![batch, instance, group]
}

/// The channel dim of x (`[N, C, ...]`, rank >= 2), unknown when its rank is.
fn channels(ctx: &OpContext<'_>) -> Result<i64, OpError> {
    let x = ctx.input_shape(0)?;
    match x.dims() {
        _ if x.is_unknown_rank() => Ok(UNKNOWN_DIM),
        [_, c, ..] => Ok(*c),
        _ => bail!("x must have rank >= 2 ([N, C, ...]), got shape {x}"),
    }
}

const BATCH_PARAMS: [&str; 4] = ["scale", "b", "mean", "var"];

/// BatchNorm's C, checked against every parameter (or x.shape[1:] for
/// `spatial` 0).
fn batch_norm_channels(ctx: &OpContext<'_>) -> Result<i64, OpError> {
    let mut c = channels(ctx)?;
    match ctx.attr_int("spatial")? {
        1 => {
            for (i, name) in (1..).zip(BATCH_PARAMS) {
                c = channel_vector(ctx.input_shape(i)?, c, name)?;
            }
        }
        0 => {
            let x = ctx.input_shape(0)?;
            for (i, name) in (1..).zip(BATCH_PARAMS) {
                let p = ctx.input_shape(i)?;
                if let (Some(_), Some(rank)) = (x.rank(), p.rank()) {
                    let want = x.dims().get(1..).unwrap_or_default();
                    if rank != want.len() {
                        bail!("{name} must have x's dims after N ({want:?}) with spatial 0, got shape {p}");
                    }
                    for (&a, &b) in p.dims().iter().zip(want) {
                        merge_dim(a, b, &format!("{name} against x's dims after N"))?;
                    }
                }
            }
        }
        other => bail!("spatial is {other}, expected 0 or 1"),
    }
    Ok(c)
}

fn verify_batch_norm(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    batch_norm_channels(ctx)?;
    match ctx.attr_int("training_mode")? {
        0 | 1 => {}
        other => bail!("training_mode is {other}, expected 0 or 1"),
    }
    let counts = ctx.node_output_counts();
    if counts.iter().skip(1).any(|&c| c > 1) {
        bail!("running_mean and running_var take at most one instance each, got {counts:?}");
    }
    Ok(())
}

fn infer_batch_norm(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let c = batch_norm_channels(ctx)?;
    let stats = if ctx.attr_int("spatial")? == 0 {
        ctx.input_shape(3)?.clone()
    } else {
        Shape::from_dims([c])
    };
    for o in 1..ctx.output_count() {
        ctx.set_output_shape(o, stats.clone())?;
    }
    Ok(())
}

fn verify_instance_norm(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let c = channels(ctx)?;
    let c = channel_vector(ctx.input_shape(1)?, c, "scale")?;
    channel_vector(ctx.input_shape(2)?, c, "b")?;
    Ok(())
}

fn verify_group_norm(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let groups = ctx.attr_int("num_groups")?;
    if groups < 1 {
        bail!("num_groups is {groups}, expected >= 1");
    }
    let c = channels(ctx)?;
    if c != UNKNOWN_DIM && c.checked_rem(groups) != Some(0) {
        bail!("the channels of x ({c}) are not a multiple of num_groups ({groups})");
    }
    for (i, name) in [(1, "scale"), (2, "bias")] {
        let shape = ctx.input_shape(i)?;
        match shape.dims() {
            _ if shape.is_unknown_rank() => {}
            &[n] if n == UNKNOWN_DIM || n == groups || c == UNKNOWN_DIM || n == c => {}
            _ => bail!("{name} must be 1-D with C ({c}) or num_groups ({groups}) values, got shape {shape}"),
        }
    }
    Ok(())
}
