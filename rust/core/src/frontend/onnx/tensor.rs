//! `TensorProto` → host tensor. `raw_data` and external data are borrowed
//! (slices of the mapped model or weights file); the typed value fields
//! (`float_data`, `int32_data` …) are packed into little-endian bytes, and
//! must hold exactly one value per element (ONNX has no repeat rule).
//!
//! STRING tensors become an opaque tensor (dtype and shape, no bytes), as
//! in the TensorFlow frontend: GE holds no string bytes on the host.

use super::dtype::{ge_dtype, onnx_dtype_name};
use super::external::{ExternalFiles, ExternalRange};
use super::pb;
use crate::frontend::framework::OPAQUE_TENSOR;
use crate::types::{AttrValue, DataType, HostTensor, NamedAttrs, Shape};
use bytes::Bytes;

/// `data_location` of a tensor whose bytes live in another file.
const EXTERNAL: i32 = 1;

/// `tensor` as an attribute value ([`AttrValue::Tensor`] or an opaque
/// tensor). The error says what is wrong, for the caller to prefix with the
/// tensor's owner ("initializer 'w' ...").
pub(super) fn tensor_value(
    tensor: &pb::TensorProto,
    external: &mut ExternalFiles,
) -> Result<AttrValue, String> {
    let dtype = ge_dtype(tensor.data_type).ok_or_else(|| {
        format!(
            "has element type {}, which opgraph does not support",
            onnx_dtype_name(tensor.data_type)
        )
    })?;
    let shape = static_shape(&tensor.dims)?;
    if dtype == DataType::String {
        return Ok(opaque(dtype, &shape));
    }
    let count = shape
        .num_elements()
        .ok()
        .flatten()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("has dims {:?}, whose element count overflows", tensor.dims))?;
    let data = if tensor.data_location == EXTERNAL {
        external.read(&ExternalRange::of(tensor)?)?
    } else if !tensor.raw_data.is_empty() {
        tensor.raw_data.clone()
    } else {
        typed_values(tensor, dtype, count)?
    };
    HostTensor::new(dtype, shape, data)
        .map(AttrValue::Tensor)
        .map_err(|e| format!("has data that does not match its type and dims: {e}"))
}

/// The dims as a static shape (every dim >= 0).
fn static_shape(dims: &[i64]) -> Result<Shape, String> {
    if dims.iter().any(|&d| d < 0) {
        return Err(format!("has dims {dims:?}; a tensor's dims must be >= 0"));
    }
    Shape::new(dims).map_err(|e| format!("has dims {dims:?}: {e}"))
}

fn opaque(dtype: DataType, shape: &Shape) -> AttrValue {
    let mut t = NamedAttrs {
        name: OPAQUE_TENSOR.to_owned(),
        attrs: Default::default(),
    };
    t.attrs.set("dtype", AttrValue::DataType(dtype));
    t.attrs
        .set("shape", AttrValue::ListInt(shape.dims().to_vec()));
    AttrValue::NamedAttrs(Box::new(t))
}

/// The elements from the typed field ONNX stores `dtype` in.
fn typed_values(tensor: &pb::TensorProto, dtype: DataType, count: usize) -> Result<Bytes, String> {
    use DataType as D;
    let (stored, field) = match dtype {
        D::Float => (tensor.float_data.len(), "float_data"),
        D::Complex64 => (tensor.float_data.len() / 2, "float_data"),
        D::Int64 => (tensor.int64_data.len(), "int64_data"),
        D::Double => (tensor.double_data.len(), "double_data"),
        D::Complex128 => (tensor.double_data.len() / 2, "double_data"),
        D::Uint32 | D::Uint64 => (tensor.uint64_data.len(), "uint64_data"),
        _ => (tensor.int32_data.len(), "int32_data"),
    };
    // INT4 packs two values into each entry's low byte, the first in its
    // low half (as raw_data does).
    let entries = if dtype == D::Int4 {
        count.div_ceil(2)
    } else {
        count
    };
    if stored != entries {
        let what = match dtype {
            D::Int4 => format!("{count} INT4 elements, {entries} entries of {field} packed two to an entry, but {stored} entries"),
            _ => format!("{count} elements but {stored} values in {field}"),
        };
        return Err(format!("has {what} (and no raw_data)"));
    }
    let mut out = Vec::new();
    match dtype {
        D::Float | D::Complex64 => tensor
            .float_data
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        D::Int64 => tensor
            .int64_data
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        D::Double | D::Complex128 => tensor
            .double_data
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        D::Uint64 => tensor
            .uint64_data
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        // The narrower types keep their low bytes (UINT32 in uint64_data,
        // the rest, FLOAT16 and BFLOAT16 bit patterns too, in int32_data).
        D::Uint32 => tensor
            .uint64_data
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()[..4])),
        D::Int32 => tensor
            .int32_data
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        D::Int16 | D::Uint16 | D::Float16 | D::Bf16 => tensor
            .int32_data
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()[..2])),
        D::Int8 | D::Uint8 | D::Bool | D::Int4 => tensor
            .int32_data
            .iter()
            .for_each(|v| out.push(v.to_le_bytes()[0])),
        other => {
            return Err(format!(
                "stores {other} values in typed fields, which opgraph does not read (raw_data is)"
            ))
        }
    }
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(tensor: &pb::TensorProto) -> Result<HostTensor, String> {
        match tensor_value(tensor, &mut ExternalFiles::new(None))? {
            AttrValue::Tensor(t) => Ok(t),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn typed_fields_pack_little_endian() {
        let t = pb::TensorProto {
            dims: vec![2],
            data_type: 7,
            int64_data: vec![3, -1],
            ..Default::default()
        };
        assert_eq!(values(&t).unwrap().to_ints(), Some(vec![3, -1]));
        let half = pb::TensorProto {
            dims: vec![1],
            data_type: 10,
            int32_data: vec![0x3c00],
            ..Default::default()
        };
        assert_eq!(values(&half).unwrap().bytes().as_ref(), &[0x00, 0x3c]);
    }

    #[test]
    fn int4_values_come_packed_two_to_an_int32_data_entry() {
        // [1, -2, 3]: 0x1 | 0xE << 4, then 0x3.
        let int4 = pb::TensorProto {
            dims: vec![3],
            data_type: 22,
            int32_data: vec![0xE1, 0x03],
            ..Default::default()
        };
        assert_eq!(values(&int4).unwrap().bytes().as_ref(), &[0xE1, 0x03]);
        let short = pb::TensorProto {
            int32_data: vec![0xE1],
            ..int4
        };
        assert!(values(&short)
            .unwrap_err()
            .contains("2 entries of int32_data packed"));
    }

    #[test]
    fn wrong_counts_and_types_are_errors() {
        let short = pb::TensorProto {
            dims: vec![3],
            data_type: 1,
            float_data: vec![1.0],
            ..Default::default()
        };
        assert!(values(&short)
            .unwrap_err()
            .contains("3 elements but 1 values"));
        let f8 = pb::TensorProto {
            dims: vec![1],
            data_type: 17,
            ..Default::default()
        };
        assert!(values(&f8).unwrap_err().contains("FLOAT8E4M3FN"));
        let raw = pb::TensorProto {
            dims: vec![2],
            data_type: 1,
            raw_data: Bytes::from_static(&[0; 7]),
            ..Default::default()
        };
        assert!(values(&raw).unwrap_err().contains("does not match"));
        let negative = pb::TensorProto {
            dims: vec![-1],
            data_type: 1,
            ..Default::default()
        };
        assert!(values(&negative).unwrap_err().contains(">= 0"));
    }

    #[test]
    fn external_data_without_a_directory_is_an_error() {
        let t = pb::TensorProto {
            dims: vec![1],
            data_type: 1,
            data_location: EXTERNAL,
            external_data: vec![pb::StringStringEntryProto {
                key: "location".into(),
                value: "w.bin".into(),
            }],
            ..Default::default()
        };
        assert!(values(&t).unwrap_err().contains("not read from a file"));
    }
}
