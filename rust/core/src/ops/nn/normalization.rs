//! Normalisation over feature dims: GE's LayerNorm (outputs y, mean,
//! variance) and LRN (TensorFlow's attributes, Caffe's `norm_region`).

use super::dims::merge_dim;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::normalize_axis;
use crate::types::{AttrType, AttrValue, DataType, Dims, Shape};

const FLOATS: &[DataType] = &[DataType::Float16, DataType::Float, DataType::Bf16];

pub(super) fn schemas() -> Vec<OpSchema> {
    let layer_norm = OpSchema::new("LayerNorm")
        .input(PortDef::new("x", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("gamma", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("beta", ParamType::Required).dtypes(FLOATS))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .output(PortDef::new("mean", ParamType::Required).follow("x", FollowType::Dtype))
        .output(PortDef::new("variance", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("begin_norm_axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("begin_params_axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("epsilon", AttrType::Float, Some(AttrValue::Float(1e-7)))
        .infer_shape(op_fn(infer_layer_norm));
    let lrn = OpSchema::new("LRN")
        .input(PortDef::new("x", ParamType::Required).dtype_list(FLOATS))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .attr("depth_radius", AttrType::Int, Some(AttrValue::Int(5)))
        .attr("bias", AttrType::Float, Some(AttrValue::Float(1.0)))
        .attr("alpha", AttrType::Float, Some(AttrValue::Float(1.0)))
        .attr("beta", AttrType::Float, Some(AttrValue::Float(0.5)))
        .attr(
            "norm_region",
            AttrType::Str,
            Some(AttrValue::Str("ACROSS_CHANNELS".into())),
        )
        .verify(op_fn(verify_lrn));
    vec![layer_norm, lrn]
}

/// gamma and beta cover x's dims from `begin_params_axis`; mean and
/// variance keep x's dims before `begin_norm_axis` and are 1 after it.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_layer_norm(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?.clone();
    let Some(rank) = x.rank() else {
        ctx.set_output_shape(1, Shape::unknown_rank())?;
        return ctx.set_output_shape(2, Shape::unknown_rank());
    };
    if rank == 0 {
        bail!("x must be at least 1-D");
    }
    let norm_axis = normalize_axis(ctx.attr_int("begin_norm_axis")?, rank)?;
    let params_axis = normalize_axis(ctx.attr_int("begin_params_axis")?, rank)?;
    let expected = &x.dims()[params_axis..];
    for (i, name) in [(1, "gamma"), (2, "beta")] {
        let p = ctx.input_shape(i)?;
        if p.is_unknown_rank() {
            continue;
        }
        if p.dims().len() != expected.len() {
            bail!(
                "{name} has shape {p} but x {x} from begin_params_axis {params_axis} has {} dims",
                expected.len()
            );
        }
        for (&a, &b) in p.dims().iter().zip(expected) {
            merge_dim(a, b, &format!("{name} {p} vs x {x} from begin_params_axis"))?;
        }
    }
    let stats: Dims = x
        .dims()
        .iter()
        .enumerate()
        .map(|(i, &d)| if i < norm_axis { d } else { 1 })
        .collect();
    ctx.set_output_shape(1, Shape::from_dims(&stats))?;
    ctx.set_output_shape(2, Shape::from_dims(stats))?;
    let ones = vec![(1, 1); rank - norm_axis];
    super::range_rules::prefix_then(ctx, 1, 0, norm_axis, &ones)?;
    super::range_rules::prefix_then(ctx, 2, 0, norm_axis, &ones)
}

fn verify_lrn(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let radius = ctx.attr_int("depth_radius")?;
    if radius < 0 {
        bail!("depth_radius is {radius}, expected >= 0");
    }
    let region = ctx.attr_str("norm_region")?;
    if region != "ACROSS_CHANNELS" && region != "WITHIN_CHANNEL" {
        bail!("norm_region is '{region}', expected ACROSS_CHANNELS or WITHIN_CHANNEL");
    }
    let x = ctx.input_shape(0)?;
    if let Some(r) = x.rank() {
        if r != 4 {
            bail!("x must be 4-D, got shape {x}");
        }
    }
    Ok(())
}
