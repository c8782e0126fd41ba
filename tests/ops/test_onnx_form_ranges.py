"""Shape ranges of the ONNX-form window and resize ops (MaxPoolV3 /
AvgPoolV2, ConvTranspose, Resize): each bound is the reference output size
at the input range's bound, from onnx.reference at those concrete sizes."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx_form_helpers import run_onnx

import opgraph
from opgraph import DataType, Graph, TensorDesc


def _ranged(
    op: str, ranges: list[tuple[int, int]], consts: list[npt.NDArray[Any] | None], attrs: dict[str, Any]
) -> TensorDesc:
    """``op`` on a FLOAT input whose dims are unknown inside ``ranges``."""
    g = Graph("ranges")
    shape = [lo if lo == hi else -1 for lo, hi in ranges]
    x = g.add_input("x", DataType.FLOAT, shape, shape_range=ranges)
    ins = [x, *(None if c is None else g.add_const(f"c{i}", c) for i, c in enumerate(consts))]
    out = g.add_node(op, "node", ins, attrs)
    opgraph.infer(g)
    return g.desc(out)


def _bound(
    onnx_op: str, dims: list[int], consts: list[npt.NDArray[Any] | None], attrs: dict[str, Any]
) -> tuple[int, ...]:
    x = np.zeros(dims, np.float32)
    return tuple(run_onnx(onnx_op, [x, *consts], attrs)[0].shape)


spatial = st.tuples(st.integers(3, 6), st.integers(1, 4)).map(lambda t: (t[0], t[0] + t[1]))


@settings(max_examples=30, deadline=None)
@given(h=spatial, w=spatial, k=st.integers(1, 3), s=st.integers(1, 3), ceil=st.sampled_from([0, 1]))
def test_pool_ranges(h: tuple[int, int], w: tuple[int, int], k: int, s: int, ceil: int) -> None:
    ranges = [(1, 1), (2, 2), h, w]
    pads = [0, k - 1, k - 1, 0]  # below the window (onnx.reference needs it)
    attrs = {"ksize": [k, k], "strides": [s, s], "pads": pads, "ceil_mode": ceil}
    onnx_attrs = {"kernel_shape": [k, k], "strides": [s, s], "pads": pads, "ceil_mode": ceil}
    y = _ranged("AvgPoolV2", ranges, [], attrs)
    lo = _bound("AveragePool", [1, 2, h[0], w[0]], [], onnx_attrs)
    hi = _bound("AveragePool", [1, 2, h[1], w[1]], [], onnx_attrs)
    assert y.shape_range is not None
    assert [r for r in y.shape_range] == [(a, b) for a, b in zip(lo, hi, strict=True)]


@settings(max_examples=30, deadline=None)
@given(h=spatial, k=st.integers(1, 3), s=st.integers(1, 3), pad=st.integers(0, 1))
def test_conv_transpose_ranges(h: tuple[int, int], k: int, s: int, pad: int) -> None:
    w = np.zeros((2, 3, k, k), np.float32)
    attrs = {"strides": [s, s], "pads": [pad, 0, pad, 0]}
    g = Graph("ranges")
    x = g.add_input("x", DataType.FLOAT, [-1, 2, -1, 5], shape_range=[(1, 4), (2, 2), h, (5, 5)])
    out = g.add_node("ConvTranspose", "node", [x, g.add_const("w", w), None], attrs)
    opgraph.infer(g)
    y = g.desc(out)
    lo = tuple(run_onnx("ConvTranspose", [np.zeros((1, 2, h[0], 5), np.float32), w], attrs)[0].shape)
    hi = tuple(run_onnx("ConvTranspose", [np.zeros((4, 2, h[1], 5), np.float32), w], attrs)[0].shape)
    assert y.shape == (-1, 3, -1, hi[3])
    assert y.shape_range == [(a, b) for a, b in zip(lo, hi, strict=True)]


@given(h=spatial, scale=st.sampled_from([0.5, 0.75, 1.5, 2.0, 3.0]))
def test_resize_ranges(h: tuple[int, int], scale: float) -> None:
    scales = np.array([1, 1, scale, 2], np.float32)
    y = _ranged("Resize", [(1, 1), (2, 2), h, (3, -1)], [None, scales, None], {})
    lo = _bound("Resize", [1, 2, h[0], 3], [None, scales], {"mode": "nearest"})
    hi = _bound("Resize", [1, 2, h[1], 3], [None, scales], {"mode": "nearest"})
    assert y.shape_range == [(1, 1), (2, 2), (lo[2], hi[2]), (6, -1)]
    # Sizes leave nothing to bound: a given size is the dim, an unknown one is unknown.
    y = _ranged("Resize", [(1, 1), (2, 2), h, (3, 9)], [None, None, np.array([7], np.int64)], {"axes": [3]})
    assert y.shape == (1, 2, -1, 7) and y.shape_range == [(1, 1), (2, 2), h, (7, 7)]
