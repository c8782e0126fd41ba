//! AddN: the sum of N tensors of one dtype and one shape (DYNAMIC input
//! `x`, attribute `N` as GE requires it). Unknown dims and ranks merge with
//! known ones, as TensorFlow's shape function merges them.

use super::dtypes::NUMBER;
use super::range_rules;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges;
use crate::types::{AttrType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let add_n = OpSchema::new("AddN")
        .input(PortDef::new("x", ParamType::Dynamic).dtypes(NUMBER))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(NUMBER)
                .follow("x", FollowType::Format),
        )
        .attr("N", AttrType::Int, None)
        .verify(op_fn(verify_add_n))
        .infer_shape(op_fn(infer_add_n));
    vec![add_n]
}

fn verify_add_n(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let n = ctx.attr_int("N")?;
    let count = ctx.dynamic_input_count(0)?;
    if n < 1 {
        bail!("N must be at least 1, got {n}");
    }
    if n != count as i64 {
        bail!("N is {n} but input 'x' has {count} instances");
    }
    Ok(())
}

fn infer_add_n(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let mut merged = Shape::unknown_rank();
    for i in 0..ctx.dynamic_input_count(0)? {
        let shape = ctx.dynamic_input_desc(0, i)?.shape();
        merged = merge(&merged, shape).map_err(|e| OpError::new(format!("x[{i}]: {e}")))?;
    }
    let rank = merged.rank();
    ctx.set_output_shape(0, merged)?;
    // Every summand has the output's shape.
    range_rules::propagate(ctx, 0, |ctx| {
        let all = (0..ctx.input_count()).filter_map(|i| ranges::of_input(ctx, i));
        Some(range_rules::intersect_all(all, rank?))
    })
}

/// The most specific shape compatible with both, or why there is none.
fn merge(a: &Shape, b: &Shape) -> Result<Shape, String> {
    if a.is_unknown_rank() {
        return Ok(b.clone());
    }
    if b.is_unknown_rank() {
        return Ok(a.clone());
    }
    if a.rank() != b.rank() {
        return Err(format!("shape {b} does not match {a} (different ranks)"));
    }
    let dims = a.dims().iter().zip(b.dims()).map(|(&x, &y)| match (x, y) {
        (UNKNOWN_DIM, d) | (d, UNKNOWN_DIM) => Ok(d),
        _ if x == y => Ok(x),
        _ => Err(format!("shape {b} does not match {a}")),
    });
    Ok(Shape::from_dims(
        dims.collect::<Result<Vec<i64>, String>>()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknowns_merge_and_mismatches_are_errors() {
        let s = |d: &[i64]| Shape::from_dims(d);
        assert_eq!(merge(&s(&[-1, 3]), &s(&[2, -1])).unwrap(), s(&[2, 3]));
        assert_eq!(merge(&Shape::unknown_rank(), &s(&[4])).unwrap(), s(&[4]));
        assert!(merge(&s(&[2, 3]), &s(&[2, 4])).is_err());
        assert!(merge(&s(&[2]), &s(&[2, 1])).is_err());
    }
}
