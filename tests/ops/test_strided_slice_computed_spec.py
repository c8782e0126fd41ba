"""StridedSlice whose begin / end values are computed (``x[:n]``): the
output keeps its rank, and every dim that cannot depend on the values keeps
its size. Checked against numpy's slicing for many concrete values."""

from __future__ import annotations

import itertools
from types import EllipsisType

import numpy as np
import pytest

import opgraph
from opgraph import DataType, Graph

SHAPE = (4, 5, 3)


@pytest.mark.parametrize(
    ("spec_len", "masks", "expected"),
    [
        (1, {}, (-1, 5, 3)),
        (2, {}, (-1, -1, 3)),
        (1, {"shrink_axis_mask": 1}, (5, 3)),
        (2, {"new_axis_mask": 2}, (-1, 1, 5, 3)),
        (2, {"ellipsis_mask": 1}, (4, 5, -1)),
        (3, {"begin_mask": 7, "end_mask": 7}, (-1, -1, -1)),
    ],
)
def test_unknown_values_keep_the_rank_and_the_untouched_dims(
    spec_len: int, masks: dict[str, int], expected: tuple[int, ...]
) -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, SHAPE)
    begin = g.add_input("begin", DataType.INT32, (spec_len,))
    end = g.add_input("end", DataType.INT32, (spec_len,))
    strides = g.add_input("strides", DataType.INT32, (spec_len,))
    y = g.add_node("StridedSlice", "y", [x, begin, end, strides], masks)
    opgraph.infer(g)
    ours = g.desc(y).shape
    assert ours == expected
    # Every concrete spec TensorFlow (numpy) could be given: same rank, and
    # each known dim equals numpy's for all of them.
    ellipsis = masks.get("ellipsis_mask", 0)
    new_axis = masks.get("new_axis_mask", 0)
    shrink = masks.get("shrink_axis_mask", 0)
    for b, e, s in itertools.product([0, 1, -1], [1, 2, -1], [1, 2, -1]):
        entries: list[int | slice | EllipsisType | None] = []
        for i in range(spec_len):
            if ellipsis >> i & 1:
                entries.append(Ellipsis)
            elif new_axis >> i & 1:
                entries.append(None)
            elif shrink >> i & 1:
                entries.append(b)
            else:
                lo = None if masks.get("begin_mask", 0) >> i & 1 else b
                hi = None if masks.get("end_mask", 0) >> i & 1 else e
                entries.append(slice(lo, hi, s))
        if any(isinstance(t, int) for t in entries) and s < 0:
            continue  # a shrunk dim needs a positive stride
        want = np.zeros(SHAPE)[tuple(entries)].shape
        assert len(ours) == len(want), (entries, ours, want)
        for got, real in zip(ours, want, strict=True):
            assert got in (-1, real), (entries, ours, want)
