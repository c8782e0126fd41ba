"""Integer value folding of the binary math ops: folded values equal numpy's
on the same arrays (TensorFlow's FloorDiv / FloorMod are numpy's // and %),
and shape arithmetic on constants reaches Reshape."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from math_helpers import dtype_of

import opgraph
from opgraph import DataType, Graph

FOLDING: dict[str, Callable[[Any, Any], Any]] = {
    "Add": np.add,
    "AddV2": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "FloorDiv": np.floor_divide,
    "FloorMod": np.mod,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
}


def fold(op_type: str, a: Any, b: Any) -> opgraph.TensorDesc:
    g = Graph("g")
    out = g.add_node(op_type, "node", [g.add_const("a", a), g.add_const("b", b)])
    opgraph.infer(g)
    return g.desc(out)


@st.composite
def int_pairs(draw: st.DrawFn) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    dtype = draw(st.sampled_from([np.int32, np.int64]))
    shape_a, shape_b = draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)
    ).input_shapes
    values = st.integers(-50, 50)
    a = draw(hnp.arrays(dtype, shape_a, elements=values))
    b = draw(hnp.arrays(dtype, shape_b, elements=values))
    return a, b


@given(op_type=st.sampled_from(sorted(FOLDING)), pair=int_pairs())
def test_folded_values_match_numpy(op_type: str, pair: tuple[Any, Any]) -> None:
    a, b = pair
    if op_type in ("FloorDiv", "FloorMod") and not b.all():
        with pytest.raises(opgraph.InferShapeError, match="division by zero"):
            fold(op_type, a, b)
        return
    expected = FOLDING[op_type](a, b)
    out = fold(op_type, a, b)
    assert out.value is not None
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))
    np.testing.assert_array_equal(out.value, expected)


# Whole known values of any numeric dtype fold too (the float and comparison
# arithmetic ONNX exporters emit around shapes); integer division truncates
# toward zero, as C, TensorFlow's Div/RealDiv and ONNX's Div do.
WHOLE_VALUE_FOLDING: dict[str, Callable[[npt.NDArray[Any], npt.NDArray[Any]], Any]] = {
    "RealDiv": lambda a, b: np.trunc(a / b).astype(a.dtype) if a.dtype.kind == "i" else a / b,
    "Div": lambda a, b: np.trunc(a / b).astype(a.dtype) if a.dtype.kind == "i" else a / b,
    "Pow": np.power,
    "Less": np.less,
    "GreaterEqual": np.greater_equal,
    "Mul": np.multiply,
    "Maximum": np.maximum,
}


@pytest.mark.parametrize("op_type", sorted(WHOLE_VALUE_FOLDING))
@pytest.mark.parametrize(
    ("a", "b"),
    [
        (np.array([4, -7], np.int32), np.array(2, np.int32)),
        (np.array([[1.5], [-2.25]], np.float32), np.array([2.0, 3.0], np.float32)),
    ],
)
def test_whole_values_fold_like_numpy(op_type: str, a: np.ndarray, b: np.ndarray) -> None:
    expected = np.asarray(WHOLE_VALUE_FOLDING[op_type](a, b))
    out = fold(op_type, a, b)
    assert out.value is not None
    assert out.value.shape == expected.shape
    np.testing.assert_allclose(out.value, expected, rtol=1e-6)


def test_folded_shape_arithmetic_feeds_reshape() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (2, 3, 4))
    dims = g.add_const("dims", np.array([3, 4], np.int32))
    doubled = g.add_node("Mul", "doubled", [dims, g.add_const("two", np.array(2, np.int32))])
    # [6, 8] // [1, 2] = [6, 4]: the 24 elements of x.
    halved = g.add_node("FloorDiv", "halved", [doubled, g.add_const("d", np.array([1, 2], np.int32))])
    y = g.add_node("Reshape", "y", [x, halved])
    opgraph.infer(g)
    assert g.desc(y).shape == (6, 4)
    folded = g.desc(halved).value
    assert folded is not None
    assert folded.tolist() == [6, 4]
    # Without folding, Reshape only learns the rank.
    opgraph.infer(g, fold_limit=0)
    assert g.desc(y).shape == (-1, -1)


def test_floor_division_rounds_toward_negative_infinity() -> None:
    out = fold("FloorDiv", np.array([-7, 7, -7], np.int64), np.array([2, -2, -2], np.int64))
    assert out.value is not None
    assert out.value.tolist() == [-4, -4, 3]
    mod = fold("FloorMod", np.array([-7, 7, -7], np.int64), np.array([2, -2, -2], np.int64))
    assert mod.value is not None
    assert mod.value.tolist() == [1, -1, -1]


def test_int32_overflow_is_left_unfolded() -> None:
    assert fold("Mul", np.array([2**30], np.int32), np.array(4, np.int32)).value is None
