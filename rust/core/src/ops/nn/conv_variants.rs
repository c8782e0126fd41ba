//! Convolution variants on 4-D activations: DepthwiseConv2dNative (filter
//! `[kh, kw, C, multiplier]` in TensorFlow's HWCN, or any layout its origin
//! format names) and Conv2DBackpropInput (deconvolution: the output shape is
//! the value of the `input_size` input).

use super::conv2d::{filter_layout, rank4, Layout, NCHW, NHWC};
use super::dims::merge_dim;
use super::window::{output_dim, padding, Padding, Window};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::mul_dims;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Format, Shape, UNKNOWN_DIM};

const TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Float,
    DataType::Double,
    DataType::Bf16,
];

/// Attributes both ops share: TensorFlow's (`padding`, `explicit_paddings`)
/// and GE's explicit `pads` (top, bottom, left, right).
fn conv_attrs(schema: OpSchema) -> OpSchema {
    schema
        .attr("strides", AttrType::ListInt, None)
        .attr(
            "dilations",
            AttrType::ListInt,
            Some(AttrValue::ListInt(vec![1, 1, 1, 1])),
        )
        .attr(
            "padding",
            AttrType::Str,
            Some(AttrValue::Str(String::new())),
        )
        .attr(
            "explicit_paddings",
            AttrType::ListInt,
            Some(AttrValue::ListInt(vec![])),
        )
        .attr(
            "pads",
            AttrType::ListInt,
            Some(AttrValue::ListInt(vec![0, 0, 0, 0])),
        )
        .attr(
            "data_format",
            AttrType::Str,
            Some(AttrValue::Str("NHWC".into())),
        )
}

pub(super) fn schemas() -> Vec<OpSchema> {
    let depthwise = conv_attrs(
        OpSchema::new("DepthwiseConv2dNative")
            .input(PortDef::new("x", ParamType::Required).dtypes(TYPES))
            .input(PortDef::new("filter", ParamType::Required).dtypes(TYPES))
            .input(PortDef::new("bias", ParamType::Optional).dtypes(TYPES))
            .output(PortDef::new("y", ParamType::Required).dtypes(TYPES)),
    )
    .infer_shape(op_fn(infer_depthwise));
    let backprop = conv_attrs(
        OpSchema::new("Conv2DBackpropInput")
            .input(
                PortDef::new("input_size", ParamType::Required)
                    .dtype_list(&[DataType::Int32, DataType::Int64])
                    .value_depend(ValueDepend::Required),
            )
            .input(PortDef::new("filter", ParamType::Required).dtypes(TYPES))
            .input(PortDef::new("out_backprop", ParamType::Required).dtypes(TYPES))
            .output(PortDef::new("y", ParamType::Required).dtypes(TYPES)),
    )
    .attr("groups", AttrType::Int, Some(AttrValue::Int(1)))
    .infer_shape(op_fn(infer_backprop_input));
    vec![depthwise, backprop]
}

/// The activation layout, per-dim strides / dilations (validated) and the
/// H / W windows of a filter with spatial sizes `kh`, `kw`.
struct Geometry {
    format: Format,
    layout: Layout,
    padding: Padding,
    windows: [Window; 2],
}

fn geometry(ctx: &OpContext<'_>, kh: i64, kw: i64) -> Result<Geometry, OpError> {
    let (format, layout) = match ctx.attr_str("data_format")? {
        "NHWC" => (Format::Nhwc, NHWC),
        "NCHW" => (Format::Nchw, NCHW),
        other => bail!("data_format is '{other}', expected NHWC or NCHW"),
    };
    let strides = ctx.attr_ints("strides")?;
    let dilations = ctx.attr_ints("dilations")?;
    for (name, v) in [("strides", strides), ("dilations", dilations)] {
        if v.len() != 4 {
            bail!("{name} has {} values, expected 4", v.len());
        }
        if v.iter().any(|&s| s < 1) || v[layout.n] != 1 || v[layout.c] != 1 {
            bail!("{name} {v:?} must be >= 1, and 1 in the N and C positions of {format}");
        }
    }
    let pad = padding(ctx.attr_str("padding")?)?;
    let pads = explicit_pads(ctx, &layout)?;
    let window = |axis: usize, k: i64, (before, after): (i64, i64)| Window {
        kernel: k,
        stride: strides[axis],
        dilation: dilations[axis],
        pad_before: before,
        pad_after: after,
    };
    Ok(Geometry {
        format,
        layout,
        padding: pad,
        windows: [window(layout.h, kh, pads[0]), window(layout.w, kw, pads[1])],
    })
}

/// `(before, after)` for H and W: from `explicit_paddings` (TensorFlow, a
/// pair per dim in data_format order) when given, else GE's `pads`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn explicit_pads(ctx: &OpContext<'_>, layout: &Layout) -> Result<[(i64, i64); 2], OpError> {
    let explicit = ctx.attr_ints("explicit_paddings")?;
    let pairs = if explicit.is_empty() {
        let pads = ctx.attr_ints("pads")?;
        match pads {
            [t, b, l, r] => [(*t, *b), (*l, *r)],
            _ => bail!("pads has {} values, expected 4", pads.len()),
        }
    } else {
        if explicit.len() != 8 {
            bail!(
                "explicit_paddings has {} values, expected 8",
                explicit.len()
            );
        }
        let pair = |axis: usize| (explicit[2 * axis], explicit[2 * axis + 1]);
        [pair(layout.h), pair(layout.w)]
    };
    if pairs.iter().any(|&(a, b)| a < 0 || b < 0) {
        bail!("paddings {pairs:?} must all be >= 0");
    }
    Ok(pairs)
}

fn infer_depthwise(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = rank4(ctx.input_shape(0)?, "x")?;
    let filter_desc = ctx.input(1)?;
    let filter = rank4(filter_desc.shape(), "filter")?;
    super::dims::nonempty_filter(&filter, "the filter")?;
    let data_format = match ctx.attr_str("data_format")? {
        "NCHW" => Format::Nchw,
        _ => Format::Nhwc,
    };
    // TensorFlow's filter is [kh, kw, C, multiplier]: filter_layout's
    // "output channels" slot holds the multiplier.
    let f = filter_layout(filter_desc.origin_format, data_format)?;
    let g = geometry(ctx, filter[f.h], filter[f.w])?;
    let channels = merge_dim(
        x[g.layout.c],
        filter[f.c],
        "x's channels vs the filter's input channels",
    )?;
    let cout = mul_dims(channels, filter[f.n])?;
    if let Some(bias) = ctx.optional_input_desc(2)? {
        super::dims::check_vector(bias.shape(), cout, "bias")?;
    }
    let mut out = [UNKNOWN_DIM; 4];
    out[g.layout.n] = x[g.layout.n];
    out[g.layout.c] = cout;
    out[g.layout.h] = output_dim(x[g.layout.h], &g.windows[0], g.padding)?;
    out[g.layout.w] = output_dim(x[g.layout.w], &g.windows[1], g.padding)?;
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        depthwise_range(ctx, &g, f)?;
    }
    ctx.set_output_format(0, g.format)
}

/// N from x; C = channels (x and the filter agree) x multiplier; H and W
/// through the monotonic output-size formula on the bounds of x's range.
fn depthwise_range(ctx: &mut OpContext<'_>, g: &Geometry, f: Layout) -> Result<(), OpError> {
    let Some(x) = ranges::of_input(ctx, 0) else {
        return Ok(());
    };
    let fr = ranges::of_input(ctx, 1).unwrap_or_else(|| vec![ranges::ANY; 4]);
    let l = &g.layout;
    let channels = ranges::intersect(x[l.c], fr[f.c]).unwrap_or(x[l.c]);
    let mut out = vec![ranges::ANY; 4];
    out[l.n] = x[l.n];
    out[l.c] = ranges::mul(channels, fr[f.n]);
    for (axis, w) in [(l.h, &g.windows[0]), (l.w, &g.windows[1])] {
        out[axis] = ranges::monotonic(x[axis], |d| output_dim(d, w, g.padding));
    }
    ranges::set(ctx, 0, out)
}

fn infer_backprop_input(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let filter_desc = ctx.input(1)?;
    let filter = rank4(filter_desc.shape(), "filter")?;
    super::dims::nonempty_filter(&filter, "the filter")?;
    let dy = rank4(ctx.input_shape(2)?, "out_backprop")?;
    let data_format = match ctx.attr_str("data_format")? {
        "NCHW" => Format::Nchw,
        _ => Format::Nhwc,
    };
    let f = filter_layout(filter_desc.origin_format, data_format)?;
    let g = geometry(ctx, filter[f.h], filter[f.w])?;
    let groups = ctx.attr_int("groups")?;
    if groups < 1 {
        bail!("groups is {groups}, expected >= 1");
    }
    merge_dim(
        dy[g.layout.c],
        filter[f.n],
        "out_backprop's channels vs the filter's output channels",
    )?;
    let size_shape = ctx.input_shape(0)?;
    if !size_shape.is_unknown_rank() && size_shape.dims() != [4] && size_shape.dims() != [-1] {
        bail!("input_size must be a 4-element vector, got shape {size_shape}");
    }
    let out = match ctx.input_value(0).and_then(|v| v.to_ints()) {
        Some(size) => {
            let size: [i64; 4] = size.as_slice().try_into().map_err(|_| {
                OpError::new(format!("input_size has {} values, expected 4", size.len()))
            })?;
            if size.iter().any(|&d| d < 0) {
                bail!("input_size {size:?} has a negative dim");
            }
            check_forward(&size, &dy, &filter, &f, &g, groups)?;
            size
        }
        // Without the value only N (from out_backprop) and C (the filter's
        // input channels x groups) are known.
        None => {
            let mut out = [UNKNOWN_DIM; 4];
            out[g.layout.n] = dy[g.layout.n];
            out[g.layout.c] = mul_dims(filter[f.c], groups)?;
            out
        }
    };
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    super::range_rules::backprop_input(ctx, (g.layout.n, g.layout.c), f.c, groups)?;
    ctx.set_output_format(0, g.format)
}

/// The forward convolution of `size` must produce `dy` (TensorFlow's kernel
/// checks the same; its shape function checks nothing), and the channels
/// must agree with the filter. A window larger than `size` is refused, as
/// the forward convolution's shape function refuses it, where the kernel
/// would accept an empty `dy`.
fn check_forward(
    size: &[i64; 4],
    dy: &[i64; 4],
    filter: &[i64; 4],
    f: &Layout,
    g: &Geometry,
    groups: i64,
) -> Result<(), OpError> {
    let l = &g.layout;
    merge_dim(
        size[l.n],
        dy[l.n],
        "input_size's batch vs out_backprop's batch",
    )?;
    merge_dim(
        size[l.c],
        mul_dims(filter[f.c], groups)?,
        "input_size's channels vs the filter's input channels x groups",
    )?;
    for (axis, w) in [(l.h, &g.windows[0]), (l.w, &g.windows[1])] {
        let forward = output_dim(size[axis], w, g.padding)?;
        merge_dim(
            forward,
            dy[axis],
            &format!(
                "the convolution of input_size {size:?} does not give out_backprop's spatial size"
            ),
        )?;
    }
    Ok(())
}
