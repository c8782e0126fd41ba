//! Slice: `size[i]` elements from `offsets[i]` (a size of -1 takes the rest
//! of the dim), TensorFlow's rule `0 <= begin <= begin + size <= dim`.

use super::host::{for_each_index, strides, Elems};
use super::{int_value, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::ranges;
use crate::types::{Shape, MAX_RANK, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let vector = |name: &str| {
        PortDef::new(name, ParamType::Required)
            .dtypes(INDEX)
            .value_depend(ValueDepend::Required)
    };
    let slice = OpSchema::new("Slice")
        .input(PortDef::new("x", ParamType::Required))
        .input(vector("offsets"))
        .input(vector("size"))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .infer_shape(op_fn(infer_slice))
        .fold(op_fn(fold_slice));
    vec![slice]
}

/// Output dims (`-1` unknown) from the known offsets and sizes.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn slice_dims(dims: &[i64], begin: &[i64], size: &[i64]) -> Result<Vec<i64>, OpError> {
    if begin.len() != dims.len() || size.len() != dims.len() {
        bail!(
            "offsets and size must have one entry per input dim ({}), got {} and {}",
            dims.len(),
            begin.len(),
            size.len()
        );
    }
    let mut out = Vec::with_capacity(dims.len());
    for (i, ((&d, &b), &s)) in dims.iter().zip(begin).zip(size).enumerate() {
        if b < 0 || s < -1 {
            bail!("offsets[{i}] = {b} and size[{i}] = {s}: offsets must be >= 0 and sizes >= -1");
        }
        if d == UNKNOWN_DIM {
            out.push(if s == -1 { UNKNOWN_DIM } else { s });
            continue;
        }
        let size = if s == -1 { d - b } else { s };
        if b > d || size < 0 || b.checked_add(size).is_none_or(|end| end > d) {
            bail!("offsets[{i}] = {b} with size[{i}] = {s} does not fit dim {i} of size {d}");
        }
        out.push(size);
    }
    Ok(out)
}

fn infer_slice(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    for i in 1..3 {
        let shape = ctx.input_shape(i)?;
        if shape.rank().is_some_and(|r| r != 1) {
            bail!(
                "input '{}' must be a 1-D vector, got shape {shape}",
                ["", "offsets", "size"][i]
            );
        }
    }
    let (begin, size) = (int_value(ctx, 1), int_value(ctx, 2));
    let out = match (input.rank(), &begin, &size) {
        (Some(_), Some(b), Some(s)) => Shape::from_dims(slice_dims(input.dims(), b, s)?),
        (None, _, Some(s)) => sizes_alone(begin.as_deref(), s)?,
        // Sizes alone give every dim but the -1s (where the offsets are
        // unknown).
        (_, None, Some(s)) if s.iter().all(|&v| v >= -1) => sizes_alone(None, s)?,
        (Some(rank), _, _) => Shape::unknown_dims(rank),
        (None, _, _) => match ctx.input_shape(2)?.dims() {
            [len] if *len >= 0 && *len as usize <= MAX_RANK => Shape::unknown_dims(*len as usize),
            _ => Shape::unknown_rank(),
        },
    };
    ctx.set_output_shape(0, out)?;
    range_rules::propagate(ctx, 0, |ctx| {
        let r = ranges::of_input(ctx, 0)?;
        Some(range_rules::slice(&r, begin.as_deref(), size.as_deref()))
    })
}

/// The output when only the sizes (and maybe the offsets) are known, as
/// TensorFlow's shape function gives it: each size, -1 unknown; the
/// offsets, when known, must be as many and not negative.
fn sizes_alone(begin: Option<&[i64]>, size: &[i64]) -> Result<Shape, OpError> {
    if let Some(bad) = size.iter().find(|&&v| v < -1) {
        bail!("size has entry {bad}; sizes must be >= -1 (-1: to the end)");
    }
    if let Some(begin) = begin {
        if begin.len() != size.len() {
            bail!(
                "offsets has {} entries and size {}; they must match",
                begin.len(),
                size.len()
            );
        }
        if let Some(bad) = begin.iter().find(|&&v| v < 0) {
            bail!("offsets has entry {bad}; offsets must be >= 0");
        }
    }
    let dims: Vec<i64> = size
        .iter()
        .map(|&v| if v < 0 { UNKNOWN_DIM } else { v })
        .collect();
    Shape::new(dims).map_err(|e| OpError::new(format!("size: {e}")))
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold_slice(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (Some(input), Some(begin)) = (Elems::input(ctx, 0), int_value(ctx, 1)) else {
        return Ok(());
    };
    let Some(out_dims) = ctx.output_desc(0).map(|d| d.shape().dims().to_vec()) else {
        return Ok(());
    };
    if begin.len() != out_dims.len() {
        return Ok(());
    }
    let st = strides(&input.dims);
    let mut sources = Vec::new();
    for_each_index(&out_dims, |index| {
        let flat = index
            .iter()
            .zip(&begin)
            .zip(&st)
            .map(|((&k, &b), &s)| (k + b) as usize * s)
            .sum();
        sources.push(Some(flat));
    });
    input.pick(&out_dims, sources).write(ctx, 0)
}
