"""Shape ranges through the nn ops: matrix products, Einsum, 3-D windows,
Caffe pooling, Conv2DBackpropInput, the Caffe layers, resizing and the
normalisations. Every expected range is computed by hand in the comment
beside it (inclusive (min, max) per dim, max -1 = unbounded)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import opgraph
from opgraph import DataType, Format, Graph, TensorDesc

Range = tuple[int, int]
Ranged = tuple[Sequence[int], Sequence[Range] | None]


def build(
    op_type: str,
    inputs: Sequence[Ranged | list[Ranged] | np.ndarray[Any, Any]],
    attrs: dict[str, Any] | None = None,
    formats: Sequence[Format] | None = None,
) -> Graph:
    """A graph with one `op_type` node "node" fed by float graph inputs
    (with ranges), lists of them (dynamic inputs) and consts."""
    g = Graph("ranges")
    refs: list[Any] = []
    for i, feed in enumerate(inputs):
        if isinstance(feed, np.ndarray):
            refs.append(g.add_const(f"c{i}", feed))
        elif isinstance(feed, list):
            refs.append(
                [g.add_input(f"x{i}_{k}", DataType.FLOAT, s, shape_range=r) for k, (s, r) in enumerate(feed)]
            )
        else:
            shape, rng = feed
            fmt = formats[i] if formats else Format.ND
            refs.append(g.add_input(f"x{i}", DataType.FLOAT, shape, fmt, shape_range=rng))
    g.add_node(op_type, "node", refs, attrs)
    opgraph.infer(g)
    return g


def infer(*args: Any, **kwargs: Any) -> TensorDesc:
    g = build(*args, **kwargs)
    return g.desc(g.tensor("node", 0))


def ranges(desc: TensorDesc) -> list[Range] | None:
    r = desc.shape_range
    return None if r is None else [(lo, hi) for lo, hi in r]


# --- matrix products ---------------------------------------------------------


def test_matmul_m_from_x1_n_from_x2() -> None:
    out = infer("MatMul", [([-1, 4], [(2, 6), (4, 4)]), ([4, -1], [(4, 4), (1, 9)])])
    assert out.shape == (-1, -1)
    assert ranges(out) == [(2, 6), (1, 9)]


def test_matmul_transposes_pick_the_other_dim() -> None:
    # x1^T: M is x1's dim 1 (3, 5); x2^T: N is x2's dim 0 (7, 8).
    out = infer(
        "MatMul",
        [([4, -1], [(4, 4), (3, 5)]), ([-1, 4], [(7, 8), (4, 4)])],
        {"transpose_a": True, "transpose_b": True},
    )
    assert ranges(out) == [(3, 5), (7, 8)]
    # GE's attribute names do the same.
    out = infer(
        "MatMul",
        [([4, -1], [(4, 4), (3, 5)]), ([-1, 4], [(7, 8), (4, 4)])],
        {"transpose_x1": True, "transpose_x2": True},
    )
    assert ranges(out) == [(3, 5), (7, 8)]


def test_matmul_without_ranges_or_unknown_dims_has_none() -> None:
    assert infer("MatMul", [([-1, 4], None), ([4, 5], None)]).shape_range is None
    # x1's ranged unknown dim is contracted: the output is static.
    assert infer("MatMul", [([3, -1], [(3, 3), (1, 9)]), ([-1, 5], None)]).shape_range is None


def test_batch_matmul_batch_dims_intersect() -> None:
    # Equal batch dims: (1, 5) ∩ (3, 9) = (3, 5).
    out = infer(
        "BatchMatMul", [([-1, 2, 3], [(1, 5), (2, 2), (3, 3)]), ([-1, 3, 4], [(3, 9), (3, 3), (4, 4)])]
    )
    assert out.shape == (-1, 2, 4)
    assert ranges(out) == [(3, 5), (2, 2), (4, 4)]


def test_batch_matmul_v2_batch_dims_broadcast() -> None:
    # (1, 5) vs (2, 3): equal -> (2, 3); x1 can be 1 -> x2's (2, 3); x2
    # cannot be 1. Ranks align on the right: x1's leading 2 stays.
    out = infer(
        "BatchMatMulV2",
        [([2, -1, 2, 3], [(2, 2), (1, 5), (2, 2), (3, 3)]), ([-1, 3, 4], [(2, 3), (3, 3), (4, 4)])],
    )
    assert out.shape == (2, -1, 2, 4)
    assert ranges(out) == [(2, 2), (2, 3), (2, 2), (4, 4)]
    # (2, 8) vs (1, 1)... a known 1 on x2 keeps x1's range; adj_x swaps.
    out = infer(
        "BatchMatMulV2",
        [([-1, 3, -1], [(2, 8), (3, 3), (6, 7)]), ([1, 3, 4], None)],
        {"adj_x": True},
    )
    assert ranges(out) == [(2, 8), (6, 7), (4, 4)]


# --- Einsum ------------------------------------------------------------------


def test_einsum_labels_intersect_across_operands() -> None:
    # i (2, 6); j: (3, 10) ∩ (5, 20) = (5, 10); k (1, 4).
    out = infer(
        "Einsum", [[([-1, -1], [(2, 6), (3, 10)]), ([-1, -1], [(5, 20), (1, 4)])]], {"equation": "ij,jk->jik"}
    )
    assert out.shape == (-1, -1, -1)
    assert ranges(out) == [(5, 10), (2, 6), (1, 4)]


def test_einsum_repeated_label_in_one_operand() -> None:
    # "ii->i": both dims are i, so (2, 9) ∩ (4, 12) = (4, 9).
    out = infer("Einsum", [[([-1, -1], [(2, 9), (4, 12)])]], {"equation": "ii->i"})
    assert ranges(out) == [(4, 9)]


def test_einsum_ellipsis_broadcasts() -> None:
    # '...': (1, 4) vs (3, 6): equal -> (3, 4); x0 can be 1 -> (3, 6); hull (3, 6).
    out = infer(
        "Einsum",
        [[([-1, 2, 3], [(1, 4), (2, 2), (3, 3)]), ([-1, 3, 5], [(3, 6), (3, 3), (5, 5)])]],
        {"equation": "...ij,...jk->...ik"},
    )
    assert out.shape == (-1, 2, 5)
    assert ranges(out) == [(3, 6), (2, 2), (5, 5)]


# --- 3-D windows -------------------------------------------------------------


def test_conv3d_valid_stride_2_in_depth() -> None:
    # D: (4 - 3 + 2) // 2 = 1, (16 - 3 + 2) // 2 = 7; H, W: 8 - 3 + 1 = 6;
    # C: the filter's output channels (4, 8).
    out = infer(
        "Conv3D",
        [
            ([1, -1, 8, 8, 2], [(1, 1), (4, 16), (8, 8), (8, 8), (2, 2)]),
            ([3, 3, 3, 2, -1], [(3, 3), (3, 3), (3, 3), (2, 2), (4, 8)]),
        ],
        {"strides": [1, 2, 1, 1, 1], "padding": "VALID"},
        formats=[Format.NDHWC, Format.DHWCN],
    )
    assert out.shape == (1, -1, 6, 6, -1)
    assert ranges(out) == [(1, 1), (1, 7), (6, 6), (6, 6), (4, 8)]


@pytest.mark.parametrize(
    ("op", "padding", "expected_d"),
    [
        # VALID k2 s2: (5 - 2 + 2) // 2 = 2, (9 - 2 + 2) // 2 = 4.
        ("MaxPool3D", "VALID", (2, 4)),
        # SAME s2: ceil(5 / 2) = 3, ceil(9 / 2) = 5.
        ("AvgPool3D", "SAME", (3, 5)),
    ],
)
def test_pool3d(op: str, padding: str, expected_d: Range) -> None:
    out = infer(
        op,
        [([-1, -1, 4, 4, 3], [(1, 2), (5, 9), (4, 4), (4, 4), (3, 3)])],
        {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": padding},
    )
    assert out.shape == (-1, -1, 2, 2, 3)
    assert ranges(out) == [(1, 2), expected_d, (2, 2), (2, 2), (3, 3)]


# --- Caffe Pooling -----------------------------------------------------------


def test_caffe_pooling_rounds_up() -> None:
    # H: ceil((112 - 3) / 2) + 1 = 56, ceil((224 - 3) / 2) + 1 = 112;
    # W: min ceil((5 - 3) / 2) + 1 = 2, unbounded stays.
    out = infer(
        "Pooling",
        [([1, 3, -1, -1], [(1, 1), (3, 3), (112, 224), (5, -1)])],
        {"window": [3, 3], "stride": [2, 2]},
        formats=[Format.NCHW],
    )
    assert ranges(out) == [(1, 1), (3, 3), (56, 112), (2, -1)]


def test_caffe_pooling_clips_windows_in_the_padding() -> None:
    # k2 s2 p1: 5 -> ceil(5 / 2) + 1 = 4, but window 3 starts at 6 >= 5 + 1:
    # 3; 6 -> ceil(6 / 2) + 1 = 4 (6 < 7 keeps it).
    out = infer(
        "Pooling",
        [([1, 3, -1, 6], [(1, 1), (3, 3), (5, 6), (6, 6)])],
        {"window": [2, 2], "stride": [2, 2], "pad": [1, 1, 1, 1]},
        formats=[Format.NCHW],
    )
    assert out.shape == (1, 3, -1, 4)
    assert ranges(out) == [(1, 1), (3, 3), (3, 4), (4, 4)]


def test_caffe_global_pooling_is_static() -> None:
    out = infer(
        "Pooling",
        [([1, 3, -1, -1], [(1, 1), (3, 3), (5, 9), (5, 9)])],
        {"global_pooling": True},
        formats=[Format.NCHW],
    )
    assert out.shape == (1, 3, 1, 1)
    assert out.shape_range is None


# --- Conv2DBackpropInput -----------------------------------------------------


def test_conv2d_backprop_input_without_size_value() -> None:
    # N from out_backprop (1, 3); C = the filter's in channels (2, 4) x 1
    # group; H and W cannot be told from the gradient alone here.
    g = Graph("g")
    size = g.add_input("size", DataType.INT32, [4])
    f = g.add_input(
        "f", DataType.FLOAT, [3, 3, -1, 8], Format.HWCN, shape_range=[(3, 3), (3, 3), (2, 4), (8, 8)]
    )
    dy = g.add_input(
        "dy", DataType.FLOAT, [-1, 5, 5, 8], Format.NHWC, shape_range=[(1, 3), (5, 5), (5, 5), (8, 8)]
    )
    out = g.add_node(
        "Conv2DBackpropInput",
        "node",
        [size, f, dy],
        {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC"},
    )
    opgraph.infer(g)
    d = g.desc(out)
    assert d.shape == (-1, -1, -1, -1)
    assert ranges(d) == [(1, 3), (0, -1), (0, -1), (2, 4)]


# --- Caffe layers ------------------------------------------------------------


def test_fully_connection_keeps_the_leading_dims() -> None:
    out = infer(
        "FullyConnection",
        [([-1, 4, 2, 2], [(1, 32), (4, 4), (2, 2), (2, 2)]), ([10, 16], None)],
        {"num_output": 10},
    )
    assert out.shape == (-1, 10)
    assert ranges(out) == [(1, 32), (10, 10)]


def test_eltwise_intersects() -> None:
    out = infer(
        "Eltwise", [[([-1, 3], [(1, 8), (3, 3)]), ([-1, 3], [(4, 16), (3, 3)]), ([-1, 3], None)]], {"N": 3}
    )
    assert ranges(out) == [(4, 8), (3, 3)]


def test_crop_takes_the_reference_dims_within_x() -> None:
    # Dims 0, 1 from x; dim 2: (8, 40) and at most 30 - 4 = 26; dim 3: x is
    # unbounded, so the reference's (5, 50).
    out = infer(
        "Crop",
        [
            ([-1, 3, -1, -1], [(1, 4), (3, 3), (20, 30), (20, -1)]),
            ([-1, 3, -1, -1], [(7, 9), (3, 3), (8, 40), (5, 50)]),
        ],
        {"axis": 2, "offsets": [4]},
    )
    assert out.shape == (-1, 3, -1, -1)
    assert ranges(out) == [(1, 4), (3, 3), (8, 26), (5, 50)]


# --- Resize ------------------------------------------------------------------

X_NHWC: Ranged = ([-1, -1, -1, 3], [(1, 8), (10, 20), (10, 20), (3, 3)])


@pytest.mark.parametrize("op", ["ResizeBilinear", "ResizeNearestNeighbor"])
def test_resize_copies_n_and_c(op: str) -> None:
    out = infer(op, [X_NHWC, np.array([32, 24], dtype=np.int32)])
    assert out.shape == (-1, 32, 24, 3)
    assert ranges(out) == [(1, 8), (32, 32), (24, 24), (3, 3)]


def test_resize_h_w_are_not_x_s_without_a_size() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, X_NHWC[0], Format.NHWC, shape_range=X_NHWC[1])
    size = g.add_input("size", DataType.INT32, [2])
    out = g.add_node("ResizeBilinear", "node", [x, size])
    opgraph.infer(g)
    assert ranges(g.desc(out)) == [(1, 8), (0, -1), (0, -1), (3, 3)]


def test_resize_with_a_partially_known_size() -> None:
    # The size is Shape(y) of a [?, 24] tensor: its value is [-1, 24].
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, X_NHWC[0], Format.NHWC, shape_range=X_NHWC[1])
    y = g.add_input("y", DataType.FLOAT, [-1, 24])
    size = g.add_node("Shape", "size", [y])
    out = g.add_node("ResizeNearestNeighbor", "node", [x, size])
    opgraph.infer(g)
    d = g.desc(out)
    assert d.shape == (-1, -1, 24, 3)
    assert ranges(d) == [(1, 8), (0, -1), (24, 24), (3, 3)]


# --- normalisation and per-channel ops --------------------------------------


def test_fused_batch_norm_y_and_statistics() -> None:
    vec: Ranged = ([-1], None)
    g = build(
        "FusedBatchNormV3",
        [([-1, 5, 5, -1], [(1, 4), (5, 5), (5, 5), (2, 6)]), vec, vec, vec, vec],
        formats=[Format.NHWC, Format.ND, Format.ND, Format.ND, Format.ND],
    )
    assert ranges(g.desc(g.tensor("node", 0))) == [(1, 4), (5, 5), (5, 5), (2, 6)]
    for i in range(1, 5):
        assert ranges(g.desc(g.tensor("node", i))) == [(2, 6)]


def test_layer_norm_y_and_statistics() -> None:
    g = build(
        "LayerNorm",
        [([-1, -1, 8], [(1, 4), (2, 9), (8, 8)]), ([8], None), ([8], None)],
        {"begin_norm_axis": 2, "begin_params_axis": 2},
    )
    assert ranges(g.desc(g.tensor("node", 0))) == [(1, 4), (2, 9), (8, 8)]
    for i in (1, 2):
        d = g.desc(g.tensor("node", i))
        assert d.shape == (-1, -1, 1)
        assert ranges(d) == [(1, 4), (2, 9), (1, 1)]


X_NCHW: Ranged = ([-1, 3, -1, 4], [(1, 5), (3, 3), (2, 7), (4, 4)])


@pytest.mark.parametrize(
    ("op", "inputs", "attrs"),
    [
        ("BiasAdd", [X_NCHW, ([3], None)], {"data_format": "NCHW"}),
        ("Bias", [X_NCHW, ([3], None)], None),
        ("Scale", [X_NCHW, ([3], None)], None),
        ("PRelu", [X_NCHW, ([3], None)], None),
        ("LRN", [X_NCHW], None),
        ("BNInference", [X_NCHW, ([3], None), ([3], None), ([1], None)], None),
    ],
)
def test_per_channel_ops_follow_x(op: str, inputs: list[Ranged], attrs: dict[str, Any] | None) -> None:
    out = infer(op, inputs, attrs, formats=[Format.NCHW] + [Format.ND] * (len(inputs) - 1))
    assert out.shape == (-1, 3, -1, 4)
    assert ranges(out) == [(1, 5), (3, 3), (2, 7), (4, 4)]


# --- ONNX's 1-D convolution ----------------------------------------------------


def test_conv1d_length_follows_its_window() -> None:
    # wav2vec2's first layer: k 10, stride 5: (400 - 10) // 5 + 1 = 79,
    # (8000 - 10) // 5 + 1 = 1599; N from x, M the filter's 32.
    out = infer(
        "Conv1D",
        [([-1, 1, -1], [(1, 4), (1, 1), (400, 8000)]), ([32, 1, 10], None)],
        {"strides": [5]},
    )
    assert out.shape == (-1, 32, -1)
    assert ranges(out) == [(1, 4), (32, 32), (79, 1599)]


def test_conv1d_with_pads_and_dilation() -> None:
    # k 3 dilated 2 (span 5), pads 2 + 2, stride 1: L + 4 - 5 + 1 = L.
    out = infer(
        "Conv1D",
        [([2, 8, -1], [(2, 2), (8, 8), (1, 50)]), ([16, 8, 3], None)],
        {"dilations": [2], "pads": [2, 2]},
    )
    assert out.shape == (2, 16, -1)
    assert ranges(out) == [(2, 2), (16, 16), (1, 50)]
