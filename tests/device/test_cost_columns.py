"""The cost report as columns: numpy arrays and name tables that equal the
per-node objects, O(1) lookups by name (``CostReport.node``,
``MemoryPlan.tensor``), the lazy ``nodes`` sequence, aggregates equal to
running sums over the rows, and the JSON layout of the row-by-row report."""

from __future__ import annotations

import json
import time
from dataclasses import fields

import numpy as np
import pytest

import opgraph
from opgraph import CostReport, DataType, Graph, NodeCost
from opgraph.cost import BOUNDS, CostColumns, NodeCosts


def mixed_graph() -> Graph:
    """A call with a body, a fused pair, a folded Shape, a convolution whose
    ReLU fuses into it through a view."""
    body = Graph("body")
    bx = body.add_input("bx", DataType.FLOAT, [1, 64, 64, 16], "NHWC")
    body.set_outputs([body.add_node("Relu", "r", [bx])])
    g = Graph("mixed")
    x = g.add_input("x", DataType.FLOAT, [1, 64, 64, 16], "NHWC")
    call = g.add_node("PartitionedCall", "call", [x], subgraphs={"f": body})
    s = g.add_node("Sqrt", "s", [call])
    e = g.add_node("Exp", "e", [s])
    shape = g.add_node("Shape", "shape", [e])
    w = g.add_const("w", np.zeros((3, 3, 16, 8), "float32"), "HWCN")
    attrs = {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "data_format": "NHWC"}
    conv = g.add_node("Conv2D", "conv", [e, w], attrs)
    view = g.add_node("Identity", "view", [conv])
    g.set_outputs([g.add_node("Relu", "out", [view]), shape])
    opgraph.infer(g)
    return g


@pytest.fixture(scope="module")
def report() -> CostReport:
    return opgraph.estimate_cost(mixed_graph(), "Ascend310", fuse=True)


def test_every_column_equals_the_rows(report: CostReport) -> None:
    c = report.columns
    rows = list(report.nodes)
    assert len(c) == len(rows) == len(report.nodes) == 11
    assert [r.name for r in rows][:5] == ["x", "w", "call", "call/f/bx", "call/f/r"]
    for name in CostColumns.FLOAT_FIELDS:
        column = getattr(c, name)
        assert column.dtype == np.float64
        assert column.tolist() == [getattr(r, name) for r in rows], name
    assert c.bound_codes.dtype == np.uint8 and c.op_type_codes.dtype == np.int32
    assert [BOUNDS[b] for b in c.bound_codes] == [r.bound for r in rows]
    assert [c.op_types[k] for k in c.op_type_codes] == [r.op_type for r in rows]
    assert [None if k < 0 else c.fused_into[k] for k in c.fused_into_codes] == [r.fused_into for r in rows]
    assert [None if k < 0 else c.notes[k] for k in c.note_codes] == [r.note for r in rows]
    # The tables hold each string once.
    assert len(set(c.op_types)) == len(c.op_types) and c.op_types.count("Relu") == 1
    assert c.fused_into == ["s", "conv"]
    assert sorted(c.notes) == ["calls its bodies once", "computed at build time (constant inputs)"]
    assert [c.row(i) for i in range(len(c))] == rows


def test_node_finds_every_row_by_name(report: CostReport) -> None:
    for i, row in enumerate(report.nodes):
        assert report.node(row.name) == row == report.nodes[i]
        assert report.columns.index(row.name) == i
    assert report.node("e").fused_into == "s"
    assert report.node("call/f/r").op_type == "Relu"
    with pytest.raises(KeyError, match="no node named 'nope' in this report"):
        report.node("nope")
    with pytest.raises(KeyError):
        report.node("call/f")


def test_nodes_is_a_read_only_sequence_built_on_access(report: CostReport) -> None:
    nodes = report.nodes
    assert isinstance(nodes, NodeCosts) and isinstance(nodes[0], NodeCost)
    assert nodes[-1] == nodes[len(nodes) - 1] and nodes[-1].name == "out"
    assert nodes[1:3] == [nodes[1], nodes[2]]
    assert nodes == list(nodes) and nodes != list(nodes)[:-1]
    with pytest.raises(IndexError):
        nodes[len(nodes)]
    with pytest.raises(IndexError):
        nodes[-len(nodes) - 1]


def test_aggregates_equal_running_sums_over_the_rows(report: CostReport) -> None:
    by_type: dict[str, float] = {}
    by_bound: dict[str, float] = {}
    for n in report.nodes:
        if n.time_us > 0:
            by_type[n.op_type] = by_type.get(n.op_type, 0.0) + n.time_us
            by_bound[n.bound] = by_bound.get(n.bound, 0.0) + n.time_us
    expected_types = dict(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0])))
    assert list(report.time_by_op_type().items()) == list(expected_types.items())
    assert list(report.time_by_bound().items()) == list(by_bound.items())
    timed = sorted((n for n in report.nodes if n.time_us > 0), key=lambda n: (-n.time_us, n.name))
    assert report.breakdown() == timed
    assert report.total_us == pytest.approx(sum(n.time_us for n in report.nodes))


def test_json_keeps_the_row_by_row_layout(report: CostReport) -> None:
    data = json.loads(report.to_json())
    assert list(data) == [
        "device",
        "precision",
        "nodes",
        "total_us",
        "critical_path_us",
        "critical_path",
        "task_count",
        "flags",
        "batch_sweep",
    ]
    assert [list(n) for n in data["nodes"]] == [[f.name for f in fields(NodeCost)]] * len(report.nodes)
    assert data["nodes"][5] == {f.name: getattr(report.nodes[5], f.name) for f in fields(NodeCost)}
    again = CostReport.from_json(report.to_json())
    assert again == report and again.to_json() == report.to_json()
    # A report built from rows (the old constructor) has the same columns.
    rebuilt = CostReport(
        report.device,
        report.precision,
        list(report.nodes),
        report.total_us,
        report.critical_path_us,
        report.critical_path,
        report.task_count,
        report.flags,
    )
    assert rebuilt == report
    assert rebuilt.columns.op_types == report.columns.op_types


def identity_chain(n: int, op_type: str = "Identity") -> Graph:
    g = Graph("chain")
    at = g.add_node("Relu", "first", [g.add_input("x", DataType.FLOAT16, [1024])])
    for i in range(n):
        at = g.add_node(op_type, f"v{i}", [at])
    g.set_outputs([g.add_node("Relu", "last", [at])])
    opgraph.infer(g)
    return g


@pytest.mark.parametrize("op_type", ["Identity", "StopGradient"])
def test_a_long_view_chain_costs_in_linear_time(op_type: str) -> None:
    # The quadratic model took seconds at 10k views and minutes at 100k.
    g = identity_chain(50_000, op_type)
    started = time.perf_counter()
    report = opgraph.estimate_cost(g, "Ascend310", fuse=False)
    assert time.perf_counter() - started < 5.0
    assert len(report.nodes) == 50_003 and report.task_count == 2
    assert report.node("v49999").bound == "free"
    short = opgraph.estimate_cost(identity_chain(3, op_type), "Ascend310", fuse=False)
    assert report.node("first") == short.node("first") and report.total_us == short.total_us


def test_memory_plan_finds_every_tensor_by_name_without_building_all() -> None:
    plan = opgraph.plan_memory(mixed_graph())
    assert plan.tensor("conv:0").name == "conv:0"
    assert "tensors" not in vars(plan), "one lookup builds one tensor, not the list"
    for i, t in enumerate(plan.tensors):
        assert plan.tensor(t.name) == t == plan.tensors[i]
    with pytest.raises(KeyError, match="the plan has no tensor named 'conv:9'"):
        plan.tensor("conv:9")


def test_a_repeated_name_finds_its_first_row(report: CostReport) -> None:
    # A body's qualified name can repeat a top-level one ("call/f/r" both
    # ways): the lookup keeps the first row, as a scan from the front did.
    rows = list(report.nodes)
    clash = NodeCost(**{**vars(rows[0]), "name": "call/f/r", "op_type": "Clash"})
    columns = CostColumns.from_nodes([*rows, clash])
    assert columns.row(columns.index("call/f/r")).op_type == "Relu"
    assert columns.row(len(rows)).op_type == "Clash" and "Clash" in columns.op_types
