"""Reductions (TensorFlow's Sum ... Any and GE's ReduceSum ... ReduceAny)
against numpy on real arrays: axes may be negative or repeat (TensorFlow
reduces a repeated axis once), an empty axes vector reduces nothing, and an
axis out of range is rejected as numpy rejects it."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import Feed, desc, infer_output
from hypothesis import given
from hypothesis import strategies as st
from math_helpers import dtype_of, shapes

import opgraph
from opgraph import DataType

Reduce = Callable[..., Any]

# (TF name, GE name, numpy reduction, operand dtype)
REDUCTIONS: list[tuple[str, str, Reduce, type[np.generic]]] = [
    ("Sum", "ReduceSum", np.sum, np.float32),
    ("Mean", "ReduceMean", np.mean, np.float32),
    ("Prod", "ReduceProd", np.prod, np.int32),
    # TensorFlow reduces empty axes to the identity (-inf / +inf); numpy
    # needs an `initial` for that.
    ("Max", "ReduceMax", lambda x, **kw: np.max(x, initial=-np.inf, **kw), np.float16),
    ("Min", "ReduceMin", lambda x, **kw: np.min(x, initial=np.iinfo(np.int64).max, **kw), np.int64),
    ("All", "ReduceAll", np.all, np.bool_),
    ("Any", "ReduceAny", np.any, np.bool_),
]
OPS = [(name, fn, dtype) for tf, ge, fn, dtype in REDUCTIONS for name in (tf, ge)]


@st.composite
def reduction_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int]]:
    shape = draw(shapes)
    rank = len(shape)
    # One past each end is out of range; repeats are allowed.
    axes = draw(st.lists(st.integers(-rank - 1, rank), max_size=4))
    return shape, axes


@given(
    op=st.sampled_from(OPS),
    case=reduction_cases(),
    keep_dims=st.booleans(),
    axes_dtype=st.sampled_from([np.int32, np.int64]),
)
def test_reductions_match_numpy(
    op: tuple[str, Reduce, type[np.generic]],
    case: tuple[tuple[int, ...], list[int]],
    keep_dims: bool,
    axes_dtype: type[np.generic],
) -> None:
    op_type, reduce, dtype = op
    shape, axes = case
    x = np.ones(shape, dtype)
    axes_value = np.array(axes, axes_dtype)
    inputs: list[Feed] = [desc(shape, dtype_of(x)), axes_value]
    rank = len(shape)
    if any(not -rank <= a < rank for a in axes):
        with pytest.raises(opgraph.InferShapeError, match="out of range"):
            infer_output(op_type, inputs, {"keep_dims": keep_dims})
        return
    # numpy rejects repeated axes; TensorFlow reduces each axis once.
    unique = tuple(sorted({a % rank for a in axes}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's mean of an empty slice
        expected = np.asarray(reduce(x, axis=unique, keepdims=keep_dims))
    out = infer_output(op_type, inputs, {"keep_dims": keep_dims})
    assert out.shape == expected.shape
    assert out.dtype == dtype_of(x)


@pytest.mark.parametrize("op_type", ["Sum", "ReduceMax"])
@pytest.mark.parametrize(
    ("x", "axes_len", "keep_dims", "expected"),
    [
        ((2, 3, 4), 2, True, (-1, -1, -1)),
        ((2, 3, 4), 2, False, (-2,)),
        ((2, -1), -1, True, (-1, -1)),
        ((-2,), 1, True, (-2,)),
        # An empty axes vector reduces nothing, whatever its value.
        ((2, -1, 4), 0, False, (2, -1, 4)),
    ],
)
def test_unknown_axes_values(
    op_type: str, x: tuple[int, ...], axes_len: int, keep_dims: bool, expected: tuple[int, ...]
) -> None:
    axes = desc([axes_len], DataType.INT32)
    assert infer_output(op_type, [desc(x), axes], {"keep_dims": keep_dims}).shape == expected


def test_scalar_axis_and_unknown_dims() -> None:
    out = infer_output("Mean", [desc([-1, 5, -1]), np.array(-1, np.int64)], {"keep_dims": True})
    assert out.shape == (-1, 5, 1)
    assert infer_output("ReduceSum", [desc([-1, 5, -1]), np.array([0, 2], np.int32)]).shape == (5,)


def test_unknown_input_rank_stays_unknown() -> None:
    assert infer_output("Sum", [desc([-2]), np.array([0], np.int32)]).shape == (-2,)


def test_axes_must_be_at_most_1d_and_integer() -> None:
    with pytest.raises(opgraph.InferShapeError, match="1-D"):
        infer_output("Sum", [desc([2, 3]), np.zeros((1, 1), np.int32)])
    with pytest.raises(opgraph.NodeError):
        infer_output("Sum", [desc([2, 3]), np.zeros(1, np.float32)])


def test_all_and_any_take_bool_only() -> None:
    with pytest.raises(opgraph.NodeError):
        infer_output("All", [desc([2], DataType.FLOAT), np.array([0], np.int32)])
