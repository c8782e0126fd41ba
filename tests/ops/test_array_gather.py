"""GatherV2 / Gather (np.take, batch_dims), GatherNd and OneHot against
numpy on real arrays."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from array_helpers import check, i32, i64, run
from helpers import desc
from hypothesis import given
from hypothesis import strategies as st

from opgraph import DataType, InferShapeError

Arr = npt.NDArray[Any]


def arange(shape: list[int]) -> Arr:
    return np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)


@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_gather_is_numpy_take(shape: list[int], data: st.DataObject) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = data.draw(st.lists(st.integers(0, 3), max_size=2))
    dim = shape[axis]
    flat = data.draw(
        st.lists(
            st.integers(0, dim - 1), min_size=int(np.prod(index_shape)), max_size=int(np.prod(index_shape))
        )
    )
    indices = np.array(flat, np.int64).reshape(index_shape)
    x = arange(shape)
    expected = np.asarray(np.take(x, indices, axis=axis))
    check("GatherV2", [x, indices, i32(axis)], expected)
    if axis in (0, -len(shape)):
        check("Gather", [x, indices], expected)


def test_gather_with_batch_dims() -> None:
    x = arange([2, 3, 4])
    indices = np.array([[0, 2], [1, 1]], np.int32)
    # batch_dims=1, axis=1: out[b, i, k] = x[b, indices[b, i], k]
    expected = np.stack([np.take(x[b], indices[b], axis=0) for b in range(2)])
    check("GatherV2", [x, indices, i32(1)], expected, {"batch_dims": 1})
    check("GatherV2", [x, indices, i32(1)], expected, {"batch_dims": -1})
    with pytest.raises(InferShapeError, match="batch_dims 2 must be <= axis 1"):
        run("GatherV2", [x, indices, i32(1)], {"batch_dims": 2})


def test_gather_errors_and_unknowns() -> None:
    with pytest.raises(InferShapeError, match="out of range"):
        run("GatherV2", [arange([3]), i32([3]), i32(0)])
    with pytest.raises(InferShapeError, match="out of range"):
        run("GatherV2", [desc([3, 4]), i32([0]), i32(2)])
    assert run("GatherV2", [desc([-1, 4]), desc([5], DataType.INT32), i32(0)])[0].shape == (5, 4)
    assert run("GatherV2", [desc([3, 4]), desc([5, 2], DataType.INT32), desc([], DataType.INT32)])[
        0
    ].shape == (
        -1,
        -1,
        -1,
    )


@given(st.lists(st.integers(1, 3), min_size=1, max_size=3), st.data())
def test_gather_nd_is_numpy_advanced_indexing(shape: list[int], data: st.DataObject) -> None:
    depth = data.draw(st.integers(0, len(shape)))
    rows = data.draw(st.lists(st.tuples(*[st.integers(0, d - 1) for d in shape[:depth]]), max_size=4))
    indices = np.array(rows, np.int32).reshape(len(rows), depth)
    x = arange(shape)
    expected = np.array([x[tuple(r)] for r in rows], np.int32).reshape((len(rows), *shape[depth:]))
    check("GatherNd", [x, indices], expected)


def test_gather_nd_errors() -> None:
    with pytest.raises(InferShapeError, match="address 3 dims"):
        run("GatherNd", [desc([2, 2]), desc([4, 3], DataType.INT32)])
    assert run("GatherNd", [desc([2, 2]), desc([4, -1], DataType.INT32)])[0].shape == (-2,)


@given(st.lists(st.integers(0, 3), max_size=3), st.integers(0, 4), st.data())
def test_one_hot_inserts_depth_at_axis(shape: list[int], depth: int, data: st.DataObject) -> None:
    axis = data.draw(st.integers(-1, len(shape)))
    indices = np.zeros(shape, np.int64)
    # numpy reference: eye(depth)[indices] puts depth last, then move it.
    expected = np.moveaxis(
        np.eye(depth + 1, dtype=np.float32)[indices][..., :depth], -1, axis if axis >= 0 else -1
    )
    out = run("OneHot", [indices, i32(depth), np.float32(1), np.float32(0)], {"axis": axis})[0]
    assert out.shape == expected.shape and out.dtype == DataType.FLOAT


def test_one_hot_errors() -> None:
    with pytest.raises(InferShapeError, match="out of range"):
        run("OneHot", [desc([2], DataType.INT32), i32(3), np.float32(1), np.float32(0)], {"axis": 2})
    with pytest.raises(InferShapeError, match=">= 0"):
        run("OneHot", [desc([2], DataType.INT32), i32(-1), np.float32(1), np.float32(0)])
    with pytest.raises(Exception, match="dtype"):
        run("OneHot", [desc([2], DataType.INT32), i32(3), np.float32(1), i64(0)])
