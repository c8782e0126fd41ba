"""GE's merge rule, as If (two branches) and Merge (n inputs) apply it:
hand-computed cases and properties over random shapes."""

from __future__ import annotations

import pytest
from control_helpers import F, body, generalises, if_graph, merge_reference
from helpers import desc
from hypothesis import given
from hypothesis import strategies as st

import opgraph
from opgraph import DataType, Graph

BOOL_SCALAR = desc([], DataType.BOOL)

shapes = st.one_of(
    st.just((-2,)),
    st.lists(st.sampled_from([-1, 0, 1, 2, 3]), max_size=4).map(tuple),
)


def if_merge(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The output shape of an If whose branches return input a / input b."""
    g, out = if_graph(BOOL_SCALAR, [desc(a), desc(b)], body("t", [1]), body("e", [2]), 1)
    opgraph.infer(g)
    return g.desc(out).shape


def merge_op(inputs: list[tuple[int, ...]]) -> tuple[tuple[int, ...], tuple[int, ...], DataType]:
    """(y shape, value_index shape, value_index dtype) of Merge(inputs)."""
    g = Graph()
    xs = [g.add_input(f"x{k}", F, s) for k, s in enumerate(inputs)]
    y = g.add_node("Merge", "m", [xs])
    opgraph.infer(g)
    idx = g.desc(y.output(1))
    return g.desc(y).shape, idx.shape, idx.dtype


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        ((2, 3), (2, 3), (2, 3)),
        ((2, 3), (2, 4), (2, -1)),
        ((2, 3), (5, 4), (-1, -1)),
        ((-1, 3), (2, 3), (-1, 3)),
        ((), (), ()),
        ((), (1,), (-2,)),
        ((2, 3), (2, 3, 1), (-2,)),
        ((-2,), (2,), (-2,)),
        ((0,), (1,), (-1,)),
    ],
)
def test_hand_computed_merges(a: tuple[int, ...], b: tuple[int, ...], want: tuple[int, ...]) -> None:
    assert if_merge(a, b) == want
    assert if_merge(b, a) == want
    assert merge_op([a, b])[0] == want


@given(shapes, shapes)
def test_if_output_is_the_most_specific_generalisation(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    merged = if_merge(a, b)
    assert merged == merge_reference([a, b])
    assert generalises(merged, a)
    assert generalises(merged, b)


@given(st.lists(shapes, min_size=1, max_size=4))
def test_merge_op_joins_all_its_inputs(inputs: list[tuple[int, ...]]) -> None:
    y, index_shape, index_dtype = merge_op(inputs)
    assert y == merge_reference(inputs)
    assert all(generalises(y, s) for s in inputs)
    assert (index_shape, index_dtype) == ((), DataType.INT32)
