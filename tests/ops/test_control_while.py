"""While / StatelessWhile / _While: loop variables widened by the merge
rule against what the body makes of them (one body pass; see
rust/core/src/ops/control/while_loop.rs)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from control_helpers import F, body
from helpers import desc

import opgraph
from opgraph import DataType, Graph, OpgraphError, TensorDesc, TensorRef


def while_graph(
    inputs: list[TensorDesc],
    loop_body: Graph,
    cond: Graph | None = None,
    op_type: str = "While",
    attrs: dict[str, Any] | None = None,
) -> tuple[Graph, TensorRef]:
    g = Graph()
    xs = [g.add_input(f"x{k}", d.dtype, d.shape) for k, d in enumerate(inputs)]
    cond = cond if cond is not None else body("cond", [0], [0])
    node = g.add_node(
        op_type,
        "loop",
        [xs],
        attrs,
        subgraphs={"cond": cond, "body": loop_body},
        dynamic_outputs=[("output", len(inputs))],
    )
    return g, node


def add_body(pairs: list[tuple[int, int] | int], count: int) -> Graph:
    """Body over ``count`` loop variables ``a{k}``; output ``j`` is
    ``Add(a{p}, a{q})`` for a pair ``(p, q)`` or ``a{k}`` for an int."""
    g = Graph("body")
    args = [g.add_node("Data", f"a{k}", [], {"index": k}) for k in range(count)]
    outs = [
        args[p] if isinstance(p, int) else g.add_node("Add", f"add{j}", [args[p[0]], args[p[1]]])
        for j, p in enumerate(pairs)
    ]
    g.set_outputs(outs)
    return g


def counter_body() -> Graph:
    """(i, x) -> (i + 1, x) with an int32 counter."""
    g = Graph("body")
    i = g.add_node("Data", "i", [], {"index": 0})
    x = g.add_node("Data", "x", [], {"index": 1})
    one = g.add_const("one", np.array(1, dtype=np.int32))
    g.set_outputs([g.add_node("Add", "next", [i, one]), x])
    return g


@pytest.mark.parametrize("op_type", ["While", "StatelessWhile", "_While"])
def test_a_loop_that_keeps_its_shapes(op_type: str) -> None:
    g, out = while_graph([desc([], DataType.INT32), desc([2, 3])], counter_body(), op_type=op_type)
    opgraph.infer(g)
    assert g.desc(out) == desc([], DataType.INT32)
    assert g.desc(out.output(1)) == desc([2, 3])


def test_a_growing_variable_gets_unknown_dims() -> None:
    # (x, y) -> (x + y, y): x [1, 3] becomes [4, 3] after one iteration.
    g, out = while_graph([desc([1, 3]), desc([4, 1])], add_body([(0, 1), 1], 2))
    opgraph.infer(g)
    assert g.desc(out) == desc([-1, 3])
    assert g.desc(out.output(1)) == desc([4, 1])


def test_a_variable_whose_rank_changes_gets_unknown_rank() -> None:
    # x [3] + y [2, 1] is [2, 3].
    g, out = while_graph([desc([3]), desc([2, 1])], add_body([(0, 1), 1], 2))
    opgraph.infer(g)
    assert g.desc(out) == desc([-2])
    assert g.desc(out.output(1)) == desc([2, 1])


def test_unknown_inputs_stay_unknown() -> None:
    g, out = while_graph([desc([-1, 3]), desc([-2])], add_body([(0, 0), 1], 2))
    opgraph.infer(g)
    assert g.desc(out) == desc([-1, 3])
    assert g.desc(out.output(1)) == desc([-2])


@pytest.mark.parametrize(
    ("inputs", "loop_body", "cond", "attrs", "error"),
    [
        # The body swaps a float and an int32 variable.
        ([desc([2]), desc([2], DataType.INT32)], add_body([1, 0], 2), None, None, "dtypes differ"),
        ([desc([2]), desc([2])], add_body([0], 2), None, None, "body has 1 outputs but there are 2"),
        ([desc([2])], add_body([0], 1), body("cond", [0], [0, 0]), None, "cond body must have one output"),
        ([desc([2])], add_body([0], 1), None, {"parallel_iterations": 0}, "parallel_iterations must be"),
    ],
)
def test_while_rejects(
    inputs: list[TensorDesc],
    loop_body: Graph,
    cond: Graph | None,
    attrs: dict[str, Any] | None,
    error: str,
) -> None:
    g, _ = while_graph(inputs, loop_body, cond, attrs=attrs)
    with pytest.raises(OpgraphError, match=error):
        opgraph.infer(g)


def test_output_count_must_match_the_loop_variables() -> None:
    g = Graph()
    x = g.add_input("x", F, [2])
    g.add_node(
        "While",
        "loop",
        [[x]],
        subgraphs={"cond": body("c", [0]), "body": add_body([0], 1)},
        dynamic_outputs=[("output", 2)],
    )
    with pytest.raises(OpgraphError, match="1 loop variables"):
        opgraph.infer(g)


def test_the_fixpoint_re_infers_the_body_with_widened_variables() -> None:
    """a' = Reshape(a, [1, 2]) changes a's rank, so a widens to unknown rank;
    b' = Identity(a) then depends on the widened a. One body pass would say
    b stays [2]; GE's fixpoint (re-inferring the body) makes b unknown rank."""
    g_body = Graph("body")
    a = g_body.add_node("Data", "a", [], {"index": 0})
    g_body.add_node("Data", "b", [], {"index": 1})
    target = g_body.add_const("target", np.array([1, 2], np.int64))
    g_body.set_outputs(
        [g_body.add_node("Reshape", "a_next", [a, target]), g_body.add_node("Identity", "b_next", [a])]
    )
    g, node = while_graph([desc([2], F), desc([2], F)], g_body)
    opgraph.infer(g)
    assert g.desc(node).shape == (-2,)
    assert g.desc(node.output(1)).shape == (-2,)
