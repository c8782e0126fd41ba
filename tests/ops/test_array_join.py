"""ConcatV2 / Concat, Pack, Unpack, Split and SplitV against numpy's
concatenate / stack / split on real arrays."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from array_helpers import check, i32, run
from helpers import desc
from hypothesis import given
from hypothesis import strategies as st

from opgraph import DataType, InferShapeError

Arr = npt.NDArray[Any]


def arange(shape: list[int], start: int = 0) -> Arr:
    return np.arange(start, start + int(np.prod(shape)), dtype=np.int32).reshape(shape)


@given(st.lists(st.integers(0, 4), min_size=1, max_size=4), st.data())
def test_concat_is_numpy_concatenate(shape: list[int], data: st.DataObject) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.integers(1, 3))
    parts = []
    for k in range(n):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        parts.append(arange(s, 100 * k))
    expected = np.concatenate(parts, axis=axis)
    check("ConcatV2", [parts, i32(axis)], expected, {"N": n})
    check("Concat", [i32(axis), parts], expected, data=(1,))


def test_concat_mismatches_and_unknowns() -> None:
    with pytest.raises(InferShapeError, match="do not match"):
        run("ConcatV2", [[desc([2, 3]), desc([2, 4])], i32(0)])
    with pytest.raises(InferShapeError, match="same rank"):
        run("ConcatV2", [[desc([2, 3]), desc([2])], i32(0)])
    with pytest.raises(InferShapeError, match="out of range"):
        run("ConcatV2", [[desc([2, 3])], i32(2)])
    assert run("ConcatV2", [[desc([-1, 3]), desc([2, -1])], i32(1)])[0].shape == (2, -1)
    assert run("ConcatV2", [[desc([-1, 3]), desc([-2])], i32(0)])[0].shape == (-1, 3)
    assert run("ConcatV2", [[desc([4, 3]), desc([2, 3])], desc([], DataType.INT32)])[0].shape == (-1, -1)
    with pytest.raises(InferShapeError, match="N is 3"):
        run("ConcatV2", [[desc([4, 3]), desc([2, 3])], i32(0)], {"N": 3})


@given(st.lists(st.integers(0, 3), max_size=4), st.integers(1, 3), st.data())
def test_pack_is_numpy_stack_and_unpack_undoes_it(shape: list[int], n: int, data: st.DataObject) -> None:
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    parts = [arange(shape, 50 * k) for k in range(n)]
    stacked = np.stack(parts, axis=axis)
    check("Pack", [parts], stacked, {"axis": axis, "N": n})
    pieces = [np.squeeze(p, axis) for p in np.split(stacked, n, axis=axis)]
    check("Unpack", [stacked], pieces, {"axis": axis, "num": n}, outputs=n)


def test_pack_and_unpack_errors() -> None:
    with pytest.raises(InferShapeError, match="do not match"):
        run("Pack", [[desc([2]), desc([3])]])
    assert run("Pack", [[desc([-1, 3]), desc([2, -1])]], {"axis": 1})[0].shape == (2, 2, 3)
    with pytest.raises(InferShapeError, match="3 entries but the node has 2"):
        run("Unpack", [desc([3, 2])], outputs=2)
    assert [o.shape for o in run("Unpack", [desc([-1, 2])], {"axis": 1}, outputs=2)] == [(-1,), (-1,)]


@given(st.lists(st.integers(0, 4), min_size=1, max_size=3), st.integers(1, 4), st.data())
def test_split_is_numpy_split(shape: list[int], n: int, data: st.DataObject) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = arange(shape)
    if shape[axis] % n:
        with pytest.raises(InferShapeError, match="equally"):
            run("Split", [i32(axis), x], {"num_split": n}, outputs=n)
        return
    check("Split", [i32(axis), x], np.split(x, n, axis=axis), {"num_split": n}, data=(1,), outputs=n)


@given(st.lists(st.integers(0, 5), min_size=1, max_size=3), st.data())
def test_split_v_is_numpy_split_at_offsets(shape: list[int], data: st.DataObject) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    dim = shape[axis]
    sizes = data.draw(st.lists(st.integers(0, dim), min_size=1, max_size=3))
    x = arange(shape)
    if sum(sizes) != dim:
        with pytest.raises(InferShapeError, match="add up"):
            run("SplitV", [x, i32(sizes), i32(axis)], {"num_split": len(sizes)}, outputs=len(sizes))
        return
    expected = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
    # The same split with one size given as -1.
    hole = data.draw(st.integers(0, len(sizes) - 1))
    for given_sizes in (sizes, [-1 if k == hole else s for k, s in enumerate(sizes)]):
        inputs = [x, i32(given_sizes), i32(axis)]
        check("SplitV", inputs, expected, {"num_split": len(sizes)}, outputs=len(sizes))


def test_split_errors_and_unknowns() -> None:
    with pytest.raises(InferShapeError, match="more than one -1"):
        run("SplitV", [desc([6]), i32([-1, -1]), i32(0)], {"num_split": 2}, outputs=2)
    with pytest.raises(InferShapeError, match="num_split is 3 but the node has 2"):
        run("Split", [i32(0), desc([6])], {"num_split": 3}, outputs=2)
    outs = run("Split", [desc([], DataType.INT32), desc([6, 4])], {"num_split": 2}, outputs=2)
    assert [o.shape for o in outs] == [(-1, -1), (-1, -1)]
    outs = run("SplitV", [desc([-1, 4]), i32([1, -1]), i32(0)], {"num_split": 2}, outputs=2)
    assert [o.shape for o in outs] == [(1, 4), (-1, 4)]
