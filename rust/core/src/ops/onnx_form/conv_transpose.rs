//! `ConvTranspose` serves ONNX ConvTranspose (opsets 1–22), 1-D to 3-D
//! spatial: x `[N, C_in, spatial...]`, filter `[C_in, C_out / group,
//! k...]`, bias OPTIONAL `[C_out]`. Unlike TensorFlow's Conv2DBackpropInput
//! / GE's Conv2DTranspose (an `input_size` input, 4-D data_format lists),
//! the output size comes from ONNX's formula
//! `stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pads`,
//! or is `in * stride` for SAME_UPPER / SAME_LOWER (at most the unpadded
//! size: SAME never pads negatively), or is `output_shape`
//! when given (the pads are then derived from it and do not change the
//! shape). `output_shape` may list the spatial dims or all dims (the last
//! ones are taken, as onnxruntime does).

use super::dims::{channel_vector, merge_dim};
use super::window::{per_axis, to_i64, AutoPad};
use super::FLOATS;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::mul_dims;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, Shape, UNKNOWN_DIM};

/// The largest spatial rank ONNX ConvTranspose kernels are used with here.
const MAX_SPATIAL: usize = 3;

pub(super) fn schemas() -> Vec<OpSchema> {
    let list = || Some(AttrValue::ListInt(Vec::new()));
    let op = OpSchema::new("ConvTranspose")
        .input(PortDef::new("x", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("filter", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("bias", ParamType::Optional).dtypes(FLOATS))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(FLOATS)
                .follow("x", FollowType::Format),
        )
        .attr("strides", AttrType::ListInt, list())
        .attr("pads", AttrType::ListInt, list())
        .attr("dilations", AttrType::ListInt, list())
        .attr("output_padding", AttrType::ListInt, list())
        .attr("output_shape", AttrType::ListInt, list())
        .attr("kernel_shape", AttrType::ListInt, list())
        .attr("group", AttrType::Int, Some(AttrValue::Int(1)))
        .attr(
            "auto_pad",
            AttrType::Str,
            Some(AttrValue::Str("NOTSET".into())),
        )
        .infer_shape(op_fn(infer_conv_transpose));
    vec![op]
}

/// The spatial rank: from x, else the filter, else kernel_shape.
fn spatial_rank(ctx: &OpContext<'_>) -> Result<Option<usize>, OpError> {
    let from = |s: &Shape| s.rank().map(|r| r.checked_sub(2));
    let rank = match (from(ctx.input_shape(0)?), from(ctx.input_shape(1)?)) {
        (Some(a), Some(b)) if a != b => bail!(
            "x {} and filter {} must have the same rank",
            ctx.input_shape(0)?,
            ctx.input_shape(1)?
        ),
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => {
            let k = ctx.attr_ints("kernel_shape")?;
            (!k.is_empty()).then_some(k.len())
        }
    };
    match rank {
        Some(0) => bail!("x and filter need at least one spatial dim ([N, C, spatial...])"),
        Some(r) if r > MAX_SPATIAL => {
            bail!("{r} spatial dims; ConvTranspose takes 1 to {MAX_SPATIAL}")
        }
        Some(r) => Ok(Some(r)),
        None if ctx.input_shape(0)?.rank().is_some() => {
            bail!(
                "x must have rank >= 3 ([N, C, spatial...]), got shape {}",
                ctx.input_shape(0)?
            )
        }
        None if ctx.input_shape(1)?.rank().is_some() => {
            bail!(
                "filter must have rank >= 3, got shape {}",
                ctx.input_shape(1)?
            )
        }
        None => Ok(None),
    }
}

fn dims_or_unknown(shape: &Shape, rank: usize) -> Vec<i64> {
    match shape.rank() {
        Some(_) => shape.dims().to_vec(),
        None => vec![UNKNOWN_DIM; rank],
    }
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; indices are below the checked spatial rank"
)]
fn infer_conv_transpose(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let group = ctx.attr_int("group")?;
    if group < 1 {
        bail!("group is {group}, expected >= 1");
    }
    let auto_pad = AutoPad::parse(ctx.attr_str("auto_pad")?)?;
    let Some(n) = spatial_rank(ctx)? else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let x = dims_or_unknown(ctx.input_shape(0)?, n + 2);
    let w = dims_or_unknown(ctx.input_shape(1)?, n + 2);
    let c_in = merge_dim(
        x[1],
        w[0],
        "the channels of x and the filter's first dim (C_in) differ",
    )?;
    if c_in != UNKNOWN_DIM && c_in % group != 0 {
        bail!("the input channels {c_in} are not a multiple of group {group}");
    }
    let c_out = mul_dims(w[1], group)?;
    if let Some(bias) = ctx.input_desc(2) {
        channel_vector(bias.shape(), c_out, "bias")?;
    }
    let mut kernel: Vec<i64> = w[2..].to_vec();
    let given = ctx.attr_ints("kernel_shape")?;
    if !given.is_empty() {
        if given.len() != n {
            bail!("kernel_shape has {} values, expected {n}", given.len());
        }
        for (k, &g) in kernel.iter_mut().zip(given) {
            *k = merge_dim(*k, g, "kernel_shape and the filter's spatial dims differ")?;
        }
    }
    if let Some(k) = kernel.iter().find(|&&k| k != UNKNOWN_DIM && k < 1) {
        bail!("the kernel {kernel:?} has {k}; every kernel dim must be >= 1");
    }
    let strides = per_axis(ctx, "strides", n, 1, 1)?;
    let dilations = per_axis(ctx, "dilations", n, 1, 1)?;
    let output_padding = per_axis(ctx, "output_padding", n, 0, 0)?;
    let pads = per_axis(ctx, "pads", 2 * n, 0, 0)?;
    if let Some(i) = (0..n).find(|&i| output_padding[i] >= strides[i].max(dilations[i])) {
        bail!(
            "output_padding {output_padding:?} must be below the stride or dilation along spatial axis {i}"
        );
    }
    let output_shape = ctx.attr_ints("output_shape")?;
    let fixed: Option<&[i64]> = match output_shape.len() {
        0 => None,
        len if len == n || len == n + 2 => Some(&output_shape[len - n..]),
        len => bail!("output_shape has {len} values, expected {n} (or {})", n + 2),
    };
    let mut out = vec![x[0], c_out];
    let mut spatial = Vec::with_capacity(n);
    for i in 0..n {
        if let Some(fixed) = fixed {
            if fixed[i] < 0 {
                bail!("output_shape {output_shape:?} has a negative dim");
            }
            out.push(fixed[i]);
            continue;
        }
        let axis = SpatialAxis {
            index: i,
            stride: strides[i],
            kernel: kernel[i],
            dilation: dilations[i],
            output_padding: output_padding[i],
            pads: if auto_pad == AutoPad::Valid {
                (0, 0)
            } else {
                (pads[i], pads[i + n])
            },
            same: matches!(auto_pad, AutoPad::SameUpper | AutoPad::SameLower),
        };
        out.push(axis.output(x[i + 2])?);
        spatial.push(axis);
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    // Ranges: N passes through, each computed spatial dim is monotonic in
    // its input dim (fixed output_shape dims and C are known).
    if ranges::wanted(ctx, 0) {
        if let Some(mut r) = ranges::of_input(ctx, 0).filter(|r| r.len() == n + 2) {
            r[1] = ranges::ANY;
            for axis in &spatial {
                r[axis.index + 2] = ranges::monotonic(r[axis.index + 2], |d| axis.output(d));
            }
            ranges::set(ctx, 0, r)?;
        }
    }
    Ok(())
}

/// One spatial axis whose output size the formula gives (no output_shape).
struct SpatialAxis {
    index: usize,
    stride: i64,
    kernel: i64,
    dilation: i64,
    output_padding: i64,
    pads: (i64, i64),
    same: bool,
}

impl SpatialAxis {
    /// `stride * (in - 1) + output_padding + dilation * (k - 1) + 1 - pads`
    /// (an error when negative); for SAME_* `in * stride`, or that size
    /// unpadded when it is smaller: the padding SAME derives is never
    /// negative (onnx's shape inference and onnxruntime clamp it at 0).
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "int64 values widened to i128 cannot overflow"
    )]
    fn output(&self, input: i64) -> Result<i64, OpError> {
        if input == UNKNOWN_DIM || self.kernel == UNKNOWN_DIM {
            return Ok(UNKNOWN_DIM);
        }
        let (size, stride) = (i128::from(input), i128::from(self.stride));
        let effective = i128::from(self.dilation) * (i128::from(self.kernel) - 1) + 1;
        let unpadded = stride * (size - 1) + i128::from(self.output_padding) + effective;
        let dim = if self.same {
            (size * stride).min(unpadded)
        } else {
            unpadded - i128::from(self.pads.0) - i128::from(self.pads.1)
        };
        if dim < 0 {
            bail!(
                "the output size along spatial axis {} is {dim}: the pads exceed the upsampled input",
                self.index
            );
        }
        to_i64(dim)
    }
}
