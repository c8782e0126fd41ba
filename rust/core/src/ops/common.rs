//! Small rules many ops share: axis normalisation and dim arithmetic that
//! respects unknown dims and never overflows.

use crate::bail;
use crate::op::OpError;
use crate::types::{Shape, UNKNOWN_DIM};

/// `axis` in `[-rank, rank)` as an index in `[0, rank)` (TensorFlow's rule).
pub(crate) fn normalize_axis(axis: i64, rank: usize) -> Result<usize, OpError> {
    let r = i64::try_from(rank).unwrap_or(i64::MAX);
    let index = if axis < 0 {
        axis.checked_add(r)
    } else {
        Some(axis)
    };
    match index {
        Some(i) if (0..r).contains(&i) => Ok(i as usize),
        _ => bail!(
            "axis {axis} is out of range for rank {rank} (expected {}..{r})",
            r.wrapping_neg()
        ),
    }
}

/// `a * b` for attribute or dim values that must be known; an error naming
/// `what` (e.g. "block_size * block_size") on int64 overflow.
pub(crate) fn checked_mul(a: i64, b: i64, what: &str) -> Result<i64, OpError> {
    a.checked_mul(b)
        .ok_or_else(|| OpError::new(format!("{what} = {a} * {b} overflows int64")))
}

/// `d / k` of a dim by a positive divisor, unknown staying unknown; `None`
/// when a known `d` is not a multiple of `k` (or `k` is 0), for the caller
/// to explain in its own terms.
pub(crate) fn exact_div_dim(d: i64, k: i64) -> Option<i64> {
    if d == UNKNOWN_DIM {
        return Some(UNKNOWN_DIM);
    }
    match (d.checked_rem(k), d.checked_div(k)) {
        (Some(0), Some(q)) => Some(q),
        _ => None,
    }
}

/// The sum of two dims: unknown if either is, an error on overflow.
pub(crate) fn add_dims(a: i64, b: i64) -> Result<i64, OpError> {
    if a == UNKNOWN_DIM || b == UNKNOWN_DIM {
        return Ok(UNKNOWN_DIM);
    }
    a.checked_add(b)
        .ok_or_else(|| OpError::new(format!("the dim {a} + {b} overflows int64")))
}

/// The product of two dims: unknown if either is (unless one is 0), an
/// error on overflow.
pub(crate) fn mul_dims(a: i64, b: i64) -> Result<i64, OpError> {
    if a == 0 || b == 0 {
        return Ok(0);
    }
    if a == UNKNOWN_DIM || b == UNKNOWN_DIM {
        return Ok(UNKNOWN_DIM);
    }
    a.checked_mul(b)
        .ok_or_else(|| OpError::new(format!("the dim {a} * {b} overflows int64")))
}

/// The rank of `shape`, or an error naming `what` when it is unknown and the
/// rule needs it.
pub(crate) fn known_rank(shape: &Shape, what: &str) -> Result<usize, OpError> {
    match shape.rank() {
        Some(rank) => Ok(rank),
        None => bail!("{what} needs a known rank"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_and_dims() {
        assert_eq!(normalize_axis(-1, 4).unwrap(), 3);
        assert!(normalize_axis(4, 4).is_err());
        assert!(normalize_axis(-5, 4).is_err());
        assert_eq!(add_dims(-1, 3).unwrap(), -1);
        assert!(add_dims(i64::MAX, 1).is_err());
        assert_eq!(mul_dims(0, -1).unwrap(), 0);
        assert!(mul_dims(i64::MAX, 2).is_err());
        assert!(normalize_axis(i64::MIN, 4).is_err());
        assert!(normalize_axis(i64::MAX, 4).is_err());
        assert_eq!(normalize_axis(-4, 4).unwrap(), 0);
        let e = checked_mul(1 << 32, 1 << 32, "block_size * block_size").unwrap_err();
        assert!(e.message.contains("block_size * block_size"), "{e}");
        assert_eq!(exact_div_dim(16, 4), Some(4));
        assert_eq!(exact_div_dim(UNKNOWN_DIM, 4), Some(UNKNOWN_DIM));
        assert_eq!(exact_div_dim(16, 0), None);
        assert_eq!(exact_div_dim(15, 4), None);
    }
}
