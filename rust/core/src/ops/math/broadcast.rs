//! numpy broadcasting over shapes with unknown dims and ranks.

use crate::types::{Dims, Shape, UNKNOWN_DIM};

/// The broadcast of `a` and `b` (numpy rules). An unknown dim against a
/// known `d > 1` (or 0) must be 1 or `d`, so the result is `d`; against 1 it
/// stays unknown. An unknown rank makes the result an unknown rank.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
pub fn broadcast_shapes(a: &Shape, b: &Shape) -> Result<Shape, String> {
    if a.is_unknown_rank() || b.is_unknown_rank() {
        return Ok(Shape::unknown_rank());
    }
    if a == b {
        // Every axis is `x == y`; the common case in residual networks.
        return Ok(a.clone());
    }
    let (a, b) = (a.dims(), b.dims());
    let rank = a.len().max(b.len());
    let dim = |s: &[i64], i: usize| {
        if i < rank - s.len() {
            1
        } else {
            s[i - (rank - s.len())]
        }
    };
    let mut out = Dims::with_capacity(rank);
    for i in 0..rank {
        let (x, y) = (dim(a, i), dim(b, i));
        out.push(match (x, y) {
            _ if x == y => x,
            (1, d) | (d, 1) => d,
            (UNKNOWN_DIM, d) | (d, UNKNOWN_DIM) => d,
            _ => {
                return Err(format!(
                    "dims {x} and {y} at axis {} (from the right) cannot be broadcast",
                    rank - i
                ))
            }
        });
    }
    Ok(Shape::from_dims(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(d: &[i64]) -> Shape {
        Shape::from_dims(d)
    }

    #[test]
    fn numpy_rules_with_unknowns() {
        assert_eq!(
            broadcast_shapes(&s(&[2, 1, 3]), &s(&[4, 1])).unwrap(),
            s(&[2, 4, 3])
        );
        assert_eq!(broadcast_shapes(&s(&[]), &s(&[5])).unwrap(), s(&[5]));
        assert_eq!(
            broadcast_shapes(&s(&[-1, 3]), &s(&[2, 1])).unwrap(),
            s(&[2, 3])
        );
        assert_eq!(broadcast_shapes(&s(&[-1]), &s(&[1])).unwrap(), s(&[-1]));
        assert_eq!(broadcast_shapes(&s(&[0]), &s(&[1])).unwrap(), s(&[0]));
        assert!(broadcast_shapes(&s(&[2]), &s(&[3])).is_err());
        assert!(broadcast_shapes(&Shape::unknown_rank(), &s(&[3]))
            .unwrap()
            .is_unknown_rank());
        assert_eq!(
            broadcast_shapes(&s(&[-1, 3]), &s(&[-1, 3])).unwrap(),
            s(&[-1, 3])
        );
        assert_eq!(
            broadcast_shapes(&s(&[1, 2, 3, 4, 5, 6]), &s(&[6])).unwrap(),
            s(&[1, 2, 3, 4, 5, 6])
        );
    }
}
