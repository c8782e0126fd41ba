//! Shape checks the nn ops share: fixed-rank inputs, dims that must agree
//! (unknown agrees with anything), element counts, and attribute lists.

use crate::bail;
use crate::infer::OpContext;
use crate::op::OpError;
use crate::types::{AttrValue, Dims, Shape, UNKNOWN_DIM};

/// The dims of an input that must have rank `rank`; all unknown when its
/// rank is unknown.
pub(super) fn with_rank(shape: &Shape, rank: usize, what: &str) -> Result<Dims, OpError> {
    match shape.rank() {
        None => Ok(std::iter::repeat_n(UNKNOWN_DIM, rank).collect()),
        Some(r) if r == rank => Ok(shape.dims().iter().copied().collect()),
        Some(r) => bail!("{what} must be {rank}-D, got rank {r} (shape {shape})"),
    }
}

/// The one value two dims that must be equal stand for: the known one when
/// either is unknown, an error naming `what` when both are known and differ.
pub(crate) fn merge_dim(a: i64, b: i64, what: &str) -> Result<i64, OpError> {
    match (a, b) {
        (UNKNOWN_DIM, d) | (d, UNKNOWN_DIM) => Ok(d),
        _ if a == b => Ok(a),
        _ => bail!("{what}: {a} != {b}"),
    }
}

/// Dims of two same-rank shapes merged pairwise (see [`merge_dim`]).
pub(crate) fn merge_shapes(a: &Shape, b: &Shape, what: &str) -> Result<Shape, OpError> {
    match (a.rank(), b.rank()) {
        (None, _) => Ok(b.clone()),
        (_, None) => Ok(a.clone()),
        (Some(ra), Some(rb)) if ra != rb => {
            bail!("{what}: shapes {a} and {b} have different ranks")
        }
        _ => {
            let dims = a
                .dims()
                .iter()
                .zip(b.dims())
                .map(|(&x, &y)| merge_dim(x, y, &format!("{what} ({a} vs {b})")))
                .collect::<Result<Dims, _>>()?;
            Ok(Shape::from_dims(dims))
        }
    }
}

/// The product of `dims`, unknown when any is unknown (and none is 0),
/// an error on overflow.
pub(super) fn product(dims: &[i64]) -> Result<i64, OpError> {
    dims.iter()
        .try_fold(1i64, |acc, &d| crate::ops::common::mul_dims(acc, d))
}

/// A convolution filter must hold elements: TensorFlow rejects a filter
/// with a zero dim ("filter must not have zero elements"), and Caffe a zero
/// kernel size or channel count; a zero kernel would make the output larger
/// than the input.
pub(super) fn nonempty_filter(filter: &[i64], what: &str) -> Result<(), OpError> {
    if filter.contains(&0) {
        bail!("{what} has shape {filter:?} with a zero dim; a convolution filter must have every dim >= 1");
    }
    Ok(())
}

/// Checks a 1-D per-channel input (bias, scale, mean …) against `channels`.
pub(super) fn check_vector(shape: &Shape, channels: i64, what: &str) -> Result<(), OpError> {
    if shape.is_unknown_rank() {
        return Ok(());
    }
    match shape.dims() {
        [n] => merge_dim(*n, channels, &format!("{what} length vs channels")).map(|_| ()),
        _ => bail!("{what} must be 1-D with {channels} elements, got shape {shape}"),
    }
}

/// A list-of-float attribute (absent → empty).
pub(super) fn attr_floats(ctx: &OpContext<'_>, name: &str) -> Result<Vec<f64>, OpError> {
    match ctx.attr(name) {
        None => Ok(Vec::new()),
        Some(AttrValue::ListFloat(v)) => Ok(v.clone()),
        Some(AttrValue::ListInt(v)) => Ok(v.iter().map(|&i| i as f64).collect()),
        Some(other) => bail!("attribute '{name}' must be a list of floats, got {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_and_products() {
        assert_eq!(merge_dim(-1, 3, "x").unwrap(), 3);
        assert_eq!(merge_dim(3, 3, "x").unwrap(), 3);
        assert!(merge_dim(2, 3, "x").is_err());
        assert_eq!(product(&[2, 3, 4]).unwrap(), 24);
        assert_eq!(product(&[2, -1]).unwrap(), -1);
        assert_eq!(product(&[0, -1]).unwrap(), 0);
        assert!(product(&[i64::MAX, 2]).is_err());
        let s = merge_shapes(&Shape::from_dims([-1, 2]), &Shape::from_dims([3, -1]), "t").unwrap();
        assert_eq!(s.dims(), &[3, 2]);
        assert!(with_rank(&Shape::from_dims([1, 2]), 4, "x").is_err());
        assert_eq!(with_rank(&Shape::unknown_rank(), 2, "x").unwrap().len(), 2);
    }
}
