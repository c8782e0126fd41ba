//! TensorFlow `DataType` numbers → GE's [`DataType`].

use super::pb;
use crate::types::DataType;

/// TensorFlow marks a reference (TF1 variable) type by adding this to the
/// base type; opgraph maps references to their base type.
const REF_OFFSET: i32 = 100;

/// The GE data type for TensorFlow's `value`, or `None` when GE has no
/// equivalent (DT_INVALID, the float8/float4 types, DT_UINT4, unknown numbers).
pub(crate) fn ge_dtype(value: i32) -> Option<DataType> {
    use pb::DataType as Tf;
    let base = if value > REF_OFFSET {
        value - REF_OFFSET
    } else {
        value
    };
    Some(match Tf::try_from(base).ok()? {
        Tf::DtFloat => DataType::Float,
        Tf::DtDouble => DataType::Double,
        Tf::DtInt32 => DataType::Int32,
        Tf::DtUint8 => DataType::Uint8,
        Tf::DtInt16 => DataType::Int16,
        Tf::DtInt8 => DataType::Int8,
        Tf::DtString => DataType::String,
        Tf::DtComplex64 => DataType::Complex64,
        Tf::DtInt64 => DataType::Int64,
        Tf::DtBool => DataType::Bool,
        Tf::DtQint8 => DataType::Qint8,
        Tf::DtQuint8 => DataType::Quint8,
        Tf::DtQint32 => DataType::Qint32,
        Tf::DtBfloat16 => DataType::Bf16,
        Tf::DtQint16 => DataType::Qint16,
        Tf::DtQuint16 => DataType::Quint16,
        Tf::DtUint16 => DataType::Uint16,
        Tf::DtComplex128 => DataType::Complex128,
        Tf::DtHalf => DataType::Float16,
        Tf::DtResource => DataType::Resource,
        Tf::DtVariant => DataType::Variant,
        Tf::DtUint32 => DataType::Uint32,
        Tf::DtUint64 => DataType::Uint64,
        Tf::DtInt4 => DataType::Int4,
        Tf::DtInt2 => DataType::Int2,
        Tf::DtUint2 => DataType::Uint2,
        _ => return None,
    })
}

/// Whether `value` is a reference type (`DT_FLOAT_REF`, ...). Only op
/// signatures produce references (a TF1 variable's output); an attribute or
/// a tensor holding one is invalid, and TensorFlow rejects it ("AttrValue
/// must not have reference type value").
pub(super) fn is_ref(value: i32) -> bool {
    value > REF_OFFSET
}

/// TensorFlow's name for `value` (`DT_FLOAT8_E5M2`), or the bare number.
pub(super) fn tf_dtype_name(value: i32) -> String {
    match pb::DataType::try_from(value) {
        Ok(dtype) => dtype.as_str_name().to_owned(),
        Err(_) => format!("number {value}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensorflow_numbers_map_to_ge_types() {
        // (TensorFlow number, GE type): the numberings differ almost everywhere.
        let cases = [
            (1, DataType::Float),
            (2, DataType::Double),
            (3, DataType::Int32),
            (6, DataType::Int8),
            (7, DataType::String),
            (9, DataType::Int64),
            (10, DataType::Bool),
            (11, DataType::Qint8),
            (14, DataType::Bf16),
            (17, DataType::Uint16),
            (19, DataType::Float16),
            (20, DataType::Resource),
            (21, DataType::Variant),
            (23, DataType::Uint64),
            (29, DataType::Int4),
            (101, DataType::Float),
            (119, DataType::Float16),
            (107, DataType::String),
        ];
        for (tf, ge) in cases {
            assert_eq!(ge_dtype(tf), Some(ge), "TensorFlow dtype {tf}");
        }
    }

    #[test]
    fn types_without_a_ge_equivalent_are_none() {
        for tf in [0, 24, 25, 30, 33, 124, 99, 200, -1, i32::MAX] {
            assert_eq!(ge_dtype(tf), None, "TensorFlow dtype {tf}");
        }
        assert_eq!(tf_dtype_name(24), "DT_FLOAT8_E5M2");
        assert_eq!(tf_dtype_name(77), "number 77");
    }
}
