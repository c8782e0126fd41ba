"""Squeeze, ExpandDims, Flatten, the pass-through views and Fill / Range /
ZerosLike / OnesLike against numpy on real arrays."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from array_helpers import check, i32, i64, run
from helpers import Feed, desc
from hypothesis import given
from hypothesis import strategies as st

from opgraph import DataType, InferShapeError

small_shapes = st.lists(st.integers(0, 4), min_size=0, max_size=5)


def arange(shape: list[int]) -> npt.NDArray[np.int32]:
    return np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)


@given(small_shapes, st.data())
def test_squeeze_is_numpy_squeeze(shape: list[int], data: st.DataObject) -> None:
    x = arange(shape)
    axes = data.draw(st.lists(st.integers(-len(shape) - 1, len(shape)), max_size=3, unique=True))
    # TensorFlow accepts a repeated axis (it keeps a set); numpy does not.
    if len({a % max(len(shape), 1) for a in axes}) != len(axes):
        return
    try:
        # No axes means every 1 goes (numpy: axis=None).
        expected = np.squeeze(x, axis=tuple(axes) if axes else None)
    except ValueError:  # numpy: a listed dim is not 1, or an axis is out of range
        with pytest.raises(InferShapeError):
            run("Squeeze", [x], {"axis": axes})
        return
    check("Squeeze", [x], expected, {"axis": axes})
    check("Squeeze", [x], expected, {"squeeze_dims": axes})


def test_squeeze_with_unknown_dims() -> None:
    assert run("Squeeze", [desc([-1, 1, 3])], {"axis": [0]})[0].shape == (1, 3)
    assert run("Squeeze", [desc([-1, 1, 3])])[0].shape == (-2,)
    assert run("Squeeze", [desc([2, 1, 3])])[0].shape == (2, 3)
    with pytest.raises(InferShapeError, match="not 1"):
        run("Squeeze", [desc([-1, 2])], {"axis": [1]})


@given(small_shapes, st.integers(-7, 7), st.sampled_from([np.int32, np.int64]))
def test_expand_dims_is_numpy_expand_dims(shape: list[int], axis: int, dtype: type) -> None:
    x = arange(shape)
    if not -len(shape) - 1 <= axis <= len(shape):
        with pytest.raises(InferShapeError, match="out of range"):
            run("ExpandDims", [x, np.array(axis, dtype)])
        return
    check("ExpandDims", [x, np.array(axis, dtype)], np.expand_dims(x, axis))
    check("ExpandDims", [x, np.array([axis], dtype)], np.expand_dims(x, axis))


def test_expand_dims_with_an_unknown_axis_knows_the_rank() -> None:
    assert run("ExpandDims", [desc([2, 3]), desc([], DataType.INT32)])[0].shape == (-1, -1, -1)
    assert run("ExpandDims", [desc([-2]), i32(0)])[0].shape == (-2,)


@given(st.lists(st.integers(0, 4), min_size=1, max_size=4), st.data())
def test_flatten_collapses_to_two_dims(shape: list[int], data: st.DataObject) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape)))
    x = arange(shape)
    at = axis + len(shape) if axis < 0 else axis
    expected = x.reshape(int(np.prod(shape[:at])), int(np.prod(shape[at:])))
    check("Flatten", [x], expected, {"axis": axis})


def test_flatten_defaults_and_errors() -> None:
    assert run("Flatten", [desc([-1, 3, 4])])[0].shape == (-1, 12)
    assert run("Flatten", [desc([-2])])[0].shape == (-1, -1)
    with pytest.raises(InferShapeError, match="out of range"):
        run("Flatten", [desc([2, 3])], {"axis": 3})


@pytest.mark.parametrize("op_type", ["StopGradient", "PreventGradient"])
def test_pass_through_views(op_type: str) -> None:
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    check(op_type, [x], x)


def test_identity_n_passes_each_input() -> None:
    a, b = np.arange(3, dtype=np.int32), np.ones((2, 2), np.float32)
    check("IdentityN", [[a, b]], [a, b], outputs=2)
    with pytest.raises(Exception, match="one output per input"):
        run("IdentityN", [[a, b]], outputs=1)


@given(st.lists(st.integers(0, 4), max_size=4), st.sampled_from([np.int32, np.int64]))
def test_fill_is_numpy_full(dims: list[int], dtype: type) -> None:
    value = np.float32(2.5)
    check("Fill", [np.array(dims, dtype), value], np.full(dims, value), data=(1,))


def test_fill_rejects_negative_dims_and_keeps_the_rank() -> None:
    with pytest.raises(InferShapeError, match=">= 0"):
        run("Fill", [i32([2, -3]), np.float32(0)])
    assert run("Fill", [desc([3], DataType.INT64), np.float32(0)])[0].shape == (-1, -1, -1)


@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5), st.sampled_from([np.int32, np.int64]))
def test_range_is_numpy_arange(start: int, limit: int, delta: int, dtype: type) -> None:
    inputs: list[Feed] = [np.array(v, dtype) for v in (start, limit, delta)]
    if delta == 0 or (delta > 0 and start > limit) or (delta < 0 and start < limit):
        with pytest.raises(InferShapeError, match="Range needs"):
            run("Range", inputs)
        return
    check("Range", inputs, np.arange(start, limit, delta, dtype=dtype), data=())


@pytest.mark.parametrize(
    ("start", "limit", "delta"), [(0.0, 1.0, 0.3), (1.0, -2.5, -0.5), (0.5, 0.5, 1.0), (-1.0, 3.0, 1.5)]
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_range_accumulates_like_tensorflow(
    start: float, limit: float, delta: float, dtype: type
) -> None:
    out = run("Range", [np.array(v, dtype) for v in (start, limit, delta)])[0]
    expected: npt.NDArray[Any] = np.arange(start, limit, delta).astype(dtype)
    assert out.shape == expected.shape and out.dtype == DataType.from_numpy(np.dtype(dtype))
    assert out.value is not None
    np.testing.assert_allclose(out.value, expected, rtol=1e-6)


def test_range_of_unknown_bounds_is_an_unknown_length() -> None:
    assert run("Range", [desc([], DataType.INT32), i32(5), i32(1)])[0].shape == (-1,)
    with pytest.raises(Exception, match="combinations"):
        run("Range", [i32(0), i64(5), i32(1)])


@pytest.mark.parametrize(
    "x", [np.arange(6, dtype=np.int32).reshape(2, 3), np.ones(3, np.float32), np.zeros((), np.float16)]
)
def test_zeros_like_and_ones_like(x: npt.NDArray[Any]) -> None:
    check("ZerosLike", [x], np.zeros_like(x))
    check("OnesLike", [x], np.ones_like(x))
