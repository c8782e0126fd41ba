"""Shape ranges through the array ops (BroadcastTo, Slice, StridedSlice,
Pad, Gather*, OneHot, Select*, Flatten, Split*, Unpack) and the math ops
(reductions, ArgMax, TopK, AddN, Softmax, Cumsum). Every expected range is
computed by hand in the comment beside it (inclusive (min, max) per dim,
max -1 = unbounded); the StridedSlice ones are also brute-forced with numpy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import opgraph
from opgraph import DataType, Graph, TensorDesc

Range = tuple[int, int]


class In:
    """A graph input: shape, ranges (or None) and dtype."""

    def __init__(
        self, shape: Sequence[int], ranges: Sequence[Range] | None = None, dtype: DataType = DataType.FLOAT
    ):
        self.shape, self.ranges, self.dtype = list(shape), ranges, dtype


Feed = In | list[In] | np.ndarray[Any, Any]


def infer_all(
    op_type: str,
    inputs: Sequence[Feed],
    attrs: dict[str, Any] | None = None,
    outputs: int = 1,
    dynamic: bool = False,
) -> list[TensorDesc]:
    """One `op_type` node fed by graph inputs, lists of them (a dynamic
    input) and consts; the descs of its first `outputs` outputs."""
    g = Graph("ranges")
    refs: list[Any] = []
    for i, feed in enumerate(inputs):
        if isinstance(feed, np.ndarray):
            refs.append(g.add_const(f"c{i}", feed))
        elif isinstance(feed, list):
            refs.append(
                [g.add_input(f"x{i}_{k}", f.dtype, f.shape, shape_range=f.ranges) for k, f in enumerate(feed)]
            )
        else:
            refs.append(g.add_input(f"x{i}", feed.dtype, feed.shape, shape_range=feed.ranges))
    kwargs: dict[str, Any] = {"dynamic_outputs": [("y", outputs)]} if dynamic else {}
    g.add_node(op_type, "node", refs, attrs, **kwargs)
    opgraph.infer(g)
    return [g.desc(g.tensor("node", k)) for k in range(outputs)]


def infer(op_type: str, inputs: Sequence[Feed], attrs: dict[str, Any] | None = None) -> TensorDesc:
    return infer_all(op_type, inputs, attrs)[0]


def ranges(desc: TensorDesc) -> list[Range] | None:
    r = desc.shape_range
    return None if r is None else [(lo, hi) for lo, hi in r]


def i32(v: Any) -> np.ndarray[Any, Any]:
    return np.array(v, np.int32)


INT = DataType.INT32


# --- BroadcastTo ---------------------------------------------------------------


def broadcast_to(x: In) -> TensorDesc:
    # The target [-1, 7] comes as Shape's partial value of a [?, 7] tensor.
    g = Graph("b")
    xs = g.add_input("x", DataType.FLOAT, x.shape, shape_range=x.ranges)
    y = g.add_input("y", DataType.FLOAT, [-1, 7])
    s = g.add_node("Shape", "s", [y], {"out_type": DataType.INT32})
    out = g.add_node("BroadcastTo", "b", [xs, s])
    opgraph.infer(g)
    return g.desc(out)


def test_broadcast_to_keeps_a_dim_that_cannot_be_one() -> None:
    out = broadcast_to(In([-1, 1], [(2, 5), (1, 1)]))
    assert out.shape == (-1, 7)
    # (2, 5) excludes 1, so the output dim is the input's.
    assert ranges(out) == [(2, 5), (7, 7)]


def test_broadcast_to_of_a_dim_that_may_be_one_is_anything() -> None:
    # A 1 broadcasts to the unknown target: nothing is known.
    assert ranges(broadcast_to(In([-1, 1], [(1, 5), (1, 1)]))) == [(0, -1), (7, 7)]


# --- Slice / StridedSlice --------------------------------------------------------


def test_slice_rest_of_the_dim_past_the_offset() -> None:
    x = In([-1, -1, 6], [(4, 10), (2, -1), (6, 6)])
    out = infer("Slice", [x, i32([1, 0, 2]), i32([-1, 2, -1])])
    assert out.shape == (-1, 2, 4)
    # 4-1 .. 10-1; size 2; 6-2.
    assert ranges(out) == [(3, 9), (2, 2), (4, 4)]


def test_slice_with_unknown_offsets_is_at_most_the_dim() -> None:
    x = In([-1, -1, 6], [(4, 10), (2, -1), (6, 6)])
    out = infer("Slice", [x, In([3], None, INT), i32([-1, 1, 3])])
    assert out.shape == (-1, 1, 3)
    assert ranges(out) == [(0, 10), (1, 1), (3, 3)]


def brute(d_range: Range, index: Any) -> Range:
    """numpy's slice length over every dim in the range."""
    lengths = [np.empty(d)[index].shape[0] for d in range(d_range[0], d_range[1] + 1)]
    return min(lengths), max(lengths)


def strided(x: In, begin: list[int], end: list[int], strides: list[int], **masks: int) -> TensorDesc:
    return infer("StridedSlice", [x, i32(begin), i32(end), i32(strides)], masks)


def test_strided_slice_peak_inside_the_range() -> None:
    # x[-4:5] for d in 1..8: 1 (d=1), 4 (d=4, 5), 1 (d=8) -- the ends alone
    # would claim (1, 1).
    out = strided(In([-1, 5], [(1, 8), (5, 5)]), [-4, 0], [5, 5], [1, 1])
    assert out.shape == (-1, 5)
    assert ranges(out) == [(1, 4), (5, 5)]
    assert brute((1, 8), slice(-4, 5)) == (1, 4)


def test_strided_slice_negative_stride() -> None:
    # x[-1:0:-2]: ceil((d - 1) / 2) -> 1 at d=3, 5 at d=10 (6 at d=11..12).
    out = strided(In([-1], [(3, 10)]), [-1], [0], [-2])
    assert ranges(out) == [(1, 5)]
    assert brute((3, 10), slice(-1, 0, -2)) == (1, 5)
    out = strided(In([-1], [(3, -1)]), [-1], [0], [-2])
    assert ranges(out) == [(1, -1)]


def test_strided_slice_unbounded_prefix_settles() -> None:
    # x[:3] is min(d, 3): (2, 3) even for an unbounded d >= 2.
    out = strided(In([-1], [(2, -1)]), [0], [3], [1])
    assert ranges(out) == [(2, 3)]


def test_strided_slice_shrink_and_new_axis() -> None:
    # x[1, 1:]: the first dim goes, the second is d - 1 in (2, 8).
    x = In([-1, -1], [(2, 6), (3, 9)])
    out = strided(x, [1, 1], [2, 0], [1, 1], shrink_axis_mask=1, end_mask=2)
    assert out.shape == (-1,)
    assert ranges(out) == [(2, 8)]
    # x[None, :2]: a new 1 then min(d, 2) for d in 1..8.
    out = strided(In([-1], [(1, 8)]), [0, 0], [0, 2], [1, 1], new_axis_mask=1)
    assert out.shape == (1, -1)
    assert ranges(out) == [(1, 1), (1, 2)]


# --- Pad -------------------------------------------------------------------------


@pytest.mark.parametrize("op_type", ["Pad", "PadV2", "MirrorPad"])
def test_pad_adds_the_paddings(op_type: str) -> None:
    x = In([-1, 3], [(2, 5), (3, 3)])
    inputs: list[Feed] = [x, i32([[1, 2], [0, 1]])]
    if op_type == "PadV2":
        inputs.append(np.array(0.0, np.float32))
    attrs = {"mode": "REFLECT"} if op_type == "MirrorPad" else None
    out = infer(op_type, inputs, attrs)
    assert out.shape == (-1, 4)
    assert ranges(out) == [(5, 8), (4, 4)]  # 2+3 .. 5+3


def test_pad_with_unknown_paddings_only_grows() -> None:
    out = infer("Pad", [In([-1, 3], [(2, 5), (3, 3)]), In([2, 2], None, INT)])
    assert out.shape == (-1, -1)
    assert ranges(out) == [(2, -1), (3, -1)]


# --- gathering -------------------------------------------------------------------


def test_gather_v2_around_the_axis() -> None:
    params = In([-1, 4, -1], [(1, 9), (4, 4), (2, 3)])
    out = infer("GatherV2", [params, In([-1], [(5, 7)], INT), i32(1)])
    assert out.shape == (-1, -1, -1)
    assert ranges(out) == [(1, 9), (5, 7), (2, 3)]
    out = infer("Gather", [In([-1, 3], [(2, 9), (3, 3)]), In([2, -1], [(2, 2), (1, 4)], INT)])
    assert out.shape == (2, -1, 3)
    assert ranges(out) == [(2, 2), (1, 4), (3, 3)]


def test_gather_v2_batch_dims_meet() -> None:
    # batch_dims 1: dim 0 is both params' (1, 6) and indices' (4, 9).
    params = In([-1, 5], [(1, 6), (5, 5)])
    out = infer("GatherV2", [params, In([-1, 2], [(4, 9), (2, 2)], INT), i32(1)], {"batch_dims": 1})
    assert out.shape == (-1, 2)
    assert ranges(out) == [(4, 6), (2, 2)]


def test_gather_nd_and_one_hot() -> None:
    params = In([-1, -1, 5], [(1, 9), (2, 8), (5, 5)])
    out = infer("GatherNd", [params, In([-1, 1], [(3, 4), (1, 1)], INT)])
    assert out.shape == (-1, -1, 5)
    assert ranges(out) == [(3, 4), (2, 8), (5, 5)]  # indices[:-1] + params[1:]
    on, off = np.array(1.0, np.float32), np.array(0.0, np.float32)
    out = infer("OneHot", [In([-1], [(2, 6)], INT), i32(4), on, off])
    assert out.shape == (-1, 4)
    assert ranges(out) == [(2, 6), (4, 4)]
    out = infer("OneHot", [In([-1], [(2, 6)], INT), In([], None, INT), on, off], {"axis": 0})
    assert out.shape == (-1, -1)
    assert ranges(out) == [(0, -1), (2, 6)]


# --- Select ----------------------------------------------------------------------


def test_select_intersects_its_inputs() -> None:
    cond = In([-1, 3], [(1, 9), (3, 3)], DataType.BOOL)
    out = infer("Select", [cond, In([-1, 3], [(2, -1), (3, 3)]), In([-1, 3], [(0, 6), (3, 3)])])
    assert ranges(out) == [(2, 6), (3, 3)]
    # A condition vector over the first dim.
    cond = In([-1], [(4, 10)], DataType.BOOL)
    out = infer("Select", [cond, In([-1, 3], [(1, 6), (3, 3)]), In([-1, 3], None)])
    assert ranges(out) == [(4, 6), (3, 3)]


def test_select_v2_broadcasts() -> None:
    cond = In([-1, 1], [(1, 8), (1, 1)], DataType.BOOL)
    out = infer("SelectV2", [cond, In([3], None), In([-1, 3], [(2, 5), (3, 3)])])
    assert out.shape == (-1, 3)
    # (1, 8) may be 1 (then (2, 5)) or meet it: (2, 5).
    assert ranges(out) == [(2, 5), (3, 3)]


# --- Flatten / Split / Unpack ----------------------------------------------------


def test_flatten_multiplies() -> None:
    out = infer("Flatten", [In([-1, 3, -1], [(2, 4), (3, 3), (1, 5)])])
    assert out.shape == (-1, -1)
    assert ranges(out) == [(2, 4), (3, 15)]


def test_split_shares_the_axis() -> None:
    outs = infer_all(
        "Split", [i32(0), In([-1, 3], [(10, 100), (3, 3)])], {"num_split": 3}, outputs=3, dynamic=True
    )
    # 10..100 in 3 equal parts: ceil(10/3)=4 .. 100//3=33.
    assert [ranges(o) for o in outs] == [[(4, 33), (3, 3)]] * 3


def test_split_v_rest_and_unknown_sizes() -> None:
    x = In([-1], [(6, 20)])
    outs = infer_all("SplitV", [x, i32([2, -1, 3]), i32(0)], {"num_split": 3}, outputs=3, dynamic=True)
    assert [o.shape for o in outs] == [(2,), (-1,), (3,)]
    assert ranges(outs[1]) == [(1, 15)]  # 6-5 .. 20-5
    assert ranges(outs[0]) is None  # static
    outs = infer_all("SplitV", [x, In([3], None, INT), i32(0)], {"num_split": 3}, outputs=3, dynamic=True)
    assert [ranges(o) for o in outs] == [[(0, 20)]] * 3


def test_unpack_drops_the_axis() -> None:
    outs = infer_all(
        "Unpack", [In([3, -1], [(3, 3), (2, 7)])], {"axis": 0, "num": 3}, outputs=3, dynamic=True
    )
    assert [ranges(o) for o in outs] == [[(2, 7)]] * 3


# --- math ------------------------------------------------------------------------

X3 = In([-1, 4, -1], [(2, 6), (4, 4), (1, 3)])


def test_reductions() -> None:
    out = infer("Sum", [X3, i32([1])])
    assert out.shape == (-1, -1)
    assert ranges(out) == [(2, 6), (1, 3)]
    out = infer("ReduceMax", [X3, i32([0])], {"keep_dims": True})
    assert out.shape == (1, 4, -1)
    assert ranges(out) == [(1, 1), (4, 4), (1, 3)]
    # Unknown axes, keep_dims: each dim is itself or 1.
    out = infer("Mean", [X3, In([1], None, INT)], {"keep_dims": True})
    assert ranges(out) == [(1, 6), (1, 4), (1, 3)]
    # Without keep_dims the rank is unknown: no range.
    assert infer("Mean", [X3, In([1], None, INT)]).shape_range is None


def test_arg_top_k_add_n() -> None:
    out = infer("ArgMax", [In([-1, 5], [(2, 9), (5, 5)]), i32(1)])
    assert ranges(out) == [(2, 9)]
    x = In([-1, -1], [(2, 9), (3, 10)])
    values, indices = infer_all("TopKV2", [x, i32(2)], outputs=2)
    assert ranges(values) == ranges(indices) == [(2, 9), (2, 2)]
    # Unknown k: at most the axis.
    values, _ = infer_all("TopKV2", [x, In([], None, INT)], outputs=2)
    assert ranges(values) == [(2, 9), (0, 10)]
    out = infer("AddN", [[In([-1], [(1, 8)]), In([-1], [(4, -1)])]], {"N": 2})
    assert ranges(out) == [(4, 8)]


def test_softmax_and_cumsum_copy() -> None:
    x = In([-1, 5], [(2, 9), (5, 5)])
    assert ranges(infer("Softmax", [x])) == [(2, 9), (5, 5)]
    assert ranges(infer("Cumsum", [x, i32(1)])) == [(2, 9), (5, 5)]


def test_no_range_without_ranged_inputs_or_unknown_dims() -> None:
    assert infer("Pad", [In([-1, 3]), i32([[1, 2], [0, 1]])]).shape_range is None
    # Static output: the slice takes a fixed size.
    assert infer("Slice", [In([-1], [(4, 9)]), i32([1]), i32([3])]).shape_range is None
    assert infer("Sum", [X3, i32([0, 2])]).shape_range is None
