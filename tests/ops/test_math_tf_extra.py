"""The TensorFlow math ops of common frozen models against numpy on real
arrays: element-wise functions (np.sin, np.log1p ...), float classes
(np.isnan ...), the no-NaN binaries (broadcasting like numpy), ClipByValue
(np.clip, with TensorFlow's stricter bound shapes), Cumprod /
CumulativeLogsumexp (np.cumprod, np.logaddexp.accumulate) and L2Loss."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import Feed, desc, infer_output
from hypothesis import given
from hypothesis import strategies as st
from math_helpers import agrees, blur, dtype_of, sample, shapes

import opgraph
from opgraph import DataType, Format

Unary = Callable[[Any], Any]

UNARY: dict[str, Unary] = {
    "Erfc": np.vectorize(math.erfc, otypes=[np.float64]),
    "Log1p": np.log1p,
    "Expm1": np.expm1,
    "Sin": np.sin,
    "Cos": np.cos,
    "Tan": np.tan,
    "Asin": np.arcsin,
    "Acos": np.arccos,
    "Atan": np.arctan,
    "Sinh": np.sinh,
    "Cosh": np.cosh,
    "Asinh": np.arcsinh,
    "Acosh": np.arccosh,
    "Atanh": np.arctanh,
    "Inv": np.reciprocal,
    "Softsign": lambda x: x / (1 + np.abs(x)),
}
CLASSES: dict[str, Unary] = {"IsNan": np.isnan, "IsInf": np.isinf, "IsFinite": np.isfinite}


@given(
    op_type=st.sampled_from(sorted(UNARY)),
    shape=shapes,
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    hide=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_element_wise_functions_keep_numpys_shape(
    op_type: str, shape: tuple[int, ...], dtype: type[np.generic], hide: list[bool]
) -> None:
    x = sample(shape, dtype)
    with np.errstate(all="ignore"):
        expected = np.asarray(UNARY[op_type](x)).astype(dtype)
    out = infer_output(op_type, [desc(shape, dtype_of(x), Format.NHWC)])
    assert (out.shape, out.dtype, out.format) == (expected.shape, dtype_of(expected), Format.NHWC)
    assert infer_output(op_type, [desc(blur(shape, hide), dtype_of(x))]).shape == blur(shape, hide)


@given(
    op_type=st.sampled_from(sorted(CLASSES)),
    shape=shapes,
    hide=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_float_classes_are_numpys_bool_arrays(op_type: str, shape: tuple[int, ...], hide: list[bool]) -> None:
    x = sample(shape)
    expected = CLASSES[op_type](x)
    out = infer_output(op_type, [desc(blur(shape, hide))])
    assert out.dtype == dtype_of(expected) == DataType.BOOL
    assert agrees(out.shape, expected.shape)


@pytest.mark.parametrize("op_type", [*sorted(set(UNARY) - {"Inv"}), *sorted(CLASSES)])
def test_integers_are_outside_their_dtype_lists(op_type: str) -> None:
    # TensorFlow's UNARY list (Inv, Reciprocal) has the integers; the others do not.
    with pytest.raises(opgraph.NodeError, match="INT32"):
        infer_output(op_type, [desc([3], DataType.INT32)])


def test_reciprocal_variants_take_integers() -> None:
    for op_type in ["Inv", "Reciprocal"]:
        assert infer_output(op_type, [desc([3], DataType.INT32)]).dtype == DataType.INT32


Binary = Callable[[Any, Any], Any]


def _div_no_nan(x: Any, y: Any) -> Any:
    return np.divide(x, y, out=np.zeros(np.broadcast_shapes(x.shape, y.shape), x.dtype), where=y != 0)


BINARY: dict[str, Binary] = {
    "DivNoNan": _div_no_nan,
    "MulNoNan": lambda x, y: np.where(y == 0, 0, x * y),
    "Xdivy": lambda x, y: np.where(x == 0, 0, x / y),
    "Xlogy": lambda x, y: np.where(x == 0, 0, x * np.log(y)),
    "Atan2": np.arctan2,
}


@given(op_type=st.sampled_from(sorted(BINARY)), a=shapes, b=shapes)
def test_no_nan_binaries_broadcast_like_numpy(op_type: str, a: tuple[int, ...], b: tuple[int, ...]) -> None:
    x, y = sample(a), sample(b, seed=1)
    try:
        with np.errstate(all="ignore"):
            expected = np.asarray(BINARY[op_type](x, y)).astype(np.float32)
    except ValueError:
        with pytest.raises(opgraph.InferShapeError, match="broadcast"):
            infer_output(op_type, [desc(a), desc(b)])
        return
    out = infer_output(op_type, [desc(a), desc(b)])
    assert (out.shape, out.dtype) == (expected.shape, DataType.FLOAT)


@st.composite
def clip_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """x's shape and two bound shapes: scalars, x's shape, or anything."""
    x = draw(shapes)
    bound = st.one_of(st.just(()), st.just(x), shapes)
    return x, draw(bound), draw(bound)


@given(case=clip_cases())
def test_clip_keeps_x_shape_and_takes_scalar_or_x_shaped_bounds(
    case: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
) -> None:
    x_shape, lo_shape, hi_shape = case
    x = sample(x_shape)
    lo, hi = np.full(lo_shape, -0.5, np.float32), np.full(hi_shape, 0.5, np.float32)
    inputs: list[Feed] = [desc(x_shape), lo, hi]
    allowed = all(s in ((), x_shape) for s in (lo_shape, hi_shape))
    if not allowed:
        # numpy may broadcast such bounds, TensorFlow's kernel does not.
        with pytest.raises(opgraph.VerifyError, match="must be a scalar or have the shape of x"):
            infer_output("ClipByValue", inputs)
        return
    expected = np.clip(x, lo, hi)
    out = infer_output("ClipByValue", inputs)
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))


@given(
    op_type=st.sampled_from(["Cumprod", "CumulativeLogsumexp"]),
    shape=shapes.filter(lambda s: len(s) > 0),
    axis=st.integers(-5, 4),
    exclusive=st.booleans(),
    reverse=st.booleans(),
)
def test_cumulative_ops_keep_numpys_shape(
    op_type: str, shape: tuple[int, ...], axis: int, exclusive: bool, reverse: bool
) -> None:
    x = sample(shape)
    attrs = {"exclusive": exclusive, "reverse": reverse}
    inputs: list[Feed] = [desc(shape), np.array(axis, np.int32)]
    scan = np.cumprod if op_type == "Cumprod" else np.logaddexp.accumulate
    try:
        expected = scan(x, axis=axis)
    except np.exceptions.AxisError:
        with pytest.raises(opgraph.VerifyError, match="out of range"):
            infer_output(op_type, inputs, attrs)
        return
    out = infer_output(op_type, inputs, attrs)
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))


@given(shape=shapes, dtype=st.sampled_from([np.float16, np.float32, np.float64]))
def test_l2_loss_is_numpys_scalar(shape: tuple[int, ...], dtype: type[np.generic]) -> None:
    x = sample(shape, dtype)
    expected = np.sum(np.square(x)) / dtype(2)
    out = infer_output("L2Loss", [desc(shape, dtype_of(x))])
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(np.asarray(expected)))
