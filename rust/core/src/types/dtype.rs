//! Element data types, numbered exactly as GE's `ge::DataType` so that values
//! read from CANN artefacts (and passed through the Python API as integers)
//! mean the same thing everywhere.

use std::fmt;

macro_rules! data_types {
    ($( $variant:ident = $value:literal, $name:literal, $bits:expr; )*) => {
        /// GE's `ge::DataType`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum DataType {
            $( $variant = $value, )*
        }

        impl DataType {
            /// Every data type, in numbering order.
            pub const ALL: &'static [DataType] = &[$( DataType::$variant, )*];

            /// The data type with GE's number `value`.
            pub fn from_ge(value: i64) -> Option<DataType> {
                match value {
                    $( $value => Some(DataType::$variant), )*
                    _ => None,
                }
            }

            /// GE's name without the `DT_` prefix, e.g. `FLOAT16`.
            pub fn name(self) -> &'static str {
                match self {
                    $( DataType::$variant => $name, )*
                }
            }

            /// Storage width of one element in bits, or `None` for types
            /// without a fixed width (UNDEFINED).
            pub fn bits(self) -> Option<u32> {
                match self {
                    $( DataType::$variant => $bits, )*
                }
            }
        }
    };
}

// Widths follow GE's size table (`GetSizeByDataType`): sub-byte types are
// packed, DUAL is 5 bytes (fp32 + int8), string-like and handle types are
// sized as GE sizes their descriptors.
data_types! {
    Float = 0, "FLOAT", Some(32);
    Float16 = 1, "FLOAT16", Some(16);
    Int8 = 2, "INT8", Some(8);
    Int32 = 3, "INT32", Some(32);
    Uint8 = 4, "UINT8", Some(8);
    Int16 = 6, "INT16", Some(16);
    Uint16 = 7, "UINT16", Some(16);
    Uint32 = 8, "UINT32", Some(32);
    Int64 = 9, "INT64", Some(64);
    Uint64 = 10, "UINT64", Some(64);
    Double = 11, "DOUBLE", Some(64);
    Bool = 12, "BOOL", Some(8);
    String = 13, "STRING", Some(128);
    DualSubInt8 = 14, "DUAL_SUB_INT8", Some(8);
    DualSubUint8 = 15, "DUAL_SUB_UINT8", Some(8);
    Complex64 = 16, "COMPLEX64", Some(64);
    Complex128 = 17, "COMPLEX128", Some(128);
    Qint8 = 18, "QINT8", Some(8);
    Qint16 = 19, "QINT16", Some(16);
    Qint32 = 20, "QINT32", Some(32);
    Quint8 = 21, "QUINT8", Some(8);
    Quint16 = 22, "QUINT16", Some(16);
    Resource = 23, "RESOURCE", Some(64);
    StringRef = 24, "STRING_REF", Some(64);
    Dual = 25, "DUAL", Some(40);
    Variant = 26, "VARIANT", Some(64);
    Bf16 = 27, "BF16", Some(16);
    Undefined = 28, "UNDEFINED", None;
    Int4 = 29, "INT4", Some(4);
    Uint1 = 30, "UINT1", Some(1);
    Int2 = 31, "INT2", Some(2);
    Uint2 = 32, "UINT2", Some(2);
    Complex32 = 33, "COMPLEX32", Some(32);
}

impl DataType {
    /// GE's number for this type.
    pub fn ge_value(self) -> i64 {
        self as i64
    }

    /// Bytes needed for `count` elements (sub-byte types round up), or
    /// `None` when the type has no width or the size overflows `i64`.
    pub fn bytes_for(self, count: i64) -> Option<i64> {
        let bits = i64::from(self.bits()?);
        let total = count.checked_mul(bits)?;
        Some(total / 8 + i64::from(total % 8 != 0))
    }

    /// Integer types usable for shapes and indices.
    pub fn is_index_type(self) -> bool {
        matches!(self, DataType::Int32 | DataType::Int64)
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_round_trips() {
        for &dt in DataType::ALL {
            assert_eq!(DataType::from_ge(dt.ge_value()), Some(dt));
        }
        assert_eq!(DataType::from_ge(5), None, "GE leaves 5 unused");
        assert_eq!(DataType::Bf16.ge_value(), 27);
    }

    #[test]
    fn sub_byte_sizes_round_up() {
        assert_eq!(DataType::Int4.bytes_for(3), Some(2));
        assert_eq!(DataType::Uint1.bytes_for(9), Some(2));
        assert_eq!(DataType::Float16.bytes_for(10), Some(20));
        assert_eq!(DataType::Undefined.bytes_for(1), None);
        assert_eq!(DataType::Double.bytes_for(i64::MAX), None);
    }
}
