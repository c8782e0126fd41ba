//! SpaceToBatchND / BatchToSpaceND (TensorFlow, GE): blocks of the M
//! spatial dims (dims 1..=M) move into the batch dim after zero padding, or
//! back out of it before cropping. `block_shape` (`[M]`) and `paddings` /
//! `crops` (`[M, 2]`) are value-depend inputs; the dims after the spatial
//! ones are unchanged. TensorFlow's shape rule: a known block shape fixes the
//! batch dim; the spatial dims also need the pads (crops); sizes that do not
//! divide evenly are errors.

use super::{int_value, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::{add_dims, exact_div_dim, mul_dims};
use crate::ops::ranges::{self, Range};
use crate::types::{Shape, UNKNOWN_DIM};

/// Which way the blocks move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// SpaceToBatchND: pad, then spatial blocks into the batch.
    ToBatch,
    /// BatchToSpaceND: batch into spatial blocks, then crop.
    ToSpace,
}

pub(super) fn schemas() -> Vec<OpSchema> {
    let op = |op_type: &str, amounts: &str, direction: Direction| {
        let value = |name: &str| {
            PortDef::new(name, ParamType::Required)
                .dtype_list(INDEX)
                .value_depend(ValueDepend::Required)
        };
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required))
            .input(value("block_shape"))
            .input(value(amounts))
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
            .infer_shape(std::sync::Arc::new(move |ctx: &mut OpContext<'_>| {
                infer(ctx, direction)
            }))
    };
    vec![
        op("SpaceToBatchND", "paddings", Direction::ToBatch),
        op("BatchToSpaceND", "crops", Direction::ToSpace),
    ]
}

/// What the value-depend inputs say, checked: M (when known), the block
/// sizes and the (before, after) amounts (when known).
struct Blocks {
    m: Option<usize>,
    sizes: Option<Vec<i64>>,
    amounts: Option<Vec<(i64, i64)>>,
}

fn blocks(ctx: &OpContext<'_>, amounts_name: &str) -> Result<Blocks, OpError> {
    let block_shape = ctx.input_shape(1)?;
    if block_shape.rank().is_some_and(|r| r != 1) {
        bail!("block_shape must be a vector, got shape {block_shape}");
    }
    let sizes = int_value(ctx, 1);
    if let Some(sizes) = sizes.as_deref().filter(|s| s.iter().any(|&b| b < 1)) {
        bail!("block_shape {sizes:?} must be all >= 1");
    }
    let m = match &sizes {
        Some(s) => Some(s.len()),
        None => match block_shape.dims() {
            &[d] if d >= 0 => Some(d as usize),
            _ => None,
        },
    };
    let amounts_shape = ctx.input_shape(2)?;
    let rows_ok = match (amounts_shape.dims().first(), m) {
        (Some(&rows), Some(m)) => rows == UNKNOWN_DIM || rows == m as i64,
        _ => true,
    };
    let shape_ok = amounts_shape.is_unknown_rank()
        || (amounts_shape.rank() == Some(2)
            && matches!(amounts_shape.dims()[1], 2 | UNKNOWN_DIM)
            && rows_ok);
    if !shape_ok {
        let m = m.map_or("M".to_owned(), |m| m.to_string());
        bail!("{amounts_name} must have shape [{m}, 2] (a before/after pair per block dim), got {amounts_shape}");
    }
    let amounts = match int_value(ctx, 2) {
        None => None,
        Some(v) => {
            if v.len() % 2 != 0 || m.is_some_and(|m| m.checked_mul(2) != Some(v.len())) {
                bail!(
                    "{amounts_name} has {} values, expected 2 per block dim",
                    v.len()
                );
            }
            let pairs: Vec<(i64, i64)> = v.chunks_exact(2).map(|c| (c[0], c[1])).collect();
            if let Some((i, p)) = pairs.iter().enumerate().find(|(_, p)| p.0 < 0 || p.1 < 0) {
                bail!("{amounts_name}[{i}] = [{}, {}] must be >= 0", p.0, p.1);
            }
            Some(pairs)
        }
    };
    // Without a block shape, the pairs still say how many block dims there are.
    let m = m.or(amounts.as_ref().map(Vec::len));
    Ok(Blocks { m, sizes, amounts })
}

fn infer(ctx: &mut OpContext<'_>, direction: Direction) -> Result<(), OpError> {
    let amounts_name = match direction {
        Direction::ToBatch => "paddings",
        Direction::ToSpace => "crops",
    };
    let b = blocks(ctx, amounts_name)?;
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let Some(m) = b.m else {
        // Which dims are spatial is unknown; only the rank stays.
        return ctx.set_output_shape(0, Shape::unknown_dims(rank));
    };
    if rank <= m {
        bail!(
            "the input must have rank >= {} (batch and {m} block dims), got shape {input}",
            m.saturating_add(1)
        );
    }
    let mut out = input.dims().to_vec();
    out[0] = batch_dim(out[0], b.sizes.as_deref(), direction)?;
    // rank > m, so the m block dims follow the batch dim.
    for (i, dim) in out.iter_mut().skip(1).take(m).enumerate() {
        let (Some(sizes), Some(amounts)) = (&b.sizes, &b.amounts) else {
            *dim = UNKNOWN_DIM;
            continue;
        };
        *dim = spatial_dim(*dim, sizes[i], amounts[i], direction)
            .map_err(|e| OpError::new(format!("block dim {i}: {e}")))?;
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    range_rules::propagate(ctx, 0, |ctx| {
        let mut r = ranges::of_input(ctx, 0)?;
        let sizes = b.sizes.as_deref()?;
        r[0] = batch_range(r[0], sizes, direction)?;
        for (i, (dim, &size)) in r.iter_mut().skip(1).zip(sizes).enumerate() {
            *dim = match &b.amounts {
                Some(a) => spatial_range(*dim, size, a[i], direction)?,
                None => ranges::ANY,
            };
        }
        Some(r)
    })
}

/// The product of the block sizes.
fn block_product(sizes: &[i64]) -> Result<i64, OpError> {
    sizes.iter().try_fold(1i64, |p, &s| {
        p.checked_mul(s)
            .ok_or_else(|| OpError::new(format!("the block sizes {sizes:?} multiply past int64")))
    })
}

fn batch_dim(batch: i64, sizes: Option<&[i64]>, direction: Direction) -> Result<i64, OpError> {
    let Some(sizes) = sizes else {
        return Ok(UNKNOWN_DIM);
    };
    let blocks = block_product(sizes)?;
    match direction {
        Direction::ToBatch => mul_dims(batch, blocks),
        Direction::ToSpace => exact_div_dim(batch, blocks).ok_or_else(|| {
            OpError::new(format!(
                "the batch {batch} is not divisible by the block sizes' product {blocks}"
            ))
        }),
    }
}

/// One spatial dim: `(d + before + after) / size` (which must divide), or
/// `d * size - before - after` (which must not be negative).
fn spatial_dim(
    d: i64,
    size: i64,
    (before, after): (i64, i64),
    direction: Direction,
) -> Result<i64, OpError> {
    if d == UNKNOWN_DIM {
        return Ok(UNKNOWN_DIM);
    }
    match direction {
        Direction::ToBatch => {
            let padded = add_dims(d, before).and_then(|s| add_dims(s, after))?;
            exact_div_dim(padded, size).ok_or_else(|| {
                OpError::new(format!("the padded size {padded} ({d} + {before} + {after}) is not divisible by the block size {size}"))
            })
        }
        Direction::ToSpace => {
            let grown = mul_dims(d, size)?;
            let out = grown
                .checked_sub(before)
                .and_then(|g| g.checked_sub(after))
                .unwrap_or(-1);
            if out < 0 {
                bail!("cropping [{before}, {after}] from {grown} ({d} * {size}) leaves a negative size");
            }
            Ok(out)
        }
    }
}

fn batch_range(r: Range, sizes: &[i64], direction: Direction) -> Option<Range> {
    let blocks = block_product(sizes).ok()?;
    match direction {
        Direction::ToBatch => Some(ranges::mul(r, (blocks, blocks))),
        Direction::ToSpace => ranges::div_exact(r, blocks),
    }
}

fn spatial_range(
    r: Range,
    size: i64,
    (before, after): (i64, i64),
    direction: Direction,
) -> Option<Range> {
    let pads = before.checked_add(after)?;
    match direction {
        Direction::ToBatch => ranges::div_exact(ranges::add(r, (pads, pads)), size),
        Direction::ToSpace => Some(range_rules::sub(ranges::mul(r, (size, size)), pads)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Direction::{ToBatch, ToSpace};

    #[test]
    fn batch_and_spatial_dims() {
        assert_eq!(batch_dim(3, Some(&[2, 2]), ToBatch).unwrap(), 12);
        assert_eq!(batch_dim(-1, Some(&[2, 2]), ToBatch).unwrap(), -1);
        assert_eq!(batch_dim(3, None, ToBatch).unwrap(), -1);
        assert_eq!(batch_dim(12, Some(&[2, 3]), ToSpace).unwrap(), 2);
        assert!(batch_dim(10, Some(&[2, 3]), ToSpace).is_err());
        assert!(batch_dim(1, Some(&[i64::MAX, 2]), ToBatch).is_err());
        assert_eq!(spatial_dim(5, 2, (1, 0), ToBatch).unwrap(), 3);
        assert!(spatial_dim(5, 2, (0, 0), ToBatch).is_err());
        assert_eq!(spatial_dim(-1, 2, (0, 0), ToBatch).unwrap(), -1);
        assert_eq!(spatial_dim(3, 2, (1, 0), ToSpace).unwrap(), 5);
        assert_eq!(spatial_dim(0, 2, (0, 0), ToSpace).unwrap(), 0);
        assert!(spatial_dim(1, 2, (2, 1), ToSpace).is_err());
        assert!(spatial_dim(i64::MAX, 1, (1, 0), ToBatch).is_err());
    }

    #[test]
    fn ranges_follow_the_dims() {
        assert_eq!(batch_range((1, 4), &[2, 2], ToBatch), Some((4, 16)));
        assert_eq!(batch_range((4, -1), &[2, 2], ToSpace), Some((1, -1)));
        // (d + 1) / 2 for the d in [3, 9] that make it divide: 2..=5.
        assert_eq!(spatial_range((3, 9), 2, (1, 0), ToBatch), Some((2, 5)));
        assert_eq!(spatial_range((1, 8), 2, (1, 1), ToSpace), Some((0, 14)));
    }
}
