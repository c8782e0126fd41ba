"""The TensorFlow array ops of common frozen models against numpy on real
arrays: SpaceToBatchND / BatchToSpaceND (numpy references following
TensorFlow's pad-reshape-transpose definition), MatrixBandPart (a numpy
band mask), Where (np.argwhere) and Unique / UniqueWithCounts (np.unique),
whose data-dependent sizes must fall inside the inferred ranges."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from helpers import Feed, desc, infer_output, one_node_graph
from hypothesis import given
from hypothesis import strategies as st
from math_helpers import dtype_of, sample, shapes

import opgraph
from opgraph import DataType, TensorDesc

Array = npt.NDArray[Any]


def space_to_batch(x: Array, block: list[int], pads: list[list[int]]) -> Array:
    """TensorFlow's definition: zero-pad the block dims, split each into
    (size / block, block), move the block factors in front of the batch."""
    m = len(block)
    padded = np.pad(x, [(0, 0), *map(tuple, pads), *[(0, 0)] * (x.ndim - 1 - m)])
    batch, spatial, rest = padded.shape[0], padded.shape[1 : 1 + m], padded.shape[1 + m :]
    split = [d for s, b in zip(spatial, block, strict=True) for d in (s // b, b)]
    if any(s % b for s, b in zip(spatial, block, strict=True)):
        raise ValueError("a padded block dim is not divisible by its block size")
    grid = padded.reshape(batch, *split, *rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    moved = grid.transpose(*perm, *range(1 + 2 * m, grid.ndim))
    out: Array = moved.reshape(
        batch * int(np.prod(block)), *(s // b for s, b in zip(spatial, block, strict=True)), *rest
    )
    return out


def batch_to_space(x: Array, block: list[int], crops: list[list[int]]) -> Array:
    """The inverse: split the batch into the block factors, interleave them
    with the block dims, then crop."""
    m, blocks = len(block), int(np.prod(block))
    if x.shape[0] % blocks:
        raise ValueError("the batch is not divisible by the block sizes' product")
    batch, spatial, rest = x.shape[0] // blocks, x.shape[1 : 1 + m], x.shape[1 + m :]
    grid = x.reshape(*block, batch, *spatial, *rest)
    perm = [m] + [d for i in range(m) for d in (m + 1 + i, i)]
    moved = grid.transpose(*perm, *range(2 * m + 1, grid.ndim))
    grown: Array = moved.reshape(batch, *(s * b for s, b in zip(spatial, block, strict=True)), *rest)
    for i, (start, end) in enumerate(crops):
        if start + end > grown.shape[1 + i]:
            raise ValueError("the crops exceed the block dim")
        grown = np.take(grown, range(start, grown.shape[1 + i] - end), axis=1 + i)
    return grown


@st.composite
def block_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int], list[list[int]]]:
    m = draw(st.integers(1, 2))
    rest = draw(st.lists(st.integers(1, 3), max_size=1))
    shape = (draw(st.integers(1, 4)), *draw(st.lists(st.integers(0, 6), min_size=m, max_size=m)), *rest)
    block = draw(st.lists(st.integers(1, 3), min_size=m, max_size=m))
    amounts = draw(st.lists(st.lists(st.integers(0, 2), min_size=2, max_size=2), min_size=m, max_size=m))
    return shape, block, amounts


def _block_move(
    op_type: str, shape: tuple[int, ...], block: list[int], amounts: list[list[int]]
) -> TensorDesc:
    inputs: list[Feed] = [
        desc(shape),
        np.array(block, np.int32),
        np.array(amounts, np.int64).reshape(len(block), 2),
    ]
    return infer_output(op_type, inputs)


@given(case=block_cases())
def test_space_to_batch_matches_the_reference(
    case: tuple[tuple[int, ...], list[int], list[list[int]]],
) -> None:
    shape, block, pads = case
    try:
        expected = space_to_batch(np.zeros(shape, np.float32), block, pads)
    except ValueError:
        with pytest.raises(opgraph.InferShapeError, match="not divisible by the block size"):
            _block_move("SpaceToBatchND", shape, block, pads)
        return
    out = _block_move("SpaceToBatchND", shape, block, pads)
    assert (out.shape, out.dtype) == (expected.shape, DataType.FLOAT)


@given(case=block_cases())
def test_batch_to_space_matches_the_reference(
    case: tuple[tuple[int, ...], list[int], list[list[int]]],
) -> None:
    shape, block, crops = case
    try:
        expected = batch_to_space(np.zeros(shape, np.float32), block, crops)
    except ValueError:
        with pytest.raises(opgraph.InferShapeError, match=r"not divisible|negative size"):
            _block_move("BatchToSpaceND", shape, block, crops)
        return
    out = _block_move("BatchToSpaceND", shape, block, crops)
    assert out.shape == expected.shape


@given(case=block_cases())
def test_space_to_batch_and_back_round_trips(
    case: tuple[tuple[int, ...], list[int], list[list[int]]],
) -> None:
    shape, block, pads = case
    x = sample(shape)
    try:
        moved = space_to_batch(x, block, pads)
    except ValueError:
        return
    assert np.array_equal(batch_to_space(moved, block, pads), x)  # the references invert each other
    back = _block_move("BatchToSpaceND", moved.shape, block, pads)
    assert back.shape == shape


def band(x: Array, lower: int, upper: int) -> Array:
    rows, cols = np.indices(x.shape[-2:])
    keep = ((lower < 0) | (rows - cols <= lower)) & ((upper < 0) | (cols - rows <= upper))
    return np.where(keep, x, 0)


@given(
    shape=shapes.filter(lambda s: len(s) >= 2),
    lower=st.integers(-1, 5),
    upper=st.integers(-1, 5),
)
def test_band_part_keeps_the_shape(shape: tuple[int, ...], lower: int, upper: int) -> None:
    x = sample(shape)
    inputs: list[Feed] = [desc(shape), np.array(lower, np.int64), np.array(upper, np.int64)]
    if lower > shape[-2] or upper > shape[-1]:
        # numpy would not mind; TensorFlow's kernel rejects bands wider than the matrix.
        with pytest.raises(opgraph.VerifyError, match="more than the"):
            infer_output("MatrixBandPart", inputs)
        return
    expected = band(x, lower, upper)
    out = infer_output("MatrixBandPart", inputs)
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))


@given(shape=shapes, density=st.floats(0, 1))
def test_where_counts_fall_in_the_range(shape: tuple[int, ...], density: float) -> None:
    x = np.random.default_rng(0).random(shape) < density
    expected = np.argwhere(x)
    out = infer_output("Where", [desc(shape, DataType.BOOL)])
    assert (out.shape, out.dtype) == ((-1, len(shape)), DataType.INT64)
    assert expected.shape[1] == len(shape)
    (lo, hi), columns = out.shape_range or [(0, -1), (0, 0)]
    assert lo <= expected.shape[0] <= hi == x.size
    assert tuple(columns) == (len(shape), len(shape))


@given(
    values=st.lists(st.integers(-3, 3), max_size=12),
    out_idx=st.sampled_from([DataType.INT32, DataType.INT64]),
    with_counts=st.booleans(),
)
def test_unique_sizes_fall_in_the_range(values: list[int], out_idx: DataType, with_counts: bool) -> None:
    x = np.array(values, np.int32)
    distinct, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
    op_type = "UniqueWithCounts" if with_counts else "Unique"
    graph, _ = one_node_graph(op_type, [desc(x.shape, DataType.INT32)], {"out_idx": out_idx})
    opgraph.infer(graph)
    outputs = graph.node("node").outputs
    assert len(outputs) == (3 if with_counts else 2)
    y, idx = outputs[0], outputs[1]
    assert (y.shape, y.dtype) == ((-1,), DataType.INT32)
    (lo, hi) = (y.shape_range or [(0, -1)])[0]
    assert lo <= distinct.size <= hi == x.size
    assert (idx.shape, idx.dtype) == (inverse.reshape(x.shape).shape, out_idx)
    if with_counts:
        assert (outputs[2].shape, outputs[2].dtype) == ((-1,), out_idx)
        assert counts.size == distinct.size


@pytest.mark.parametrize(
    ("op_type", "inputs", "match"),
    [
        ("Unique", [desc([2, 3], DataType.INT32)], "x must be a vector"),
        (
            "SpaceToBatchND",
            [desc([2, 4, 4, 1]), np.array([2, 2], np.int32), np.zeros((3, 2), np.int32)],
            r"\[2, 2\]",
        ),
        (
            "SpaceToBatchND",
            [desc([2, 4, 4, 1]), np.array([0, 2], np.int32), np.zeros((2, 2), np.int32)],
            ">= 1",
        ),
        ("MatrixBandPart", [desc([4]), np.array(0, np.int64), np.array(0, np.int64)], "rank >= 2"),
        ("MatrixBandPart", [desc([4, 4]), np.array([0], np.int64), np.array(0, np.int64)], "scalar"),
    ],
)
def test_misshapen_inputs_are_rejected(op_type: str, inputs: list[Any], match: str) -> None:
    with pytest.raises(opgraph.NodeError, match=match):
        infer_output(op_type, inputs)


def test_unknown_dims_stay_unknown() -> None:
    # No block shape value: the batch and block dims are unknown, the rest stays.
    out = infer_output(
        "SpaceToBatchND", [desc([2, 4, 4, 3]), desc([2], DataType.INT32), desc([2, 2], DataType.INT32)]
    )
    assert out.shape == (-1, -1, -1, 3)
    out = infer_output("Where", [desc([-2], DataType.BOOL)])
    assert (out.shape, out.shape_range) == ((-1, -1), None)
    assert infer_output(
        "MatrixBandPart", [desc([-2]), np.array(1, np.int64), np.array(1, np.int64)]
    ).shape == (-2,)
