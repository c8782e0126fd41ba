//! ONNX `TensorProto.DataType` numbers → GE's [`DataType`].

use crate::types::DataType;

/// The GE data type for ONNX's element type `value`, or `None` when GE has
/// no equivalent (UNDEFINED, the 8-, 6- and 4-bit floats, UINT4, numbers
/// newer than this table).
pub(crate) fn ge_dtype(value: i32) -> Option<DataType> {
    Some(match value {
        1 => DataType::Float,
        2 => DataType::Uint8,
        3 => DataType::Int8,
        4 => DataType::Uint16,
        5 => DataType::Int16,
        6 => DataType::Int32,
        7 => DataType::Int64,
        8 => DataType::String,
        9 => DataType::Bool,
        10 => DataType::Float16,
        11 => DataType::Double,
        12 => DataType::Uint32,
        13 => DataType::Uint64,
        14 => DataType::Complex64,
        15 => DataType::Complex128,
        16 => DataType::Bf16,
        22 => DataType::Int4,
        _ => return None,
    })
}

/// ONNX's name for element type `value` (`FLOAT8E4M3FN`), or the number.
pub(crate) fn onnx_dtype_name(value: i32) -> String {
    const NAMES: [&str; 29] = [
        "UNDEFINED",
        "FLOAT",
        "UINT8",
        "INT8",
        "UINT16",
        "INT16",
        "INT32",
        "INT64",
        "STRING",
        "BOOL",
        "FLOAT16",
        "DOUBLE",
        "UINT32",
        "UINT64",
        "COMPLEX64",
        "COMPLEX128",
        "BFLOAT16",
        "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ",
        "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ",
        "UINT4",
        "INT4",
        "FLOAT4E2M1",
        "FLOAT8E8M0",
        "UINT2",
        "INT2",
        "FLOAT6E2M3",
        "FLOAT6E3M2",
    ];
    usize::try_from(value)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or_else(|| format!("number {value}"), |name| (*name).to_owned())
}

/// A GE data type as ONNX numbers it (the inverse of [`ge_dtype`]).
#[cfg(test)]
pub(crate) fn onnx_dtype(dtype: DataType) -> Option<i32> {
    (1..=22).find(|&v| ge_dtype(v) == Some(dtype))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mapped_number_round_trips() {
        for value in 0..40 {
            if let Some(dtype) = ge_dtype(value) {
                assert_eq!(onnx_dtype(dtype), Some(value), "{dtype}");
            }
        }
        assert_eq!(onnx_dtype_name(17), "FLOAT8E4M3FN");
        assert_eq!(onnx_dtype_name(99), "number 99");
        assert_eq!(ge_dtype(17), None);
    }
}
