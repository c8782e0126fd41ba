//! Expand (GE's name), ONNX Expand from opset 8: `x` broadcast against the
//! `shape` vector in both directions, so the output is numpy's broadcast of
//! `x.shape` and `shape` (a 1 in `shape` keeps x's dim, and the output rank
//! is the larger of the two). TensorFlow's BroadcastTo instead requires the
//! output to be exactly `shape`.

use super::INDEX;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::array::host::{for_each_index, strides, Elems};
use crate::ops::broadcast_shapes;
use crate::ops::ranges;
use crate::types::{Shape, MAX_RANK};

pub(super) fn schemas() -> Vec<OpSchema> {
    let expand = OpSchema::new("Expand")
        .input(PortDef::new("x", ParamType::Required))
        .input(
            PortDef::new("shape", ParamType::Required)
                .dtype_list(INDEX)
                .value_depend(ValueDepend::Required),
        )
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .infer_shape(op_fn(infer))
        .fold(op_fn(fold));
    vec![expand]
}

/// The `shape` input as a shape: its value (entries unknown where folding
/// does not know them), all unknown when only its length is known.
fn target(ctx: &OpContext<'_>) -> Result<Option<Shape>, OpError> {
    let desc = ctx.input(1)?;
    let len = match desc.shape().rank() {
        Some(1) => desc.shape().dims()[0],
        Some(_) => bail!(
            "input 'shape' must be a 1-D vector, got shape {}",
            desc.shape()
        ),
        None => return Ok(None),
    };
    if let Some(v) = ctx.input_value(1).and_then(|v| v.to_ints()) {
        if let Some(bad) = v.iter().find(|&&d| d < 0) {
            bail!("input 'shape' holds {bad}; its entries must be >= 0");
        }
        if v.len() > MAX_RANK {
            bail!("input 'shape' has {} entries; at most {MAX_RANK}", v.len());
        }
        return Ok(Some(Shape::from_dims(v)));
    }
    if let Some(partial) = ctx.input_shape_value(1) {
        return Ok(Some(partial));
    }
    Ok(usize::try_from(len)
        .ok()
        .filter(|&n| n <= MAX_RANK)
        .map(Shape::unknown_dims))
}

fn infer(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let out = match target(ctx)? {
        Some(t) => broadcast_shapes(input, &t).map_err(OpError::new)?,
        None => Shape::unknown_rank(),
    };
    ctx.set_output_shape(0, out)?;
    expand_range(ctx)
}

/// Each output dim is numpy's broadcast of x's dim and the shape entry
/// (both right-aligned; a missing one is 1): its range is the broadcast
/// of x's dim range and the entry's value range.
fn expand_range(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (Some(x), Some(entries), Some(rank)) = (
        ranges::of_input(ctx, 0),
        Elems::vector_bounds(ctx, 1),
        ctx.output_desc(0).and_then(|d| d.shape().rank()),
    ) else {
        return Ok(());
    };
    // Right-aligned, the shorter side padded with 1s.
    let one = std::iter::repeat((1, 1));
    let mut out_ranges: Vec<ranges::Range> = x
        .into_iter()
        .rev()
        .chain(one.clone())
        .zip(entries.into_iter().rev().chain(one))
        .take(rank)
        .map(|(a, b)| ranges::broadcast(a, b))
        .collect();
    out_ranges.reverse();
    ranges::set_if_bounded(ctx, 0, out_ranges)
}

/// Output coordinate `c` reads x's coordinate `c` (0 where x's dim is 1),
/// x right-aligned.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(input) = Elems::input(ctx, 0) else {
        return Ok(());
    };
    let Some(out) = ctx.output_desc(0).map(|d| d.shape().clone()) else {
        return Ok(());
    };
    if !out.is_static() {
        return Ok(());
    }
    let out_dims = out.dims().to_vec();
    let Some(lead) = out_dims.len().checked_sub(input.dims.len()) else {
        return Ok(());
    };
    let st = strides(&input.dims);
    let mut sources = Vec::new();
    for_each_index(&out_dims, |index| {
        let flat = input
            .dims
            .iter()
            .enumerate()
            .map(|(k, &d)| {
                if d == 1 {
                    0
                } else {
                    index[lead + k] as usize * st[k]
                }
            })
            .sum();
        sources.push(Some(flat));
    });
    input.pick(&out_dims, sources).write(ctx, 0)
}
