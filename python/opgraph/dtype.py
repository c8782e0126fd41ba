"""Element data types, numbered exactly as GE's ``ge::DataType``."""

from __future__ import annotations

import enum

import numpy as np


class DataType(enum.IntEnum):
    """GE's data types. Values are GE's numbers; names drop the ``DT_`` prefix."""

    FLOAT = 0
    FLOAT16 = 1
    INT8 = 2
    INT32 = 3
    UINT8 = 4
    INT16 = 6
    UINT16 = 7
    UINT32 = 8
    INT64 = 9
    UINT64 = 10
    DOUBLE = 11
    BOOL = 12
    STRING = 13
    DUAL_SUB_INT8 = 14
    DUAL_SUB_UINT8 = 15
    COMPLEX64 = 16
    COMPLEX128 = 17
    QINT8 = 18
    QINT16 = 19
    QINT32 = 20
    QUINT8 = 21
    QUINT16 = 22
    RESOURCE = 23
    STRING_REF = 24
    DUAL = 25
    VARIANT = 26
    BF16 = 27
    UNDEFINED = 28
    INT4 = 29
    UINT1 = 30
    INT2 = 31
    UINT2 = 32
    COMPLEX32 = 33

    @property
    def bits(self) -> int | None:
        """Storage width of one element in bits (None when it has none)."""
        return _BITS.get(self)

    def to_numpy(self) -> np.dtype[np.generic]:
        """The numpy dtype with the same element representation."""
        try:
            return np.dtype(_TO_NUMPY[self])
        except KeyError:
            raise ValueError(f"DataType.{self.name} has no numpy equivalent") from None

    @classmethod
    def from_numpy(cls, dtype: np.dtype[np.generic] | type[np.generic] | str) -> DataType:
        """The DataType of a numpy dtype."""
        name = np.dtype(dtype).name
        for member, numpy_name in _TO_NUMPY.items():
            if numpy_name == name:
                return member
        raise ValueError(f"numpy dtype {name} has no opgraph DataType")


_TO_NUMPY: dict[DataType, str] = {
    DataType.FLOAT: "float32",
    DataType.FLOAT16: "float16",
    DataType.DOUBLE: "float64",
    DataType.INT8: "int8",
    DataType.INT16: "int16",
    DataType.INT32: "int32",
    DataType.INT64: "int64",
    DataType.UINT8: "uint8",
    DataType.UINT16: "uint16",
    DataType.UINT32: "uint32",
    DataType.UINT64: "uint64",
    DataType.BOOL: "bool",
    DataType.COMPLEX64: "complex64",
    DataType.COMPLEX128: "complex128",
}

# Filled from the core's table on first import of opgraph (see __init__), so
# there is one source for widths.
_BITS: dict[DataType, int | None] = {}
