"""What a user's verify / infer_dtype / infer_shape function gives back is
checked, not ignored: a value where None is expected, a verdict that is not a
bool, a shape range that does not fit the shape it set. And Ctrl-C in one
stops inference instead of becoming one node's failure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers import desc, one_node_graph, unique_name

import opgraph
from opgraph import DataType, InferDataTypeError, InferShapeError, OpDef, VerifyError
from opgraph.errors import InvalidShapeError


def op_with(**functions: Callable[[Any], Any]) -> str:
    """A fresh op x -> y (y follows x) with the given functions."""
    op = OpDef(unique_name("Checked"))
    op.input("x")
    op.output("y", follow="x")
    for kind, function in functions.items():
        getattr(op, kind)(function)
    opgraph.register(op)
    return op.op_type


def infer(op_type: str, shape: tuple[int, ...] = (2, 10)) -> opgraph.TensorDesc:
    graph, out = one_node_graph(op_type, [desc(list(shape), DataType.FLOAT)])
    opgraph.infer(graph)
    return graph.desc(out)


@pytest.mark.parametrize("verdict", [0, 0xFFFFFFFF, "no", [False]])
def test_a_verify_function_returning_no_bool_is_a_verify_error(verdict: object) -> None:
    """GE's status codes included: 0 would otherwise pass as 'accepted'."""
    op_type = op_with(verify=lambda ctx: verdict)
    with pytest.raises(VerifyError, match=r"returned .*; a verify function returns True or None to accept"):
        infer(op_type)


@pytest.mark.parametrize(("verdict", "accepted"), [(np.bool_(True), True), (np.bool_(False), False)])
def test_a_verify_function_may_return_numpy_bools(verdict: object, accepted: bool) -> None:
    op_type = op_with(verify=lambda ctx: verdict)
    if accepted:
        assert infer(op_type).shape == (2, 10)
    else:
        with pytest.raises(VerifyError, match="returned False"):
            infer(op_type)


def test_an_infer_dtype_function_returning_the_dtype_is_an_error() -> None:
    """The dtype would otherwise stay the input's, silently."""
    op_type = op_with(infer_dtype=lambda ctx: DataType.FLOAT16)
    with pytest.raises(
        InferDataTypeError, match=r"returned DataType .*ctx.set_output_dtype\) and returns None"
    ):
        infer(op_type)


def test_an_infer_shape_function_returning_a_value_is_its_own_error_not_the_nodes() -> None:
    op_type = op_with(infer_shape=lambda ctx: [2, 10])
    with pytest.raises(InferShapeError, match=r"returned list \[2, 10\].*ctx.set_output_shape\)") as raised:
        infer(op_type)
    assert not isinstance(raised.value, InvalidShapeError)
    assert isinstance(raised.value.__cause__, TypeError)


def setting_range(shape: list[int], ranges: list[tuple[int, int]]) -> Callable[[Any], None]:
    def infer_shape(ctx: Any) -> None:
        ctx.set_output_shape(0, shape)
        ctx.set_output_shape_range(0, ranges)

    return infer_shape


@pytest.mark.parametrize(
    ("shape", "ranges", "expected"),
    [
        ([-1, 4], [(5, 2), (4, 4)], r"dim 0's range \(5, 2\) is not a range of sizes"),
        ([-1, 4], [(-7, 3), (4, 4)], r"dim 0's range \(-7, 3\)"),
        ([-1, 4], [(1, 8)], r"it needs one \(min, max\) per dim, got 1"),
        ([-1, 4], [(1, 8), (1, 2)], r"dim 1's range \(1, 2\) .* holding the dim \(4\)"),
    ],
)
def test_a_shape_range_that_does_not_fit_the_shape_set_is_an_error(
    shape: list[int], ranges: list[tuple[int, int]], expected: str
) -> None:
    """The same range on a graph input is refused; from an infer function it
    was carried on to the readers and planned with."""
    op_type = op_with(infer_shape=setting_range(shape, ranges))
    with pytest.raises(InferShapeError, match=expected):
        infer(op_type)


def test_a_shape_range_that_fits_is_kept() -> None:
    op_type = op_with(infer_shape=setting_range([-1, 4], [(1, 8), (4, 4)]))
    out = infer(op_type)
    assert (out.shape, out.shape_range) == ((-1, 4), [(1, 8), (4, 4)])


@pytest.mark.parametrize("collect_errors", [False, True])
def test_keyboard_interrupt_in_an_infer_function_stops_inference(collect_errors: bool) -> None:
    """Raised as itself, and no other node's function runs after it, even
    when failures are collected."""
    called: list[str] = []

    def interrupted(ctx: Any) -> None:
        called.append(ctx.node_name)
        raise KeyboardInterrupt

    op_type = op_with(infer_shape=interrupted)
    graph = opgraph.Graph("g")
    for name in ("a", "b"):
        graph.add_node(op_type, name, [graph.add_input(f"x_{name}", DataType.FLOAT, [2])])
    with pytest.raises(KeyboardInterrupt):
        opgraph.infer(graph, collect_errors=collect_errors)
    assert len(called) == 1
