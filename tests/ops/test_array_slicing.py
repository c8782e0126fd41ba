"""Slice and StridedSlice against numpy basic indexing on real arrays:
TensorFlow's begin / end / strides with begin, end, ellipsis, new-axis and
shrink masks mean exactly numpy's slices, ``...``, ``None`` and integers."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from array_helpers import check, i32, i64, run
from helpers import desc
from hypothesis import given
from hypothesis import strategies as st

from opgraph import DataType, InferShapeError

Spec = tuple[list[int], tuple[Any, ...], dict[str, int], list[list[int]]]

shapes = st.lists(st.integers(0, 5), min_size=1, max_size=4)


@st.composite
def strided_specs(draw: st.DrawFn) -> Spec:
    """A shape and a numpy index of slices / ints / None / one Ellipsis,
    with the StridedSlice inputs and masks that encode it."""
    shape = draw(shapes)
    count = draw(st.integers(0, len(shape) + 2))
    index: list[Any] = []
    begin, end, strides = [], [], []
    masks = dict.fromkeys(["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"], 0)
    ellipsis = False
    for i in range(count):
        kinds = ["slice", "slice", "int", "new"] + ([] if ellipsis else ["ellipsis"])
        kind = draw(st.sampled_from(kinds))
        b, e, s = 0, 0, 1
        if kind == "ellipsis":
            ellipsis = True
            masks["ellipsis_mask"] |= 1 << i
            index.append(Ellipsis)
        elif kind == "new":
            masks["new_axis_mask"] |= 1 << i
            index.append(None)
        elif kind == "int":
            b = draw(st.integers(-6, 6))
            e = b + 1
            masks["shrink_axis_mask"] |= 1 << i
            index.append(b)
        else:
            start = draw(st.none() | st.integers(-7, 7))
            stop = draw(st.none() | st.integers(-7, 7))
            s = draw(st.integers(-3, 3).filter(lambda v: v != 0))
            if start is None:
                masks["begin_mask"] |= 1 << i
            else:
                b = start
            if stop is None:
                masks["end_mask"] |= 1 << i
            else:
                e = stop
            index.append(slice(start, stop, s))
        begin.append(b)
        end.append(e)
        strides.append(s)
    return shape, tuple(index), masks, [begin, end, strides]


@given(strided_specs())
def test_strided_slice_is_numpy_basic_indexing(
    spec: tuple[list[int], tuple[Any, ...], dict[str, int], list[list[int]]],
) -> None:
    shape, index, masks, vectors = spec
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    inputs = [x, *(i32(v) for v in vectors)]
    try:
        expected = x[index]
    except IndexError:
        with pytest.raises(InferShapeError):
            run("StridedSlice", inputs, masks)
        return
    check("StridedSlice", inputs, np.asarray(expected), masks)


def test_strided_slice_keeps_unknown_dims_and_shrinks_them() -> None:
    x = desc([-1, 3, 4])
    # x[:, 1:] on [?, 3, 4] keeps the unknown batch dim.
    masks = {"begin_mask": 1, "end_mask": 1}
    assert run("StridedSlice", [x, i32([0, 1]), i32([0, 3]), i32([1, 1])], masks)[0].shape == (-1, 2, 4)
    # x[0] on [?, 3, 4] removes it.
    out = run("StridedSlice", [x, i32([0]), i32([1]), i32([1])], {"shrink_axis_mask": 1})
    assert out[0].shape == (3, 4)


def test_strided_slice_without_values_keeps_the_rank_its_spec_length_gives() -> None:
    # Values unknown, length 2: both dims sliced by unknown amounts (as
    # TensorFlow's shape function); length unknown too: the rank is unknown.
    vec = desc([2], DataType.INT32)
    assert run("StridedSlice", [desc([4, 5]), vec, vec, vec])[0].shape == (-1, -1)
    unknown_length = desc([-1], DataType.INT32)
    spec = [unknown_length] * 3
    assert run("StridedSlice", [desc([4, 5]), *spec])[0].shape == (-2,)


@pytest.mark.parametrize(
    ("masks", "strides", "message"),
    [
        ({}, [0], "non-zero"),
        ({"ellipsis_mask": 3}, [1], "more than one ellipsis"),
        ({"shrink_axis_mask": 1}, [-1], "positive stride"),
    ],
)
def test_strided_slice_rejects_bad_specs(masks: dict[str, int], strides: list[int], message: str) -> None:
    n = len(strides)
    with pytest.raises(InferShapeError, match=message):
        run("StridedSlice", [np.zeros((4, 4), np.float32), i32([0] * n), i32([1] * n), i32(strides)], masks)


def test_strided_slice_index_vectors_must_agree() -> None:
    with pytest.raises(InferShapeError, match="same length"):
        run("StridedSlice", [np.zeros(4, np.float32), i32([0, 0]), i32([1]), i32([1])])


@st.composite
def slices(draw: st.DrawFn) -> tuple[list[int], list[int], list[int]]:
    shape = draw(shapes)
    begin = [draw(st.integers(0, d + 1)) for d in shape]
    size = [draw(st.integers(-1, d + 1)) for d in shape]
    return shape, begin, size


@given(slices())
def test_slice_is_numpy_slicing(spec: tuple[list[int], list[int], list[int]]) -> None:
    shape, begin, size = spec
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    ends = [d if s == -1 else b + s for b, s, d in zip(begin, size, shape, strict=True)]
    inputs = [x, i64(begin), i64(size)]
    if any(b > d or e > d or e < b for b, e, d in zip(begin, ends, shape, strict=True)):
        with pytest.raises(InferShapeError, match="does not fit"):
            run("Slice", inputs)
        return
    expected = x[tuple(slice(b, e) for b, e in zip(begin, ends, strict=True))]
    check("Slice", inputs, expected)


def test_slice_of_unknown_dims_and_unknown_offsets() -> None:
    assert run("Slice", [desc([-1, 5]), i32([1, 1]), i32([-1, 2])])[0].shape == (-1, 2)
    assert run("Slice", [desc([4, 5]), desc([2], DataType.INT32), i32([2, -1])])[0].shape == (2, -1)
    with pytest.raises(InferShapeError, match="offsets must be >= 0"):
        run("Slice", [desc([4]), i32([-1]), i32([1])])
