"""Property tests of the built-in shape rules against independent references:
Add vs ``numpy.broadcast_shapes``, Reshape vs ``numpy.reshape`` on real
arrays, Conv2D vs a direct numpy convolution and TensorFlow's SAME / VALID
formulas, and exact big-integer answers for dims near 2**63.

Example counts come from the hypothesis profile chosen in conftest.py
(``HYPOTHESIS_PROFILE``: ``ci`` by default with 300 examples, or ``dev``)."""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np
import pytest
from helpers import Feed, add_shape, conv2d_output, desc, infer_output, reference_conv2d_nchw
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

from opgraph import Format, InferShapeError, OpgraphError

INT64_MAX = 2**63 - 1
Shape = tuple[int, ...]

small_shapes = array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


@st.composite
def shape_pairs(draw: st.DrawFn) -> tuple[Shape, Shape]:
    """Half broadcast-compatible pairs, half arbitrary (mostly incompatible)."""
    if draw(st.booleans()):
        shapes = draw(mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=5))
        a, b = shapes.input_shapes
        return a, b
    return draw(small_shapes), draw(small_shapes)


def _numpy_broadcast(a: Shape, b: Shape) -> Shape | None:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


# ---- Add -------------------------------------------------------------------------


@given(shape_pairs())
def test_add_agrees_with_numpy_broadcast_shapes(pair: tuple[Shape, Shape]) -> None:
    a, b = pair
    expected = _numpy_broadcast(a, b)
    if expected is None:
        with pytest.raises(InferShapeError):
            add_shape(a, b)
    else:
        assert add_shape(a, b) == expected


@given(shape_pairs(), st.data())
def test_add_with_unknown_dims_is_sound(pair: tuple[Shape, Shape], data: st.DataObject) -> None:
    """Hiding dims (-1) never rejects a pair numpy accepts, and every dim the
    engine still reports known equals numpy's dim for the concrete shapes."""
    a, b = pair
    hide_a = data.draw(st.lists(st.booleans(), min_size=len(a), max_size=len(a)))
    hide_b = data.draw(st.lists(st.booleans(), min_size=len(b), max_size=len(b)))
    masked_a = tuple(-1 if h else d for d, h in zip(a, hide_a, strict=True))
    masked_b = tuple(-1 if h else d for d, h in zip(b, hide_b, strict=True))
    expected = _numpy_broadcast(a, b)
    assume(expected is not None)
    assert expected is not None
    got = add_shape(masked_a, masked_b)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g in (-1, e)
    if not any(hide_a) and not any(hide_b):
        assert got == expected


# ---- Reshape -----------------------------------------------------------------------


@st.composite
def reshape_cases(draw: st.DrawFn) -> tuple[Shape, list[int]]:
    """An input shape (zero-size included) and a target with at most one -1:
    either a regrouping of the input's dims (usually valid) or random."""
    x = draw(array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6))
    if draw(st.booleans()):
        dims = list(draw(st.permutations(list(x))))
        target: list[int] = []
        for d in dims:
            if len(target) > 0 and draw(st.booleans()):
                target[-1] *= d
            else:
                target.append(d)
        if draw(st.booleans()):
            target.insert(draw(st.integers(0, len(target))), 1)
    else:
        target = draw(st.lists(st.integers(0, 8), min_size=0, max_size=4))
    if len(target) > 0 and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    return x, target


@given(reshape_cases(), st.sampled_from([np.int32, np.int64]))
def test_reshape_agrees_with_numpy_reshape(case: tuple[Shape, list[int]], index_type: type) -> None:
    x, target = case
    try:
        expected: Shape | None = np.zeros(x, dtype=np.int8).reshape(target).shape
    except ValueError:
        expected = None
    feed: list[Feed] = [desc(x), np.array(target, dtype=index_type)]
    if expected is None:
        with pytest.raises(InferShapeError):
            infer_output("Reshape", feed)
    else:
        assert infer_output("Reshape", feed).shape == expected


def _exact_reshape(x: list[int], target: list[int]) -> tuple[int, ...] | None:
    """Reshape with Python's unbounded ints (TensorFlow / numpy rules)."""
    total = math.prod(x)
    if target.count(-1) > 1 or any(d < -1 for d in target):
        return None
    known = math.prod(d for d in target if d != -1)
    if -1 in target:
        if known == 0 or total % known:
            return None
        return tuple(total // known if d == -1 else d for d in target)
    return tuple(target) if known == total else None


huge_dims = st.one_of(
    st.integers(0, 4),
    st.sampled_from([2**31, 2**32, 2**62, 2**62 + 1, INT64_MAX - 1, INT64_MAX]),
    st.integers(0, INT64_MAX),
)


@given(
    st.lists(huge_dims, min_size=0, max_size=3),
    st.lists(st.one_of(huge_dims, st.just(-1)), min_size=0, max_size=3),
)
def test_reshape_with_huge_dims_is_exact_or_a_typed_error(x: list[int], target: list[int]) -> None:
    exact = _exact_reshape(x, target)
    # numpy refuses shapes whose non-zero dims multiply past int64, even
    # with a zero dim; the engine may too
    overflow = any(math.prod(d for d in s if d > 0) > INT64_MAX for s in (x, target))
    try:
        got = infer_output("Reshape", [desc(x), np.array(target, dtype=np.int64)]).shape
    except InferShapeError:
        assert exact is None or overflow
    else:
        assert got == exact


# ---- Conv2D --------------------------------------------------------------------------


def test_reference_convolution_is_a_convolution() -> None:
    """The reference itself, on an example computed by hand."""
    x = np.arange(16, dtype=np.float64).reshape(1, 1, 4, 4)
    w = np.array([[[[1.0, 0.0], [0.0, -1.0]]]])
    out = reference_conv2d_nchw(x, w, strides=(2, 2), pads=(0, 0, 0, 0), dilations=(1, 1), groups=1)
    # x[i, j] - x[i+1, j+1] = -5 at every window; windows at (0,0),(0,2),(2,0),(2,2)
    np.testing.assert_array_equal(out, np.full((1, 1, 2, 2), -5.0))
    dilated = reference_conv2d_nchw(x, w, strides=(1, 1), pads=(1, 0, 0, 0), dilations=(2, 2), groups=1)
    # padded rows: [0, x0, x1, x2, x3]; windows of extent 3 -> 3 x 2 outputs
    assert dilated.shape == (1, 1, 3, 2)
    assert dilated[0, 0, 0, 0] == 0.0 - x[0, 0, 1, 2]


@st.composite
def conv_cases(draw: st.DrawFn) -> dict[str, Any]:
    groups = draw(st.integers(1, 3))
    return {
        "n": draw(st.integers(1, 2)),
        "groups": groups,
        "cin": groups * draw(st.integers(1, 2)),
        "cout": groups * draw(st.integers(1, 2)),
        "hw": (draw(st.integers(1, 7)), draw(st.integers(1, 7))),
        "k": (draw(st.integers(1, 4)), draw(st.integers(1, 4))),
        "strides": (draw(st.integers(1, 3)), draw(st.integers(1, 3))),
        "dilations": (draw(st.integers(1, 3)), draw(st.integers(1, 3))),
        "pads": tuple(draw(st.lists(st.integers(0, 3), min_size=4, max_size=4))),
        "layout": draw(st.sampled_from(["NCHW/NCHW", "NHWC/HWCN", "NHWC/NCHW", "NCHW/HWCN"])),
    }


def _conv_via_opgraph(case: dict[str, Any], padding: str | None = None) -> Shape:
    """The inferred output shape, always returned as NCHW."""
    n, cin, cout, groups = case["n"], case["cin"], case["cout"], case["groups"]
    (h, w), (kh, kw) = case["hw"], case["k"]
    (sh, sw), (dh, dw) = case["strides"], case["dilations"]
    data_format, filter_format = case["layout"].split("/")
    filt = [cout, cin // groups, kh, kw] if filter_format == "NCHW" else [kh, kw, cin // groups, cout]
    if data_format == "NCHW":
        x, strides, dilations = [n, cin, h, w], [1, 1, sh, sw], [1, 1, dh, dw]
    else:
        x, strides, dilations = [n, h, w, cin], [1, sh, sw, 1], [1, dh, dw, 1]
    out = conv2d_output(
        x,
        filt,
        strides=strides,
        pads=case["pads"],
        dilations=dilations,
        groups=groups,
        data_format=data_format,
        filter_format=Format[filter_format],
        padding=padding,
    )
    assert out.format is Format[data_format]
    if data_format == "NHWC":
        return (out.shape[0], out.shape[3], out.shape[1], out.shape[2])
    return out.shape


def _reference_shape(case: dict[str, Any], pads: tuple[int, int, int, int]) -> Shape | None:
    (h, w), (kh, kw) = case["hw"], case["k"]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((case["n"], case["cin"], h, w))
    filt = rng.standard_normal((case["cout"], case["cin"] // case["groups"], kh, kw))
    try:
        out = reference_conv2d_nchw(
            x, filt, strides=case["strides"], pads=pads, dilations=case["dilations"], groups=case["groups"]
        )
    except ValueError:  # the dilated window does not fit the padded input
        return None
    return out.shape


@given(conv_cases())
def test_conv2d_explicit_pads_agree_with_a_numpy_convolution(case: dict[str, Any]) -> None:
    expected = _reference_shape(case, case["pads"])
    if expected is None:
        with pytest.raises(InferShapeError):
            _conv_via_opgraph(case)
    else:
        assert _conv_via_opgraph(case) == expected


@given(conv_cases())
def test_conv2d_valid_padding_agrees_with_a_numpy_convolution(case: dict[str, Any]) -> None:
    expected = _reference_shape(case, (0, 0, 0, 0))  # VALID = no padding, pads ignored
    if expected is None:
        with pytest.raises(InferShapeError):
            _conv_via_opgraph(case, "VALID")
    else:
        assert _conv_via_opgraph(case, "VALID") == expected


@given(conv_cases())
def test_conv2d_same_padding_follows_tensorflow(case: dict[str, Any]) -> None:
    # tf.nn.convolution docs: with "SAME", out = ceil(in / stride)
    (h, w), (sh, sw) = case["hw"], case["strides"]
    expected = (case["n"], case["cout"], math.ceil(h / sh), math.ceil(w / sw))
    assert _conv_via_opgraph(case, "SAME") == expected


@given(conv_cases())
def test_conv2d_valid_padding_follows_tensorflow(case: dict[str, Any]) -> None:
    # tf.nn.convolution docs: with "VALID", out = ceil((in - (k - 1) * dilation) / stride)
    (h, w), (kh, kw) = case["hw"], case["k"]
    (sh, sw), (dh, dw) = case["strides"], case["dilations"]
    oh, ow = math.ceil((h - (kh - 1) * dh) / sh), math.ceil((w - (kw - 1) * dw) / sw)
    if oh <= 0 or ow <= 0:
        with pytest.raises(InferShapeError):
            _conv_via_opgraph(case, "VALID")
    else:
        assert _conv_via_opgraph(case, "VALID") == (case["n"], case["cout"], oh, ow)


@given(
    st.lists(huge_dims, min_size=2, max_size=2),
    st.lists(st.integers(1, 5), min_size=2, max_size=2),
    st.lists(st.one_of(st.integers(1, 3), huge_dims.filter(lambda v: v > 0)), min_size=2, max_size=2),
    st.lists(st.one_of(st.integers(1, 3), huge_dims.filter(lambda v: v > 0)), min_size=2, max_size=2),
    st.lists(huge_dims, min_size=4, max_size=4),
)
def test_conv2d_with_huge_values_is_exact_or_a_typed_error(
    hw: list[int], k: list[int], strides: list[int], dilations: list[int], pads: list[int]
) -> None:
    expected: list[int | None] = []
    for axis in range(2):
        padded = hw[axis] + pads[2 * axis] + pads[2 * axis + 1]
        effective = dilations[axis] * (k[axis] - 1) + 1
        out = (padded - effective) // strides[axis] + 1
        expected.append(out if padded >= effective and out <= INT64_MAX else None)
    try:
        got = conv2d_output(
            [1, 2, *hw],
            [3, 2, *k],
            strides=[1, 1, *strides],
            dilations=[1, 1, *dilations],
            pads=pads,
        ).shape
    except InferShapeError:
        assert None in expected
    else:
        assert got == (1, 3, *expected)


@given(
    st.sampled_from(["strides", "pads", "dilations"]),
    st.lists(st.integers(-(2**63), INT64_MAX), min_size=4, max_size=4),
    st.integers(-(2**63), INT64_MAX),
)
def test_conv2d_arbitrary_int64_attributes_never_escape_as_non_opgraph_errors(
    attr: str, values: list[int], groups: int
) -> None:
    attrs: dict[str, Any] = {attr: values}
    with contextlib.suppress(OpgraphError):
        conv2d_output([1, 4, 9, 9], [4, 1, 3, 3], groups=groups, **attrs)


def test_profile_is_registered() -> None:
    from hypothesis import settings

    assert settings.get_profile("ci").max_examples == 300
    assert settings.get_profile("ci").deadline is None
