"""Ops along one axis against numpy on real arrays: ArgMax / ArgMin
(np.argmax), TopKV2 / TopK (np.sort / np.argsort), Softmax (a numpy
softmax), Cumsum (np.cumsum), and AddN (np.sum over np.stack)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from helpers import Feed, desc, infer_output
from hypothesis import given
from hypothesis import strategies as st
from math_helpers import blur, dtype_of, infer_outputs, sample, shapes

import opgraph
from opgraph import DataType, TensorDesc


@st.composite
def axis_cases(draw: st.DrawFn, min_rank: int = 0) -> tuple[tuple[int, ...], int]:
    """A shape and an axis, one past either end included."""
    shape = draw(shapes.filter(lambda s: len(s) >= min_rank))
    return shape, draw(st.integers(-len(shape) - 1, len(shape)))


# ---- ArgMax / ArgMin -----------------------------------------------------------------


@given(
    op_type=st.sampled_from(["ArgMax", "ArgMin"]),
    case=axis_cases(min_rank=1),
    output_type=st.sampled_from([None, DataType.INT32, DataType.INT64]),
)
def test_arg_extrema_match_numpy(
    op_type: str, case: tuple[tuple[int, ...], int], output_type: DataType | None
) -> None:
    shape, axis = case
    x = sample(shape)
    attrs = {} if output_type is None else {"output_type": output_type}
    inputs: list[Feed] = [desc(shape), np.array(axis, np.int32)]
    reference = np.argmax if op_type == "ArgMax" else np.argmin
    try:
        expected = reference(x, axis=axis)
    except (ValueError, np.exceptions.AxisError):
        with pytest.raises(opgraph.InferShapeError):
            infer_output(op_type, inputs, attrs)
        return
    out = infer_output(op_type, inputs, attrs)
    assert out.shape == np.shape(expected)
    assert out.dtype is (output_type or DataType.INT64)


@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_extrema_of_a_scalar_are_rejected(op_type: str) -> None:
    """numpy accepts axis 0 of a 0-d array; TensorFlow's range [-0, 0) is empty."""
    with pytest.raises(opgraph.InferShapeError, match="out of range"):
        infer_output(op_type, [desc([]), np.array(0, np.int32)])
    with pytest.raises(opgraph.InferShapeError, match="rank >= 1"):
        infer_output(op_type, [desc([]), desc([], DataType.INT32)])


def test_arg_max_with_unknown_dimension_value_drops_one_dim() -> None:
    assert infer_output("ArgMax", [desc([2, -1, 4]), desc([], DataType.INT64)]).shape == (-1, -1)
    assert infer_output("ArgMin", [desc([-2]), desc([], DataType.INT32)]).shape == (-2,)


def test_arg_max_rejects_bad_dimension_and_output_type() -> None:
    with pytest.raises(opgraph.VerifyError, match="scalar"):
        infer_output("ArgMax", [desc([2, 3]), np.array([1], np.int32)])
    with pytest.raises(opgraph.VerifyError, match="output_type"):
        infer_output("ArgMax", [desc([2, 3]), np.array(1, np.int32)], {"output_type": DataType.FLOAT})


# ---- TopK --------------------------------------------------------------------------


@given(shape=shapes.filter(len), k=st.integers(0, 5), op_type=st.sampled_from(["TopKV2", "TopK"]))
def test_top_k_matches_numpy_sort(shape: tuple[int, ...], k: int, op_type: str) -> None:
    x = sample(shape)
    inputs: list[Feed] = [desc(shape), np.array(k, np.int32)]
    if k > shape[-1]:
        with pytest.raises(opgraph.InferShapeError, match="larger than"):
            infer_outputs(op_type, inputs)
        return
    values = np.flip(np.sort(x, axis=-1), axis=-1)[..., :k]
    indices = np.flip(np.argsort(x, axis=-1), axis=-1)[..., :k]
    out_values, out_indices = infer_outputs(op_type, inputs)
    assert (out_values.shape, out_values.dtype) == (values.shape, dtype_of(values))
    assert (out_indices.shape, out_indices.dtype) == (indices.shape, DataType.INT32)


@given(case=axis_cases(min_rank=1), k=st.integers(0, 3))
def test_ge_top_k_takes_an_axis(case: tuple[tuple[int, ...], int], k: int) -> None:
    shape, dim = case
    inputs: list[Feed] = [desc(shape, DataType.INT32), np.array(k, np.int64)]
    if not -len(shape) <= dim < len(shape) or k > shape[dim]:
        with pytest.raises(opgraph.InferShapeError):
            infer_outputs("TopK", inputs, {"dim": dim})
        return
    expected = np.take(np.argsort(sample(shape), axis=dim), range(k), axis=dim).shape
    values, indices = infer_outputs("TopK", inputs, {"dim": dim, "largest": False})
    assert values.shape == indices.shape == expected
    assert values.dtype is DataType.INT32


def test_top_k_edge_cases() -> None:
    # Unknown k: the last dim is unknown; unknown input dim: k is not checked.
    assert infer_output("TopKV2", [desc([3, 5]), desc([], DataType.INT32)]).shape == (3, -1)
    assert infer_output("TopKV2", [desc([3, -1]), np.array(7, np.int32)]).shape == (3, 7)
    assert infer_output("TopKV2", [desc([-2]), np.array(7, np.int32)]).shape == (-2,)
    with pytest.raises(opgraph.InferShapeError, match="non-negative"):
        infer_output("TopKV2", [desc([3, 5]), np.array(-1, np.int32)])
    with pytest.raises(opgraph.InferShapeError, match="rank >= 1"):
        infer_output("TopKV2", [desc([]), np.array(0, np.int32)])
    with pytest.raises(opgraph.InferShapeError, match="scalar"):
        infer_output("TopKV2", [desc([3, 5]), np.array([1], np.int32)])


# ---- Softmax / LogSoftmax -------------------------------------------------------------


def softmax(x: npt.NDArray[Any], axis: int) -> npt.NDArray[Any]:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))
    return np.asarray(e / np.sum(e, axis=axis, keepdims=True))


@given(case=axis_cases(min_rank=1), dtype=st.sampled_from([np.float16, np.float32, np.float64]))
def test_softmax_keeps_numpys_shape(case: tuple[tuple[int, ...], int], dtype: type[np.generic]) -> None:
    shape, axis = case
    x = sample(shape, dtype)
    with np.errstate(all="ignore"):
        try:
            expected = softmax(x, axis)
        except (ValueError, np.exceptions.AxisError):
            with pytest.raises(opgraph.VerifyError, match="out of range"):
                infer_output("SoftmaxV2", [desc(shape, dtype_of(x))], {"axes": [axis]})
            return
    for op_type, attrs in [("SoftmaxV2", {"axes": [axis]}), ("LogSoftmaxV2", {"axes": [axis]})]:
        out = infer_output(op_type, [desc(shape, dtype_of(x))], attrs)
        assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))
    for op_type in ("Softmax", "LogSoftmax"):
        out = infer_output(op_type, [desc(shape, dtype_of(x))])
        assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))


def test_softmax_needs_an_axis_and_floats() -> None:
    # numpy would take axis -1 of a 0-d array; TensorFlow needs rank >= 1.
    with pytest.raises(opgraph.VerifyError, match="rank >= 1"):
        infer_output("Softmax", [desc([])])
    with pytest.raises(opgraph.VerifyError, match="out of range"):
        infer_output("SoftmaxV2", [desc([])])
    with pytest.raises(opgraph.NodeError):
        infer_output("Softmax", [desc([2], DataType.INT32)])
    with pytest.raises(opgraph.VerifyError, match="at least one"):
        infer_output("SoftmaxV2", [desc([2])], {"axes": []})
    assert infer_output("SoftmaxV2", [desc([-2])], {"axes": [5]}).shape == (-2,)


# ---- Cumsum ------------------------------------------------------------------------


@given(case=axis_cases(min_rank=1), exclusive=st.booleans(), reverse=st.booleans())
def test_cumsum_keeps_numpys_shape(case: tuple[tuple[int, ...], int], exclusive: bool, reverse: bool) -> None:
    shape, axis = case
    x = np.ones(shape, np.int32)
    inputs: list[Feed] = [desc(shape, DataType.INT32), np.array(axis, np.int64)]
    attrs = {"exclusive": exclusive, "reverse": reverse}
    try:
        expected = np.cumsum(x, axis=axis, dtype=x.dtype)
    except np.exceptions.AxisError:
        with pytest.raises(opgraph.VerifyError, match="out of range"):
            infer_output("Cumsum", inputs, attrs)
        return
    out = infer_output("Cumsum", inputs, attrs)
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))


def test_cumsum_axis_must_be_a_scalar() -> None:
    with pytest.raises(opgraph.VerifyError, match="scalar"):
        infer_output("Cumsum", [desc([2, 3]), np.array([0], np.int32)])
    assert infer_output("Cumsum", [desc([2, -1]), desc([], DataType.INT32)]).shape == (2, -1)


# ---- AddN --------------------------------------------------------------------------


@given(
    shape=shapes,
    n=st.integers(1, 4),
    hide=st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=4, max_size=4),
)
def test_add_n_matches_numpy_sum_of_stack(shape: tuple[int, ...], n: int, hide: list[list[bool]]) -> None:
    arrays = [sample(shape, seed=i) for i in range(n)]
    expected = np.sum(np.stack(arrays), axis=0)
    feeds: list[TensorDesc | npt.NDArray[Any]] = [desc(shape) for _ in range(n)]
    out = infer_output("AddN", [feeds], {"N": n})
    assert (out.shape, out.dtype) == (expected.shape, dtype_of(expected))
    # Each input hides different dims; together they still give every dim
    # that at least one of them knows.
    blurred: list[TensorDesc | npt.NDArray[Any]] = [desc(blur(shape, hide[i])) for i in range(n)]
    known_somewhere = tuple(d if not all(hide[i][j] for i in range(n)) else -1 for j, d in enumerate(shape))
    assert infer_output("AddN", [blurred], {"N": n}).shape == known_somewhere


def test_add_n_rejects_mismatches() -> None:
    with pytest.raises(opgraph.InferShapeError, match="does not match"):
        infer_output("AddN", [[desc([2, 3]), desc([2, 4])]], {"N": 2})
    with pytest.raises(opgraph.InferShapeError, match="does not match"):
        infer_output("AddN", [[desc([2, 3]), desc([6])]], {"N": 2})
    with pytest.raises(opgraph.NodeError, match="combinations"):
        infer_output("AddN", [[desc([2]), desc([2], DataType.INT32)]], {"N": 2})
    with pytest.raises(opgraph.VerifyError, match="N is 3"):
        infer_output("AddN", [[desc([2]), desc([2])]], {"N": 3})
    assert infer_output("AddN", [[desc([-2]), desc([-1, 3])]], {"N": 2}).shape == (-1, 3)
