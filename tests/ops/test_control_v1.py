"""TensorFlow v1 control flow on acyclic graphs: Switch, Merge, Enter,
Exit, NextIteration, LoopCond and their Ref variants."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from control_helpers import F, body
from helpers import desc, infer_output, one_node_graph

import opgraph
from opgraph import DataType, Graph, OpgraphError

BOOL_SCALAR = desc([], DataType.BOOL)
ENTER = {"frame_name": "loop"}


@pytest.mark.parametrize("op_type", ["Switch", "RefSwitch"])
def test_switch_forwards_data_to_both_outputs(op_type: str) -> None:
    g, out = one_node_graph(op_type, [desc([2, -1], DataType.INT64), BOOL_SCALAR])
    opgraph.infer(g)
    assert g.desc(out) == desc([2, -1], DataType.INT64)
    assert g.desc(out.output(1)) == desc([2, -1], DataType.INT64)


@pytest.mark.parametrize(
    ("pred", "error"),
    [(desc([2], DataType.BOOL), "pred must be a scalar"), (desc([], DataType.INT32), "pred")],
)
def test_switch_needs_a_bool_scalar_pred(pred: Any, error: str) -> None:
    with pytest.raises(OpgraphError, match=error):
        infer_output("Switch", [desc([2]), pred])


@pytest.mark.parametrize(
    ("op_type", "attrs"),
    [
        ("Enter", ENTER),
        ("RefEnter", {**ENTER, "is_constant": True, "parallel_iterations": 4}),
        ("Exit", None),
        ("RefExit", None),
        ("NextIteration", None),
        ("RefNextIteration", None),
    ],
)
def test_forwarding_ops_copy_their_input(op_type: str, attrs: dict[str, Any] | None) -> None:
    x = desc([3, -1, 2], DataType.FLOAT16)
    assert infer_output(op_type, [x], attrs) == x


@pytest.mark.parametrize(
    ("attrs", "error"),
    [
        ({}, "frame_name"),
        ({"frame_name": ""}, "frame_name must not be empty"),
        ({**ENTER, "parallel_iterations": 0}, "parallel_iterations must be positive"),
        ({**ENTER, "is_constant": 1}, "is_constant"),
    ],
)
def test_enter_rejects(attrs: dict[str, Any], error: str) -> None:
    with pytest.raises(OpgraphError, match=error):
        infer_output("Enter", [desc([2])], attrs)


@pytest.mark.parametrize("op_type", ["Enter", "Exit", "NextIteration", "RefExit"])
@pytest.mark.parametrize(
    "dtype", [DataType.VARIANT, DataType.RESOURCE, DataType.STRING, DataType.COMPLEX64, DataType.BF16]
)
def test_forwarded_dtypes_are_tensorflows_any_type(op_type: str, dtype: DataType) -> None:
    # TensorFlow's OpDefs give these ops `T: type` with no allowed_values
    # (a TensorList loop carries a VARIANT through Enter).
    attrs = {"frame_name": "loop"} if op_type == "Enter" else None
    assert infer_output(op_type, [desc([2], dtype)], attrs) == desc([2], dtype)


def test_a_type_tensorflow_has_not_is_rejected() -> None:
    # DT_DUAL is GE's own: no TensorFlow tensor has it.
    with pytest.raises(OpgraphError, match="DUAL"):
        infer_output("Exit", [desc([2], DataType.DUAL)])


def test_loop_cond_takes_a_bool_scalar() -> None:
    assert infer_output("LoopCond", [BOOL_SCALAR]) == BOOL_SCALAR
    with pytest.raises(OpgraphError, match="x must be a scalar"):
        infer_output("LoopCond", [desc([1], DataType.BOOL)])
    with pytest.raises(OpgraphError):
        infer_output("LoopCond", [desc([], DataType.INT32)])


@pytest.mark.parametrize("op_type", ["Merge", "RefMerge"])
def test_switch_then_merge_is_a_conditional(op_type: str) -> None:
    # x -> Switch -> (Add on the true side) -> Merge: both sides are [4, 2].
    g = Graph()
    x = g.add_input("x", F, [4, 2])
    p = g.add_input("p", DataType.BOOL, [])
    sw = g.add_node("Switch", "sw", [x, p])
    doubled = g.add_node("Add", "double", [sw.output(1), sw.output(1)])
    m = g.add_node(op_type, "m", [[sw.output(0), doubled]])
    opgraph.infer(g)
    assert g.desc(m) == desc([4, 2])
    assert g.desc(m.output(1)) == desc([], DataType.INT32)


def test_merge_inputs_must_share_a_dtype() -> None:
    with pytest.raises(OpgraphError, match="dtypes differ"):
        infer_output("Merge", [[desc([2]), desc([2], DataType.INT32)]])


def test_merge_needs_an_input() -> None:
    with pytest.raises(OpgraphError):
        infer_output("Merge", [[]])


def test_an_acyclic_v1_loop_frame_infers() -> None:
    # The pieces of a TF v1 while loop, with the back edge left out:
    # Enter -> Merge -> Switch(LoopCond) -> Identity -> NextIteration, and
    # Switch's false side -> Exit.
    g = Graph()
    x = g.add_input("x", F, [5])
    limit = g.add_input("p", DataType.BOOL, [])
    enter = g.add_node("Enter", "enter", [x], ENTER)
    merge = g.add_node("Merge", "merge", [[enter]])
    cond = g.add_node("LoopCond", "cond", [limit])
    switch = g.add_node("Switch", "switch", [merge, cond])
    step = g.add_node("Identity", "step", [switch.output(1)])
    nxt = g.add_node("NextIteration", "next", [step])
    out = g.add_node("Exit", "exit", [switch.output(0)])
    opgraph.infer(g)
    assert g.desc(out) == desc([5])
    assert g.desc(nxt) == desc([5])


def test_partitioned_call_has_a_stateful_alias() -> None:
    g = Graph()
    a = g.add_input("a", F, [2, 3])
    call = g.add_node(
        "StatefulPartitionedCall",
        "call",
        [[a]],
        {"executor_type": "", "config": ""},
        subgraphs={"f": body("f", [0], ["sum0"])},
    )
    opgraph.infer(g)
    assert g.desc(call) == desc([2, 3])


def v1_loop(grow: bool) -> tuple[Graph, dict[str, opgraph.TensorRef]]:
    """A TensorFlow v1 while loop with its back edge (NextIteration -> Merge).
    The step keeps the variable's shape, or appends one element per trip."""
    g = Graph()
    x = g.add_input("x", F, [5])
    limit = g.add_input("p", DataType.BOOL, [])
    enter = g.add_node("Enter", "enter", [x], ENTER)
    merge = g.add_node("Merge", "merge", [[enter, enter]])
    cond = g.add_node("LoopCond", "cond", [limit])
    switch = g.add_node("Switch", "switch", [merge, cond])
    if grow:
        one = g.add_const("one", np.ones([1], np.float32))
        axis = g.add_const("axis", np.array(0, np.int32))
        step = g.add_node("ConcatV2", "step", [[switch.output(1), one], axis])
    else:
        step = g.add_node("Identity", "step", [switch.output(1)])
    nxt = g.add_node("NextIteration", "next", [step])
    g.set_input("merge", 1, nxt)  # close the loop
    out = g.add_node("Exit", "exit", [switch.output(0)])
    return g, {"merge": merge, "next": nxt, "exit": out}


def test_a_v1_loop_that_keeps_its_shape_infers_through_its_back_edge() -> None:
    g, t = v1_loop(grow=False)
    opgraph.infer(g)
    assert g.desc(t["merge"]).shape == (5,)
    assert g.desc(t["exit"]).shape == (5,)


def test_a_growing_v1_loop_settles_on_an_unknown_dim() -> None:
    # GE: first pass without the back edge ([5]), then Merge widens with
    # NextIteration's [6] to [-1], and the frame is stable after that.
    g, t = v1_loop(grow=True)
    opgraph.infer(g)
    for name in ("merge", "next", "exit"):
        assert g.desc(t[name]).shape == (-1,), name
    assert g.desc(t["exit"]).dtype == DataType.FLOAT


def test_other_cycles_are_still_errors() -> None:
    g = Graph()
    x = g.add_input("x", F, [5])
    a = g.add_node("Identity", "a", [x])
    b = g.add_node("Identity", "b", [a])
    g.set_input("a", 0, b)
    with pytest.raises(opgraph.CycleError) as caught:
        opgraph.infer(g)
    assert caught.value.nodes == ["a", "b", "a"]
