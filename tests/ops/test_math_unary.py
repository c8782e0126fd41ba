"""Element-wise unary ops: shape, dtype and format are the input's, as
numpy's ufuncs on real arrays keep them; dtypes outside TensorFlow's lists
are rejected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import desc, infer_output
from hypothesis import given
from hypothesis import strategies as st
from math_helpers import blur, dtype_of, shapes

import opgraph
from opgraph import DataType, Format


def _sigmoid(x: Any) -> Any:
    return 1 / (1 + np.exp(-x))


Unary = Callable[[Any], Any]

FLOAT_OPS: dict[str, Unary] = {
    "Relu": lambda x: np.maximum(x, 0),
    "Relu6": lambda x: np.clip(x, 0, 6),
    "LeakyRelu": lambda x: np.where(x > 0, x, x * x.dtype.type(0.2)),
    "Elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "Selu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "Sigmoid": _sigmoid,
    "Tanh": np.tanh,
    "Exp": np.exp,
    "Log": np.log,
    "Sqrt": np.sqrt,
    "Rsqrt": lambda x: 1 / np.sqrt(x),
    "Reciprocal": np.reciprocal,
    "Square": np.square,
    "Neg": np.negative,
    "Abs": np.abs,
    "Sign": np.sign,
    "Erf": np.tanh,  # numpy has no erf; any element-wise map has the same shape
    "Gelu": lambda x: x * _sigmoid(x * x.dtype.type(1.702)),
    "Softplus": lambda x: np.log1p(np.exp(x)),
    "Swish": lambda x: x * _sigmoid(x),
    "Floor": np.floor,
    "Ceil": np.ceil,
    "Round": np.round,
}


@given(
    op_type=st.sampled_from(sorted(FLOAT_OPS)),
    shape=shapes,
    dtype=st.sampled_from([np.float16, np.float32, np.float64]),
    hide=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_unary_keeps_numpys_shape_and_dtype(
    op_type: str, shape: tuple[int, ...], dtype: type[np.generic], hide: list[bool]
) -> None:
    x = np.full(shape, 0.5, dtype)
    with np.errstate(all="ignore"):
        expected = FLOAT_OPS[op_type](x)
    assert expected.shape == shape and expected.dtype == x.dtype  # the reference really keeps them
    out = infer_output(op_type, [desc(shape, dtype_of(x))])
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))
    # Unknown dims stay where they are.
    assert infer_output(op_type, [desc(blur(shape, hide), dtype_of(x))]).shape == blur(shape, hide)


@pytest.mark.parametrize("op_type", ["Relu", "Square", "Neg", "Abs", "Sign", "Round", "Relu6"])
@pytest.mark.parametrize("dtype", [DataType.INT32, DataType.INT64, DataType.INT8])
def test_integer_unary_ops(op_type: str, dtype: DataType) -> None:
    out = infer_output(op_type, [desc([2, -1], dtype, Format.NHWC)])
    assert out == desc([2, -1], dtype, Format.NHWC)


def test_logical_not_takes_bool_only() -> None:
    x = np.array([[True, False]])
    expected = np.logical_not(x)
    out = infer_output("LogicalNot", [desc(x.shape, DataType.BOOL)])
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))
    with pytest.raises(opgraph.NodeError):
        infer_output("LogicalNot", [desc([2], DataType.FLOAT)])


@pytest.mark.parametrize(
    ("op_type", "dtype"),
    [
        ("Sqrt", DataType.INT32),
        ("Exp", DataType.BOOL),
        ("Erf", DataType.COMPLEX64),
        ("Neg", DataType.UINT8),
        ("Abs", DataType.UINT32),
        ("LeakyRelu", DataType.INT32),
        ("Floor", DataType.INT64),
    ],
)
def test_dtypes_outside_tensorflows_list_are_rejected(op_type: str, dtype: DataType) -> None:
    with pytest.raises(opgraph.NodeError, match="combinations"):
        infer_output(op_type, [desc([2], dtype)])


@pytest.mark.parametrize(
    ("op_type", "attrs"),
    [("LeakyRelu", {"alpha": 0.1}), ("Swish", {"scale": 2.0}), ("Elu", {"alpha": 0.5})],
)
def test_float_attributes_are_accepted(op_type: str, attrs: dict[str, float]) -> None:
    assert infer_output(op_type, [desc([-2])], attrs).shape == (-2,)


def test_attribute_defaults_follow_ge_and_tensorflow() -> None:
    defaults = {(op, a.name): a.default for op in ("LeakyRelu", "Swish") for a in opgraph.op_def(op).attrs}
    assert defaults == {("LeakyRelu", "alpha"): pytest.approx(0.2), ("Swish", "scale"): pytest.approx(1.0)}
