//! Conv2D (GE prototype): NCHW / NHWC activations, filters in NCHW, NHWC or
//! HWCN, explicit pads or TensorFlow SAME / VALID padding, dilations, groups
//! (given, or implied by the channels as TensorFlow's are: see `conv_groups`).

use super::conv_groups::conv2d_groups;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Format, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    use DataType::*;
    let conv = OpSchema::new("Conv2D")
        .input(PortDef::new("x", ParamType::Required).dtypes(&[Float16, Float, Int8, Bf16]))
        .input(PortDef::new("filter", ParamType::Required).dtypes(&[Float16, Float, Int8, Bf16]))
        .input(PortDef::new("bias", ParamType::Optional).dtypes(&[Float16, Float, Int32, Float]))
        .input(PortDef::new("offset_w", ParamType::Optional).dtypes(&[Int8, Int8, Int8, Int8]))
        .output(PortDef::new("y", ParamType::Required).dtypes(&[Float16, Float, Int32, Bf16]))
        .attr("strides", AttrType::ListInt, None)
        .attr("pads", AttrType::ListInt, None)
        .attr(
            "dilations",
            AttrType::ListInt,
            Some(AttrValue::ListInt(vec![1, 1, 1, 1])),
        )
        .attr("groups", AttrType::Int, Some(AttrValue::Int(1)))
        .attr(
            "data_format",
            AttrType::Str,
            Some(AttrValue::Str("NHWC".into())),
        )
        .attr("offset_x", AttrType::Int, Some(AttrValue::Int(0)))
        .attr(
            "padding",
            AttrType::Str,
            Some(AttrValue::Str(std::string::String::new())),
        )
        .infer_shape(op_fn(infer_conv2d))
        .weight_shapes(super::weight_shapes::convolution);
    vec![conv]
}

/// Positions of N, C, H, W in a 4-D activation layout.
#[derive(Clone, Copy)]
pub(super) struct Layout {
    pub n: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
}

pub(super) const NCHW: Layout = Layout {
    n: 0,
    c: 1,
    h: 2,
    w: 3,
};
pub(super) const NHWC: Layout = Layout {
    n: 0,
    c: 3,
    h: 1,
    w: 2,
};

/// Positions of Cout, Cin, kh, kw in a filter layout.
pub(super) fn filter_layout(format: Format, data: Format) -> Result<Layout, OpError> {
    Ok(match (format, data) {
        (Format::Nchw, _) | (Format::Nd, Format::Nchw) => NCHW,
        (Format::Nhwc, _) => NHWC,
        (Format::Hwcn, _) | (Format::Nd, _) => Layout {
            n: 3,
            c: 2,
            h: 0,
            w: 1,
        },
        (other, _) => bail!("filter format {other} is not supported; use NCHW, NHWC or HWCN"),
    })
}

struct Window {
    stride: i64,
    dilation: i64,
    pad_before: i64,
    pad_after: i64,
}

fn infer_conv2d(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let data_format = match ctx.attr_str("data_format")? {
        "NCHW" => Format::Nchw,
        "NHWC" => Format::Nhwc,
        other => bail!("data_format is '{other}', expected NCHW or NHWC"),
    };
    let layout = if data_format == Format::Nchw {
        NCHW
    } else {
        NHWC
    };
    let x = rank4(ctx.input_shape(0)?, "x")?;
    let filter_desc = ctx.input(1)?;
    let f_layout = filter_layout(filter_desc.origin_format, data_format)?;
    let filter = rank4(filter_desc.shape(), "filter")?;
    super::dims::nonempty_filter(&filter, "the filter")?;

    let strides = four(ctx.attr_ints("strides")?, "strides")?;
    let dilations = four(ctx.attr_ints("dilations")?, "dilations")?;
    let pads = four(ctx.attr_ints("pads")?, "pads")?;
    for (name, v) in [("strides", strides), ("dilations", dilations)] {
        if v.iter().any(|&s| s < 1) {
            bail!("{name} {v:?} must all be >= 1");
        }
        if v[layout.n] != 1 || v[layout.c] != 1 {
            bail!("{name} {v:?} must be 1 in the N and C positions of {data_format}");
        }
    }
    if pads.iter().any(|&p| p < 0) {
        bail!("pads {pads:?} must all be >= 0");
    }

    let (cin, cout) = (x[layout.c], filter[f_layout.n]);
    let cin_per_group = filter[f_layout.c];
    let explicit = match ctx.node_attr("groups") {
        Some(_) => Some(ctx.attr_int("groups")?),
        None => None,
    };
    let groups = conv2d_groups(explicit, cin, cin_per_group).map_err(OpError::new)?;
    if let Some(groups) = groups {
        if cin >= 0 && cin_per_group >= 0 && cin_per_group.checked_mul(groups) != Some(cin) {
            bail!(
                "x has {cin} channels but filter expects {cin_per_group} per group x {groups} groups"
            );
        }
        if cout >= 0 && cout.checked_rem(groups) != Some(0) {
            bail!("the filter's {cout} output channels do not divide into {groups} groups");
        }
    }
    if let Some(bias) = ctx.optional_input_desc(2)? {
        match bias.shape().dims() {
            [n] if *n == cout || *n == UNKNOWN_DIM || cout == UNKNOWN_DIM => {}
            _ if bias.shape().is_unknown_rank() => {}
            _ => bail!(
                "bias has shape {} but the filter has {cout} output channels",
                bias.shape()
            ),
        }
    }

    let padding = ctx.attr_str("padding")?;
    let mut out = [UNKNOWN_DIM; 4];
    out[layout.n] = x[layout.n];
    out[layout.c] = cout;
    for (axis, k_axis, window) in spatial_windows(layout, f_layout, &strides, &dilations, &pads) {
        out[axis] = output_dim(x[axis], filter[k_axis], &window, padding)?;
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        conv_range(ctx, layout, f_layout, filter, &strides, &dilations, &pads)?;
    }
    ctx.set_output_format(0, data_format)
}

/// N from x, C from the filter, H and W through the (monotonic) output-size
/// formula applied to the bounds of x's range.
fn conv_range(
    ctx: &mut OpContext<'_>,
    layout: Layout,
    f_layout: Layout,
    filter: [i64; 4],
    strides: &[i64; 4],
    dilations: &[i64; 4],
    pads: &[i64; 4],
) -> Result<(), OpError> {
    let Some(x) = ranges::of_input(ctx, 0) else {
        return Ok(());
    };
    let f = ranges::of_input(ctx, 1).unwrap_or_else(|| vec![ranges::ANY; 4]);
    let padding = ctx.attr_str("padding")?;
    let mut out = vec![ranges::ANY; 4];
    out[layout.n] = x[layout.n];
    out[layout.c] = f[f_layout.n];
    for (axis, k_axis, window) in spatial_windows(layout, f_layout, strides, dilations, pads) {
        let kernel = filter[k_axis];
        out[axis] = ranges::monotonic(x[axis], |d| output_dim(d, kernel, &window, padding));
    }
    ranges::set(ctx, 0, out)
}

/// For H and W: the activation axis, the filter's kernel axis, and the
/// window (stride and dilation in data_format order; pads are
/// `[top, bottom, left, right]`).
fn spatial_windows(
    layout: Layout,
    f_layout: Layout,
    strides: &[i64; 4],
    dilations: &[i64; 4],
    pads: &[i64; 4],
) -> [(usize, usize, Window); 2] {
    let window = |axis: usize, before: i64, after: i64| Window {
        stride: strides[axis],
        dilation: dilations[axis],
        pad_before: before,
        pad_after: after,
    };
    [
        (layout.h, f_layout.h, window(layout.h, pads[0], pads[1])),
        (layout.w, f_layout.w, window(layout.w, pads[2], pads[3])),
    ]
}

pub(super) fn rank4(shape: &Shape, name: &str) -> Result<[i64; 4], OpError> {
    if shape.is_unknown_rank() {
        return Ok([UNKNOWN_DIM; 4]);
    }
    shape
        .dims()
        .try_into()
        .map_err(|_| OpError::new(format!("input '{name}' must be 4-D, got shape {shape}")))
}

fn four(v: &[i64], name: &str) -> Result<[i64; 4], OpError> {
    v.try_into()
        .map_err(|_| OpError::new(format!("{name} has {} values, expected 4", v.len())))
}

/// One spatial output dim; -1 when the input or kernel size is unknown.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; divisors were checked >= 1 above"
)]
fn output_dim(input: i64, kernel: i64, w: &Window, padding: &str) -> Result<i64, OpError> {
    if input == UNKNOWN_DIM || kernel == UNKNOWN_DIM {
        return Ok(UNKNOWN_DIM);
    }
    // i128: attribute values are arbitrary int64s and must not wrap.
    let (input, kernel, stride) = (input as i128, kernel as i128, w.stride as i128);
    let effective = (w.dilation as i128) * (kernel - 1) + 1;
    let out = match padding {
        "SAME" => (input + stride - 1) / stride,
        "VALID" => {
            if input < effective {
                bail!(
                    "VALID padding needs input size {input} >= effective kernel size {effective}"
                );
            }
            (input - effective) / stride + 1
        }
        "" | "EXPLICIT" => {
            let padded = input + w.pad_before as i128 + w.pad_after as i128;
            if padded < effective {
                bail!("the padded input size {padded} is smaller than the effective kernel size {effective}");
            }
            (padded - effective) / stride + 1
        }
        other => bail!("padding is '{other}', expected SAME, VALID or EXPLICIT"),
    };
    i64::try_from(out).map_err(|_| OpError::new(format!("the output size {out} overflows int64")))
}
