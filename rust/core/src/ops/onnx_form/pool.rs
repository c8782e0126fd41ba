//! ONNX pooling, N-d spatial: `MaxPoolV3` serves MaxPool (opsets 1–22) and
//! GlobalMaxPool, `AvgPoolV2` serves AveragePool (7–22), GlobalAveragePool,
//! and shape-wise LpPool / GlobalLpPool. GE's names, ONNX's attributes and
//! layout: x is `[N, C, spatial...]` (rank >= 3; rank >= 2 with
//! `global_pooling`), `ksize` / `strides` / `dilations` have one value per
//! spatial dim and `pads` all begins then all ends, where TensorFlow's
//! MaxPool / AvgPool take 4-D NHWC/NCHW lists and a SAME/VALID `padding`.
//! `global_pooling` makes the window the whole spatial extent (spatial
//! output dims 1). MaxPoolV3's second output `indices` (INT64, y's shape)
//! is a DYNAMIC port with zero or one instance: the IR has no OPTIONAL
//! outputs.

use super::window::{per_axis, pool_output, AutoPad, Axis, Rounding};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

/// MaxPool's input types (ONNX opset 12+ adds int8 / uint8).
const MAX_POOL_TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Bf16,
    DataType::Float,
    DataType::Double,
    DataType::Int8,
    DataType::Uint8,
];

const AVG_POOL_TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Bf16,
    DataType::Float,
    DataType::Double,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let max = pool_schema("MaxPoolV3", MAX_POOL_TYPES)
        .output(
            PortDef::new("indices", ParamType::Dynamic)
                .dtype_list(&[DataType::Int64])
                .follow("x", FollowType::Format),
        )
        // Only orders the flattened indices; no effect on shapes.
        .attr("storage_order", AttrType::Int, Some(AttrValue::Int(0)));
    let avg = pool_schema("AvgPoolV2", AVG_POOL_TYPES).attr(
        "count_include_pad",
        AttrType::Int,
        Some(AttrValue::Int(0)),
    );
    vec![max, avg]
}

fn pool_schema(op_type: &str, types: &[DataType]) -> OpSchema {
    let list = || Some(AttrValue::ListInt(Vec::new()));
    OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Required).dtype_list(types))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("ksize", AttrType::ListInt, list())
        .attr("strides", AttrType::ListInt, list())
        .attr("pads", AttrType::ListInt, list())
        .attr("dilations", AttrType::ListInt, list())
        .attr("ceil_mode", AttrType::Int, Some(AttrValue::Int(0)))
        .attr(
            "auto_pad",
            AttrType::Str,
            Some(AttrValue::Str("NOTSET".into())),
        )
        .attr(
            "global_pooling",
            AttrType::Bool,
            Some(AttrValue::Bool(false)),
        )
        .verify(op_fn(verify_pool))
        .infer_shape(op_fn(infer_pool))
}

/// The checked attributes of one node.
struct Pooling {
    global: bool,
    auto_pad: AutoPad,
    ceil_mode: bool,
    /// One per spatial dim (empty for global pooling).
    axes: Vec<Axis>,
}

fn pooling(ctx: &OpContext<'_>) -> Result<Pooling, OpError> {
    let global = ctx.attr_bool("global_pooling")?;
    let auto_pad = AutoPad::parse(ctx.attr_str("auto_pad")?)?;
    let ceil_mode = match ctx.attr_int("ceil_mode")? {
        0 => false,
        1 => true,
        other => bail!("ceil_mode is {other}, expected 0 or 1"),
    };
    let ksize = ctx.attr_ints("ksize")?;
    if global {
        return Ok(Pooling {
            global,
            auto_pad,
            ceil_mode,
            axes: Vec::new(),
        });
    }
    if ksize.is_empty() {
        bail!("ksize is empty; it needs one value per spatial dim (or global_pooling)");
    }
    if let Some(k) = ksize.iter().find(|&&k| k < 1) {
        bail!("ksize {ksize:?} has {k}; every window size must be >= 1");
    }
    let n = ksize.len();
    let strides = per_axis(ctx, "strides", n, 1, 1)?;
    let dilations = per_axis(ctx, "dilations", n, 1, 1)?;
    let pads = per_axis(ctx, "pads", n.saturating_mul(2), 0, 0)?;
    let axes = (0..n)
        .map(|i| Axis {
            kernel: ksize[i],
            stride: strides[i],
            dilation: dilations[i],
            pad_begin: pads[i],
            pad_end: pads[n.saturating_add(i)],
        })
        .collect();
    Ok(Pooling {
        global,
        auto_pad,
        ceil_mode,
        axes,
    })
}

/// The spatial rank the input must have, checked against its shape.
fn check_input(ctx: &OpContext<'_>, p: &Pooling) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        return Ok(());
    };
    if p.global {
        if rank < 2 {
            bail!("x must have rank >= 2 ([N, C, spatial...]) for global pooling, got shape {x}");
        }
    } else if rank != p.axes.len().saturating_add(2) {
        bail!(
            "x must have rank {} ([N, C] and one dim per ksize value), got shape {x}",
            p.axes.len().saturating_add(2)
        );
    }
    Ok(())
}

fn verify_pool(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let p = pooling(ctx)?;
    check_input(ctx, &p)?;
    if ctx.output_count() > 2 {
        bail!(
            "the optional output 'indices' has {} instances; it takes at most one",
            ctx.output_count().saturating_sub(1)
        );
    }
    Ok(())
}

fn infer_pool(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let p = pooling(ctx)?;
    let x = ctx.input_shape(0)?;
    let out = match (x.rank(), p.global) {
        (None, true) => Shape::unknown_rank(),
        (None, false) => Shape::unknown_dims(p.axes.len().saturating_add(2)),
        (Some(_), true) => {
            let dims = x.dims();
            let spatial = dims.len().saturating_sub(2);
            Shape::from_dims(
                dims.iter()
                    .take(2)
                    .copied()
                    .chain(std::iter::repeat_n(1, spatial))
                    .collect::<Vec<_>>(),
            )
        }
        (Some(_), false) => {
            let mut out = x.dims().to_vec();
            for (o, axis) in out.iter_mut().skip(2).zip(&p.axes) {
                *o = pool_output(*o, axis, p.auto_pad, Rounding::pooling(p.ceil_mode))?;
            }
            Shape::from_dims(out)
        }
    };
    for o in 0..ctx.output_count() {
        ctx.set_output_shape(o, out.clone())?;
    }
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let Some(mut r) = ranges::of_input(ctx, 0) else {
        return Ok(());
    };
    if p.global {
        // Batch and channels as they are; every spatial dim is 1.
        r.iter_mut().skip(2).for_each(|range| *range = (1, 1));
    } else {
        for (range, axis) in r.iter_mut().skip(2).zip(&p.axes) {
            *range = ranges::monotonic(*range, |d| {
                match pool_output(d, axis, p.auto_pad, Rounding::pooling(p.ceil_mode))? {
                    UNKNOWN_DIM => bail!("unknown"),
                    v => Ok(v),
                }
            });
        }
    }
    for o in 0..ctx.output_count() {
        ranges::set(ctx, o, r.clone())?;
    }
    Ok(())
}
