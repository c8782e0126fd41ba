//! numpy's (and ONNX MatMul's) product shape: `[..., m, k] @ [..., k, n]`
//! with the batch dims broadcast; a 1-D left operand is a row `[1, k]` and
//! a 1-D right operand a column `[k, 1]`, and the promoted dim is removed
//! from the result.

use crate::bail;
use crate::op::OpError;
use crate::ops::broadcast_shapes;
use crate::types::{Shape, UNKNOWN_DIM};

pub(super) fn numpy_matmul(a: &Shape, b: &Shape) -> Result<Shape, OpError> {
    let (Some(ar), Some(br)) = (a.rank(), b.rank()) else {
        return Ok(Shape::unknown_rank());
    };
    if ar == 0 || br == 0 {
        bail!("matmul needs operands of rank >= 1, got shapes {a} and {b}");
    }
    let (ad, bd) = (a.dims(), b.dims());
    let (a_batch, m, ka) = match ad {
        [k] => (&ad[..0], None, *k),
        [batch @ .., m, k] => (batch, Some(*m), *k),
        [] => unreachable!("rank checked above"),
    };
    let (b_batch, kb, n) = match bd {
        [k] => (&bd[..0], *k, None),
        [batch @ .., k, n] => (batch, *k, Some(*n)),
        [] => unreachable!("rank checked above"),
    };
    if ka != UNKNOWN_DIM && kb != UNKNOWN_DIM && ka != kb {
        bail!("the contracted dims differ: {a} @ {b} contracts {ka} with {kb}");
    }
    let batch =
        broadcast_shapes(&Shape::from_dims(a_batch), &Shape::from_dims(b_batch)).map_err(|e| {
            OpError::new(format!(
                "the batch dims of {a} and {b} do not broadcast: {e}"
            ))
        })?;
    let mut dims = batch.dims().to_vec();
    dims.extend(m);
    dims.extend(n);
    Ok(Shape::from_dims(dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(d: &[i64]) -> Shape {
        Shape::from_dims(d)
    }

    #[test]
    fn numpy_rules() {
        assert_eq!(
            numpy_matmul(&s(&[2, 3, 4]), &s(&[4, 5])).unwrap(),
            s(&[2, 3, 5])
        );
        assert_eq!(numpy_matmul(&s(&[4]), &s(&[2, 4, 5])).unwrap(), s(&[2, 5]));
        assert_eq!(numpy_matmul(&s(&[3, 4]), &s(&[4])).unwrap(), s(&[3]));
        assert_eq!(numpy_matmul(&s(&[4]), &s(&[4])).unwrap(), s(&[]));
        assert_eq!(
            numpy_matmul(&s(&[1, 3, 4]), &s(&[7, 1, 4, 2])).unwrap(),
            s(&[7, 1, 3, 2])
        );
        assert_eq!(
            numpy_matmul(&s(&[-1, 4]), &s(&[-1, 2])).unwrap(),
            s(&[-1, 2])
        );
        assert!(numpy_matmul(&s(&[3, 4]), &s(&[5, 2])).is_err());
        assert!(numpy_matmul(&s(&[2, 3, 4]), &s(&[3, 4, 2])).is_err());
        assert!(numpy_matmul(&s(&[]), &s(&[3])).is_err());
    }
}
