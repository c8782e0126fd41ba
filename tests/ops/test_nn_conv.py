"""DepthwiseConv2dNative, Conv2DBackpropInput and Conv3D against numpy
convolutions and TensorFlow's size rules."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from helpers import desc, infer_output, reference_conv2d_nchw
from hypothesis import given
from hypothesis import strategies as st
from nn_helpers import same_pads, shape_of, tf_window_out

import opgraph
from opgraph import DataType, Format


@given(
    c=st.integers(1, 3),
    mult=st.integers(1, 3),
    h=st.integers(1, 8),
    k=st.integers(1, 3),
    s=st.integers(1, 3),
    dil=st.integers(1, 2),
    padding=st.sampled_from(["SAME", "VALID"]),
)
def test_depthwise_matches_grouped_convolution(
    c: int, mult: int, h: int, k: int, s: int, dil: int, padding: str
) -> None:
    attrs = {"strides": [1, s, s, 1], "dilations": [1, dil, dil, 1], "padding": padding}
    x = desc((2, h, h + 1, c), fmt=Format.NHWC)
    f = desc((k, k, c, mult), fmt=Format.HWCN)
    effective = dil * (k - 1) + 1
    if padding == "VALID" and effective > h:
        # TensorFlow's shape function: a window larger than the input is an
        # error (its kernel's formula would give 0 windows for some).
        with pytest.raises(opgraph.NodeError, match="VALID"):
            shape_of("DepthwiseConv2dNative", [x, f], attrs)
        return
    # The same op as a grouped NCHW convolution in numpy: groups = C, C*mult outputs.
    pads = (0, 0, 0, 0)
    if padding == "SAME":
        pads = (*same_pads(h, effective, s), *same_pads(h + 1, effective, s))
    xs = np.zeros((2, c, h, h + 1))
    ws = np.zeros((c * mult, 1, k, k))
    ref = reference_conv2d_nchw(xs, ws, strides=(s, s), pads=pads, dilations=(dil, dil), groups=c)
    n, co, ho, wo = ref.shape
    y = infer_output("DepthwiseConv2dNative", [x, f], attrs)
    assert y.shape == (n, ho, wo, co)
    assert y.format == Format.NHWC


def test_depthwise_layouts_and_errors() -> None:
    base = {"strides": [1, 1, 1, 1], "padding": "VALID"}
    nchw = dict(base, data_format="NCHW")
    # NCHW activations with an NCHW filter [multiplier, C, kh, kw].
    assert shape_of(
        "DepthwiseConv2dNative",
        [desc((1, 4, 5, 5), fmt=Format.NCHW), desc((2, 4, 3, 3), fmt=Format.NCHW)],
        nchw,
    ) == (1, 8, 3, 3)
    # Explicit TF paddings and GE pads.
    explicit = dict(base, padding="EXPLICIT", explicit_paddings=[0, 0, 1, 1, 2, 2, 0, 0])
    assert shape_of("DepthwiseConv2dNative", [desc((1, 5, 5, 3)), desc((3, 3, 3, 1))], explicit) == (
        1,
        5,
        7,
        3,
    )
    ge = dict(base, padding="", pads=[1, 1, 2, 2])
    assert shape_of("DepthwiseConv2dNative", [desc((1, 5, 5, 3)), desc((3, 3, 3, 1))], ge) == (1, 5, 7, 3)
    assert shape_of("DepthwiseConv2dNative", [desc((1, 5, 5, -1)), desc((3, 3, 3, 2))], base) == (1, 3, 3, 6)
    with pytest.raises(opgraph.NodeError, match="channels"):
        shape_of("DepthwiseConv2dNative", [desc((1, 5, 5, 4)), desc((3, 3, 3, 1))], base)
    with pytest.raises(opgraph.NodeError, match="strides"):
        shape_of(
            "DepthwiseConv2dNative",
            [desc((1, 5, 5, 3)), desc((3, 3, 3, 1))],
            dict(base, strides=[2, 1, 1, 1]),
        )
    with pytest.raises(opgraph.NodeError, match="4-D"):
        shape_of("DepthwiseConv2dNative", [desc((5, 5, 3)), desc((3, 3, 3, 1))], base)


# ---- Conv2DBackpropInput ------------------------------------------------------------


def _deconv(size: Any, filter: tuple[int, ...], dy: tuple[int, ...], **attrs: Any) -> tuple[int, ...]:
    attrs.setdefault("strides", [1, 2, 2, 1])
    attrs.setdefault("padding", "SAME")
    size_feed = np.array(size, dtype=np.int32) if size is not None else desc((4,), DataType.INT32)
    return shape_of("Conv2DBackpropInput", [size_feed, desc(filter, fmt=Format.HWCN), desc(dy)], attrs)


@given(
    h=st.integers(1, 10), k=st.integers(1, 3), s=st.integers(1, 3), padding=st.sampled_from(["SAME", "VALID"])
)
def test_backprop_input_returns_input_size(h: int, k: int, s: int, padding: str) -> None:
    if padding == "VALID" and k > h:
        return
    ho = tf_window_out(h, k, s, padding)
    size = [2, h, h, 3]
    out = _deconv(size, (k, k, 3, 5), (2, ho, ho, 5), strides=[1, s, s, 1], padding=padding)
    assert out == tuple(size)
    # An input size whose forward convolution does not give dy is rejected.
    with pytest.raises(opgraph.NodeError, match="out_backprop"):
        _deconv(size, (k, k, 3, 5), (2, ho + 1, ho, 5), strides=[1, s, s, 1], padding=padding)


def test_backprop_input_without_value() -> None:
    # Unknown input_size value: only N (from dy) and C (filter input channels) are known.
    assert _deconv(None, (3, 3, 4, 8), (2, 5, 5, 8)) == (2, -1, -1, 4)
    assert _deconv(None, (3, 3, 4, 8), (2, 8, 5, 5), data_format="NCHW", strides=[1, 1, 2, 2]) == (
        2,
        4,
        -1,
        -1,
    )
    with pytest.raises(opgraph.NodeError, match="output channels"):
        _deconv(None, (3, 3, 4, 8), (2, 5, 5, 7))
    with pytest.raises(opgraph.NodeError, match="negative"):
        _deconv([2, -10, 10, 4], (3, 3, 4, 8), (2, 5, 5, 8))
    with pytest.raises(opgraph.NodeError, match="channels"):
        _deconv([2, 10, 10, 3], (3, 3, 4, 8), (2, 5, 5, 8))
    y = infer_output(
        "Conv2DBackpropInput",
        [
            np.array([1, 4, 4, 2], dtype=np.int64),
            desc((3, 3, 2, 6), DataType.FLOAT16, Format.HWCN),
            desc((1, 2, 2, 6), DataType.FLOAT16),
        ],
        {"strides": [1, 2, 2, 1], "padding": "SAME"},
    )
    assert (y.shape, y.dtype, y.format) == ((1, 4, 4, 2), DataType.FLOAT16, Format.NHWC)


# ---- Conv3D -------------------------------------------------------------------------


def reference_conv3d(x: npt.NDArray[Any], w: npt.NDArray[Any], s: int, pad: int) -> npt.NDArray[Any]:
    """NCDHW x, [Cout, Cin, kd, kh, kw] w, symmetric padding."""
    padded = np.pad(x, ((0, 0), (0, 0), *[(pad, pad)] * 3))
    k = w.shape[2:]
    windows = np.lib.stride_tricks.sliding_window_view(padded, k, axis=(2, 3, 4))[:, :, ::s, ::s, ::s]
    out: npt.NDArray[Any] = np.einsum("ncdhwijk,ocijk->nodhw", windows, w)
    return out


@given(d=st.integers(1, 5), k=st.integers(1, 3), s=st.integers(1, 2), pad=st.integers(0, 1))
def test_conv3d_matches_numpy(d: int, k: int, s: int, pad: int) -> None:
    attrs = {"strides": [1, 1, s, s, s], "pads": [pad] * 6, "data_format": "NCDHW"}
    x, w = np.zeros((1, 2, d, d + 1, d + 2)), np.zeros((4, 2, k, k, k))
    if d + 2 * pad < k:
        with pytest.raises(opgraph.NodeError):
            shape_of("Conv3D", [desc(x.shape, fmt=Format.NCDHW), desc(w.shape, fmt=Format.NCDHW)], attrs)
        return
    expected = reference_conv3d(x, w, s, pad).shape
    assert (
        shape_of("Conv3D", [desc(x.shape, fmt=Format.NCDHW), desc(w.shape, fmt=Format.NCDHW)], attrs)
        == expected
    )


def test_conv3d_tensorflow_layout() -> None:
    # TF: NDHWC activations, DHWCN filter [kd, kh, kw, in, out], SAME padding.
    attrs = {"strides": [1, 2, 2, 2, 1], "padding": "SAME"}
    y = infer_output("Conv3D", [desc((1, 7, 8, 9, 3)), desc((3, 3, 3, 3, 16), fmt=Format.DHWCN)], attrs)
    assert (y.shape, y.format) == ((1, 4, 4, 5, 16), Format.NDHWC)
    with pytest.raises(opgraph.NodeError, match="channels"):
        shape_of("Conv3D", [desc((1, 7, 8, 9, 4)), desc((3, 3, 3, 3, 16), fmt=Format.DHWCN)], attrs)
    with pytest.raises(opgraph.VerifyError, match="strides"):
        shape_of("Conv3D", [desc((1, 7, 8, 9, 3)), desc((3, 3, 3, 3, 16))], {"strides": [1, 2, 2]})
    with pytest.raises(opgraph.VerifyError, match="data_format"):
        shape_of("Conv3D", [desc((1, 7, 8, 9, 3)), desc((3, 3, 3, 3, 16))], dict(attrs, data_format="NHWC"))
