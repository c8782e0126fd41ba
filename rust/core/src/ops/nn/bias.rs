//! Per-channel affine ops whose output has the input's shape: BiasAdd
//! (TensorFlow), Bias and Scale (Caffe, a parameter blob spanning
//! `num_axes` dims from `axis`) and PRelu (Caffe PReLU, GE's name).

use super::dims::{check_vector, merge_dim};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::normalize_axis;
use crate::types::{AttrType, AttrValue, DataType, Shape};

const BIAS_ADD_TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Float,
    DataType::Double,
    DataType::Bf16,
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::Uint8,
    DataType::Uint16,
    DataType::Complex64,
    DataType::Complex128,
];
const FLOATS: &[DataType] = &[DataType::Float16, DataType::Float, DataType::Bf16];

fn follows_x(op_type: &str, types: &[DataType], second: &str) -> OpSchema {
    OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Required).dtypes(types))
        .input(PortDef::new(second, ParamType::Required).dtypes(types))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(types)
                .follow("x", FollowType::All),
        )
}

pub(super) fn schemas() -> Vec<OpSchema> {
    let bias_add = follows_x("BiasAdd", BIAS_ADD_TYPES, "bias")
        .attr(
            "data_format",
            AttrType::Str,
            Some(AttrValue::Str("NHWC".into())),
        )
        .verify(op_fn(verify_bias_add))
        .infer_shape(op_fn(infer_bias_add));
    let bias = follows_x("Bias", FLOATS, "bias")
        .attr("axis", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("num_axes", AttrType::Int, Some(AttrValue::Int(1)))
        .attr(
            "bias_from_blob",
            AttrType::Bool,
            Some(AttrValue::Bool(true)),
        )
        .verify(op_fn(verify_bias))
        .weight_shapes(super::weight_shapes::affine);
    let scale = follows_x("Scale", FLOATS, "scale")
        .input(PortDef::new("bias", ParamType::Optional).dtypes(FLOATS))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("num_axes", AttrType::Int, Some(AttrValue::Int(1)))
        .attr(
            "scale_from_blob",
            AttrType::Bool,
            Some(AttrValue::Bool(true)),
        )
        .verify(op_fn(verify_scale))
        .weight_shapes(super::weight_shapes::affine);
    let prelu = |name: &str| {
        follows_x(name, FLOATS, "weight")
            .verify(op_fn(verify_prelu))
            .weight_shapes(super::weight_shapes::prelu)
    };
    vec![bias_add, bias, scale, prelu("PRelu"), prelu("PReLU")]
}

/// The bias length must equal the channel dim: the last for NHWC / NDHWC,
/// dim 1 for NCHW / NCDHW (which need rank >= 3, as TensorFlow requires).
fn verify_bias_add(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let bias = ctx.input_shape(1)?;
    match channel_axis(ctx)? {
        Some(c) => check_vector(bias, ctx.input_shape(0)?.dims()[c], "bias"),
        None => check_vector(bias, -1, "bias"),
    }
}

/// x's shape, with an unknown channel dim taken from the bias length (as
/// TensorFlow's shape function merges them).
fn infer_bias_add(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let (Some(c), [length]) = (channel_axis(ctx)?, ctx.input_shape(1)?.dims()) else {
        return Ok(()); // x's shape and range follow
    };
    let mut dims = x.dims().to_vec();
    dims[c] = merge_dim(
        dims[c],
        *length,
        "the bias length differs from x's channel dim",
    )?;
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    super::range_rules::copy(ctx, 0, 0)
}

/// BiasAdd's channel axis in x, by `data_format`; None for an unknown rank.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn channel_axis(ctx: &OpContext<'_>) -> Result<Option<usize>, OpError> {
    let format = ctx.attr_str("data_format")?;
    let channels_last = match format {
        "NHWC" | "NDHWC" => true,
        "NCHW" | "NCDHW" => false,
        other => bail!("data_format is '{other}', expected NHWC, NCHW, NDHWC or NCDHW"),
    };
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        return Ok(None);
    };
    let min_rank = if channels_last { 2 } else { 3 };
    if rank < min_rank {
        bail!("x must have rank >= {min_rank} for data_format {format}, got shape {x}");
    }
    Ok(Some(if channels_last { rank - 1 } else { 1 }))
}

/// Caffe's rule for a parameter blob applied to `x` from `axis`: its dims
/// must equal `x`'s dims `axis .. axis + blob rank`; with `num_axes` >= 0 the
/// blob spans exactly that many dims (a scalar blob spans none).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn check_param_blob(
    x: &Shape,
    blob: &Shape,
    axis: i64,
    num_axes: Option<i64>,
    what: &str,
) -> Result<(), OpError> {
    let (Some(rank), Some(blob_rank)) = (x.rank(), blob.rank()) else {
        return Ok(());
    };
    // A one-element blob is a scalar multiplier/offset (Caffe allows it).
    if blob.dims().iter().all(|&d| d == 1) {
        return Ok(());
    }
    let start = normalize_axis(axis, rank)?;
    if let Some(n) = num_axes {
        if n < -1 {
            bail!("num_axes is {n}, expected >= -1");
        }
        let span = if n == -1 { rank - start } else { n as usize };
        if span != blob_rank {
            bail!(
                "{what} has shape {blob} but axis {axis} / num_axes {n} of x {x} span {span} dims"
            );
        }
    }
    if start + blob_rank > rank {
        bail!("{what} shape {blob} does not fit x {x} from axis {axis}");
    }
    for (i, &d) in blob.dims().iter().enumerate() {
        merge_dim(
            d,
            x.dims()[start + i],
            &format!("{what} dim {i} vs x dim {}", start + i),
        )?;
    }
    Ok(())
}

fn verify_bias(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let num_axes = ctx
        .attr_bool("bias_from_blob")?
        .then(|| ctx.attr_int("num_axes"))
        .transpose()?;
    check_param_blob(
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.attr_int("axis")?,
        num_axes,
        "bias",
    )
}

fn verify_scale(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let scale = ctx.input_shape(1)?;
    let axis = ctx.attr_int("axis")?;
    let num_axes = ctx
        .attr_bool("scale_from_blob")?
        .then(|| ctx.attr_int("num_axes"))
        .transpose()?;
    check_param_blob(x, scale, axis, num_axes, "scale")?;
    if let Some(bias) = ctx.optional_input_desc(2)? {
        check_param_blob(x, bias.shape(), axis, num_axes, "bias")?;
    }
    Ok(())
}

/// The slope is shared (one element) or per channel (dim 1 of x).
fn verify_prelu(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let weight = ctx.input_shape(1)?;
    let channels = match x.dims() {
        _ if x.is_unknown_rank() => -1,
        [] => 1,
        [c] => *c,
        d => d[1],
    };
    if weight.is_unknown_rank() {
        return Ok(());
    }
    let count = super::dims::product(weight.dims())?;
    if count == 1 || count == -1 {
        return Ok(());
    }
    // Per-channel slopes: [C] or C followed by ones ([C, 1, 1]).
    match weight.dims() {
        [c, rest @ ..] if rest.iter().all(|&d| d == 1) => {
            merge_dim(*c, channels, "the PReLU weight length vs x's channels").map(|_| ())
        }
        _ => bail!(
            "the PReLU weight has shape {weight}; expected one element or [C] with C = {channels}"
        ),
    }
}
