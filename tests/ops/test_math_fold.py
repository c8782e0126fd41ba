"""Integer value folding of the binary math ops: folded values equal numpy's
on the same arrays (TensorFlow's FloorDiv / FloorMod are numpy's // and %),
and shape arithmetic on constants reaches Reshape."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
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


@pytest.mark.parametrize("op_type", ["RealDiv", "Pow", "Less"])
def test_other_ops_do_not_fold(op_type: str) -> None:
    assert fold(op_type, np.array([4, 6], np.int32), np.array(2, np.int32)).value is None


def test_float_values_do_not_fold() -> None:
    assert fold("Mul", np.array([1.5], np.float32), np.array([2.0], np.float32)).value is None


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
