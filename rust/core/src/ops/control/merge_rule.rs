//! GE's rule for joining the descriptors of tensors that may each be the
//! one a control-flow op forwards (If / Case branch outputs, Merge inputs,
//! While loop variables across iterations): the dtypes must agree; shapes of
//! the same rank keep the dims they agree on and make the others unknown
//! (-1); shapes of different ranks, or an unknown rank, give unknown rank.

use crate::types::{Dims, ListInfo, Shape, TensorDesc, UNKNOWN_DIM};

/// The most specific shape that both `a` and `b` are instances of.
pub(crate) fn merge_shapes(a: &Shape, b: &Shape) -> Shape {
    match (a.rank(), b.rank()) {
        (Some(ra), Some(rb)) if ra == rb => {
            let dims: Dims = a
                .dims()
                .iter()
                .zip(b.dims())
                .map(|(&x, &y)| if x == y { x } else { UNKNOWN_DIM })
                .collect();
            Shape::from_dims(dims)
        }
        _ => Shape::unknown_rank(),
    }
}

/// `a` joined with `b`: an error (saying why) when the dtypes differ. The
/// result keeps `a`'s format; a host value or shape range survives only
/// when both sides agree on it, since the joined tensor may be either one.
pub(crate) fn merge_descs(a: &TensorDesc, b: &TensorDesc) -> Result<TensorDesc, String> {
    if a.dtype != b.dtype {
        return Err(format!("the dtypes differ ({} vs {})", a.dtype, b.dtype));
    }
    let mut merged = TensorDesc::new(a.dtype, merge_shapes(a.shape(), b.shape()), a.origin_format);
    if a.shape_range == b.shape_range && a.shape() == b.shape() {
        merged.shape_range = a.shape_range.clone();
    }
    if a.value == b.value {
        merged.value = a.value.clone();
    }
    // List handles: the element dtype when both agree; the count only when
    // it is the same on both sides; the element shapes joined. A list known
    // to be empty holds no element to disagree with: the other side's
    // element shape stands (an ONNX sequence started empty and filled in a
    // Loop).
    if let (Some(x), Some(y)) = (a.list, b.list) {
        if x.element_dtype == y.element_dtype {
            merged.list = Some(ListInfo {
                element_dtype: x.element_dtype,
                length: x.length.filter(|_| x.length == y.length),
            });
            merged.shape_value = match (x.length, y.length) {
                (Some(0), _) => b.shape_value.clone(),
                (_, Some(0)) => a.shape_value.clone(),
                _ => match (a.shape_value.as_deref(), b.shape_value.as_deref()) {
                    (Some(p), Some(q)) => Some(Box::new(merge_shapes(p, q))),
                    _ => None,
                },
            };
        }
    }
    Ok(merged)
}

/// Joins every descriptor of `descs` (in order); `None` when there are
/// none. The error names the position of the first one that disagrees.
pub(crate) fn merge_all<'a>(
    descs: impl IntoIterator<Item = &'a TensorDesc>,
) -> Result<Option<TensorDesc>, (usize, String)> {
    let mut merged: Option<TensorDesc> = None;
    for (i, desc) in descs.into_iter().enumerate() {
        merged = Some(match merged {
            None => desc.clone(),
            Some(m) => merge_descs(&m, desc).map_err(|e| (i, e))?,
        });
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{DataType, Format, HostTensor};

    fn s(dims: &[i64]) -> Shape {
        Shape::new(dims).unwrap()
    }

    #[test]
    fn hand_computed_cases() {
        let cases: &[(&[i64], &[i64], &[i64])] = &[
            (&[2, 3], &[2, 3], &[2, 3]),
            (&[2, 3], &[2, 4], &[2, -1]),
            (&[2, 3], &[5, 4], &[-1, -1]),
            (&[-1, 3], &[2, 3], &[-1, 3]),
            (&[-1, 3], &[-1, 3], &[-1, 3]),
            (&[], &[], &[]),
            (&[], &[1], &[-2]),
            (&[2, 3], &[2, 3, 1], &[-2]),
            (&[-2], &[2, 3], &[-2]),
            (&[2, 3], &[-2], &[-2]),
            (&[-2], &[-2], &[-2]),
            (&[0], &[1], &[-1]),
        ];
        for &(a, b, want) in cases {
            assert_eq!(merge_shapes(&s(a), &s(b)), s(want), "{a:?} with {b:?}");
            assert_eq!(merge_shapes(&s(b), &s(a)), s(want), "{b:?} with {a:?}");
        }
    }

    #[test]
    fn merging_is_idempotent_and_generalises_both_sides() {
        let shapes: Vec<Shape> = [
            &[][..],
            &[1],
            &[3],
            &[-1],
            &[2, 3],
            &[2, -1],
            &[4, 3],
            &[-2],
            &[2, 3, 4],
        ]
        .iter()
        .map(|d| s(d))
        .collect();
        for a in &shapes {
            assert_eq!(&merge_shapes(a, a), a);
            for b in &shapes {
                let m = merge_shapes(a, b);
                assert_eq!(m, merge_shapes(b, a));
                // Every known dim of the merge is that dim of both sides.
                if let Some(rank) = m.rank() {
                    assert_eq!(Some(rank), a.rank());
                    assert_eq!(Some(rank), b.rank());
                    for (i, &d) in m.dims().iter().enumerate() {
                        if d != UNKNOWN_DIM {
                            assert_eq!((a.dims()[i], b.dims()[i]), (d, d));
                        }
                    }
                }
                // Associativity with a third shape.
                for c in &shapes {
                    assert_eq!(merge_shapes(&m, c), merge_shapes(a, &merge_shapes(b, c)));
                }
            }
        }
    }

    #[test]
    fn descs_need_equal_dtypes_and_keep_only_shared_values() {
        let f = |dims: &[i64]| TensorDesc::new(DataType::Float, s(dims), Format::Nd);
        let i = TensorDesc::new(DataType::Int32, s(&[2]), Format::Nd);
        assert!(merge_descs(&f(&[2]), &i)
            .unwrap_err()
            .contains("dtypes differ"));
        assert_eq!(merge_descs(&f(&[2]), &f(&[3])).unwrap(), f(&[-1]));

        let v1 = HostTensor::from_ints(DataType::Int32, s(&[2]), &[1, 2]).unwrap();
        let v2 = HostTensor::from_ints(DataType::Int32, s(&[2]), &[1, 3]).unwrap();
        let c1 = TensorDesc::constant(v1.clone(), Format::Nd);
        let c2 = TensorDesc::constant(v2, Format::Nd);
        assert_eq!(merge_descs(&c1, &c1).unwrap().value, Some(v1));
        assert_eq!(merge_descs(&c1, &c2).unwrap().value, None);

        assert_eq!(
            merge_all([&f(&[2]), &f(&[2]), &f(&[2, 1])]).unwrap(),
            Some(f(&[-2]))
        );
        assert_eq!(merge_all([]).unwrap(), None);
        assert_eq!(merge_all([&f(&[2]), &f(&[2]), &i]).unwrap_err().0, 2);
    }
}
