//! TensorFlow pooling: MaxPool / AvgPool (4-D) and MaxPool3D / AvgPool3D
//! (5-D). `ksize` and `strides` are per-dim lists in `data_format` order;
//! `padding` is SAME, VALID or EXPLICIT with `explicit_paddings` (a
//! before/after pair per dim, zero for N and C).

use super::dims::with_rank;
use super::window::{check_per_dim, layout, output_dim, padding, Padding, Window};
use crate::bail;
use crate::infer::OpContext;
use crate::op::with_arg;
use crate::op::{FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape};

pub(super) const MAX_POOL_TYPES: &[DataType] = &[
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
    DataType::Qint8,
];
const AVG_POOL_TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Float,
    DataType::Double,
    DataType::Bf16,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    vec![
        pool("MaxPool", MAX_POOL_TYPES, "NHWC", 4),
        pool("AvgPool", AVG_POOL_TYPES, "NHWC", 4),
        pool("MaxPool3D", AVG_POOL_TYPES, "NDHWC", 5),
        pool("AvgPool3D", AVG_POOL_TYPES, "NDHWC", 5),
    ]
}

fn pool(op_type: &str, types: &[DataType], default_format: &str, rank: usize) -> OpSchema {
    OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Required).dtype_list(types))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("ksize", AttrType::ListInt, None)
        .attr("strides", AttrType::ListInt, None)
        .attr("padding", AttrType::Str, None)
        .attr(
            "explicit_paddings",
            AttrType::ListInt,
            Some(AttrValue::ListInt(vec![])),
        )
        .attr(
            "data_format",
            AttrType::Str,
            Some(AttrValue::Str(default_format.into())),
        )
        .verify(with_arg(verify_pool, rank))
        .infer_shape(with_arg(infer_pool, rank))
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn verify_pool(ctx: &mut OpContext<'_>, rank: usize) -> Result<(), OpError> {
    let layout = layout(ctx.attr_str("data_format")?, rank)?;
    check_per_dim(ctx.attr_ints("ksize")?, &layout, "ksize")?;
    check_per_dim(ctx.attr_ints("strides")?, &layout, "strides")?;
    if ctx.attr_str("padding")?.is_empty() {
        bail!("padding is '', expected SAME, VALID or EXPLICIT");
    }
    let pad = padding(ctx.attr_str("padding")?)?;
    let explicit = ctx.attr_ints("explicit_paddings")?;
    if pad == Padding::Explicit {
        if explicit.len() != 2 * rank {
            bail!(
                "explicit_paddings has {} values, expected {} (a pair per dim)",
                explicit.len(),
                2 * rank
            );
        }
        if explicit.iter().any(|&p| p < 0) {
            bail!("explicit_paddings {explicit:?} must all be >= 0");
        }
        for axis in [layout.n, layout.c] {
            if explicit[2 * axis] != 0 || explicit[2 * axis + 1] != 0 {
                bail!("explicit_paddings {explicit:?} must be 0 for the N and C dims");
            }
        }
    } else if !explicit.is_empty() {
        bail!("explicit_paddings must be empty unless padding is EXPLICIT");
    }
    Ok(())
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_pool(ctx: &mut OpContext<'_>, rank: usize) -> Result<(), OpError> {
    let layout = layout(ctx.attr_str("data_format")?, rank)?;
    let x = with_rank(ctx.input_shape(0)?, rank, "input 'x'")?;
    let ksize = ctx.attr_ints("ksize")?;
    let strides = ctx.attr_ints("strides")?;
    let pad = padding(ctx.attr_str("padding")?)?;
    let explicit = ctx.attr_ints("explicit_paddings")?;
    let mut out = x.clone();
    let mut windows = Vec::with_capacity(layout.spatial.len());
    for &axis in &layout.spatial {
        let mut w = Window::new(ksize[axis], strides[axis]);
        if pad == Padding::Explicit {
            w.pad_before = explicit[2 * axis];
            w.pad_after = explicit[2 * axis + 1];
        }
        out[axis] = output_dim(x[axis], &w, pad)?;
        windows.push((axis, w));
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        if let Some(mut r) = ranges::of_input(ctx, 0) {
            // The output size is monotonic in the input size.
            for (axis, w) in windows {
                r[axis] = ranges::monotonic(r[axis], |d| output_dim(d, &w, pad));
            }
            ranges::set(ctx, 0, r)?;
        }
    }
    ctx.set_output_format(0, layout.format)
}
