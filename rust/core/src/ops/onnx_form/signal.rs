//! ONNX's signal ops (opsets 17 and 20). HannWindow, HammingWindow and
//! BlackmanWindow: a 1-D window of `size` samples (a value-depend scalar)
//! in `output_datatype` (an ONNX element type, given here as a dtype;
//! default FLOAT); `periodic` changes the values, not the shape.
//! MelWeightMatrix: `[dft_length / 2 + 1, num_mel_bins]`. DFT: x
//! `[..., n, 1 or 2]` (real or complex) gives `[..., m, 2]` along `axis`
//! (the value-depend input from opset 20, else the attribute), where m is
//! `dft_length` (default n), or `m / 2 + 1` when `onesided`; the inverse of
//! a one-sided spectrum (IRFFT) gives `[..., m, 1]`, m by default `2 (n - 1)`.

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let int = |v: i64| Some(AttrValue::Int(v));
    let mut all = windows();
    let mut mel = OpSchema::new("MelWeightMatrix");
    for name in ["num_mel_bins", "dft_length"] {
        mel = mel.input(
            PortDef::new(name, ParamType::Required)
                .dtype_list(&[DataType::Int32, DataType::Int64])
                .value_depend(ValueDepend::Optional),
        );
    }
    for name in ["sample_rate", "lower_edge_hertz", "upper_edge_hertz"] {
        mel = mel.input(PortDef::new(name, ParamType::Required));
    }
    all.push(
        mel.output(PortDef::new("output", ParamType::Required))
            .attr(
                "output_datatype",
                AttrType::DataType,
                Some(AttrValue::DataType(DataType::Float)),
            )
            .infer_dtype(op_fn(|ctx| {
                let dtype = ctx.attr_dtype("output_datatype")?;
                ctx.set_output_dtype(0, dtype)
            }))
            .infer_shape(op_fn(infer_mel)),
    );
    let index = [DataType::Int32, DataType::Int64];
    all.push(
        OpSchema::new("DFT")
            .input(PortDef::new("input", ParamType::Required))
            .input(
                PortDef::new("dft_length", ParamType::Optional)
                    .dtype_list(&index)
                    .value_depend(ValueDepend::Optional),
            )
            .input(
                PortDef::new("axis", ParamType::Optional)
                    .dtype_list(&[DataType::Int64])
                    .value_depend(ValueDepend::Optional),
            )
            .output(PortDef::new("output", ParamType::Required).follow("input", FollowType::Dtype))
            // Used when the node has no `axis` input (opset 17 gives it here).
            .attr("axis", AttrType::Int, int(1))
            .attr("inverse", AttrType::Int, int(0))
            .attr("onesided", AttrType::Int, int(0))
            .infer_shape(op_fn(infer_dft)),
    );
    all
}

/// A known scalar value-depend input, checked >= 0.
fn scalar(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<Option<i64>, OpError> {
    let shape = ctx.input_shape(i)?;
    if shape.num_elements().ok().flatten().is_some_and(|n| n != 1) {
        bail!("{name} must be a single value, got shape {shape}");
    }
    match ctx.input_value(i).and_then(|v| v.to_ints()).as_deref() {
        Some(&[n]) if n < 0 => bail!("{name} is {n}; it must be >= 0"),
        Some(&[n]) => Ok(Some(n)),
        _ => Ok(None),
    }
}

/// `n / 2 + 1`: the bins of a one-sided spectrum of n samples.
fn one_sided(n: Option<i64>) -> i64 {
    n.map_or(UNKNOWN_DIM, |n| n.div_euclid(2).saturating_add(1))
}

fn infer_mel(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let bins = scalar(ctx, 0, "num_mel_bins")?.unwrap_or(UNKNOWN_DIM);
    let rows = one_sided(scalar(ctx, 1, "dft_length")?);
    ctx.set_output_shape(0, Shape::from_dims([rows, bins]))
}

fn infer_dft(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?.clone();
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let mut dims = input.dims().to_vec();
    match dims.last() {
        Some(&(1 | 2 | UNKNOWN_DIM)) if rank >= 2 => {}
        _ => bail!("input must be [..., n, 1] (real) or [..., n, 2] (complex), got shape {input}"),
    }
    let axis = match ctx.optional_input_desc(2)? {
        Some(_) => scalar_axis(ctx)?,
        None => Some(ctx.attr_int("axis")?),
    };
    let length = match ctx.optional_input_desc(1)? {
        Some(_) => scalar(ctx, 1, "dft_length")?,
        None => None,
    };
    let onesided = ctx.attr_int("onesided")? != 0;
    // IRFFT (one-sided and inverse): a one-sided spectrum in, a real signal out.
    let irfft = onesided && ctx.attr_int("inverse")? != 0;
    let last = rank.saturating_sub(1);
    dims[last] = if irfft { 1 } else { 2 };
    let Some(axis) = axis else {
        // Which signal dim is transformed is unknown; a full transform of the
        // whole signal keeps every length whichever it is.
        if onesided || length.is_some() {
            for d in &mut dims[..last] {
                *d = UNKNOWN_DIM;
            }
        }
        return ctx.set_output_shape(0, Shape::from_dims(dims));
    };
    // ONNX accepts [-r, -2] and [0, r - 2]: any dim but the trailing 1 or 2.
    let at = super::onnx_axis(axis, rank, "axis")?;
    if at == last {
        bail!("axis {axis} is the trailing real/imaginary dim; DFT transforms another dim");
    }
    let signal = Some(input.dims()[at]).filter(|&d| d != UNKNOWN_DIM);
    if irfft && length.is_none() && signal.is_some_and(|bins| bins < 2) {
        bail!("the inverse of a one-sided spectrum needs at least 2 bins along axis {axis}, or a dft_length");
    }
    dims[at] = match (irfft, onesided) {
        // dft_length, by default 2 * (bins - 1): the even signal of that many bins.
        (true, _) => length
            .or_else(|| signal.map(|bins| bins.saturating_sub(1).saturating_mul(2)))
            .unwrap_or(UNKNOWN_DIM),
        (false, true) => one_sided(length.or(signal)),
        (false, false) => length.or(signal).unwrap_or(UNKNOWN_DIM),
    };
    ctx.set_output_shape(0, Shape::from_dims(dims))
}

fn scalar_axis(ctx: &OpContext<'_>) -> Result<Option<i64>, OpError> {
    Ok(ctx
        .input_value(2)
        .and_then(|v| v.to_ints())
        .and_then(|v| v.first().copied()))
}

fn windows() -> Vec<OpSchema> {
    ["HannWindow", "HammingWindow", "BlackmanWindow"]
        .into_iter()
        .map(|op_type| {
            OpSchema::new(op_type)
                .input(
                    PortDef::new("size", ParamType::Required)
                        .dtype_list(&[DataType::Int32, DataType::Int64])
                        .value_depend(ValueDepend::Optional),
                )
                .output(PortDef::new("y", ParamType::Required))
                .attr(
                    "output_datatype",
                    AttrType::DataType,
                    Some(AttrValue::DataType(DataType::Float)),
                )
                .attr("periodic", AttrType::Int, Some(AttrValue::Int(1)))
                .infer_dtype(op_fn(|ctx| {
                    let dtype = ctx.attr_dtype("output_datatype")?;
                    ctx.set_output_dtype(0, dtype)
                }))
                .infer_shape(op_fn(infer_window))
        })
        .collect()
}

fn infer_window(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let size = ctx.input_shape(0)?;
    if size.rank().is_some_and(|r| r != 0) {
        bail!("size must be a scalar, got shape {size}");
    }
    let n = match ctx.input_value(0).and_then(|v| v.to_ints()).as_deref() {
        Some(&[n]) if n < 0 => bail!("size is {n}; a window has >= 0 samples"),
        Some(&[n]) => n,
        _ => UNKNOWN_DIM,
    };
    ctx.set_output_shape(0, Shape::from_dims([n]))
}
