"""Transpose, Tile, Pad / PadV2 / MirrorPad, ReverseV2, BroadcastTo,
Select / SelectV2 and SpaceToDepth / DepthToSpace against numpy."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pytest
from array_helpers import check, i32, i64, run
from helpers import desc
from hypothesis import given
from hypothesis import strategies as st

from opgraph import DataType, InferShapeError

Arr = npt.NDArray[Any]
shapes = st.lists(st.integers(0, 4), min_size=1, max_size=4)


def arange(shape: list[int] | tuple[int, ...]) -> Arr:
    return np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)


@given(shapes, st.data())
def test_transpose_is_numpy_transpose(shape: list[int], data: st.DataObject) -> None:
    perm = data.draw(st.permutations(range(len(shape))))
    x = arange(shape)
    check("Transpose", [x, i64(perm)], np.transpose(x, perm))


def test_transpose_errors_and_unknowns() -> None:
    with pytest.raises(InferShapeError, match="not a permutation"):
        run("Transpose", [desc([2, 3]), i32([0, 0])])
    with pytest.raises(InferShapeError, match="2 entries but the input has rank 3"):
        run("Transpose", [desc([2, 3, 4]), i32([1, 0])])
    assert run("Transpose", [desc([-1, 3]), i32([1, 0])])[0].shape == (3, -1)
    assert run("Transpose", [desc([2, 3]), desc([2], DataType.INT32)])[0].shape == (-1, -1)


@given(shapes, st.data())
def test_tile_is_numpy_tile(shape: list[int], data: st.DataObject) -> None:
    multiples = data.draw(st.lists(st.integers(0, 3), min_size=len(shape), max_size=len(shape)))
    x = arange(shape)
    check("Tile", [x, i32(multiples)], np.tile(x, multiples))


def test_tile_errors() -> None:
    with pytest.raises(InferShapeError, match=">= 0"):
        run("Tile", [desc([2]), i32([-1])])
    assert run("Tile", [desc([-1, 2]), i32([2, 0])])[0].shape == (-1, 0)


@given(shapes, st.data(), st.sampled_from(["Pad", "PadV2", "REFLECT", "SYMMETRIC"]))
def test_pad_is_numpy_pad(shape: list[int], data: st.DataObject, kind: str) -> None:
    paddings = [data.draw(st.tuples(st.integers(0, 3), st.integers(0, 3))) for _ in shape]
    x = arange(shape)
    inputs = [x, i64(paddings)]
    if kind == "Pad":
        return check("Pad", inputs, np.pad(x, paddings))
    if kind == "PadV2":
        return check("PadV2", [*inputs, np.int32(-7)], np.pad(x, paddings, constant_values=-7))
    limit = [d - 1 if kind == "REFLECT" else d for d in shape]
    if any(max(p) > lim for p, lim in zip(paddings, limit, strict=True)):
        with pytest.raises(InferShapeError, match="mirror pad"):
            run("MirrorPad", inputs, {"mode": kind})
        return None
    mode: Literal["reflect", "symmetric"] = "reflect" if kind == "REFLECT" else "symmetric"
    check("MirrorPad", inputs, np.pad(x, paddings, mode=mode), {"mode": kind})
    return None


def test_pad_errors_and_unknowns() -> None:
    with pytest.raises(InferShapeError, match=">= 0"):
        run("Pad", [desc([2]), i32([[-1, 0]])])
    with pytest.raises(InferShapeError, match="rows"):
        run("Pad", [desc([2]), i32([[1, 0], [0, 0]])])
    with pytest.raises(Exception, match="REFLECT or SYMMETRIC"):
        run("MirrorPad", [desc([2]), i32([[1, 0]])], {"mode": "EDGE"})
    assert run("Pad", [desc([-1, 2]), i32([[1, 1], [2, 0]])])[0].shape == (-1, 4)
    assert run("Pad", [desc([-2]), desc([3, 2], DataType.INT32)])[0].shape == (-1, -1, -1)


@given(shapes, st.data())
def test_reverse_is_numpy_flip(shape: list[int], data: st.DataObject) -> None:
    axes = data.draw(st.lists(st.integers(-len(shape), len(shape) - 1), max_size=len(shape)))
    x = arange(shape)
    if len({a % len(shape) for a in axes}) != len(axes):
        with pytest.raises(InferShapeError, match="more than once"):
            run("ReverseV2", [x, i32(axes)])
        return
    check("ReverseV2", [x, i32(axes)], np.flip(x, tuple(axes)))


@given(st.lists(st.integers(1, 3), max_size=3), st.data())
def test_broadcast_to_is_numpy_broadcast_to(shape: list[int], data: st.DataObject) -> None:
    extra = data.draw(st.lists(st.integers(0, 3), max_size=2))
    target = extra + [data.draw(st.sampled_from([d, 1, 3])) if d == 1 else d for d in shape]
    x = arange(shape)
    try:
        expected = np.broadcast_to(x, target)
    except ValueError:
        with pytest.raises(InferShapeError, match="cannot broadcast"):
            run("BroadcastTo", [x, i32(target)])
        return
    check("BroadcastTo", [x, i32(target)], np.array(expected))


def test_broadcast_to_errors_and_unknowns() -> None:
    with pytest.raises(InferShapeError, match="cannot broadcast dim 2"):
        run("BroadcastTo", [desc([2]), i32([3])])
    with pytest.raises(InferShapeError, match="shorter"):
        run("BroadcastTo", [desc([2, 2]), i32([2])])
    assert run("BroadcastTo", [desc([-1, 1]), i32([4, 2, 5])])[0].shape == (4, 2, 5)
    assert run("BroadcastTo", [desc([3]), desc([2], DataType.INT32)])[0].shape == (-1, 3)


@given(
    st.lists(st.integers(1, 3), max_size=3),
    st.lists(st.integers(1, 3), max_size=3),
    st.lists(st.integers(1, 3), max_size=3),
)
def test_select_v2_broadcasts_all_three(c: list[int], a: list[int], b: list[int]) -> None:
    inputs = [desc(c, DataType.BOOL), desc(a), desc(b)]
    try:
        expected = np.broadcast_shapes(tuple(c), tuple(a), tuple(b))
    except ValueError:
        with pytest.raises(InferShapeError, match="cannot be broadcast"):
            run("SelectV2", inputs)
        return
    out = run("SelectV2", inputs)[0]
    assert out.shape == expected
    assert np.where(np.zeros(c, bool), np.zeros(a, np.float32), np.zeros(b, np.float32)).shape == expected


@pytest.mark.parametrize(
    ("cond", "x", "expected"),
    [
        ([2, 3], [2, 3], (2, 3)),
        ([2], [2, 3], (2, 3)),
        ([], [], ()),
        ([-1], [-1, 3], (-1, 3)),
        ([-1, 3], [2, -1], (2, 3)),
    ],
)
def test_select_takes_a_same_shape_or_first_dim_condition(
    cond: list[int], x: list[int], expected: tuple[int, ...]
) -> None:
    assert run("Select", [desc(cond, DataType.BOOL), desc(x), desc(x)])[0].shape == expected


@pytest.mark.parametrize(("cond", "x"), [([3], [2, 3]), ([2, 1], [2, 3]), ([2, 3, 1], [2, 3])])
def test_select_rejects_other_conditions(cond: list[int], x: list[int]) -> None:
    with pytest.raises(InferShapeError):
        run("Select", [desc(cond, DataType.BOOL), desc(x), desc(x)])


def space_to_depth_nhwc(x: Arr, b: int) -> Arr:
    n, h, w, c = x.shape
    moved: Arr = (
        x.reshape(n, h // b, b, w // b, b, c)
        .transpose(0, 1, 3, 2, 4, 5)
        .reshape(n, h // b, w // b, b * b * c)
    )
    return moved


@given(st.integers(1, 2), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(2, 3))
def test_space_to_depth_and_back(n: int, hb: int, wb: int, c: int, block: int) -> None:
    x = arange([n, hb * block, wb * block, c])
    y = space_to_depth_nhwc(x, block)
    assert run("SpaceToDepth", [desc(x.shape)], {"block_size": block})[0].shape == y.shape
    assert run("DepthToSpace", [desc(y.shape)], {"block_size": block})[0].shape == x.shape
    nchw = {"block_size": block, "data_format": "NCHW"}
    to_nchw = (0, 3, 1, 2)
    assert (
        run("SpaceToDepth", [desc(x.transpose(to_nchw).shape)], nchw)[0].shape == y.transpose(to_nchw).shape
    )


def test_space_to_depth_errors() -> None:
    with pytest.raises(InferShapeError, match="not divisible"):
        run("SpaceToDepth", [desc([1, 3, 4, 1])], {"block_size": 2})
    with pytest.raises(InferShapeError, match="not divisible"):
        run("DepthToSpace", [desc([1, 3, 4, 6])], {"block_size": 2})
    with pytest.raises(InferShapeError, match=">= 2"):
        run("DepthToSpace", [desc([1, 3, 4, 4])], {"block_size": 1})
    assert run("DepthToSpace", [desc([-1, 3, -1, 8])], {"block_size": 2})[0].shape == (-1, 6, -1, 2)
