"""If / StatelessIf / _If and Case: outputs merged over the branches."""

from __future__ import annotations

import pytest
from control_helpers import F, body, if_graph
from helpers import desc

import opgraph
from opgraph import DataType, Graph, OpgraphError, TensorRef

BOOL_SCALAR = desc([], DataType.BOOL)


@pytest.mark.parametrize("op_type", ["If", "StatelessIf", "_If"])
def test_branches_that_agree_give_their_shapes(op_type: str) -> None:
    # then: (x0 + x0, x1); else: (x0, x1) -> both branches agree exactly.
    then_b = body("t", [1, 2], ["sum0", 1])
    else_b = body("e", [1, 2], [0, 1])
    g, out = if_graph(BOOL_SCALAR, [desc([3, 4]), desc([5], DataType.INT32)], then_b, else_b, 2, op_type)
    opgraph.infer(g)
    assert g.desc(out) == desc([3, 4])
    assert g.desc(out.output(1)) == desc([5], DataType.INT32)
    # The branches were inferred with the If's inputs.
    assert g.subgraph("node", "then_branch").node("sum0_0").outputs[0].shape == (3, 4)


def test_branches_that_differ_are_merged() -> None:
    # then returns x0, else returns x1: [2, 3] vs [2, 7] -> [2, -1], the
    # merged dim between the branches' (GE's rule for Case in dynamic dims).
    g, out = if_graph(BOOL_SCALAR, [desc([2, 3]), desc([2, 7])], body("t", [1]), body("e", [2]), 1)
    opgraph.infer(g)
    assert g.desc(out).shape == (2, -1)
    assert g.desc(out).shape_range == [(2, 2), (3, 7)]


@pytest.mark.parametrize(
    ("else_range", "merged_range"),
    [
        ((0, 450), [(0, 450), (4, 4)]),
        ((5, 9), [(3, 9), (4, 4)]),
        ((1, -1), [(1, -1), (4, 4)]),
        ((0, -1), None),
    ],
)
def test_a_merged_dim_is_bounded_only_where_every_branch_is(
    else_range: tuple[int, int], merged_range: list[tuple[int, int]] | None
) -> None:
    """then: x0 [3, 4]; else: x1 [?, 4] with ``else_range`` on its first dim
    (-1: unbounded). The If's output dim holds either: the hull of both."""
    g = Graph("g")
    c = g.add_input("cond", DataType.BOOL, [])
    x0 = g.add_input("x0", F, [3, 4])
    x1 = g.add_input("x1", F, [-1, 4], shape_range=[else_range, (4, 4)])
    node = g.add_node(
        "If",
        "node",
        [c, [x0, x1]],
        subgraphs={"then_branch": body("t", [1]), "else_branch": body("e", [2])},
        dynamic_outputs=[("output", 1)],
    )
    opgraph.infer(g)
    assert g.desc(node).shape == (-1, 4)
    assert g.desc(node).shape_range == merged_range


def test_cond_may_be_any_dtype_and_shape() -> None:
    # GE's If takes any tensor as cond (non-scalars mean "non-empty").
    g, out = if_graph(desc([4], DataType.INT64), [desc([1])], body("t", [1]), body("e", [1]), 1)
    opgraph.infer(g)
    assert g.desc(out) == desc([1])


def test_a_branch_data_node_with_index_0_reads_cond() -> None:
    g, out = if_graph(BOOL_SCALAR, [desc([1])], body("t", [0]), body("e", [0]), 1)
    opgraph.infer(g)
    assert g.desc(out) == desc([], DataType.BOOL)


def test_branch_dtypes_must_match() -> None:
    g, _ = if_graph(BOOL_SCALAR, [desc([2]), desc([2], DataType.INT32)], body("t", [1]), body("e", [2]), 1)
    with pytest.raises(opgraph.InferShapeError, match=r"branch 'else_branch'.*dtypes differ"):
        opgraph.infer(g)


def test_branch_output_counts_must_match_the_node() -> None:
    g, _ = if_graph(BOOL_SCALAR, [desc([2])], body("t", [1]), body("e", [1, 1]), 1)
    with pytest.raises(opgraph.InferShapeError, match="'else_branch' has 2 outputs but the If has 1"):
        opgraph.infer(g)


def test_a_missing_branch_is_an_error() -> None:
    g = Graph()
    c = g.add_input("c", DataType.BOOL, [])
    x = g.add_input("x", F, [2])
    g.add_node("If", "node", [c, [x]], subgraphs={"then_branch": body("t", [1])})
    with pytest.raises(OpgraphError, match="no body named 'else_branch'"):
        opgraph.infer(g)


def test_a_failing_branch_names_its_node() -> None:
    # then adds x0 + x1 with shapes that do not broadcast.
    t = Graph("t")
    a = t.add_node("Data", "a", [], {"index": 1})
    b = t.add_node("Data", "b", [], {"index": 2})
    t.set_outputs([t.add_node("Add", "bad_add", [a, b])])
    g, _ = if_graph(BOOL_SCALAR, [desc([2]), desc([3])], t, body("e", [1]), 1)
    errors = opgraph.infer(g, collect_errors=True)
    nodes = [e.node for e in errors if isinstance(e, opgraph.NodeError)]
    assert nodes == ["node/then_branch/bad_add", "node"]


# ---- Case --------------------------------------------------------------------


def case_graph(
    index: tuple[list[int], DataType], inputs: list[list[int]], branches: dict[str, Graph], outputs: int
) -> tuple[Graph, TensorRef]:
    g = Graph()
    i = g.add_input("i", index[1], index[0])
    xs = [g.add_input(f"x{k}", F, s) for k, s in enumerate(inputs)]
    node = g.add_node("Case", "node", [i, xs], subgraphs=branches, dynamic_outputs=[("output", outputs)])
    return g, node


def test_case_merges_every_branch() -> None:
    branches = {f"branches{k}": body(f"b{k}", [k + 1]) for k in range(3)}
    g, out = case_graph(([], DataType.INT32), [[2, 3], [2, 3], [2, 5]], branches, 1)
    opgraph.infer(g)
    assert g.desc(out).shape == (2, -1)
    assert g.desc(out).shape_range == [(2, 2), (3, 5)]
    # Only the first two: they agree.
    del branches["branches2"]
    g, out = case_graph(([], DataType.INT32), [[2, 3], [2, 3], [2, 5]], branches, 1)
    opgraph.infer(g)
    assert g.desc(out) == desc([2, 3])


@pytest.mark.parametrize(
    ("index", "names", "error"),
    [
        (([2], DataType.INT32), ["branches0"], "branch_index must be a scalar"),
        (([], DataType.INT64), ["branches0"], "branch_index"),
        (([], DataType.INT32), ["branches0", "branches2"], "branches1 is missing"),
        (([], DataType.INT32), ["other"], "has no branches"),
    ],
)
def test_case_rejects(index: tuple[list[int], DataType], names: list[str], error: str) -> None:
    branches = {n: body(n, [1]) for n in names}
    g, _ = case_graph(index, [[2]], branches, 1)
    with pytest.raises(OpgraphError, match=error):
        opgraph.infer(g)


def test_case_with_an_unknown_rank_index_is_accepted() -> None:
    g, out = case_graph(([-2], DataType.INT32), [[4]], {"branches0": body("b", [1])}, 1)
    opgraph.infer(g)
    assert g.desc(out) == desc([4])
