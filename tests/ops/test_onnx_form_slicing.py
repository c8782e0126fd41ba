"""StridedSliceV2 (ONNX Slice, opset 10+) against the ONNX reference
implementation: optional axes and steps, negative and out-of-range starts
and ends, INT64_MAX / INT64_MIN ends, negative steps; folded values and
inferred shapes, partially known shape vectors, and the errors ONNX
rejects."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from array_helpers import as_input, check, i32, i64, run
from helpers import Feed
from hypothesis import given
from hypothesis import strategies as st
from onnx import numpy_helper
from onnx_helpers import onnx_run

import opgraph
from opgraph import DataType, Graph

INT64_MIN, INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
bounds = st.one_of(st.integers(-8, 8), st.sampled_from([INT64_MIN, INT64_MAX]))


@st.composite
def slice_cases(draw: st.DrawFn) -> tuple[tuple[int, ...], list[Any], type[np.generic]]:
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=4)))
    rank = len(shape)
    with_axes = draw(st.booleans())
    if with_axes:
        picked = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
        axes: list[int] | None = [a - rank if draw(st.booleans()) else a for a in picked]
        n = len(picked)
    else:
        axes = None
        n = draw(st.integers(1, rank))
    starts = draw(st.lists(bounds, min_size=n, max_size=n))
    ends = draw(st.lists(bounds, min_size=n, max_size=n))
    steps = draw(
        st.one_of(st.none(), st.lists(st.sampled_from([-3, -2, -1, 1, 2, 3]), min_size=n, max_size=n))
    )
    dtype = (
        np.int64
        if draw(st.booleans()) or INT64_MIN in starts + ends or INT64_MAX in starts + ends
        else np.int32
    )
    return shape, [starts, ends, axes, steps], dtype


def spec_for_reference(shape: tuple[int, ...], spec: list[Any], dtype: Any) -> list[Any]:
    """The spec with one corner rewritten: a start below ``-dim`` with a
    negative step is clamped to 0 by the ONNX spec (and by onnx's own shape
    inference, see the test below) but to "before the first element" by the
    reference evaluator's numpy slicing; 0 means the same under the spec."""
    starts, ends, axes, steps = spec
    dims = [shape[a] for a in axes] if axes is not None else list(shape[: len(starts)])
    fixed = [
        0 if steps is not None and steps[k] < 0 and b < -d else b
        for k, (b, d) in enumerate(zip(starts, dims, strict=True))
    ]
    return [None if v is None else np.array(v, dtype) for v in (fixed, ends, axes, steps)]


def test_a_start_before_the_first_element_with_a_negative_step_is_clamped_to_0() -> None:
    # onnx's shape inference follows the spec's clamp to [0, dim - 1].
    inits = [
        numpy_helper.from_array(i64([INT64_MIN]), "s"),
        numpy_helper.from_array(i64([INT64_MIN]), "e"),
        numpy_helper.from_array(i64([-3]), "st"),
    ]
    node = onnx.helper.make_node("Slice", ["x", "s", "e", "", "st"], ["y"])
    graph = onnx.helper.make_graph(
        [node],
        "g",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.INT64, [4])],
        [onnx.helper.make_empty_tensor_value_info("y")],
        initializer=inits,
    )
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 18)])
    inferred = onnx.shape_inference.infer_shapes(model).graph.output[0]
    want = tuple(d.dim_value for d in inferred.type.tensor_type.shape.dim)
    out = run("StridedSliceV2", [i64([7, 8, 9, 10]), i64([INT64_MIN]), i64([INT64_MIN]), None, i64([-3])])[0]
    assert out.shape == want == (1,)
    np.testing.assert_array_equal(out.value, [7])


@given(case=slice_cases())
def test_slices_match_the_onnx_reference(case: tuple[tuple[int, ...], list[Any], type[np.generic]]) -> None:
    shape, spec, dtype = case
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    index: list[Any] = [None if v is None else np.array(v, dtype) for v in spec]
    expected = onnx_run("Slice", [x, *spec_for_reference(shape, spec, dtype)])
    check("StridedSliceV2", [x, *index], expected)


def test_unknown_dims_stay_unknown_and_whole_dims_keep_their_size() -> None:
    x = as_input(np.zeros((2, 3, 4), np.float32))
    feeds: list[Feed] = [
        opgraph.TensorDesc(DataType.FLOAT, (-1, 6, -1)),
        i64([0, 1]),
        i64([1, 4]),
        i64([0, 1]),
        None,
    ]
    assert run("StridedSliceV2", feeds)[0].shape == (-1, 3, -1)
    # Values unknown but the axes known: only the named dims are unknown.
    unknown = opgraph.TensorDesc(DataType.INT64, (1,))
    assert run("StridedSliceV2", [x, unknown, unknown, i64([-2]), None])[0].shape == (2, -1, 4)
    # No axes: the first len(begin) dims are sliced.
    assert run("StridedSliceV2", [x, unknown, unknown])[0].shape == (-1, 3, 4)
    unknown_axes = opgraph.TensorDesc(DataType.INT64, (1,))
    assert run("StridedSliceV2", [x, i64([0]), i64([1]), unknown_axes])[0].shape == (-1, -1, -1)


def test_a_partial_shape_vector_keeps_its_known_entries_through_concat_and_reshape() -> None:
    # The transformer pattern: Reshape(x, Concat([-1], Slice(Shape(x), 2, MAX)))
    # beside a slice that keeps the unknown batch dim.
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 7, 5, 3))
    shape = g.add_node("Shape", "shape", [x], {"out_type": DataType.INT64})
    head = g.add_node(
        "StridedSliceV2",
        "head",
        [shape, g.add_const("b", i64([0])), g.add_const("e", i64([2])), g.add_const("a", i64([0])), None],
    )
    tail = g.add_node(
        "StridedSliceV2", "tail", [shape, g.add_const("b2", i64([2])), g.add_const("e2", i64([INT64_MAX]))]
    )
    target = g.add_node(
        "ConcatV2", "target", [[g.add_const("m", i64([-1])), tail], g.add_const("ax", i32(0))]
    )
    y = g.add_node("Reshape", "y", [x, target])
    opgraph.infer(g)
    assert g.desc(head).shape_value == (-1, 7)
    np.testing.assert_array_equal(g.desc(tail).value, [5, 3])
    np.testing.assert_array_equal(g.desc(target).value, [-1, 5, 3])
    assert g.desc(y).shape == (-1, 5, 3)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ([i64([0, 0]), i64([1, 1]), i64([1, -1]), None], "repeats"),
        ([i64([0]), i64([1]), None, i64([0])], "non-zero"),
        ([i64([0]), i64([1, 2]), None, None], "same length"),
        ([i64([0]), i64([1]), i64([2]), None], "out of range"),
        ([i64([0]), i64([1]), i64([0]), i64([1, 1])], "strides has 2"),
        ([i64([[0]]), i64([1]), None, None], "1-D"),
    ],
)
def test_bad_specs_are_typed_errors(spec: list[Any], message: str) -> None:
    x = np.zeros((2, 2), np.float32)
    with pytest.raises(opgraph.InferShapeError, match=message):
        run("StridedSliceV2", [as_input(x), *spec])


@given(
    lo=st.integers(0, 6),
    extra=st.integers(0, 6),
    start=st.integers(-9, 9),
    end=st.one_of(st.integers(-9, 9), st.just(INT64_MAX)),
    step=st.sampled_from([-2, -1, 1, 2, 3]),
)
def test_an_unknown_dims_range_is_the_hull_of_its_slice_lengths(
    lo: int, extra: int, start: int, end: int, step: int
) -> None:
    hi = lo + extra
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 3), shape_range=[(lo, hi), (3, 3)])
    spec = [g.add_const(n, i64([v])) for n, v in (("b", start), ("e", end), ("a", 0), ("s", step))]
    y = g.add_node("StridedSliceV2", "y", [x, *spec])
    opgraph.infer(g)

    # Python's slicing is ONNX's rule but for a start before the first
    # element with a negative step, which ONNX clamps to 0.
    def length(d: int) -> int:
        b = 0 if step < 0 and start < -d else start
        return len(range(d)[b : min(end, 2**62) : step])

    lengths = [length(d) for d in range(lo, hi + 1)]
    assert g.desc(y).shape[1] == 3
    if len(set(lengths)) == 1:
        assert g.desc(y).shape[0] in (-1, lengths[0])
    else:
        assert g.desc(y).shape[0] == -1
        assert g.desc(y).shape_range == [(min(lengths), max(lengths)), (3, 3)]
