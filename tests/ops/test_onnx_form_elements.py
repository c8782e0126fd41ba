"""PadV3 (ONNX Pad 11+ / 18), NonZero, GatherElements, ScatterElements,
ScatterND, Trilu and Mod against the ONNX reference implementation:
inferred shapes and dtypes, Mod's folded integer values, and the errors
ONNX rejects."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from array_helpers import as_input, i64, run
from hypothesis import given
from hypothesis import strategies as st
from onnx_helpers import onnx_run

import opgraph
from opgraph import DataType, TensorDesc

MODES = ["constant", "reflect", "edge", "wrap"]


@st.composite
def pad_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int], list[int] | None, str]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    rank = len(shape)
    mode = draw(st.sampled_from(MODES))
    axes: list[int] | None = None
    padded = list(range(rank))
    if draw(st.booleans()):
        padded = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
        axes = [a - rank if draw(st.booleans()) else a for a in padded]
    # Reflect needs pads below the dim; negative pads crop (constant only in
    # the reference), never below 0.
    lo = -1 if mode == "constant" else 0

    def pad(a: int) -> int:
        hi = shape[a] - 1 if mode == "reflect" else 3
        return draw(st.integers(max(lo, -(shape[a] // 2)), max(hi, 0)))

    pads = [pad(a) for a in padded] + [pad(a) for a in padded]
    return shape, pads, axes, mode


@given(case=pad_cases())
def test_pad_matches_the_onnx_reference(
    case: tuple[tuple[int, ...], list[int], list[int] | None, str],
) -> None:
    shape, pads, axes, mode = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    axes_value = None if axes is None else i64(axes)
    # The reference cannot crop: pad by the positive pads, then crop.
    grown = onnx_run("Pad", [x, i64([max(p, 0) for p in pads]), None, axes_value], {"mode": mode})
    n = len(pads) // 2
    named = range(len(shape)) if axes is None else [a % len(shape) for a in axes]
    crop = [slice(None)] * len(shape)
    for k, a in enumerate(named):
        crop[a] = slice(max(-pads[k], 0), grown.shape[a] - max(-pads[n + k], 0))
    expected = grown[tuple(crop)]
    out = run("PadV3", [as_input(x), i64(pads), None, axes_value], {"mode": mode})[0]
    assert out.shape == expected.shape and out.dtype == DataType.FLOAT


def test_pad_with_a_constant_value_unknown_dims_and_unknown_pads() -> None:
    x = TensorDesc(DataType.FLOAT, (-1, 3))
    value = np.array(2.5, np.float32)
    assert run("PadV3", [x, i64([1, 1, 0, 2]), value])[0].shape == (-1, 6)
    pads = TensorDesc(DataType.INT64, (2,))
    assert run("PadV3", [x, pads, None, i64([1])])[0].shape == (-1, -1)
    assert run("PadV3", [TensorDesc(DataType.FLOAT, (2, 3)), pads, None, i64([0])])[0].shape == (-1, 3)
    with pytest.raises(opgraph.OpgraphError, match="mode"):
        run("PadV3", [x, i64([0, 0, 0, 0])], {"mode": "symmetric"})
    with pytest.raises(opgraph.InferShapeError, match=">= 0"):
        run("PadV3", [x, i64([0, -2, 0, -2])])
    with pytest.raises(opgraph.InferShapeError, match="needs 4"):
        run("PadV3", [x, i64([1, 1])])
    with pytest.raises(opgraph.OpgraphError, match="must match"):
        run("PadV3", [x, i64([1, 1, 1, 1]), np.array(1, np.int32)])


@given(shape=st.lists(st.integers(0, 3), max_size=3).map(tuple))
def test_nonzero_is_rank_by_count(shape: tuple[int, ...]) -> None:
    x = np.ones(shape, np.float32)
    expected = onnx_run("NonZero", [x])
    out = run("NonZero", [as_input(x)])[0]
    assert out.dtype == DataType.INT64
    count = expected.shape[1]
    # The count is data-dependent: unknown unless x is empty.
    assert out.shape == (len(shape), 0 if count == 0 and 0 in shape else -1)
    if x.size and out.shape_range is not None:
        assert out.shape_range[1] == (0, x.size)


def test_nonzero_count_range_comes_from_the_input_range() -> None:
    g = opgraph.Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 4), shape_range=[(1, 8), (4, 4)])
    y = g.add_node("NonZero", "y", [x])
    opgraph.infer(g)
    assert g.desc(y).shape == (2, -1)
    assert g.desc(y).shape_range == [(2, 2), (0, 32)]


@st.composite
def gather_elements_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    # The reference needs the other dims equal (the spec allows smaller).
    ishape = tuple(draw(st.integers(1, 4)) if i == axis % len(shape) else d for i, d in enumerate(shape))
    return shape, ishape, axis


@given(case=gather_elements_cases(), dtype=st.sampled_from([np.int32, np.int64]))
def test_gather_elements_has_the_shape_of_indices(
    case: tuple[tuple[int, ...], tuple[int, ...], int], dtype: Any
) -> None:
    shape, ishape, axis = case
    x = np.arange(int(np.prod(shape)), dtype=np.float16).reshape(shape)
    indices = (np.arange(int(np.prod(ishape))) % shape[axis]).astype(dtype).reshape(ishape)
    # The reference does not count a negative axis from the end.
    expected = onnx_run("GatherElements", [x, indices], {"axis": axis % len(shape)})
    out = run("GatherElements", [as_input(x), indices], {"axis": axis})[0]
    assert out.shape == expected.shape and out.dtype == DataType.FLOAT16


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
def test_scatters_follow_data(reduction: str) -> None:
    data = np.zeros((3, 4), np.float32)
    indices = i64([[1, 0], [2, 3]])
    updates = np.ones((2, 2), np.float32)
    attrs = {"axis": 1, "reduction": reduction}
    expected = onnx_run("ScatterElements", [data, indices, updates], attrs)
    out = run("ScatterElements", [as_input(data), indices, as_input(updates)], attrs)[0]
    assert out.shape == expected.shape and out.dtype == DataType.FLOAT
    nd_indices = i64([[0], [2]])
    nd_updates = np.ones((2, 4), np.float32)
    expected = onnx_run("ScatterND", [data, nd_indices, nd_updates], {"reduction": reduction})
    out = run("ScatterND", [as_input(data), nd_indices, as_input(nd_updates)], {"reduction": reduction})[0]
    assert out.shape == expected.shape and out.dtype == DataType.FLOAT


@pytest.mark.parametrize(
    ("op_type", "inputs", "attrs", "message"),
    [
        ("GatherElements", [TensorDesc(DataType.FLOAT, (2, 3)), i64([0, 1])], {}, "ranks"),
        ("GatherElements", [TensorDesc(DataType.FLOAT, (2, 3)), i64([[0]])], {"axis": 2}, "out of range"),
        (
            "ScatterElements",
            [TensorDesc(DataType.FLOAT, (2, 3)), i64([[0, 1]]), TensorDesc(DataType.FLOAT, (1, 3))],
            {},
            "same shape",
        ),
        (
            "ScatterElements",
            [TensorDesc(DataType.FLOAT, (2, 3)), i64([[0]]), TensorDesc(DataType.FLOAT, (1, 1))],
            {"reduction": "sum"},
            "reduction",
        ),
        (
            "ScatterND",
            [TensorDesc(DataType.FLOAT, (2, 3)), i64([[0]]), TensorDesc(DataType.FLOAT, (1, 2))],
            {},
            r"must have shape \[1, 3\]",
        ),
        (
            "ScatterND",
            [TensorDesc(DataType.FLOAT, (2, 3)), i64([[0, 0, 0]]), TensorDesc(DataType.FLOAT, (1,))],
            {},
            "more than the rank",
        ),
        ("Trilu", [TensorDesc(DataType.FLOAT, (3,))], {}, "rank >= 2"),
        ("Trilu", [TensorDesc(DataType.FLOAT, (3, 3)), i64([1, 2])], {}, "one value"),
        # Floats take either fmod since opset 28 (floor for 0, as numpy's mod).
        ("Mod", [TensorDesc(DataType.FLOAT, (3,)), TensorDesc(DataType.FLOAT, (3,))], {"fmod": 2}, "0 or 1"),
        ("Mod", [TensorDesc(DataType.INT32, (3,)), TensorDesc(DataType.INT32, (2,))], {}, "broadcast"),
    ],
)
def test_bad_inputs_are_typed_errors(
    op_type: str, inputs: list[Any], attrs: dict[str, Any], message: str
) -> None:
    with pytest.raises(opgraph.OpgraphError, match=message):
        run(op_type, inputs, attrs)


@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("k", [None, -1, 2])
def test_trilu_follows_x(upper: int, k: int | None) -> None:
    x = np.ones((2, 3, 4), np.int32)
    k_value = None if k is None else np.array(k, np.int64)
    expected = onnx_run("Trilu", [x, k_value], {"upper": upper})
    out = run("Trilu", [TensorDesc(DataType.INT32, (-1, 3, 4)), k_value], {"upper": upper})[0]
    assert out.shape == (-1, 3, 4) and expected.shape == (2, 3, 4)
    assert out.dtype == DataType.INT32


@given(
    a=st.lists(st.integers(-50, 50), min_size=1, max_size=6),
    b=st.integers(-7, 7).filter(lambda v: v != 0),
    fmod=st.sampled_from([0, 1]),
    dtype=st.sampled_from([np.int32, np.int64]),
)
def test_integer_mod_folds_like_the_reference(a: list[int], b: int, fmod: int, dtype: Any) -> None:
    x1 = np.array(a, dtype).reshape(len(a), 1)
    x2 = np.array([b, -b], dtype)
    expected = onnx_run("Mod", [x1, x2], {"fmod": fmod})
    out = run("Mod", [x1, x2], {"fmod": fmod}, fold_limit=1 << 10)[0]
    assert out.shape == expected.shape and out.dtype == DataType.from_numpy(np.dtype(dtype))
    np.testing.assert_array_equal(out.value, expected)
    inferred = run("Mod", [TensorDesc(out.dtype, (-1, 1)), x2], {"fmod": fmod})[0]
    assert inferred.shape == (-1, 2)


def test_float_mod_with_fmod_1_broadcasts() -> None:
    x1 = np.array([[5.5], [-5.5]], np.float32)
    x2 = np.array([2.0, -2.0, 3.0], np.float32)
    expected = onnx_run("Mod", [x1, x2], {"fmod": 1})
    out = run("Mod", [as_input(x1), as_input(x2)], {"fmod": 1})[0]
    assert out.shape == expected.shape and out.dtype == DataType.FLOAT
