"""The GE-named reductions with ONNX's meaning (ReduceSum ... ReduceProd,
and the ONNX-only ReduceL1 ... ReduceSumSquare): optional axes and
`noop_with_empty_axes` against the ONNX reference implementation; the
default keeps TensorFlow's meaning (no axes reduce nothing)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from array_helpers import i64, run
from hypothesis import assume, given
from hypothesis import strategies as st
from onnx_helpers import onnx_run

import opgraph
from opgraph import DataType, TensorDesc

OPS = [
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceSumSquare",
]


@st.composite
def reduce_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int] | None]:
    shape = tuple(draw(st.lists(st.integers(1, 3), max_size=4)))
    rank = len(shape)
    if draw(st.booleans()):
        return shape, None
    if rank == 0:
        return shape, []
    picked = draw(st.lists(st.integers(0, rank - 1), max_size=rank, unique=True))
    return shape, [a - rank if draw(st.booleans()) else a for a in picked]


@given(op_type=st.sampled_from(OPS), case=reduce_cases(), keep=st.booleans(), noop=st.booleans())
def test_reductions_match_the_onnx_reference(
    op_type: str, case: tuple[tuple[int, ...], list[int] | None], keep: bool, noop: bool
) -> None:
    shape, axes = case
    # The reference's ReduceLogSumExp fails on a scalar (a numpy scalar
    # where it wants an array).
    assume(shape or op_type != "ReduceLogSumExp")
    x = np.ones(shape, np.float32)
    axes_value = None if axes is None else i64(axes)
    expected = onnx_run(op_type, [x, axes_value], {"keepdims": int(keep), "noop_with_empty_axes": int(noop)})
    attrs = {"keep_dims": keep, "noop_with_empty_axes": noop}
    out = run(op_type, [TensorDesc(DataType.FLOAT, shape), axes_value], attrs)[0]
    assert out.shape == expected.shape
    assert out.dtype == DataType.FLOAT


@pytest.mark.parametrize("op_type", ["ReduceSum", "ReduceProd"])
@pytest.mark.parametrize("axes", [None, [], [1], [-1, 0]])
def test_integer_sums_and_products_fold_like_the_reference(op_type: str, axes: list[int] | None) -> None:
    x = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    axes_value = None if axes is None else i64(axes)
    for keep in (False, True):
        expected = onnx_run(op_type, [x, axes_value], {"keepdims": int(keep), "noop_with_empty_axes": 0})
        attrs: dict[str, Any] = {"keep_dims": keep, "noop_with_empty_axes": False}
        out = run(op_type, [x, axes_value], attrs, fold_limit=1 << 10)[0]
        assert out.shape == expected.shape
        np.testing.assert_array_equal(out.value, expected)


def test_the_default_keeps_tensorflows_meaning() -> None:
    x = TensorDesc(DataType.FLOAT, (2, -1, 3))
    assert run("ReduceSum", [x, None])[0].shape == (2, -1, 3)
    assert run("ReduceMean", [x, i64([])])[0].shape == (2, -1, 3)
    assert run("ReduceMax", [x, i64([1, 1])])[0].shape == (2, 3)


def test_every_dim_of_an_unknown_rank_and_unknown_axes() -> None:
    unknown = TensorDesc(DataType.FLOAT, (-2,))
    onnx_all = {"noop_with_empty_axes": False}
    assert run("ReduceL2", [unknown, None], onnx_all)[0].shape == ()
    assert run("ReduceL2", [unknown, None], {**onnx_all, "keep_dims": True})[0].shape == (-2,)
    x = TensorDesc(DataType.FLOAT, (2, -1, 3))
    assert run("ReduceLogSumExp", [x, None], {**onnx_all, "keep_dims": True})[0].shape == (1, 1, 1)
    some = TensorDesc(DataType.INT64, (1,))
    assert run("ReduceSumSquare", [x, some], {**onnx_all, "keep_dims": True})[0].shape == (-1, -1, -1)
    with pytest.raises(opgraph.InferShapeError, match="out of range"):
        run("ReduceL1", [x, i64([3])], onnx_all)
