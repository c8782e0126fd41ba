//! Host tensors: constant values (weights, shape vectors) held on the host.
//! The bytes are a `bytes::Bytes`, so a value can borrow a memory-mapped
//! model file or share a buffer without copying.
//!
//! A *splat* (every element the same, as TensorFlow's "the last value
//! repeats" rule makes from a 90-byte Const of shape [16384, 16384]) is
//! kept as its one element and its shape: [`HostTensor::bytes`] expands it
//! only when called, once, and consumers that understand splats (folding,
//! the numpy view, fp16 casts) use [`HostTensor::splat_element`] instead.

use super::{DataType, Dims, Shape};
use bytes::Bytes;
use std::sync::{Arc, OnceLock};

/// An immutable host tensor. It is one pointer wide and clones share it:
/// a tensor sits in every constant's descriptor and attribute value, and a
/// million-node graph keeps one per node.
#[derive(Clone, Debug)]
pub struct HostTensor(Arc<Contents>);

#[derive(Debug)]
struct Contents {
    dtype: DataType,
    shape: Shape,
    /// Every element (little-endian, C order), or a splat's one element.
    data: Bytes,
    /// `Some` for a splat: its expansion, made on first use.
    splat: Option<OnceLock<Bytes>>,
}

impl PartialEq for HostTensor {
    fn eq(&self, other: &HostTensor) -> bool {
        if self.0.dtype != other.0.dtype || self.0.shape != other.0.shape {
            return false;
        }
        match (self.splat_element(), other.splat_element()) {
            (Some(a), Some(b)) => a == b,
            _ => self.bytes() == other.bytes(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HostTensorError {
    #[error("a host tensor needs a static shape, got {0}")]
    NotStatic(Shape),
    #[error("{dtype} tensor of shape {shape} needs {expected} bytes, got {actual}")]
    SizeMismatch {
        dtype: DataType,
        shape: Shape,
        expected: i64,
        actual: usize,
    },
    #[error("{dtype} tensor of shape {shape} has no computable byte size")]
    Unsized { dtype: DataType, shape: Shape },
}

impl HostTensor {
    /// A tensor over `data` (little-endian, C order), checked for size.
    pub fn new(dtype: DataType, shape: Shape, data: Bytes) -> Result<HostTensor, HostTensorError> {
        let count = match shape.num_elements() {
            Ok(Some(n)) => n,
            Ok(None) => return Err(HostTensorError::NotStatic(shape)),
            Err(_) => return Err(HostTensorError::Unsized { dtype, shape }),
        };
        let expected = dtype
            .bytes_for(count)
            .ok_or_else(|| HostTensorError::Unsized {
                dtype,
                shape: shape.clone(),
            })?;
        if usize::try_from(expected) != Ok(data.len()) {
            return Err(HostTensorError::SizeMismatch {
                dtype,
                shape,
                expected,
                actual: data.len(),
            });
        }
        Ok(HostTensor(Arc::new(Contents {
            dtype,
            shape,
            data,
            splat: None,
        })))
    }

    /// `element` (one element's little-endian bytes) repeated over `shape`,
    /// without expanding it. The dtype must be byte-aligned; the full size
    /// must be computable (it is what [`HostTensor::bytes`] allocates, so
    /// the caller bounds it, as the TensorFlow decoder does).
    pub fn splat(
        dtype: DataType,
        shape: Shape,
        element: Bytes,
    ) -> Result<HostTensor, HostTensorError> {
        let unsized_ = || HostTensorError::Unsized {
            dtype,
            shape: shape.clone(),
        };
        let count = match shape.num_elements() {
            Ok(Some(n)) => n,
            Ok(None) => return Err(HostTensorError::NotStatic(shape)),
            Err(_) => return Err(unsized_()),
        };
        let width = dtype
            .bits()
            .filter(|bits| bits % 8 == 0)
            .and_then(|_| dtype.bytes_for(1))
            .ok_or_else(unsized_)?;
        let total = dtype.bytes_for(count).ok_or_else(unsized_)?;
        if usize::try_from(total).is_err() {
            return Err(unsized_());
        }
        if usize::try_from(width) != Ok(element.len()) {
            return Err(HostTensorError::SizeMismatch {
                dtype,
                shape: Shape::scalar(),
                expected: width,
                actual: element.len(),
            });
        }
        Ok(HostTensor(Arc::new(Contents {
            dtype,
            shape,
            data: element,
            splat: Some(OnceLock::new()),
        })))
    }

    /// An INT32 or INT64 tensor holding `values`.
    pub fn from_ints(dtype: DataType, shape: Shape, values: &[i64]) -> Option<HostTensor> {
        let mut bytes = Vec::with_capacity(values.len() * 8);
        for &v in values {
            match dtype {
                DataType::Int32 => bytes.extend_from_slice(&i32::try_from(v).ok()?.to_le_bytes()),
                DataType::Int64 => bytes.extend_from_slice(&v.to_le_bytes()),
                _ => return None,
            }
        }
        HostTensor::new(dtype, shape, Bytes::from(bytes)).ok()
    }

    pub fn dtype(&self) -> DataType {
        self.0.dtype
    }

    pub fn shape(&self) -> &Shape {
        &self.0.shape
    }

    /// Every element's bytes (little-endian, C order). A splat is expanded
    /// here on first use and the expansion kept.
    pub fn bytes(&self) -> &Bytes {
        match &self.0.splat {
            None => &self.0.data,
            Some(expanded) => expanded.get_or_init(|| {
                let count = self.byte_len().checked_div(self.0.data.len()).unwrap_or(0);
                Bytes::from(self.0.data.repeat(count))
            }),
        }
    }

    /// The one repeated element's bytes when this tensor is a splat.
    pub fn splat_element(&self) -> Option<&Bytes> {
        self.0.splat.as_ref().map(|_| &self.0.data)
    }

    /// The size of [`HostTensor::bytes`], without expanding a splat.
    pub fn byte_len(&self) -> usize {
        match &self.0.splat {
            None => self.0.data.len(),
            // splat() checked that the full size is computable and fits.
            Some(_) => self
                .0
                .shape
                .num_elements()
                .ok()
                .flatten()
                .and_then(|n| self.0.dtype.bytes_for(n))
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0),
        }
    }

    /// Whether the full bytes are in memory (a dense tensor, or a splat
    /// someone expanded).
    pub fn is_expanded(&self) -> bool {
        self.0.splat.as_ref().is_none_or(|e| e.get().is_some())
    }

    /// The value of a BOOL scalar (a predicate); None for anything else.
    pub fn to_bool_scalar(&self) -> Option<bool> {
        match (self.dtype(), self.shape().rank(), self.bytes().as_ref()) {
            (DataType::Bool, Some(0), &[byte]) => Some(byte != 0),
            _ => None,
        }
    }

    /// The elements as `i64`, for integer tensors (shape vectors, axes).
    pub fn to_ints(&self) -> Option<Vec<i64>> {
        self.collect_ints()
    }

    /// As [`HostTensor::to_ints`], into dims stored inline (no allocation
    /// for the short shape vectors inference reads on every Reshape).
    pub(crate) fn to_dims(&self) -> Option<Dims> {
        self.collect_ints()
    }

    fn collect_ints<C: FromIterator<i64>>(&self) -> Option<C> {
        fn read<C: FromIterator<i64>, const N: usize>(
            data: &[u8],
            f: impl Fn([u8; N]) -> i64,
        ) -> C {
            data.chunks_exact(N)
                .map(|c| f(c.try_into().expect("chunks_exact yields N bytes")))
                .collect()
        }
        let data = self.bytes().as_ref();
        Some(match self.0.dtype {
            DataType::Int8 => read::<C, 1>(data, |b| i64::from(i8::from_le_bytes(b))),
            DataType::Uint8 => read::<C, 1>(data, |b| i64::from(b[0])),
            DataType::Int16 => read::<C, 2>(data, |b| i64::from(i16::from_le_bytes(b))),
            DataType::Uint16 => read::<C, 2>(data, |b| i64::from(u16::from_le_bytes(b))),
            DataType::Int32 => read::<C, 4>(data, |b| i64::from(i32::from_le_bytes(b))),
            DataType::Uint32 => read::<C, 4>(data, |b| i64::from(u32::from_le_bytes(b))),
            DataType::Int64 => read::<C, 8>(data, i64::from_le_bytes),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_round_trip_and_size_is_checked() {
        let t = HostTensor::from_ints(DataType::Int32, Shape::from_dims([3]), &[1, -1, 7]).unwrap();
        assert_eq!(t.to_ints(), Some(vec![1, -1, 7]));
        assert_eq!(t.bytes().len(), 12);
        let bad = HostTensor::new(
            DataType::Float,
            Shape::from_dims([2]),
            Bytes::from_static(&[0; 4]),
        );
        assert!(matches!(
            bad,
            Err(HostTensorError::SizeMismatch { expected: 8, .. })
        ));
        assert!(
            HostTensor::from_ints(DataType::Int32, Shape::from_dims([1]), &[1 << 40]).is_none()
        );
    }
}

#[cfg(test)]
mod borrowing_tests {
    use super::*;

    /// Stands in for a memory-mapped model file: something else owns the bytes.
    struct MappedFile(Vec<u8>);

    impl AsRef<[u8]> for MappedFile {
        fn as_ref(&self) -> &[u8] {
            &self.0
        }
    }

    #[test]
    fn weights_borrow_the_file_instead_of_copying() {
        let file = MappedFile((0u8..32).collect());
        let file_start = file.0.as_ptr();
        let mapped = Bytes::from_owner(file);
        // A weight at byte offset 8 of the file, 4 floats long.
        let weight =
            HostTensor::new(DataType::Float, Shape::from_dims([4]), mapped.slice(8..24)).unwrap();
        assert_eq!(weight.bytes().as_ptr(), file_start.wrapping_add(8));
        let copy = weight.clone();
        assert_eq!(
            copy.bytes().as_ptr(),
            weight.bytes().as_ptr(),
            "clones share the bytes"
        );
    }
}

#[cfg(test)]
mod splat_tests {
    use super::*;

    fn one_float(v: f32) -> Bytes {
        Bytes::copy_from_slice(&v.to_le_bytes())
    }

    #[test]
    fn a_splat_expands_only_when_its_bytes_are_asked_for() {
        let shape = Shape::from_dims([3, 2]);
        let splat = HostTensor::splat(DataType::Float, shape.clone(), one_float(2.5)).unwrap();
        assert_eq!(splat.byte_len(), 24);
        assert!(!splat.is_expanded());
        assert_eq!(splat.splat_element().map(|e| e.len()), Some(4));
        let dense: Vec<u8> = std::iter::repeat_n(2.5f32.to_le_bytes(), 6)
            .flatten()
            .collect();
        assert_eq!(splat.bytes().as_ref(), dense.as_slice());
        assert!(splat.is_expanded());
        // Equal to the dense tensor of the same elements, either way round.
        let dense = HostTensor::new(DataType::Float, shape, Bytes::from(dense)).unwrap();
        assert_eq!(splat, dense);
        assert_eq!(dense, splat);
        assert_eq!(dense.splat_element(), None);
    }

    #[test]
    fn a_huge_splat_costs_one_element() {
        let shape = Shape::from_dims([16384, 16384]);
        let splat = HostTensor::splat(DataType::Float, shape, one_float(1.0)).unwrap();
        assert_eq!(splat.byte_len(), 1 << 30);
        let copy = splat.clone();
        assert!(!copy.is_expanded());
        assert_eq!(copy, splat, "two splats compare by their element");
    }

    #[test]
    fn splats_check_their_element_and_shape() {
        let bad = HostTensor::splat(
            DataType::Float,
            Shape::from_dims([2]),
            Bytes::from_static(&[0; 2]),
        );
        assert!(matches!(
            bad,
            Err(HostTensorError::SizeMismatch { expected: 4, .. })
        ));
        let unknown = HostTensor::splat(DataType::Float, Shape::from_dims([-1]), one_float(0.0));
        assert!(matches!(unknown, Err(HostTensorError::NotStatic(_))));
        let overflow = HostTensor::splat(
            DataType::Float,
            Shape::from_dims([i64::MAX, 2]),
            one_float(0.0),
        );
        assert!(matches!(overflow, Err(HostTensorError::Unsized { .. })));
        let ints = HostTensor::splat(
            DataType::Int32,
            Shape::from_dims([3]),
            Bytes::copy_from_slice(&7i32.to_le_bytes()),
        )
        .unwrap();
        assert_eq!(ints.to_ints(), Some(vec![7, 7, 7]));
    }
}
