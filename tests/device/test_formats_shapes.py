"""GE's storage-shape formulas (``opgraph.storage_shape``): hand-computed
cases and properties over random shapes: storage never holds fewer
elements than the origin, padding happens only in C and the fractal dims,
and the origin dims can be read back."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import opgraph
from opgraph import DataType, DeviceError, Format, storage_shape

C0 = {DataType.FLOAT16: 16, DataType.FLOAT: 16, DataType.BF16: 16, DataType.INT8: 32, DataType.INT4: 64}
dtypes = st.sampled_from(sorted(C0))
dims = st.integers(min_value=1, max_value=300)
maybe_unknown = st.one_of(dims, st.just(-1))
socs = st.sampled_from(opgraph.SOC_VERSIONS)

# Where N, C, H, W sit in each 4-D layout.
POSITIONS = {
    Format.NCHW: (0, 1, 2, 3),
    Format.NHWC: (0, 3, 1, 2),
    Format.HWCN: (3, 2, 0, 1),
}


def lay_out(n: int, c: int, h: int, w: int, layout: Format) -> list[int]:
    shape = [0] * 4
    for value, at in zip((n, c, h, w), POSITIONS[layout], strict=True):
        shape[at] = value
    return shape


def elements(shape: tuple[int, ...] | list[int]) -> int:
    return math.prod(shape)


@pytest.mark.parametrize(
    ("shape", "origin", "storage", "dtype", "groups", "expected"),
    [
        ([1, 3, 224, 224], Format.NCHW, Format.NC1HWC0, DataType.FLOAT16, 1, (1, 1, 224, 224, 16)),
        ([1, 17, 5, 5], Format.NCHW, Format.NC1HWC0, DataType.FLOAT, 1, (1, 2, 5, 5, 16)),
        ([1, 33, 5, 5], Format.NCHW, Format.NC1HWC0, DataType.INT8, 1, (1, 2, 5, 5, 32)),
        ([-1, 56, 56, 256], Format.NHWC, Format.NC1HWC0, DataType.FLOAT16, 1, (-1, 16, 56, 56, 16)),
        ([64, 3, 7, 7], Format.NCHW, Format.FRACTAL_Z, DataType.FLOAT16, 1, (49, 4, 16, 16)),
        ([7, 7, 3, 64], Format.HWCN, Format.FRACTAL_Z, DataType.FLOAT16, 1, (49, 4, 16, 16)),
        ([32, 1, 3, 3], Format.NCHW, Format.FRACTAL_Z, DataType.FLOAT16, 32, (18, 1, 16, 16)),
        ([1024, 1000], Format.ND, Format.FRACTAL_Z, DataType.FLOAT16, 1, (64, 63, 16, 16)),
        ([8, 100, 70], Format.ND, Format.FRACTAL_NZ, DataType.FLOAT16, 1, (8, 5, 7, 16, 16)),
        ([100, 70], Format.ND, Format.FRACTAL_NZ, DataType.INT8, 1, (3, 7, 16, 32)),
        ([100, 70], Format.ND, Format.ND, DataType.INT8, 1, (100, 70)),
    ],
)
def test_hand_computed_storage_shapes(
    shape: list[int], origin: Format, storage: Format, dtype: DataType, groups: int, expected: tuple[int, ...]
) -> None:
    assert storage_shape(shape, origin, storage, dtype, groups=groups) == expected


@given(dims, maybe_unknown, dims, dims, st.sampled_from([Format.NCHW, Format.NHWC]), dtypes, socs)
def test_nc1hwc0_pads_only_c(
    n: int, c: int, h: int, w: int, layout: Format, dtype: DataType, soc: str
) -> None:
    got = storage_shape(lay_out(n, c, h, w, layout), layout, Format.NC1HWC0, dtype, soc=soc)
    c0 = C0[dtype]
    assert len(got) == 5
    assert (got[0], got[2], got[3], got[4]) == (n, h, w, c0), "N, H, W kept; C0 from the dtype"
    if c == -1:
        assert got[1] == -1, "an unknown C stays unknown"
        return
    # C is read back up to the padding of the last block.
    assert (got[1] - 1) * c0 < c <= got[1] * c0
    assert elements(got) >= n * c * h * w
    assert elements(got) - n * c * h * w < n * h * w * c0, "less than one C0 block of padding per pixel"


@given(dims, dims, st.integers(1, 7), st.integers(1, 7), dtypes)
def test_fractal_z_is_the_same_for_every_filter_layout(
    n: int, c: int, kh: int, kw: int, dtype: DataType
) -> None:
    shapes = {
        layout: storage_shape(lay_out(n, c, kh, kw, layout), layout, Format.FRACTAL_Z, dtype)
        for layout in POSITIONS
    }
    assert len(set(shapes.values())) == 1, shapes
    got = shapes[Format.NCHW]
    c0 = C0[dtype]
    assert got[2:] == (16, c0)
    assert got[0] == math.ceil(c / c0) * kh * kw, "C1·Kh·Kw rows"
    assert (got[1] - 1) * 16 < n <= got[1] * 16, "N in blocks of 16"
    assert elements(got) >= n * c * kh * kw


@given(st.integers(1, 64), st.integers(1, 16), st.integers(1, 16), st.integers(1, 3), dtypes)
def test_grouped_filters_hold_every_group(
    groups: int, cin: int, per_group: int, k: int, dtype: DataType
) -> None:
    # A grouped filter [groups·per_group, cin, k, k]: every group's weights fit.
    n = groups * per_group
    got = storage_shape([n, cin, k, k], Format.NCHW, Format.FRACTAL_Z, dtype, groups=groups)
    c0 = C0[dtype]
    assert got[2:] == (16, c0)
    assert elements(got) >= n * cin * k * k
    assert got[0] % (k * k) == 0, "whole kernels per row block"
    if groups == 1:
        assert got == storage_shape([n, cin, k, k], Format.NCHW, Format.FRACTAL_Z, dtype)


@given(st.integers(2, 16), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), dtypes)
def test_aligned_groups_sit_side_by_side(
    groups: int, cin_blocks: int, n_blocks: int, k: int, dtype: DataType
) -> None:
    # Groups whose channels fill whole C0 and 16 blocks are not packed
    # (GE's enlarge factor is 1): each group takes its own C1 rows.
    c0 = C0[dtype]
    cin, per_group = cin_blocks * c0, n_blocks * 16
    got = storage_shape([groups * per_group, cin, k, k], Format.NCHW, Format.FRACTAL_Z, dtype, groups=groups)
    assert got == (groups * cin_blocks * k * k, n_blocks, 16, c0)


@given(st.lists(dims, min_size=0, max_size=3), dims, dims, dtypes)
def test_fractal_nz_tiles_the_last_two_dims(batch: list[int], m: int, n: int, dtype: DataType) -> None:
    got = storage_shape([*batch, m, n], Format.ND, Format.FRACTAL_NZ, dtype)
    c0 = C0[dtype]
    assert got[: len(batch)] == tuple(batch), "batch dims kept"
    n1, m1, m0, k0 = got[len(batch) :]
    assert (m0, k0) == (16, c0)
    assert (n1 - 1) * c0 < n <= n1 * c0
    assert (m1 - 1) * 16 < m <= m1 * 16
    assert elements(got) >= elements([*batch, m, n])


@given(st.sampled_from([Format.NCHW, Format.NHWC]), st.integers(0, 3))
def test_unknown_dims_stay_unknown(layout: Format, at: int) -> None:
    shape = [2, 32, 8, 8]
    shape[at] = -1
    got = storage_shape(shape, layout, Format.NC1HWC0, DataType.FLOAT16)
    assert got.count(-1) == 1


def test_what_cannot_be_stored_is_a_device_error() -> None:
    with pytest.raises(DeviceError, match="rank-4"):
        storage_shape([1, 2, 3, 4, 5], Format.NCHW, Format.NC1HWC0, DataType.FLOAT16)
    with pytest.raises(DeviceError, match="C1HWNCoC0"):
        storage_shape([1, 2, 3, 4], Format.NCHW, Format.C1HWNCoC0, DataType.FLOAT16)
    with pytest.raises(DeviceError, match="groups is 0"):
        storage_shape([4, 2, 3, 3], Format.NCHW, Format.FRACTAL_Z, DataType.FLOAT16, groups=0)
    with pytest.raises(DeviceError, match="overflows"):
        storage_shape([16, 2**40, 2**40, 3], Format.NCHW, Format.FRACTAL_Z, DataType.FLOAT16)


def test_an_unknown_soc_lists_the_known_ones() -> None:
    with pytest.raises(DeviceError) as info:
        storage_shape([1, 3, 8, 8], Format.NCHW, Format.NC1HWC0, DataType.FLOAT16, soc="Ascend920")
    message = str(info.value)
    assert "'Ascend920'" in message
    assert all(name in message for name in opgraph.SOC_VERSIONS)


def test_soc_names() -> None:
    assert {"Ascend310", "Ascend310P", "Ascend910", "Ascend910B"} <= set(opgraph.SOC_VERSIONS)
    assert {"Ascend310P3", "Ascend910A", "Ascend910B1", "Ascend910B4"} <= set(opgraph.SOC_VERSIONS)
    # Case does not matter.
    assert storage_shape([1, 3, 8, 8], "NCHW", "NC1HWC0", DataType.FLOAT16, soc="ascend910b2") == (
        1,
        1,
        8,
        8,
        16,
    )


def test_groups_that_do_not_divide_the_output_channels_are_an_error() -> None:
    """A group convolution's filter has N = groups x (N per group); 5 groups
    of 16 filters were packed as if they were."""
    with pytest.raises(
        DeviceError, match="groups is 5, which does not divide the filter's 16 output channels"
    ):
        storage_shape([16, 3, 3, 3], "NCHW", "FRACTAL_Z", DataType.FLOAT16, groups=5)
    assert storage_shape([16, 3, 3, 3], "NCHW", "FRACTAL_Z", DataType.FLOAT16, groups=4)


def test_a_device_format_needs_a_dtype() -> None:
    """C0 follows the dtype; UNDEFINED was stored as if it were fp16."""
    with pytest.raises(DeviceError, match="NC1HWC0 storage shape needs the tensor's dtype"):
        storage_shape([1, 3, 8, 8], "NCHW", "NC1HWC0", DataType.UNDEFINED)
    assert storage_shape([1, 3, 8, 8], "NCHW", "NCHW", DataType.UNDEFINED) == (1, 3, 8, 8)
