//! SqueezeV3 and UnsqueezeV3: ONNX Squeeze / Unsqueeze from opset 13, where
//! the axes are an input (opsets 1-11's `axes` attribute becomes a constant
//! input in the plugin). Unlike TensorFlow's Squeeze (an `axis` attribute)
//! and ExpandDims (one axis), SqueezeV3 takes an optional axes vector (none:
//! every dim of size 1 goes) and UnsqueezeV3 inserts several 1s at once,
//! each axis counted in the OUTPUT rank. A repeated axis is an error.

use super::{distinct_axes, fold_view, ints, vector_len, Ints, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::ranges;
use crate::types::{Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let axes = |param| {
        PortDef::new("axes", param)
            .dtype_list(INDEX)
            .value_depend(ValueDepend::Required)
    };
    let view = || {
        PortDef::new("y", ParamType::Required)
            .follow("x", FollowType::Dtype)
            .reuses_input("x")
    };
    let squeeze = OpSchema::new("SqueezeV3")
        .input(PortDef::new("x", ParamType::Required))
        .input(axes(ParamType::Optional))
        .output(view())
        .infer_shape(op_fn(infer_squeeze))
        .fold(op_fn(fold_view));
    let unsqueeze = OpSchema::new("UnsqueezeV3")
        .input(PortDef::new("x", ParamType::Required))
        .input(axes(ParamType::Required))
        .output(view())
        .infer_shape(op_fn(infer_unsqueeze))
        .fold(op_fn(fold_view));
    vec![squeeze, unsqueeze]
}

/// Listed axes must be 1 (an unknown dim is taken to be 1); with no axes
/// every 1 goes, and an unknown dim then makes the rank unknown.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "the axes count is checked against the rank before subtracting"
)]
fn infer_squeeze(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let axes = ints(ctx, 1, "axes")?;
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let dims = input.dims();
    let drop: Vec<bool> = match axes {
        Ints::Known(axes) => {
            let mut drop = vec![false; rank];
            for (&axis, a) in axes.iter().zip(distinct_axes(&axes, rank, "axis")?) {
                match dims[a] {
                    1 | UNKNOWN_DIM => drop[a] = true,
                    d => bail!("cannot squeeze axis {axis}: its dim is {d}, not 1"),
                }
            }
            drop
        }
        Ints::Absent if dims.contains(&UNKNOWN_DIM) => {
            return ctx.set_output_shape(0, Shape::unknown_rank());
        }
        Ints::Absent => dims.iter().map(|&d| d == 1).collect(),
        Ints::Unknown => {
            let out = match vector_len(ctx, 1) {
                Some(n) if n <= rank => Shape::unknown_dims(rank - n),
                Some(n) => bail!("it squeezes {n} axes but the input has only {rank} dims"),
                None => Shape::unknown_rank(),
            };
            return ctx.set_output_shape(0, out);
        }
    };
    let kept = |i: usize| !drop[i];
    let out: Vec<i64> = (0..rank).filter(|&i| kept(i)).map(|i| dims[i]).collect();
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        if let Some(r) = ranges::of_input(ctx, 0) {
            let r = r.into_iter().enumerate().filter(|&(i, _)| kept(i));
            ranges::set(ctx, 0, r.map(|(_, r)| r).collect())?;
        }
    }
    Ok(())
}

/// A 1 at each axis of the output (rank `rank(x) + len(axes)`); the input
/// dims fill the other places in order.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "ranks are small (checked against MAX_RANK by Shape)"
)]
fn infer_unsqueeze(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let axes = ints(ctx, 1, "axes")?;
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let axes = match axes {
        Ints::Known(axes) => axes,
        _ => {
            let out = match vector_len(ctx, 1) {
                Some(n) => Shape::unknown_dims(rank + n),
                None => Shape::unknown_rank(),
            };
            return ctx.set_output_shape(0, out);
        }
    };
    let out_rank = rank + axes.len();
    let mut inserted = vec![false; out_rank];
    for a in distinct_axes(&axes, out_rank, "axis")? {
        inserted[a] = true;
    }
    let mut source = input.dims().iter();
    let dims: Vec<i64> = inserted
        .iter()
        .map(|&one| if one { Some(1) } else { source.next().copied() })
        .collect::<Option<_>>()
        .unwrap_or_default();
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    if ranges::wanted(ctx, 0) {
        if let Some(r) = ranges::of_input(ctx, 0) {
            let mut source = r.into_iter();
            let out = inserted
                .iter()
                .map(|&one| if one { Some((1, 1)) } else { source.next() })
                .collect::<Option<_>>();
            if let Some(out) = out {
                ranges::set(ctx, 0, out)?;
            }
        }
    }
    Ok(())
}
