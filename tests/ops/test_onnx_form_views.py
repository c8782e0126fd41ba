"""SqueezeV3, UnsqueezeV3 (ONNX Squeeze / Unsqueeze, opset 13+), Expand
(ONNX Expand) and Shape's ONNX `start` / `end` (opset 15) against the ONNX
reference implementation: folded values, inferred shapes, and the errors
ONNX rejects."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from array_helpers import as_input, check, i32, i64, run
from hypothesis import given
from hypothesis import strategies as st
from onnx_helpers import onnx_run

import opgraph
from opgraph import DataType, Graph, TensorDesc

small_shapes = st.lists(st.integers(0, 4), max_size=4).map(tuple)


def values(shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


@st.composite
def squeeze_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int] | None]:
    shape = tuple(draw(st.lists(st.sampled_from([1, 1, 2, 3]), max_size=4)))
    ones = [i for i, d in enumerate(shape) if d == 1]
    if not ones or draw(st.booleans()):
        return shape, None
    picked = draw(st.lists(st.sampled_from(ones), min_size=1, unique=True))
    return shape, [a - len(shape) if draw(st.booleans()) else a for a in picked]


@given(case=squeeze_cases())
def test_squeeze_matches_the_onnx_reference(case: tuple[tuple[int, ...], list[int] | None]) -> None:
    shape, axes = case
    x = values(shape)
    inputs: list[Any] = [x, None if axes is None else i64(axes)]
    check("SqueezeV3", inputs, onnx_run("Squeeze", inputs))


@st.composite
def unsqueeze_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[int]]:
    shape = draw(small_shapes)
    n = draw(st.integers(1, 3))
    out_rank = len(shape) + n
    picked = draw(st.lists(st.integers(0, out_rank - 1), min_size=n, max_size=n, unique=True))
    return shape, [a - out_rank if draw(st.booleans()) else a for a in picked]


@given(case=unsqueeze_cases(), dtype=st.sampled_from([np.int32, np.int64]))
def test_unsqueeze_matches_the_onnx_reference(case: tuple[tuple[int, ...], list[int]], dtype: Any) -> None:
    shape, axes = case
    inputs = [values(shape), np.array(axes, np.int64)]
    expected = onnx_run("Unsqueeze", inputs)
    check("UnsqueezeV3", [inputs[0], np.array(axes, dtype)], expected)


def test_squeeze_and_unsqueeze_with_unknown_dims_and_values() -> None:
    x = TensorDesc(DataType.FLOAT, (1, -1, 3))
    assert run("SqueezeV3", [x, i64([1])])[0].shape == (1, 3)
    assert run("SqueezeV3", [x, None])[0].shape == (-2,)  # the -1 may be 1
    assert run("SqueezeV3", [TensorDesc(DataType.FLOAT, (1, 2, 1)), None])[0].shape == (2,)
    unknown = TensorDesc(DataType.INT64, (2,))
    assert run("SqueezeV3", [x, unknown])[0].shape == (-1,)
    assert run("UnsqueezeV3", [x, unknown])[0].shape == (-1,) * 5
    assert run("UnsqueezeV3", [x, i64([0, -1])])[0].shape == (1, 1, -1, 3, 1)


@pytest.mark.parametrize(
    ("op_type", "shape", "axes", "message"),
    [
        ("SqueezeV3", (1, 2), [1], "not 1"),
        ("SqueezeV3", (1, 2), [0, -2], "repeats"),
        ("SqueezeV3", (1, 2), [2], "out of range"),
        ("UnsqueezeV3", (2,), [0, 0], "repeats"),
        ("UnsqueezeV3", (2,), [2], "out of range"),
        ("UnsqueezeV3", (2,), [-3], "out of range"),
    ],
)
def test_squeeze_and_unsqueeze_errors(
    op_type: str, shape: tuple[int, ...], axes: list[int], message: str
) -> None:
    with pytest.raises(opgraph.InferShapeError, match=message):
        run(op_type, [as_input(values(shape)), i64(axes)])


@st.composite
def expand_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    base = draw(st.lists(st.integers(0, 3), max_size=4))

    def side() -> tuple[int, ...]:
        cut = draw(st.integers(0, len(base)))
        return tuple(1 if draw(st.booleans()) else d for d in base[cut:])

    return side(), side()


@given(case=expand_cases(), dtype=st.sampled_from([np.int32, np.int64]))
def test_expand_matches_the_onnx_reference(case: tuple[tuple[int, ...], tuple[int, ...]], dtype: Any) -> None:
    shape, target = case
    inputs = [values(shape), np.array(target, np.int64)]
    expected = onnx_run("Expand", inputs)
    check("Expand", [inputs[0], np.array(target, dtype)], expected)


def test_expand_with_unknown_dims_and_a_partial_target() -> None:
    x = TensorDesc(DataType.FLOAT, (-1, 1, 3))
    assert run("Expand", [x, i64([2, 1, 4, 1])])[0].shape == (2, -1, 4, 3)
    assert run("Expand", [x, TensorDesc(DataType.INT64, (2,))])[0].shape == (-1, -1, 3)
    with pytest.raises(opgraph.InferShapeError, match="cannot be broadcast"):
        run("Expand", [x, i64([2, 2])])
    with pytest.raises(opgraph.InferShapeError, match=">= 0"):
        run("Expand", [x, i64([-1])])
    # Expand(ones, Shape(y)): the broadcast of a partially known shape vector.
    g = Graph("g")
    y = g.add_input("y", DataType.FLOAT, (-1, 5))
    ones = g.add_const("ones", np.ones((1, 1), np.float32))
    out = g.add_node("Expand", "out", [ones, g.add_node("Shape", "s", [y], {"out_type": DataType.INT64})])
    opgraph.infer(g)
    assert g.desc(out).shape == (-1, 5)


window = st.one_of(st.none(), st.integers(-6, 6), st.sampled_from([-(2**63), 2**63 - 1]))


@given(shape=small_shapes, start=window, end=window)
def test_shape_start_end_match_the_onnx_reference(
    shape: tuple[int, ...], start: int | None, end: int | None
) -> None:
    attrs: dict[str, Any] = {k: v for k, v in (("start", start), ("end", end)) if v is not None}
    if end is None or end >= -len(shape):
        expected = onnx_run("Shape", [np.zeros(shape, np.float32)], attrs)
    else:
        # The reference evaluator adds the rank to a negative end without
        # clamping (then numpy counts from the end again); the spec clamps
        # to [0, rank], which is Python's list slicing.
        expected = np.array(list(shape)[start:end], np.int64)
    out = run("Shape", [TensorDesc(DataType.FLOAT, shape)], {**attrs, "out_type": DataType.INT64})[0]
    assert out.shape == expected.shape and out.dtype == DataType.INT64
    np.testing.assert_array_equal(out.value, expected)
    # With an unknown first dim the known entries are still known (Python's
    # list slicing is ONNX's window rule, checked against the reference above).
    if shape:
        partial_shape = (-1, *shape[1:])
        want = list(partial_shape)[start:end]
        partial = run(
            "Shape", [TensorDesc(DataType.FLOAT, partial_shape)], {**attrs, "out_type": DataType.INT64}
        )[0]
        assert partial.shape == (len(want),)
        if -1 in want and want != [-1]:
            assert partial.shape_value == tuple(want)
        elif want == [-1]:
            assert partial.value is None
        else:
            np.testing.assert_array_equal(partial.value, np.array(want, np.int64))


def test_shape_window_of_an_unknown_rank_has_a_bounded_length() -> None:
    unknown = TensorDesc(DataType.FLOAT, (-2,))
    out = run("Shape", [unknown], {"start": 1, "end": 3})[0]
    assert out.shape == (-1,) and out.shape_range == [(0, 2)]
    assert run("Shape", [unknown])[0].shape_range is None
    # TensorFlow's Shape is unchanged: the whole shape, INT32 by default.
    whole = run("Shape", [TensorDesc(DataType.FLOAT, (2, -1, 3))])[0]
    assert whole.dtype == DataType.INT32 and whole.shape_value == (2, -1, 3)
    sliced = run("Shape", [TensorDesc(DataType.FLOAT, (2, -1, 3))], {"start": -2})[0]
    assert sliced.shape_value == (-1, 3)
    np.testing.assert_array_equal(
        run("Shape", [TensorDesc(DataType.FLOAT, (2, -1, 3))], {"start": 2})[0].value, i32([3])
    )


def test_the_exported_reshape_chain_keeps_every_known_dim() -> None:
    # torch.onnx's x.view(x.size(0), x.size(1), 12, 64):
    # Shape -> Gather(0) -> Unsqueeze, Shape(start=1, end=2) -> Concat -> Reshape.
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 7, 768))
    shape = g.add_node("Shape", "shape", [x], {"out_type": DataType.INT64})
    batch = g.add_node("GatherV2", "batch", [shape, g.add_const("i0", i64(0)), g.add_const("ax0", i64(0))])
    batch_1d = g.add_node("UnsqueezeV3", "batch_1d", [batch, g.add_const("u0", i64([0]))])
    seq = g.add_node("Shape", "seq", [x], {"out_type": DataType.INT64, "start": 1, "end": 2})
    heads = g.add_const("heads", i64([12, 64]))
    target = g.add_node("ConcatV2", "target", [[batch_1d, seq, heads], g.add_const("ax", i32(0))])
    y = g.add_node("Reshape", "y", [x, target])
    opgraph.infer(g)
    assert g.desc(batch_1d).shape == (1,)
    np.testing.assert_array_equal(g.desc(seq).value, [7])
    assert g.desc(target).shape_value == (-1, 7, 12, 64)
    assert g.desc(y).shape == (-1, 7, 12, 64)
    # With a static batch every link folds to a whole value.
    g2 = Graph("g2")
    x2 = g2.add_input("x", DataType.FLOAT, (2, 7, 768))
    shape2 = g2.add_node("Shape", "shape", [x2], {"out_type": DataType.INT64})
    squeezed = g2.add_node(
        "SqueezeV3",
        "first",
        [
            g2.add_node(
                "StridedSliceV2",
                "head",
                [shape2, g2.add_const("b", i64([0])), g2.add_const("e", i64([1]))],
            ),
            None,
        ],
    )
    back = g2.add_node("UnsqueezeV3", "back", [squeezed, g2.add_const("u", i64([0, -1]))])
    grown = g2.add_node("Expand", "grown", [back, g2.add_const("t", i64([3, 1]))])
    opgraph.infer(g2)
    np.testing.assert_array_equal(g2.desc(squeezed).value, 2)
    assert g2.desc(squeezed).shape == ()
    np.testing.assert_array_equal(g2.desc(back).value, [[2]])
    np.testing.assert_array_equal(g2.desc(grown).value, [[2], [2], [2]])
