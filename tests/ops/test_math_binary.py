"""Broadcasting binary ops against numpy on real arrays: the inferred shape
is the shape of numpy's result (and numpy-rejected shapes are rejected), the
dtype is the inputs' (BOOL for comparisons and logical ops)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import desc, infer_output
from hypothesis import given
from hypothesis import strategies as st
from math_helpers import agrees, blur, dtype_of, shapes

import opgraph
from opgraph import DataType

Ufunc = Callable[[Any, Any], Any]

ARITHMETIC: dict[str, Ufunc] = {
    "Add": np.add,
    "AddV2": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "RealDiv": np.true_divide,
    "Div": np.true_divide,
    "FloorDiv": np.floor_divide,
    "FloorMod": np.mod,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
    "Pow": np.power,
    "SquaredDifference": lambda a, b: np.square(a - b),
}
COMPARISON: dict[str, Ufunc] = {
    "Equal": np.equal,
    "NotEqual": np.not_equal,
    "Less": np.less,
    "LessEqual": np.less_equal,
    "Greater": np.greater,
    "GreaterEqual": np.greater_equal,
}
LOGICAL: dict[str, Ufunc] = {"LogicalAnd": np.logical_and, "LogicalOr": np.logical_or}
ALL = {**ARITHMETIC, **COMPARISON, **LOGICAL}


def operand_dtype(op_type: str) -> type[np.generic]:
    return np.bool_ if op_type in LOGICAL else np.float32


@given(op_type=st.sampled_from(sorted(ALL)), a=shapes, b=shapes)
def test_binary_shapes_and_dtypes_match_numpy(op_type: str, a: tuple[int, ...], b: tuple[int, ...]) -> None:
    dtype = operand_dtype(op_type)
    x, y = np.ones(a, dtype), np.ones(b, dtype)
    try:
        expected = ALL[op_type](x, y)
    except ValueError:
        with pytest.raises(opgraph.InferShapeError, match="broadcast"):
            infer_output(op_type, [desc(a, dtype_of(x)), desc(b, dtype_of(y))])
        return
    out = infer_output(op_type, [desc(a, dtype_of(x)), desc(b, dtype_of(y))])
    assert out.shape == expected.shape
    assert out.dtype == dtype_of(expected)


@given(
    op_type=st.sampled_from(sorted(ALL)),
    a=shapes,
    b=shapes,
    hide=st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_unknown_dims_admit_numpys_shape(
    op_type: str, a: tuple[int, ...], b: tuple[int, ...], hide: list[bool]
) -> None:
    """With some dims unknown, the inferred shape never contradicts numpy's."""
    dtype = operand_dtype(op_type)
    try:
        expected = ALL[op_type](np.ones(a, dtype), np.ones(b, dtype)).shape
    except ValueError:
        return
    dt = DataType.from_numpy(np.dtype(dtype))
    out = infer_output(op_type, [desc(blur(a, hide[:4]), dt), desc(blur(b, hide[4:]), dt)])
    assert agrees(out.shape, expected)


@pytest.mark.parametrize(
    "op_type", ["Add", "Sub", "Mul", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Pow"]
)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.float64])
def test_arithmetic_keeps_the_input_dtype(op_type: str, dtype: type[np.generic]) -> None:
    x = np.ones((2, 1), dtype)
    expected = ARITHMETIC[op_type](x, np.ones(3, dtype))
    out = infer_output(op_type, [desc((2, 1), dtype_of(x)), desc((3,), dtype_of(x))])
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))


@pytest.mark.parametrize("op_type", sorted(ALL))
def test_mixed_input_dtypes_are_rejected(op_type: str) -> None:
    with pytest.raises(opgraph.NodeError, match="combinations"):
        infer_output(op_type, [desc([2], DataType.FLOAT), desc([2], DataType.BOOL)])


@pytest.mark.parametrize(
    ("op_type", "dtype"),
    [
        ("LogicalAnd", DataType.FLOAT),
        ("Less", DataType.COMPLEX64),
        ("FloorMod", DataType.COMPLEX64),
        ("Maximum", DataType.BOOL),
        ("Add", DataType.BOOL),
        ("SquaredDifference", DataType.UINT8),
    ],
)
def test_dtypes_outside_tensorflows_list_are_rejected(op_type: str, dtype: DataType) -> None:
    with pytest.raises(opgraph.NodeError):
        infer_output(op_type, [desc([2], dtype), desc([2], dtype)])


def test_comparisons_of_bools_and_strings() -> None:
    assert infer_output("Equal", [desc([2], DataType.BOOL), desc([], DataType.BOOL)]).dtype is DataType.BOOL
    assert infer_output("NotEqual", [desc([3], DataType.STRING), desc([3], DataType.STRING)]).shape == (3,)


@pytest.mark.parametrize("op_type", ["Equal", "NotEqual"])
def test_equality_may_tolerate_incompatible_shapes(op_type: str) -> None:
    inputs = [desc([2]), desc([3])]
    with pytest.raises(opgraph.InferShapeError):
        infer_output(op_type, inputs)
    out = infer_output(op_type, inputs, {"incompatible_shape_error": False})
    assert (out.shape, out.dtype) == ((-2,), DataType.BOOL)
    # Compatible shapes broadcast as usual either way.
    assert infer_output(op_type, [desc([2, 1]), desc([3])], {"incompatible_shape_error": False}).shape == (
        2,
        3,
    )


def test_output_follows_the_format_of_x1() -> None:
    x1 = desc([1, 3, 4, 4], fmt=opgraph.Format.NCHW)
    assert infer_output("Mul", [x1, desc([3, 1, 1])]).format is opgraph.Format.NCHW


def test_unknown_rank_broadcasts_to_unknown_rank() -> None:
    assert infer_output("Less", [desc([-2]), desc([2, 3])]).shape == (-2,)
