"""MaxPoolV3 / AvgPoolV2 (ONNX pooling, N-d) against onnx.reference's
AveragePool / MaxPool / GlobalMaxPool on real arrays. The shape formula is
the same for every ONNX pooling op; the reference's AveragePool implements
it for N-d explicit pads, dilations and ceil_mode, while its MaxPool's
stride-1 path reads ``pads`` as 2-D (top, bottom, left, right), so MaxPool
is the reference only where it takes its general path (strides > 1)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from helpers import desc, one_node_graph
from hypothesis import given
from hypothesis import strategies as st
from onnx_form_helpers import run_onnx

import opgraph
from opgraph import DataType, TensorDesc


def _infer(op: str, x: TensorDesc, attrs: dict[str, Any], indices: bool = False) -> list[TensorDesc]:
    kwargs: dict[str, Any] = {"dynamic_outputs": [("indices", 1)]} if indices else {}
    graph, out = one_node_graph(op, [x], attrs, **kwargs)
    opgraph.infer(graph)
    return [graph.desc(out.output(i)) for i in range(2 if indices else 1)]


def _ir_attrs(k: list[int], s: list[int], d: list[int], pads: list[int], ceil: int) -> dict[str, Any]:
    return {"ksize": k, "strides": s, "dilations": d, "pads": pads, "ceil_mode": ceil, "auto_pad": "NOTSET"}


window = st.integers(1, 3)


def onnxruntime_size(n: int, k: int, s: int, d: int, begin: int, end: int, ceil: int) -> int:
    """An axis's output size as onnxruntime's pooling computes it, for a
    window larger than its padded input (onnx.reference has no output
    there): integer division truncating toward zero, or in float with the
    ceiling and a last window that starts past the input dropped.
    test_onnx_vs_onnxruntime.py checks opgraph against onnxruntime itself."""
    span = n + begin + end - d * (k - 1) - 1
    if not ceil:
        return int(span / s) + 1
    out = math.ceil(span / s + 1)
    return out - 1 if out > 0 and (out - 1) * s >= n + begin else out


@given(
    data=st.data(),
    rank=st.integers(1, 3),
    op=st.sampled_from(["MaxPoolV3", "AvgPoolV2"]),
    ceil=st.sampled_from([0, 1]),
)
def test_explicit_pads_match_reference(data: st.DataObject, rank: int, op: str, ceil: int) -> None:
    sizes = data.draw(st.lists(st.integers(1, 7), min_size=rank, max_size=rank))
    k = data.draw(st.lists(window, min_size=rank, max_size=rank))
    s = data.draw(st.lists(window, min_size=rank, max_size=rank))
    d = data.draw(st.lists(st.integers(1, 2), min_size=rank, max_size=rank))
    pads = [data.draw(st.integers(0, kk - 1)) for kk in k + k]
    x = np.random.default_rng(0).standard_normal((2, 3, *sizes)).astype(np.float32)
    attrs = _ir_attrs(k, s, d, pads, ceil)
    axes = enumerate(zip(sizes, k, d, strict=True))
    fits = all(n + pads[i] + pads[i + rank] >= dd * (kk - 1) + 1 for i, (n, kk, dd) in axes)
    if not fits:
        # onnx.reference has no output here; onnxruntime still computes a
        # partial window when the window overhangs by less than a stride.
        sizes_out = [
            onnxruntime_size(n, kk, ss, dd, pads[i], pads[i + rank], ceil)
            for i, (n, kk, ss, dd) in enumerate(zip(sizes, k, s, d, strict=True))
        ]
        if min(sizes_out) < 1:
            with pytest.raises(opgraph.NodeError, match="smaller than the effective window"):
                _infer(op, desc(x.shape), attrs)
        else:
            assert _infer(op, desc(x.shape), attrs)[0].shape == (2, 3, *sizes_out)
        return
    onnx_attrs = {"kernel_shape": k, "strides": s, "dilations": d, "pads": pads, "ceil_mode": ceil}
    expected = run_onnx("AveragePool", [x], onnx_attrs)[0]
    (y,) = _infer(op, desc(x.shape), attrs)
    assert y.shape == expected.shape
    assert y.dtype == DataType.FLOAT


@given(
    data=st.data(),
    rank=st.integers(1, 3),
    op=st.sampled_from(["MaxPoolV3", "AvgPoolV2"]),
    auto_pad=st.sampled_from(["SAME_UPPER", "SAME_LOWER", "VALID"]),
)
def test_auto_pad_matches_reference(data: st.DataObject, rank: int, op: str, auto_pad: str) -> None:
    # onnx.reference's AveragePool handles auto_pad only without dilations,
    # and SAME only with strides <= ksize (else its pads come out negative).
    sizes = data.draw(st.lists(st.integers(1, 7), min_size=rank, max_size=rank))
    k = data.draw(st.lists(window, min_size=rank, max_size=rank))
    s = [data.draw(st.integers(1, kk)) for kk in k]
    x = np.zeros((1, 2, *sizes), dtype=np.float32)
    attrs = {"ksize": k, "strides": s, "auto_pad": auto_pad}
    if auto_pad == "VALID" and any(n < kk for n, kk in zip(sizes, k, strict=True)):
        sizes_out = [onnxruntime_size(n, kk, ss, 1, 0, 0, 0) for n, kk, ss in zip(sizes, k, s, strict=True)]
        if min(sizes_out) < 1:
            with pytest.raises(opgraph.NodeError, match="VALID"):
                _infer(op, desc(x.shape), attrs)
        else:
            assert _infer(op, desc(x.shape), attrs)[0].shape == (1, 2, *sizes_out)
        return
    expected = run_onnx("AveragePool", [x], {"kernel_shape": k, "strides": s, "auto_pad": auto_pad})[0]
    assert _infer(op, desc(x.shape), attrs)[0].shape == expected.shape


@given(sizes=st.lists(st.integers(1, 6), min_size=1, max_size=3))
def test_global_pooling(sizes: list[int]) -> None:
    # onnx.reference's GlobalMaxPool gets 1-D and 3-D spatial shapes wrong
    # ((2, 1) for (2, 3, 4)); its GlobalAveragePool and numpy agree.
    x = np.ones((2, 3, *sizes), dtype=np.float32)
    expected = x.max(axis=tuple(range(2, x.ndim)), keepdims=True)
    (y,) = _infer("MaxPoolV3", desc(x.shape), {"global_pooling": True})
    assert y.shape == expected.shape
    (avg,) = run_onnx("GlobalAveragePool", [x])
    assert _infer("AvgPoolV2", desc(x.shape), {"global_pooling": True})[0].shape == avg.shape


def test_indices_output_is_int64_like_y() -> None:
    x = np.random.default_rng(1).standard_normal((1, 2, 5, 6)).astype(np.float32)
    attrs = {"kernel_shape": [2, 3], "strides": [2, 2], "pads": [1, 0, 0, 1]}
    expected_y, expected_i = run_onnx("MaxPool", [x], attrs, n_outputs=2)
    ir_attrs = {"ksize": [2, 3], "strides": [2, 2], "pads": [1, 0, 0, 1]}
    y, indices = _infer("MaxPoolV3", desc(x.shape), ir_attrs, True)
    assert y.shape == expected_y.shape and indices.shape == expected_i.shape
    assert indices.dtype == DataType.INT64 and expected_i.dtype == np.int64


def test_same_with_stride_above_window_is_ceil() -> None:
    # The spec: SAME_* gives ceil(in / stride) whatever the window.
    attrs = {"ksize": [1, 2], "strides": [3, 4], "auto_pad": "SAME_LOWER"}
    assert _infer("MaxPoolV3", desc((1, 1, 7, 9)), attrs)[0].shape == (1, 1, 3, 3)


def test_unknown_dims_and_rank() -> None:
    attrs = {"ksize": [3, 3], "strides": [2, 2]}
    assert _infer("AvgPoolV2", desc((-1, 3, -1, 9)), attrs)[0].shape == (-1, 3, -1, 4)
    assert _infer("AvgPoolV2", desc((-2,)), attrs)[0].shape == (-1, -1, -1, -1)
    assert _infer("MaxPoolV3", desc((-2,)), {"global_pooling": True})[0].shape == (-2,)
    assert _infer("MaxPoolV3", desc((4, 8, -1, -1)), {"global_pooling": True})[0].shape == (4, 8, 1, 1)


@pytest.mark.parametrize(
    ("x", "attrs", "match"),
    [
        ((1, 3, 8, 8), {"ksize": [2]}, "rank 3"),
        ((1, 3, 8, 8), {}, "ksize is empty"),
        ((1, 3, 8, 8), {"ksize": [2, 0]}, ">= 1"),
        ((1, 3, 8, 8), {"ksize": [2, 2], "strides": [1]}, "strides has 1 values"),
        ((1, 3, 8, 8), {"ksize": [2, 2], "strides": [1, 0]}, "strides"),
        ((1, 3, 8, 8), {"ksize": [2, 2], "pads": [0, 0, -1, 0]}, "pads"),
        ((1, 3, 8, 8), {"ksize": [2, 2], "pads": [0, 0]}, "pads has 2 values, expected 4"),
        ((1, 3, 8, 8), {"ksize": [2, 2], "ceil_mode": 2}, "ceil_mode"),
        ((1, 3, 8, 8), {"ksize": [2, 2], "auto_pad": "SAME"}, "auto_pad"),
        ((3,), {"global_pooling": True}, "rank >= 2"),
        ((1, 3, 8, 8), {"ksize": [2, 2], "dilations": [1 << 62, 4]}, "effective window"),
    ],
)
def test_bad_attrs_are_errors(x: tuple[int, ...], attrs: dict[str, Any], match: str) -> None:
    with pytest.raises(opgraph.NodeError, match=match):
        _infer("MaxPoolV3", desc(x), attrs)
