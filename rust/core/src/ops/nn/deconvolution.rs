//! GE's Deconvolution (Caffe's Deconvolution layer): the transposed 2-D
//! convolution of an NCHW `x` with a filter laid out as Caffe stores it,
//! `[C_in, C_out / groups, kh, kw]`. Each spatial output size is Caffe's
//! `stride * (in - 1) + dilation * (k - 1) + 1 - pad_before - pad_after`.

use super::dims::{merge_dim, with_rank};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::mul_dims;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Format, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    use DataType::*;
    let ints = |v: &[i64]| Some(AttrValue::ListInt(v.to_vec()));
    let deconv = OpSchema::new("Deconvolution")
        .input(PortDef::new("x", ParamType::Required).dtypes(&[Float16, Float, Int8, Bf16]))
        .input(PortDef::new("filter", ParamType::Required).dtypes(&[Float16, Float, Int8, Bf16]))
        .input(PortDef::new("bias", ParamType::Optional).dtypes(&[Float16, Float, Int32, Float]))
        .input(PortDef::new("offset_w", ParamType::Optional).dtypes(&[Int8, Int8, Int8, Int8]))
        .output(PortDef::new("y", ParamType::Required).dtypes(&[Float16, Float, Int32, Bf16]))
        .attr("strides", AttrType::ListInt, ints(&[1, 1]))
        .attr("pads", AttrType::ListInt, ints(&[0, 0, 0, 0]))
        .attr("dilations", AttrType::ListInt, ints(&[1, 1, 1, 1]))
        .attr("groups", AttrType::Int, Some(AttrValue::Int(1)))
        .attr(
            "data_format",
            AttrType::Str,
            Some(AttrValue::Str("NCHW".into())),
        )
        .attr("offset_x", AttrType::Int, Some(AttrValue::Int(0)))
        .verify(op_fn(verify_deconvolution))
        .infer_shape(op_fn(infer_deconvolution))
        .weight_shapes(super::weight_shapes::deconvolution);
    vec![deconv]
}

/// The window along H and W: (stride, dilation, pad before, pad after).
type Axis = (i64, i64, i64, i64);

fn windows(ctx: &OpContext<'_>) -> Result<[Axis; 2], OpError> {
    let (strides, pads) = (ctx.attr_ints("strides")?, ctx.attr_ints("pads")?);
    let dilations = ctx.attr_ints("dilations")?;
    Ok([
        (strides[0], dilations[2], pads[0], pads[1]),
        (strides[1], dilations[3], pads[2], pads[3]),
    ])
}

fn verify_deconvolution(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let format = ctx.attr_str("data_format")?;
    if format != "NCHW" {
        bail!("data_format is '{format}', expected NCHW");
    }
    for (name, len, min) in [("strides", 2, 1), ("pads", 4, 0), ("dilations", 4, 1)] {
        let v = ctx.attr_ints(name)?;
        if v.len() != len {
            bail!("{name} has {} values, expected {len}", v.len());
        }
        if v.iter().any(|&d| d < min) {
            bail!("{name} {v:?} must all be >= {min}");
        }
    }
    let groups = ctx.attr_int("groups")?;
    if groups < 1 {
        bail!("groups is {groups}, expected >= 1");
    }
    Ok(())
}

/// Caffe's deconvolution output size along one axis; -1 when unknown.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; divisors were checked >= 1 above"
)]
pub(super) fn deconv_dim(
    input: i64,
    kernel: i64,
    (s, d, before, after): Axis,
) -> Result<i64, OpError> {
    if input == UNKNOWN_DIM || kernel == UNKNOWN_DIM {
        return Ok(UNKNOWN_DIM);
    }
    let wide = |v: i64| i128::from(v);
    let out =
        wide(s) * (wide(input) - 1) + wide(d) * (wide(kernel) - 1) + 1 - wide(before) - wide(after);
    if out < 1 {
        bail!(
            "input size {input} with kernel {kernel}, stride {s}, dilation {d} and pads ({before}, {after}) gives output size {out}; it must be >= 1"
        );
    }
    i64::try_from(out).map_err(|_| OpError::new(format!("the output size {out} overflows int64")))
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_deconvolution(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = with_rank(ctx.input_shape(0)?, 4, "x")?;
    let filter = with_rank(ctx.input_shape(1)?, 4, "filter")?;
    super::dims::nonempty_filter(&filter, "the filter")?;
    let groups = ctx.attr_int("groups")?;
    merge_dim(
        filter[0],
        x[1],
        "the filter's input channels (dim 0) vs x's channels",
    )?;
    let channels = mul_dims(filter[1], groups)?;
    if let Some(bias) = ctx.optional_input_desc(2)? {
        if let [n] = bias.shape().dims() {
            merge_dim(*n, channels, "the bias length vs the output channels")?;
        }
    }
    let axes = windows(ctx)?;
    let mut out = [x[0], channels, 0, 0];
    for (i, axis) in axes.iter().enumerate() {
        out[2 + i] = deconv_dim(x[2 + i], filter[2 + i], *axis)?;
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        if let Some(r) = ranges::of_input(ctx, 0).filter(|r| r.len() == 4) {
            let mut spatial = [ranges::ANY; 2];
            for (i, axis) in axes.iter().enumerate() {
                let k = filter[2 + i];
                spatial[i] = ranges::monotonic(r[2 + i], |d| deconv_dim(d, k, *axis));
            }
            let c = (channels, channels);
            let c = if channels == UNKNOWN_DIM {
                ranges::ANY
            } else {
                c
            };
            ranges::set(ctx, 0, vec![r[0], c, spatial[0], spatial[1]])?;
        }
    }
    ctx.set_output_format(0, Format::Nchw)
}

#[cfg(test)]
mod tests {
    use super::deconv_dim;

    #[test]
    fn caffe_output_size() {
        // FCN-style 2x upsampling: k 4, s 2, p 1: 2 * (16 - 1) + 3 + 1 - 2 = 32.
        assert_eq!(deconv_dim(16, 4, (2, 1, 1, 1)).unwrap(), 32);
        // Dilation 2 widens a 3-tap kernel to 5: 1 * 9 + 2 * 2 + 1 = 14.
        assert_eq!(deconv_dim(10, 3, (1, 2, 0, 0)).unwrap(), 14);
        assert_eq!(deconv_dim(-1, 3, (2, 1, 0, 0)).unwrap(), -1);
        // Pads larger than the transposed window leave nothing.
        assert!(deconv_dim(1, 1, (1, 1, 1, 0)).is_err());
    }
}
