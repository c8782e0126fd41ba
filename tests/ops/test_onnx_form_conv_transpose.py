"""ConvTranspose (ONNX, 1-D to 3-D spatial) against onnx.reference on real
arrays: strides, dilations, pads, output_padding, auto_pad, output_shape,
group, and the invalid inputs it rejects."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import desc, one_node_graph
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx_form_helpers import run_onnx

import opgraph
from opgraph import TensorDesc


def _infer(
    x: tuple[int, ...], w: tuple[int, ...], attrs: dict[str, Any], bias: int | None = None
) -> TensorDesc:
    inputs = [desc(x), desc(w), None if bias is None else desc((bias,))]
    graph, out = one_node_graph("ConvTranspose", inputs, attrs)
    opgraph.infer(graph)
    return graph.desc(out)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), rank=st.integers(1, 3), group=st.integers(1, 2))
def test_matches_reference(data: st.DataObject, rank: int, group: int) -> None:
    def per_axis(lo: int, hi: int) -> list[int]:
        return data.draw(st.lists(st.integers(lo, hi), min_size=rank, max_size=rank))

    sizes, k, s, d = per_axis(1, 4), per_axis(1, 3), per_axis(1, 3), per_axis(1, 2)
    # Below the stride (onnx.reference's col2im cannot place more; the IR
    # accepts up to max(stride, dilation) - 1, PyTorch's rule).
    out_pad = [data.draw(st.integers(0, si - 1)) for si in s]
    pads = [data.draw(st.integers(0, kk - 1)) for kk in k + k]
    # onnx.reference's grouped path writes one output channel per group:
    # groups are depthwise here (the channel rule has its own test).
    c_in, c_out = (2, 3) if group == 1 else (group, group)
    x = np.random.default_rng(0).standard_normal((1, c_in, *sizes)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((c_in, c_out // group, *k)).astype(np.float32)
    mode = data.draw(st.sampled_from(["pads", "SAME_UPPER", "SAME_LOWER", "VALID", "output_shape"]))
    attrs: dict[str, Any] = {"strides": s, "dilations": d, "group": group}
    if mode == "pads":
        attrs |= {"pads": pads, "output_padding": out_pad}
    elif mode == "output_shape":
        # A size the pads can reach (the reference needs total padding >= 0).
        natural = [si * (ni - 1) + di * (ki - 1) + 1 for si, ni, di, ki in zip(s, sizes, d, k, strict=True)]
        attrs["output_shape"] = [
            v + e - pads[i] - pads[i + rank] for i, (v, e) in enumerate(zip(natural, out_pad, strict=True))
        ]
        # onnx.reference derives the pads from output_shape only under SAME_*.
        attrs |= {
            "output_padding": out_pad,
            "auto_pad": data.draw(st.sampled_from(["SAME_UPPER", "SAME_LOWER"])),
        }
    else:
        attrs["auto_pad"] = mode
    if mode in ("pads", "output_shape"):
        total = [pads[i] + pads[i + rank] for i in range(rank)]
        natural = [
            si * (ni - 1) + di * (ki - 1) + 1 + e
            for si, ni, di, ki, e in zip(s, sizes, d, k, out_pad, strict=True)
        ]
        if min(n - t for n, t in zip(natural, total, strict=True)) < 0:
            with pytest.raises(opgraph.NodeError, match=r"pads exceed|negative dim"):
                _infer(x.shape, w.shape, attrs)
            return
    if mode.startswith("SAME"):
        natural = [si * (ni - 1) + di * (ki - 1) + 1 for si, ni, di, ki in zip(s, sizes, d, k, strict=True)]
        if any(si * ni > v for si, ni, v in zip(s, sizes, natural, strict=True)):
            # in * stride needs negative padding: onnx.reference pads so,
            # onnxruntime and onnx's shape inference clamp the padding at 0
            # (test_onnx_vs_onnxruntime.py), and so does opgraph.
            want = tuple(min(si * ni, v) for si, ni, v in zip(s, sizes, natural, strict=True))
            assert _infer(x.shape, w.shape, attrs).shape == (1, c_out, *want)
            return
    expected = run_onnx("ConvTranspose", [x, w], attrs)[0]
    assert _infer(x.shape, w.shape, attrs).shape == expected.shape


def test_bias_kernel_shape_and_full_output_shape() -> None:
    x = np.zeros((2, 4, 5, 6), np.float32)
    w = np.zeros((4, 3, 3, 2), np.float32)
    b = np.zeros(6, np.float32)
    attrs = {"strides": [2, 3], "kernel_shape": [3, 2]}
    # Group 2 = two group-1 ConvTransposes on channel halves, concatenated
    # (onnx.reference's grouped path assumes one output channel per group).
    halves = [
        run_onnx("ConvTranspose", [x[:, g * 2 : g * 2 + 2], w[g * 2 : g * 2 + 2], b[:3]], attrs)[0]
        for g in (0, 1)
    ]
    expected = np.concatenate(halves, axis=1)
    assert _infer(x.shape, w.shape, attrs | {"group": 2}, bias=6).shape == expected.shape == (2, 6, 11, 17)
    # output_shape with N and C too (onnxruntime takes the last dims).
    assert _infer(x.shape, w.shape, {"group": 2, "output_shape": [2, 6, 12, 19]}).shape == (2, 6, 12, 19)


def test_unknown_dims() -> None:
    assert _infer((-1, 4, -1, 6), (4, 3, 3, 3), {"strides": [2, 2]}).shape == (-1, 3, -1, 13)
    assert _infer((-2,), (4, 3, 3, 3), {}).shape == (-1, 3, -1, -1)
    assert _infer((-2,), (-2,), {}).shape == (-2,)
    assert _infer((1, 4, -1, -1), (4, 3, 3, 3), {"output_shape": [7, 9]}).shape == (1, 3, 7, 9)


@pytest.mark.parametrize(
    ("x", "w", "attrs", "bias", "match"),
    [
        ((1, 4, 5, 5), (3, 3, 3, 3), {}, None, "C_in"),
        ((1, 4, 5, 5), (4, 3, 3), {}, None, "same rank"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"group": 3}, None, "not a multiple of group"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"group": 0}, None, "group is 0"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {}, 4, "bias has a length other than"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"kernel_shape": [3, 2]}, None, "kernel_shape"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"strides": [2]}, None, "strides has 1 values"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"output_padding": [2, 0], "strides": [2, 2]}, None, "output_padding"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"output_shape": [1, 2, 3]}, None, "output_shape has 3 values"),
        ((1, 4, 2, 2), (4, 3, 1, 1), {"pads": [3, 3, 0, 0]}, None, "pads exceed"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"auto_pad": "SAME"}, None, "auto_pad"),
        ((1, 4, 5, 5), (4, 3, 3, 3), {"strides": [1 << 62, 4]}, None, "overflows int64"),
        ((1, 4), (4, 3), {}, None, "at least one spatial dim"),
        ((1, 4, 1, 1, 1, 1), (4, 3, 1, 1, 1, 1), {}, None, "1 to 3"),
    ],
)
def test_errors(
    x: tuple[int, ...], w: tuple[int, ...], attrs: dict[str, Any], bias: int | None, match: str
) -> None:
    with pytest.raises(opgraph.NodeError, match=match):
        _infer(x, w, attrs, bias)
