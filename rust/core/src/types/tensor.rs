//! Host tensors: constant values (weights, shape vectors) held on the host.
//! The bytes are a `bytes::Bytes`, so a value can borrow a memory-mapped
//! model file or share a buffer without copying.

use super::{DataType, Dims, Shape};
use bytes::Bytes;

#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    dtype: DataType,
    shape: Shape,
    data: Bytes,
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
        Ok(HostTensor { dtype, shape, data })
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
        self.dtype
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    pub fn bytes(&self) -> &Bytes {
        &self.data
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
        let data = self.data.as_ref();
        Some(match self.dtype {
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
