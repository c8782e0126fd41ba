//! ONNX convolutions that GE's Conv2D / Conv3D do not cover: `Conv1D` (ONNX
//! Conv over one spatial dim, `[N, C, L]`: audio and sequence models),
//! ConvInteger (opset 10: INT32 output) and QLinearConv (10: `y` has
//! `y_zero_point`'s dtype; x is input 0, w input 3) and DeformConv (19:
//! offsets and an optional mask beside x and w). All take ONNX's
//! attributes as they are: `kernel_shape` (else w's spatial dims),
//! `strides`, `dilations`, `pads` (all begins, then all ends), `auto_pad`
//! and `group`. x is `[N, C, spatial...]`, w `[M, C / group, k...]`, y
//! `[N, M, out...]` with the output size of ONNX's Conv (the pooling
//! formula without ceil_mode).

use super::window::{per_axis, pool_output, AutoPad, Axis, Rounding};
use super::FLOATS;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::mul_dims;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let conv1d = with_attrs(OpSchema::new("Conv1D"))
        .input(PortDef::new("x", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("filter", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("bias", ParamType::Optional).dtypes(FLOATS))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(FLOATS)
                .follow("x", FollowType::Format),
        )
        .verify(op_fn(|ctx| {
            check_spatial(ctx, 0, Some(1))?;
            check_bias(ctx, 1, 2)
        }))
        .infer_shape(op_fn(|ctx| infer_conv(ctx, 0, 1)));
    let integer = with_attrs(OpSchema::new("ConvInteger"))
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("w", ParamType::Required))
        .input(PortDef::new("x_zero_point", ParamType::Optional))
        .input(PortDef::new("w_zero_point", ParamType::Optional))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtype_list(&[DataType::Int32])
                .follow("x", FollowType::Format),
        )
        .verify(op_fn(|ctx| check_spatial(ctx, 0, None)))
        .infer_dtype(op_fn(|ctx| ctx.set_output_dtype(0, DataType::Int32)))
        .infer_shape(op_fn(|ctx| infer_conv(ctx, 0, 1)));
    let mut qlinear = with_attrs(OpSchema::new("QLinearConv"));
    for name in [
        "x",
        "x_scale",
        "x_zero_point",
        "w",
        "w_scale",
        "w_zero_point",
        "y_scale",
        "y_zero_point",
    ] {
        qlinear = qlinear.input(PortDef::new(name, ParamType::Required));
    }
    let qlinear = qlinear
        .input(PortDef::new("B", ParamType::Optional))
        .output(PortDef::new("y", ParamType::Required).follow("y_zero_point", FollowType::Dtype))
        .verify(op_fn(|ctx| {
            check_spatial(ctx, 0, None)?;
            check_bias(ctx, 3, 8)
        }))
        .infer_shape(op_fn(|ctx| infer_conv(ctx, 0, 3)));
    // DeformConv (19–22): Conv's output size; offsets and mask do not change it.
    let deform = with_attrs(OpSchema::new("DeformConv"))
        .input(PortDef::new("x", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("w", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("offset", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("B", ParamType::Optional).dtypes(FLOATS))
        .input(PortDef::new("mask", ParamType::Optional).dtypes(FLOATS))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(FLOATS)
                .follow("x", FollowType::Format),
        )
        .attr("offset_group", AttrType::Int, Some(AttrValue::Int(1)))
        .verify(op_fn(|ctx| {
            check_spatial(ctx, 0, None)?;
            check_bias(ctx, 1, 3)
        }))
        .infer_shape(op_fn(|ctx| infer_conv(ctx, 0, 1)));
    vec![conv1d, integer, qlinear, deform]
}

fn with_attrs(schema: OpSchema) -> OpSchema {
    let list = || Some(AttrValue::ListInt(Vec::new()));
    schema
        .attr("kernel_shape", AttrType::ListInt, list())
        .attr("strides", AttrType::ListInt, list())
        .attr("dilations", AttrType::ListInt, list())
        .attr("pads", AttrType::ListInt, list())
        .attr(
            "auto_pad",
            AttrType::Str,
            Some(AttrValue::Str("NOTSET".into())),
        )
        .attr("group", AttrType::Int, Some(AttrValue::Int(1)))
}

/// x has rank `spatial + 2` (exactly `want` spatial dims when given).
fn check_spatial(ctx: &OpContext<'_>, x: usize, want: Option<usize>) -> Result<(), OpError> {
    let shape = ctx.input_shape(x)?;
    match (shape.rank(), want) {
        (Some(r), _) if r < 3 => {
            bail!("x must be [N, C, spatial...] (rank >= 3), got shape {shape}")
        }
        (Some(r), Some(n)) if r != n.saturating_add(2) => bail!(
            "x must be [N, C, L] (rank {}), got shape {shape}",
            n.saturating_add(2)
        ),
        _ => Ok(()),
    }
}

/// The optional bias is `[M]`, M being w's output channels.
fn check_bias(ctx: &OpContext<'_>, w: usize, bias: usize) -> Result<(), OpError> {
    let Some(b) = ctx.optional_input_desc(bias)? else {
        return Ok(());
    };
    let m = ctx.input_shape(w)?.dims().first().copied();
    match (b.shape().rank(), b.shape().dims(), m) {
        (None, _, _) => Ok(()),
        (Some(1), [n], Some(m)) if *n == m || *n == UNKNOWN_DIM || m == UNKNOWN_DIM => Ok(()),
        (Some(1), _, None) => Ok(()),
        _ => bail!(
            "the bias must be [M] with M = {} (w's first dim), got shape {}",
            m.map_or("?".to_owned(), |m| m.to_string()),
            b.shape()
        ),
    }
}

fn infer_conv(ctx: &mut OpContext<'_>, x: usize, w: usize) -> Result<(), OpError> {
    let xs = ctx.input_shape(x)?;
    let ws = ctx.input_shape(w)?;
    let rank = match (xs.rank(), ws.rank()) {
        (Some(a), Some(b)) if a != b => {
            bail!(
                "x {xs} and w {ws} must have the same rank ([N, C, ...] and [M, C / group, k...])"
            )
        }
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => return ctx.set_output_shape(0, Shape::unknown_rank()),
    };
    let spatial = rank.saturating_sub(2);
    let group = ctx.attr_int("group")?;
    if group < 1 {
        bail!("group is {group}; it must be >= 1");
    }
    let kernel = match ctx.attr_ints("kernel_shape")? {
        [] => None,
        k if k.len() == spatial => Some(k.to_vec()),
        k => bail!(
            "kernel_shape {k:?} has {} values for {spatial} spatial dims",
            k.len()
        ),
    };
    let strides = per_axis(ctx, "strides", spatial, 1, 1)?;
    let dilations = per_axis(ctx, "dilations", spatial, 1, 1)?;
    let pads = per_axis(ctx, "pads", spatial.saturating_mul(2), 0, 0)?;
    let auto_pad = AutoPad::parse(ctx.attr_str("auto_pad")?)?;
    let dim = |s: &Shape, i: usize| s.dims().get(i).copied().unwrap_or(UNKNOWN_DIM);
    let (channels, per_group) = (dim(xs, 1), dim(ws, 1));
    if channels != UNKNOWN_DIM && per_group != UNKNOWN_DIM {
        let expected = mul_dims(per_group, group)?;
        if channels != expected {
            bail!(
                "x has {channels} channels but w {ws} with group {group} takes {expected} \
                 (w's dim 1 times group)"
            );
        }
    }
    let mut out = vec![dim(xs, 0), dim(ws, 0)];
    // Per spatial dim, the window when the kernel size is known (else the
    // output size is unknown unless auto_pad makes it the input's / stride).
    let mut windows = Vec::with_capacity(spatial);
    for i in 0..spatial {
        let at = i.saturating_add(2);
        let k = kernel.as_ref().map_or(dim(ws, at), |k| k[i]);
        if k != UNKNOWN_DIM && k < 1 {
            bail!("the kernel size {k} of spatial dim {i} must be >= 1");
        }
        let from_w = dim(ws, at);
        if kernel.is_some() && from_w != UNKNOWN_DIM && from_w != k {
            bail!("kernel_shape has {k} for spatial dim {i}, but w {ws} has {from_w}");
        }
        let input = dim(xs, at);
        let same = matches!(auto_pad, AutoPad::SameUpper | AutoPad::SameLower);
        let axis = (k != UNKNOWN_DIM || same).then(|| Axis {
            kernel: k.max(1),
            stride: strides[i],
            dilation: dilations[i],
            pad_begin: pads[i],
            pad_end: pads[spatial.saturating_add(i)],
        });
        out.push(match &axis {
            Some(axis) => pool_output(input, axis, auto_pad, Rounding::Fit)?,
            None => UNKNOWN_DIM,
        });
        windows.push(axis);
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        set_conv_range(ctx, (x, w), &windows, auto_pad)?;
    }
    Ok(())
}

/// The output's batch dim has x's range, its channels w's output channels'
/// range; each spatial dim with a known window the window's output size
/// over x's range (non-decreasing in it).
fn set_conv_range(
    ctx: &mut OpContext<'_>,
    (x, w): (usize, usize),
    windows: &[Option<Axis>],
    auto_pad: AutoPad,
) -> Result<(), OpError> {
    let Some(xr) = ranges::of_input(ctx, x) else {
        return Ok(());
    };
    let filters = ranges::of_input(ctx, w).and_then(|r| r.first().copied());
    let mut out = vec![
        xr.first().copied().unwrap_or(ranges::ANY),
        filters.unwrap_or(ranges::ANY),
    ];
    for (i, window) in windows.iter().enumerate() {
        let input = xr.get(i.saturating_add(2)).copied().unwrap_or(ranges::ANY);
        out.push(match window {
            Some(axis) => ranges::monotonic(input, |d| {
                match pool_output(d, axis, auto_pad, Rounding::Fit)? {
                    UNKNOWN_DIM => bail!("unknown"),
                    v => Ok(v),
                }
            }),
            None => ranges::ANY,
        });
    }
    ranges::set_if_bounded(ctx, 0, out)
}
