"""TensorFlow MaxPool / AvgPool (2-D and 3-D) and GE's Caffe Pooling against
sliding-window references and TensorFlow's / Caffe's size formulas."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import desc
from hypothesis import given
from hypothesis import strategies as st
from nn_helpers import caffe_pool_reference, same_pads, shape_of, sliding_max_pool_nhwc, tf_window_out

import opgraph
from opgraph import DataType, Format


def _pool(op: str, x: tuple[int, ...], **attrs: Any) -> tuple[int, ...]:
    return shape_of(op, [desc(x)], attrs)


@given(
    h=st.integers(1, 9),
    w=st.integers(1, 9),
    k=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    s=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    padding=st.sampled_from(["SAME", "VALID"]),
    op=st.sampled_from(["MaxPool", "AvgPool"]),
)
def test_pool_matches_sliding_window(
    h: int, w: int, k: tuple[int, int], s: tuple[int, int], padding: str, op: str
) -> None:
    attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding}
    x = np.arange(2 * h * w * 3, dtype=np.float64).reshape(2, h, w, 3)
    pads = (0, 0, 0, 0)
    if padding == "SAME":
        pads = (*same_pads(h, k[0], s[0]), *same_pads(w, k[1], s[1]))
    if padding == "VALID" and (k[0] > h or k[1] > w):
        # TensorFlow's shape function refuses a window larger than the input
        # (its CPU kernel dies of a division by zero on some).
        with pytest.raises(opgraph.NodeError, match="VALID"):
            _pool(op, x.shape, **attrs)
        return
    expected = sliding_max_pool_nhwc(x, k, s, pads).shape
    assert expected == (2, tf_window_out(h, k[0], s[0], padding), tf_window_out(w, k[1], s[1], padding), 3)
    assert _pool(op, x.shape, **attrs) == expected


@given(
    h=st.integers(1, 8),
    k=st.integers(1, 4),
    s=st.integers(1, 3),
    pads=st.tuples(st.integers(0, 2), st.integers(0, 2)),
)
def test_explicit_padding_matches_sliding_window(h: int, k: int, s: int, pads: tuple[int, int]) -> None:
    x = np.zeros((1, h, h, 2))
    attrs = {
        "ksize": [1, k, k, 1],
        "strides": [1, s, s, 1],
        "padding": "EXPLICIT",
        "explicit_paddings": [0, 0, *pads, *pads, 0, 0],
    }
    if h + sum(pads) < k:
        with pytest.raises(opgraph.NodeError):
            _pool("MaxPool", x.shape, **attrs)
        return
    expected = sliding_max_pool_nhwc(x, (k, k), (s, s), (*pads, *pads)).shape
    assert _pool("MaxPool", x.shape, **attrs) == expected


def test_pool_nchw_unknown_dims_and_dtype() -> None:
    attrs = {"ksize": [1, 1, 3, 3], "strides": [1, 1, 2, 2], "padding": "VALID", "data_format": "NCHW"}
    out = shape_of("MaxPool", [desc((4, 3, 9, -1))], attrs)
    assert out == (4, 3, 4, -1)
    assert _pool("AvgPool", (-2,), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME") == (-1,) * 4
    from helpers import infer_output

    y = infer_output(
        "MaxPool",
        [desc((1, 4, 4, 1), DataType.INT8)],
        {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"},
    )
    assert (y.dtype, y.format) == (DataType.INT8, Format.NHWC)
    with pytest.raises(opgraph.VerifyError):
        infer_output(
            "AvgPool",
            [desc((1, 4, 4, 1), DataType.INT8)],
            {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"},
        )


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"ksize": [2, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "SAME"}, "N and C"),
        ({"ksize": [1, 2, 2, 1], "strides": [1, 0, 1, 1], "padding": "SAME"}, ">= 1"),
        ({"ksize": [1, 2, 2], "strides": [1, 1, 1, 1], "padding": "SAME"}, "expected 4"),
        ({"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "FULL"}, "padding"),
        (
            {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "HWCN"},
            "data_format",
        ),
        ({"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "EXPLICIT"}, "explicit_paddings"),
        (
            {
                "ksize": [1, 2, 2, 1],
                "strides": [1, 1, 1, 1],
                "padding": "EXPLICIT",
                "explicit_paddings": [1, 0, 0, 0, 0, 0, 0, 0],
            },
            "N and C",
        ),
        (
            {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "SAME", "explicit_paddings": [0] * 8},
            "empty",
        ),
    ],
)
def test_pool_rejects_bad_attributes(attrs: dict[str, Any], message: str) -> None:
    with pytest.raises(opgraph.VerifyError, match=message):
        _pool("MaxPool", (1, 8, 8, 3), **attrs)


@given(
    d=st.integers(1, 6),
    k=st.integers(1, 3),
    s=st.integers(1, 3),
    padding=st.sampled_from(["SAME", "VALID"]),
    op=st.sampled_from(["MaxPool3D", "AvgPool3D"]),
)
def test_pool3d_formula(d: int, k: int, s: int, padding: str, op: str) -> None:
    attrs = {"ksize": [1, k, k, k, 1], "strides": [1, s, s, s, 1], "padding": padding}
    expected = tuple(tf_window_out(n, k, s, padding) for n in (d, d + 1, d + 2))
    if min(expected) < 0:  # a VALID window larger than the input: TensorFlow refuses it
        with pytest.raises(opgraph.NodeError):
            _pool(op, (2, d, d + 1, d + 2, 3), **attrs)
        return
    assert _pool(op, (2, d, d + 1, d + 2, 3), **attrs) == (2, *expected, 3)
    ncdhw = dict(attrs, data_format="NCDHW", ksize=[1, 1, k, k, k], strides=[1, 1, s, s, s])
    assert _pool(op, (2, 3, d, d + 1, d + 2), **ncdhw) == (2, 3, *expected)


# ---- Caffe Pooling -----------------------------------------------------------------


@given(
    size=st.integers(1, 12),
    k=st.integers(1, 4),
    s=st.integers(1, 3),
    pad=st.integers(0, 2),
)
def test_caffe_pooling_matches_caffe_loop(size: int, k: int, s: int, pad: int) -> None:
    attrs = {"window": [k, k], "stride": [s, s], "pad": [pad] * 4}
    if pad >= k or size + 2 * pad < k:
        with pytest.raises(opgraph.NodeError):
            _pool("Pooling", (1, 2, size, size), **attrs)
        return
    x = np.arange(2 * size * size, dtype=np.float64).reshape(1, 2, size, size)
    expected = caffe_pool_reference(x, k, s, pad).shape
    assert _pool("Pooling", x.shape, **attrs) == expected


def test_caffe_pooling_modes() -> None:
    # Round down (ceil_mode 1): floor((7 - 3) / 2) + 1 = 3; round up gives 3 as well,
    # 8: floor(5/2)+1 = 3 vs ceil(5/2)+1 = 4.
    assert _pool("Pooling", (1, 1, 8, 8), window=[3, 3], stride=[2, 2], ceil_mode=1) == (1, 1, 3, 3)
    assert _pool("Pooling", (1, 1, 8, 8), window=[3, 3], stride=[2, 2]) == (1, 1, 4, 4)
    assert _pool("Pooling", (2, 5, 13, 7), global_pooling=True, mode=1) == (2, 5, 1, 1)
    # Mode 2 is Caffe's stochastic pooling: the same windows.
    assert _pool("Pooling", (1, 1, 8, 8), window=[3, 3], stride=[2, 2], mode=2) == (1, 1, 4, 4)
    assert _pool("Pooling", (2, 13, 7, 5), window=[3, 3], stride=[2, 2], data_format="NHWC") == (2, 6, 3, 5)
    assert _pool("Pooling", (-1, 3, -1, 9), window=[3, 3], stride=[2, 2]) == (-1, 3, -1, 4)
    from helpers import infer_output

    y = infer_output("Pooling", [desc((1, 1, 4, 4), DataType.INT8)])
    assert y.dtype == DataType.INT32
    cases: list[tuple[dict[str, Any], str]] = [
        ({"mode": 3}, "mode"),
        ({"ceil_mode": 2}, "ceil_mode"),
        ({"window": [3]}, "window"),
        ({"stride": [0, 1]}, "stride"),
        ({"pad": [-1, 0, 0, 0]}, "pad"),
        ({"window": [2, 2], "pad": [2, 2, 0, 0]}, "smaller than the window"),
    ]
    for attrs, message in cases:
        with pytest.raises(opgraph.VerifyError, match=message):
            _pool("Pooling", (1, 1, 8, 8), **attrs)
