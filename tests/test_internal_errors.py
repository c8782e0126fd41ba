"""A panic inside opgraph (its own bug) is an InternalError with the panic's
message and source location, never a VerifyError / InferShapeError, and it
leaves the graph unusable until it is rebuilt (issue 12)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from helpers import assert_typed_error, unique_name

import opgraph
from opgraph import DataType, Graph, InferShapeError, InternalError, OpgraphError, _core


def _graph_with_a_panicking_node() -> Graph:
    # _register_panicking_op is a test-only hook: a Rust shape function that
    # panics, so the panic takes the engine's real path.
    op_type = unique_name("Panics")
    _core._register_panicking_op(op_type)
    graph = Graph("victim")
    x = graph.add_input("x", DataType.FLOAT, [2, 3])
    graph.add_node(op_type, "boom", [x])
    return graph


def test_a_panic_is_an_internal_error_with_its_location() -> None:
    graph = _graph_with_a_panicking_node()
    with pytest.raises(InternalError) as info:
        opgraph.infer(graph)
    error = info.value
    assert isinstance(error, OpgraphError) and not isinstance(error, InferShapeError)
    assert error.node == "boom"
    message = str(error)
    assert "deliberate test panic in a shape function" in message
    assert re.search(r" at rust/py/src/registry\.rs:\d+:\d+", message), message
    assert error.location is not None and re.fullmatch(r"rust/py/src/registry\.rs:\d+:\d+", error.location)
    assert "please report it" in message


def test_collect_errors_raises_it_too() -> None:
    graph = _graph_with_a_panicking_node()
    with pytest.raises(InternalError):
        opgraph.infer(graph, collect_errors=True)


def test_the_graph_is_unusable_afterwards() -> None:
    graph = _graph_with_a_panicking_node()
    with pytest.raises(InternalError):
        opgraph.infer(graph)
    later: list[Callable[[], object]] = [
        lambda: opgraph.infer(graph),
        lambda: graph.nodes(),
        lambda: graph.node("x"),
        lambda: graph.copy(),
        lambda: graph.add_input("y", DataType.FLOAT, [1]),
        lambda: opgraph.prepare(graph),
        lambda: opgraph.plan_memory(graph),
        lambda: opgraph.estimate_cost(graph),
        lambda: Graph("user").add_node("PartitionedCall", "c", [], subgraphs={"f": graph}),
    ]
    for call in later:
        with pytest.raises(InternalError, match=r"graph 'victim' is unusable.*deliberate test panic"):
            call()
    assert "unusable" in repr(graph)


def test_other_graphs_are_unaffected() -> None:
    broken = _graph_with_a_panicking_node()
    with pytest.raises(InternalError):
        opgraph.infer(broken)
    fine = Graph()
    x = fine.add_input("x", DataType.FLOAT, [2])
    fine.add_node("Relu", "r", [x])
    assert opgraph.infer(fine) == []


def test_assert_typed_error_rejects_internal_errors() -> None:
    with pytest.raises(AssertionError, match="internal error"):
        assert_typed_error(InternalError("internal error in opgraph: boom"))
    with pytest.raises(AssertionError, match="message"):
        assert_typed_error(InferShapeError("x" * 100_000))
    assert_typed_error(InferShapeError("fine"), InferShapeError)
