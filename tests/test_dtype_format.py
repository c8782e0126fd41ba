"""opgraph.DataType / opgraph.Format against the core's tables and GE's numbering,
and the numpy mapping of DataType."""

from __future__ import annotations

import numpy as np
import pytest

import opgraph
from opgraph import DataType, Format, _core

NUMPY_TYPES = [
    (DataType.FLOAT, np.float32),
    (DataType.FLOAT16, np.float16),
    (DataType.DOUBLE, np.float64),
    (DataType.INT8, np.int8),
    (DataType.INT16, np.int16),
    (DataType.INT32, np.int32),
    (DataType.INT64, np.int64),
    (DataType.UINT8, np.uint8),
    (DataType.UINT16, np.uint16),
    (DataType.UINT32, np.uint32),
    (DataType.UINT64, np.uint64),
    (DataType.BOOL, np.bool_),
    (DataType.COMPLEX64, np.complex64),
    (DataType.COMPLEX128, np.complex128),
]


def test_data_type_members_equal_core_table() -> None:
    table = {name: number for name, number, _bits in _core.data_type_table()}
    assert {m.name: m.value for m in DataType} == table


def test_format_members_equal_core_table() -> None:
    assert {m.name: m.value for m in Format} == dict(_core.format_table())


@pytest.mark.parametrize(
    ("member", "ge_number"),
    [
        # ge::DataType in GE's graph/types.h
        (DataType.FLOAT, 0),
        (DataType.FLOAT16, 1),
        (DataType.INT8, 2),
        (DataType.INT32, 3),
        (DataType.UINT8, 4),
        (DataType.INT16, 6),
        (DataType.INT64, 9),
        (DataType.DOUBLE, 11),
        (DataType.BOOL, 12),
        (DataType.COMPLEX64, 16),
        (DataType.BF16, 27),
        (DataType.UNDEFINED, 28),
        (DataType.INT4, 29),
    ],
)
def test_data_type_numbers_follow_ge(member: DataType, ge_number: int) -> None:
    assert member.value == ge_number


@pytest.mark.parametrize(
    ("member", "ge_number"),
    [
        # ge::Format in GE's graph/types.h
        (Format.NCHW, 0),
        (Format.NHWC, 1),
        (Format.ND, 2),
        (Format.NC1HWC0, 3),
        (Format.FRACTAL_Z, 4),
        (Format.HWCN, 16),
        (Format.NDHWC, 27),
        (Format.FRACTAL_NZ, 29),
        (Format.NCDHW, 30),
    ],
)
def test_format_numbers_follow_ge(member: Format, ge_number: int) -> None:
    assert member.value == ge_number


def test_data_type_bits_equal_core_table() -> None:
    for name, _number, bits in _core.data_type_table():
        assert DataType[name].bits == bits


@pytest.mark.parametrize(("member", "numpy_type"), NUMPY_TYPES)
def test_data_type_bits_match_numpy_itemsize(member: DataType, numpy_type: type) -> None:
    assert member.bits == np.dtype(numpy_type).itemsize * 8


@pytest.mark.parametrize(
    ("member", "bits"),
    [
        (DataType.INT4, 4),
        (DataType.UINT1, 1),
        (DataType.INT2, 2),
        (DataType.UINT2, 2),
        (DataType.BF16, 16),
        (DataType.COMPLEX32, 32),
        (DataType.QINT8, 8),
        (DataType.QUINT16, 16),
        (DataType.QINT32, 32),
        (DataType.UNDEFINED, None),
    ],
)
def test_data_type_bits_of_types_without_numpy_equivalent(member: DataType, bits: int | None) -> None:
    assert member.bits == bits


@pytest.mark.parametrize(("member", "numpy_type"), NUMPY_TYPES)
def test_to_numpy_and_from_numpy_round_trip(member: DataType, numpy_type: type) -> None:
    assert member.to_numpy() == np.dtype(numpy_type)
    assert DataType.from_numpy(np.dtype(numpy_type)) is member
    assert DataType.from_numpy(numpy_type) is member
    assert DataType.from_numpy(np.dtype(numpy_type).name) is member
    assert DataType.from_numpy(member.to_numpy()) is member


@pytest.mark.parametrize("member", [DataType.BF16, DataType.INT4, DataType.STRING, DataType.UNDEFINED])
def test_to_numpy_rejects_types_without_equivalent(member: DataType) -> None:
    with pytest.raises(ValueError, match=member.name):
        member.to_numpy()


@pytest.mark.parametrize("numpy_type", ["datetime64[s]", "U3", "object"])
def test_from_numpy_rejects_unmapped_dtypes(numpy_type: str) -> None:
    with pytest.raises(ValueError, match="no opgraph DataType"):
        DataType.from_numpy(numpy_type)


def test_public_names_reexport_the_enums() -> None:
    assert opgraph.DataType is DataType
    assert opgraph.Format is Format
    assert opgraph.UNKNOWN_DIM == -1
    assert opgraph.UNKNOWN_RANK == (-2,)
