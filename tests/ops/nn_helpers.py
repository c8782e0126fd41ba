"""Shared builders and numpy references for the nn op tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from helpers import Feed, infer_output, one_node_graph

import opgraph
from opgraph import TensorDesc


def infer_outputs(
    op_type: str, inputs: Sequence[Feed], attrs: dict[str, Any] | None = None, n: int = 1
) -> list[TensorDesc]:
    """Infers a one-node graph and returns its first ``n`` outputs."""
    graph, out = one_node_graph(op_type, inputs, attrs)
    opgraph.infer(graph)
    return [graph.desc(out.output(i)) for i in range(n)]


def shape_of(op_type: str, inputs: Sequence[Feed], attrs: dict[str, Any] | None = None) -> tuple[int, ...]:
    return infer_output(op_type, inputs, attrs).shape


def tf_window_out(size: int, k: int, s: int, padding: str, dilation: int = 1) -> int:
    """TensorFlow's output size by its shape functions
    (``GetWindowedOutputSizeFromDims``); -1 for a VALID window larger than
    the input, which they refuse."""
    effective = (k - 1) * dilation + 1
    if padding == "SAME":
        return -(-size // s)
    if size < effective:
        return -1
    return (size - effective) // s + 1


def sliding_max_pool_nhwc(
    x: npt.NDArray[np.float64], k: tuple[int, int], s: tuple[int, int], pads: tuple[int, int, int, int]
) -> npt.NDArray[np.float64]:
    """Direct max pooling: pad with -inf, take every window, stride it."""
    padded = np.pad(x, ((0, 0), (pads[0], pads[1]), (pads[2], pads[3]), (0, 0)), constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(padded, k, axis=(1, 2))
    pooled: npt.NDArray[np.float64] = windows[:, :: s[0], :: s[1]].max(axis=(-1, -2))
    return pooled


def same_pads(size: int, k: int, s: int) -> tuple[int, int]:
    """TensorFlow's SAME split of the total padding (more after)."""
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def caffe_pool_reference(x: npt.NDArray[np.float64], k: int, s: int, pad: int) -> npt.NDArray[np.float64]:
    """Caffe's max pooling loop (pooling_layer.cpp): pooled size rounds up,
    the last window must start inside the top/left-padded input (checked only
    when there is padding, so without it a last window may be empty and
    yields -inf, as Caffe's -FLT_MAX), windows are clipped to the input."""
    n, c, h, w = x.shape

    def pooled(size: int) -> int:
        out = -(-(size + 2 * pad - k) // s) + 1
        if pad and (out - 1) * s >= size + pad:
            out -= 1
        return out

    ph, pw = pooled(h), pooled(w)
    y = np.empty((n, c, ph, pw))
    for i in range(ph):
        for j in range(pw):
            h0, w0 = max(i * s - pad, 0), max(j * s - pad, 0)
            h1, w1 = min(i * s - pad + k, h), min(j * s - pad + k, w)
            y[:, :, i, j] = x[:, :, h0:h1, w0:w1].max(axis=(2, 3), initial=-np.inf)
    return y
