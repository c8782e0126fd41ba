"""Shape ranges through the op families that compute them: broadcasting
binaries, convolution / pooling windows, Concat / Pack, Reshape, Squeeze /
ExpandDims, Transpose, Tile. Every expected range is computed by hand in
the comment beside it (inclusive (min, max) per dim, max -1 = unbounded)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import opgraph
from opgraph import DataType, Format, Graph, TensorDesc

Range = tuple[int, int]
# A ranged graph input: (shape, ranges or None).
Ranged = tuple[Sequence[int], Sequence[Range] | None]


def infer(
    op_type: str,
    inputs: Sequence[Ranged | list[Ranged] | np.ndarray[Any, Any]],
    attrs: dict[str, Any] | None = None,
    formats: Sequence[Format] | None = None,
) -> TensorDesc:
    """One `op_type` node fed by float graph inputs (with ranges), lists of
    them (dynamic inputs) and consts."""
    g = Graph("ranges")
    refs: list[Any] = []
    for i, feed in enumerate(inputs):
        if isinstance(feed, np.ndarray):
            refs.append(g.add_const(f"c{i}", feed))
        elif isinstance(feed, list):  # a dynamic input
            refs.append(
                [g.add_input(f"x{i}_{k}", DataType.FLOAT, s, shape_range=r) for k, (s, r) in enumerate(feed)]
            )
        else:
            shape, ranges = feed
            fmt = formats[i] if formats else Format.ND
            refs.append(g.add_input(f"x{i}", DataType.FLOAT, shape, fmt, shape_range=ranges))
    out = g.add_node(op_type, "node", refs, attrs)
    opgraph.infer(g)
    return g.desc(out)


def ranges(desc: TensorDesc) -> list[Range] | None:
    r = desc.shape_range
    return None if r is None else [(lo, hi) for lo, hi in r]


def test_graph_inputs_keep_their_range() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, [-1, 3], shape_range=[(1, 8), (3, 3)])
    opgraph.infer(g)
    assert ranges(g.desc(x)) == [(1, 8), (3, 3)]


# --- broadcasting binaries -------------------------------------------------


def test_add_takes_the_ranged_side_of_a_one() -> None:
    out = infer("Add", [([-1, 3], [(1, 8), (3, 3)]), ([1, 3], None)])
    assert out.shape == (-1, 3)
    assert ranges(out) == [(1, 8), (3, 3)]


def test_add_of_two_ranged_unknowns() -> None:
    # Neither can be 1: the dims are equal, so in the intersection.
    out = infer("Mul", [([-1], [(2, 8)]), ([-1], [(4, 16)])])
    assert ranges(out) == [(4, 8)]
    # x can be 1 (then the result is y), or x == y: hull (4, 16).
    out = infer("Sub", [([-1], [(1, 8)]), ([-1], [(4, 16)])])
    assert ranges(out) == [(4, 16)]
    # An unknown dim without a range against a ranged one: anything y is.
    out = infer("Add", [([-1], [(3, 5)]), ([-1], None)])
    assert ranges(out) == [(3, 5)]


def test_add_pads_the_shorter_rank_with_ones() -> None:
    out = infer("Add", [([-1, 4], [(2, 5), (4, 4)]), ([4], None)])
    assert ranges(out) == [(2, 5), (4, 4)]
    out = infer("Add", [([4], None), ([7, -1, 4], [(7, 7), (0, -1), (4, 4)])])
    assert ranges(out) == [(7, 7), (0, -1), (4, 4)]


def test_no_range_without_ranged_inputs_or_unknown_dims() -> None:
    assert infer("Add", [([-1, 3], None), ([1, 3], None)]).shape_range is None
    # A static output needs no range.
    assert infer("Add", [([-1, 3], [(1, 8), (3, 3)]), ([5, 3], None)]).shape_range is None


# --- windows -----------------------------------------------------------------


def test_conv2d_3x3_stride_2_pad_1() -> None:
    # H: (16 + 2 - 3) // 2 + 1 = 8 and (64 + 2 - 3) // 2 + 1 = 32;
    # W: unbounded stays unbounded, min (16 + 2 - 3) // 2 + 1 = 8.
    out = infer(
        "Conv2D",
        [([1, 3, -1, -1], [(1, 1), (3, 3), (16, 64), (16, -1)]), ([8, 3, 3, 3], None)],
        {"strides": [1, 1, 2, 2], "pads": [1, 1, 1, 1], "data_format": "NCHW"},
        formats=[Format.NCHW, Format.NCHW],
    )
    assert out.shape == (1, 8, -1, -1)
    assert ranges(out) == [(1, 1), (8, 8), (8, 32), (8, -1)]


def test_conv2d_valid_below_the_kernel_gives_min_zero() -> None:
    # VALID 3x3 stride 1: 1 is too small (invalid) -> min 0; 10 - 3 + 1 = 8.
    out = infer(
        "Conv2D",
        [([-1, 5, 5, 2], [(1, 10), (5, 5), (5, 5), (2, 2)]), ([3, 3, 2, 4], None)],
        {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "padding": "VALID"},
        formats=[Format.NHWC, Format.HWCN],
    )
    assert out.shape == (-1, 3, 3, 4)
    assert ranges(out) == [(1, 10), (3, 3), (3, 3), (4, 4)]
    out = infer(
        "Conv2D",
        [([2, -1, 5, 2], [(2, 2), (1, 10), (5, 5), (2, 2)]), ([3, 3, 2, 4], None)],
        {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "padding": "VALID"},
        formats=[Format.NHWC, Format.HWCN],
    )
    assert ranges(out) == [(2, 2), (0, 8), (3, 3), (4, 4)]


def test_depthwise_conv_valid() -> None:
    # Filter HWCN [3, 3, 4, 2]: C = 4 * 2; H VALID: 5 - 3 + 1 = 3 .. 9 - 3 + 1 = 7.
    out = infer(
        "DepthwiseConv2dNative",
        [([-1, -1, 10, 4], [(1, 4), (5, 9), (10, 10), (4, 4)]), ([3, 3, 4, 2], None)],
        {"strides": [1, 1, 1, 1], "padding": "VALID"},
        formats=[Format.NHWC, Format.HWCN],
    )
    assert out.shape == (-1, -1, 8, 8)
    assert ranges(out) == [(1, 4), (3, 7), (8, 8), (8, 8)]


@pytest.mark.parametrize(
    ("op", "padding", "expected_h"),
    [
        # VALID 2/2: no window fits an input of 1 (refused, so 0 is the
        # least) .. (10 - 2) // 2 + 1 = 5.
        ("MaxPool", "VALID", (0, 5)),
        # SAME: ceil(1 / 2) = 1 .. ceil(10 / 2) = 5.
        ("AvgPool", "SAME", (1, 5)),
    ],
)
def test_pooling(op: str, padding: str, expected_h: Range) -> None:
    out = infer(
        op,
        [([2, -1, 7, 3], [(2, 2), (1, 10), (7, 7), (3, 3)])],
        {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": padding},
    )
    w = 3 if padding == "VALID" else 4
    assert out.shape == (2, -1, w, 3)
    assert ranges(out) == [(2, 2), expected_h, (w, w), (3, 3)]


# --- array -------------------------------------------------------------------


def test_concat_adds_along_the_axis_and_intersects_elsewhere() -> None:
    axis0 = np.array(0, dtype=np.int32)
    out = infer("ConcatV2", [[([-1, 4], [(1, 3), (4, 4)]), ([-1, 4], [(2, 5), (4, 4)])], axis0])
    assert ranges(out) == [(3, 8), (4, 4)]
    # Off the axis every value has the same dim: (1, 10) and (4, 20) -> (4, 10).
    out = infer("Concat", [axis0, [([2, -1], [(2, 2), (1, 10)]), ([3, -1], [(3, 3), (4, 20)])]])
    assert out.shape == (5, -1)
    assert ranges(out) == [(5, 5), (4, 10)]
    # A value without a range makes the axis unbounded above.
    out = infer("ConcatV2", [[([-1, 4], [(1, 3), (4, 4)]), ([-1, 4], None)], axis0])
    assert ranges(out) == [(1, -1), (4, 4)]


def test_concat_d_follows_the_same_rule() -> None:
    """GE's ConcatD (what ONNX Concat maps to) takes the axis as an attribute."""
    two: list[Ranged] = [([-1, 4], [(1, 3), (4, 4)]), ([-1, 4], [(2, 5), (4, 4)])]
    assert ranges(infer("ConcatD", [two], {"concat_dim": 0})) == [(3, 8), (4, 4)]
    off_axis: list[Ranged] = [([2, -1], [(2, 2), (1, 10)]), ([3, -1], [(3, 3), (4, 20)])]
    out = infer("ConcatD", [off_axis], {"concat_dim": -2})
    assert out.shape == (5, -1)
    assert ranges(out) == [(5, 5), (4, 10)]
    # One input (torchvision's box_roi_pool concatenates a one-image list).
    one: list[Ranged] = [([-1, 4], [(0, 150), (4, 4)])]
    assert ranges(infer("ConcatD", [one], {"concat_dim": 0})) == [(0, 150), (4, 4)]


def test_pack_intersects_and_inserts_the_count() -> None:
    out = infer("Pack", [[([-1, 3], [(1, 10), (3, 3)]), ([-1, 3], [(5, 20), (3, 3)])]], {"axis": 1})
    assert out.shape == (-1, 2, 3)
    assert ranges(out) == [(5, 10), (2, 2), (3, 3)]


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        # 12 .. 60 elements: / 3 -> 4 .. 20.
        ([-1, 3], [(4, 20), (3, 3)]),
        ([3, -1], [(3, 3), (4, 20)]),
        # / 4: ceil(12 / 4) = 3 .. 60 // 4 = 15.
        ([-1, 4], [(3, 15), (4, 4)]),
        # / 5: ceil(12 / 5) = 3 .. 60 // 5 = 12.
        ([5, -1], [(5, 5), (3, 12)]),
    ],
)
def test_reshape_resolves_the_inferred_dim(target: list[int], expected: list[Range]) -> None:
    out = infer("Reshape", [([-1, 6], [(2, 10), (6, 6)]), np.array(target, dtype=np.int64)])
    assert ranges(out) == expected


def test_reshape_copying_unknown_dims_keeps_their_ranges_and_cancels_them() -> None:
    # GroupNorm as exported: [N, 32, L] to [0, 8, -1] (allowzero 0, the 0
    # copies N): N keeps (1, 4); -1 = 32 * L / 8 = 4 * L, L in (79, 1599).
    out = infer(
        "Reshape",
        [([-1, 32, -1], [(1, 4), (32, 32), (79, 1599)]), np.array([0, 8, -1], dtype=np.int64)],
        {"allowzero": 0},
    )
    assert out.shape == (-1, 8, -1)
    assert ranges(out) == [(1, 4), (8, 8), (316, 6396)]


def test_reshape_to_the_shape_of_a_ranged_tensor_takes_its_ranges() -> None:
    # GroupNorm's way back: Reshape(y, Shape(x)) with x [N, 32, L]; y's own
    # element count says nothing per dim, Shape(x)'s value bounds do.
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, [-1, 32, -1], shape_range=[(1, 4), (32, 32), (79, 1599)])
    y = g.add_input("y", DataType.FLOAT, [-1], shape_range=[(1, 300_000)])
    shape = g.add_node("Shape", "shape", [x])
    out = g.add_node("Reshape", "node", [y, shape])
    opgraph.infer(g)
    assert g.desc(out).shape == (-1, 32, -1)
    assert g.desc(out).shape_range == [(1, 4), (32, 32), (79, 1599)]


def test_reshape_to_a_shape_with_a_minus_one_bounds_it_by_the_element_count() -> None:
    # [B, S, 128] to Concat(Shape(x)[:2], [-1, 32]): the -1 is the count
    # (128 .. 8 * 512 * 128) over the other entries (32 .. 8 * 512 * 32):
    # ceil(128 / 131072) = 1 .. 524288 / 32 = 16384.
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, [-1, -1, 128], shape_range=[(1, 8), (1, 512), (128, 128)])
    shape = g.add_node("Shape", "shape", [x])
    first_two = g.add_node(
        "GatherV2",
        "bs",
        [shape, g.add_const("i", np.array([0, 1], np.int32)), g.add_const("a", np.array(0, np.int32))],
    )
    target = g.add_node(
        "ConcatV2",
        "target",
        {
            "x": [first_two, g.add_const("tail", np.array([-1, 32], np.int32))],
            "concat_dim": g.add_const("c", np.array(0, np.int32)),
        },
    )
    out = g.add_node("Reshape", "node", [x, target])
    opgraph.infer(g)
    assert g.desc(out).shape == (-1, -1, -1, 32)
    assert g.desc(out).shape_range == [(1, 8), (1, 512), (1, 16384), (32, 32)]


def test_reshape_unbounded_and_not_computable() -> None:
    # 1 * 3 .. unbounded elements.
    out = infer("Reshape", [([-1, -1], [(1, 2), (3, -1)]), np.array([-1], dtype=np.int64)])
    assert ranges(out) == [(3, -1)]
    # No value for the target: the dims are unknown, nothing to compute.
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, [-1, 6], shape_range=[(2, 10), (6, 6)])
    s = g.add_input("s", DataType.INT64, [2])
    out_ref = g.add_node("Reshape", "node", [x, s])
    opgraph.infer(g)
    assert g.desc(out_ref).shape == (-1, -1)
    assert g.desc(out_ref).shape_range is None


def test_squeeze_and_expand_dims_keep_the_ranges_of_kept_dims() -> None:
    out = infer("Squeeze", [([1, -1, 1], [(1, 1), (2, 9), (1, 1)])], {"axis": [0]})
    assert ranges(out) == [(2, 9), (1, 1)]
    out = infer("ExpandDims", [([-1, 3], [(2, 9), (3, 3)]), np.array(1, dtype=np.int32)])
    assert out.shape == (-1, 1, 3)
    assert ranges(out) == [(2, 9), (1, 1), (3, 3)]


def test_transpose_permutes_ranges() -> None:
    out = infer("Transpose", [([-1, 3, -1], [(1, 2), (3, 3), (5, 7)]), np.array([2, 0, 1], dtype=np.int32)])
    assert out.shape == (-1, -1, 3)
    assert ranges(out) == [(5, 7), (1, 2), (3, 3)]


def test_tile_multiplies() -> None:
    out = infer("Tile", [([-1, 3], [(1, 4), (3, 3)]), np.array([3, 2], dtype=np.int32)])
    assert ranges(out) == [(3, 12), (6, 6)]
    # Tiling the unknown dim 0 times makes the output static: no range.
    out = infer("Tile", [([-1, 3], [(1, 4), (3, 3)]), np.array([0, 2], dtype=np.int32)])
    assert out.shape == (0, 6)
    assert out.shape_range is None


def test_follow_rules_copy_ranges() -> None:
    out = infer("Relu", [([-1, 3], [(2, 7), (3, 3)])])
    assert ranges(out) == [(2, 7), (3, 3)]
