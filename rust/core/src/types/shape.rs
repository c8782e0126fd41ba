//! Tensor shapes with GE's conventions: `-1` is an unknown dimension, the
//! single-element shape `[-2]` is an unknown rank, and `[]` is a scalar.

use smallvec::SmallVec;
use std::fmt;

/// GE's marker for a dimension whose size is not known.
pub const UNKNOWN_DIM: i64 = -1;
/// GE's marker (as the only dim) for a shape whose rank is not known.
pub const UNKNOWN_RANK: i64 = -2;
/// The largest rank opgraph accepts (TensorFlow's limit); bounds what a
/// computed shape vector may allocate.
pub const MAX_RANK: usize = 254;

/// Ranks up to this are stored without a heap allocation.
const INLINE_RANK: usize = 5;

/// Dims stored inline for the ranks real networks use.
pub type Dims = SmallVec<[i64; INLINE_RANK]>;

/// `dims` as [`Dims`]. Inference copies a few shapes per node, so the
/// usual ranks are copied as a whole fixed-size array (a few register
/// moves) instead of as a slice of unknown length (a `memcpy` call, which
/// is also what smallvec's own `Clone` and `from_slice` come down to).
fn to_dims(dims: &[i64]) -> Dims {
    if dims.len() <= INLINE_RANK {
        let buf = std::array::from_fn(|i| dims.get(i).copied().unwrap_or(0));
        Dims::from_buf_and_len(buf, dims.len())
    } else {
        Dims::from_slice(dims)
    }
}

#[derive(Debug, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    dims: Dims,
}

/// By hand, to copy through [`to_dims`].
impl Clone for Shape {
    fn clone(&self) -> Shape {
        Shape {
            dims: to_dims(&self.dims),
        }
    }
}

/// A shape that breaks GE's conventions.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error(
        "dim {index} is {value}, but dims must be >= 0, or -1 for unknown ([-2] alone: unknown rank)"
    )]
    BadDim { index: usize, value: i64 },
    #[error("-2 (unknown rank) must be the only dim")]
    MisplacedUnknownRank,
    #[error("rank {0} exceeds the maximum rank {MAX_RANK}")]
    RankTooLarge(usize),
    #[error("the element count of {0} overflows int64")]
    Overflow(Shape),
}

impl Shape {
    /// A shape from dims, checked against GE's conventions.
    pub fn new(dims: impl AsRef<[i64]>) -> Result<Shape, ShapeError> {
        if dims.as_ref().len() > MAX_RANK {
            return Err(ShapeError::RankTooLarge(dims.as_ref().len()));
        }
        let dims = to_dims(dims.as_ref());
        if dims.as_slice() == [UNKNOWN_RANK] {
            return Ok(Shape { dims });
        }
        for (index, &value) in dims.iter().enumerate() {
            if value == UNKNOWN_RANK {
                return Err(ShapeError::MisplacedUnknownRank);
            }
            if value < UNKNOWN_DIM {
                return Err(ShapeError::BadDim { index, value });
            }
        }
        Ok(Shape { dims })
    }

    /// A shape from dims the caller has already validated (op rules that
    /// compute dims from valid inputs).
    pub fn from_dims(dims: impl AsRef<[i64]>) -> Shape {
        Shape {
            dims: to_dims(dims.as_ref()),
        }
    }

    pub fn scalar() -> Shape {
        Shape::default()
    }

    pub fn unknown_rank() -> Shape {
        Shape {
            dims: SmallVec::from_slice(&[UNKNOWN_RANK]),
        }
    }

    /// Rank `rank` with every dim unknown.
    pub fn unknown_dims(rank: usize) -> Shape {
        Shape {
            dims: SmallVec::from_elem(UNKNOWN_DIM, rank),
        }
    }

    pub fn dims(&self) -> &[i64] {
        &self.dims
    }

    pub fn is_unknown_rank(&self) -> bool {
        self.dims.as_slice() == [UNKNOWN_RANK]
    }

    /// The rank, or `None` for an unknown rank.
    pub fn rank(&self) -> Option<usize> {
        (!self.is_unknown_rank()).then_some(self.dims.len())
    }

    /// True when every dim is known (and the rank is known).
    pub fn is_static(&self) -> bool {
        self.dims.iter().all(|&d| d >= 0)
    }

    /// Number of elements: `Ok(None)` when a dim or the rank is unknown,
    /// an error when the product overflows `i64`.
    pub fn num_elements(&self) -> Result<Option<i64>, ShapeError> {
        if !self.is_static() {
            return Ok(None);
        }
        // The non-zero dims must multiply within int64 whatever their order
        // (numpy refuses such shapes even when another dim is 0).
        let product = self
            .dims
            .iter()
            .filter(|&&d| d != 0)
            .try_fold(1i64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| ShapeError::Overflow(self.clone()))?;
        Ok(Some(if self.dims.contains(&0) { 0 } else { product }))
    }
}

impl From<&[i64]> for Shape {
    fn from(dims: &[i64]) -> Shape {
        Shape::from_dims(dims)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_unknown_rank() {
            return f.write_str("[?rank]");
        }
        f.write_str("[")?;
        crate::message::write_capped_with(f, &self.dims, ", ", |f, &d| {
            if d == UNKNOWN_DIM {
                f.write_str("?")
            } else {
                write!(f, "{d}")
            }
        })?;
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions_are_enforced() {
        assert!(Shape::new([UNKNOWN_RANK]).unwrap().is_unknown_rank());
        assert_eq!(Shape::new([1, -2]), Err(ShapeError::MisplacedUnknownRank));
        assert_eq!(
            Shape::new([1, -3]),
            Err(ShapeError::BadDim {
                index: 1,
                value: -3
            })
        );
        assert_eq!(Shape::scalar().rank(), Some(0));
        assert_eq!(Shape::unknown_rank().rank(), None);
    }

    #[test]
    fn element_count_detects_overflow_and_unknowns() {
        assert_eq!(Shape::from_dims([2, 3, 4]).num_elements(), Ok(Some(24)));
        assert_eq!(Shape::scalar().num_elements(), Ok(Some(1)));
        assert_eq!(Shape::from_dims([2, -1]).num_elements(), Ok(None));
        assert!(Shape::from_dims([i64::MAX, 2]).num_elements().is_err());
    }

    #[test]
    fn copies_keep_every_rank() {
        for rank in 0..9 {
            let dims: Vec<i64> = (1..=rank).collect();
            let shape = Shape::from_dims(&dims);
            assert_eq!(shape.dims(), dims.as_slice());
            assert_eq!(shape.clone(), shape);
            assert_eq!(shape.clone().dims(), dims.as_slice());
            assert_eq!(Shape::new(&dims).unwrap(), shape);
        }
    }

    #[test]
    fn display_marks_unknowns() {
        assert_eq!(Shape::from_dims([1, -1, 3]).to_string(), "[1, ?, 3]");
        assert_eq!(Shape::unknown_rank().to_string(), "[?rank]");
    }
}
