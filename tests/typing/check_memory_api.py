"""Exercises the memory planner's public API with precise annotations; must
pass ``mypy --strict`` (run from the repository root, so the pyproject's
``mypy_path = "python"`` applies). ``main()`` also runs it.

It declares an in-place op with ``reuses_input=``, plans a small graph with
every strategy, reads the per-tensor columns and objects, the totals and
the JSON, plans a lifetime set given as numpy columns, checks a placement,
and reads a MemoryPlanError's tensor.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import opgraph
from opgraph import DataType, Graph, LifetimePlan, MemoryPlan, MemoryPlanError, OpDef, PlannedTensor
from opgraph.memory import STRATEGIES, Region, Strategy


def register_in_place() -> str:
    op_type = f"ScaleInPlace_{uuid.uuid4().hex[:8]}"
    op = OpDef(op_type)
    op.input("x", dtypes=[DataType.FLOAT])
    op.output("y", dtypes=[DataType.FLOAT], follow="x", reuses_input="x")
    opgraph.register(op)
    reused: str | None = opgraph.op_def(op_type).outputs[0].reuses_input
    assert reused == "x"
    return op_type


def small_graph(in_place: str) -> Graph:
    g = Graph("memory_api")
    x = g.add_input("x", DataType.FLOAT, (8, 64))
    a = g.add_node("Relu", "a", [x])
    b = g.add_node(in_place, "b", [a])
    c = g.add_node("Sigmoid", "c", [b])
    g.set_outputs([g.add_node("Add", "d", [c, a])])
    opgraph.infer(g)
    return g


def plan_graph(graph: Graph) -> dict[Strategy, int]:
    totals: dict[Strategy, int] = {}
    for strategy in STRATEGIES:
        plan: MemoryPlan = opgraph.plan_memory(graph, strategy=strategy)
        totals[strategy] = plan.arena_bytes
    best = opgraph.plan_memory(graph, alignment=512, use_shape_ranges=True, allow_dynamic=False)
    chosen: Strategy = best.chosen_strategy
    assert best.strategies[chosen] == best.arena_bytes >= best.lower_bound_bytes
    ratio: float = best.ratio
    assert ratio >= 1.0
    sizes: npt.NDArray[np.int64] = best.sizes
    names: Sequence[str] = best.names
    regions: list[Region] = best.regions
    assert len(sizes) == len(names) == len(regions)
    tensor: PlannedTensor = best.tensor("b:0")
    owner: str | None = tensor.view_of
    assert owner == "a:0"
    for t in best.tensors:
        offset: int | None = t.offset
        assert offset is None or offset % best.alignment == 0
    io: int = best.io_bytes + best.weights_bytes
    assert io > 0
    problems: list[str] = best.check()
    assert problems == []
    data: dict[str, Any] = json.loads(best.to_json(indent=2))
    assert data["arena_bytes"] == best.arena_bytes
    return totals


def plan_set() -> LifetimePlan:
    rng = np.random.default_rng(0)
    firsts: npt.NDArray[np.int64] = rng.integers(0, 100, 1000)
    lasts = firsts + rng.integers(0, 5, 1000)
    plan = opgraph.plan_lifetimes(rng.integers(1, 1 << 20, 1000), firsts, lasts, strategy=None)
    offsets: npt.NDArray[np.int64] = plan.offsets
    assert plan.check() == []
    assert opgraph.check_placement(plan.sizes, firsts, lasts, offsets, plan.arena_bytes + 512) == []
    seconds: dict[Strategy, float] = plan.strategy_seconds
    assert set(seconds) == set(STRATEGIES)
    return plan


def unknown_size() -> str | None:
    g = Graph("dynamic")
    g.set_outputs([g.add_node("Relu", "a", [g.add_input("x", DataType.FLOAT, (-1, 4))])])
    opgraph.infer(g)
    try:
        opgraph.plan_memory(g)
    except MemoryPlanError as error:
        return error.tensor
    return None


def plot(plan: MemoryPlan) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.png"
        plan.plot(path, title="memory_api")
        assert path.stat().st_size > 0


def main() -> None:
    graph = small_graph(register_in_place())
    totals = plan_graph(graph)
    assert totals["naive"] >= totals["greedy_repair"]
    plan_set()
    assert unknown_size() == "x:0"
    plot(opgraph.plan_memory(graph))


if __name__ == "__main__":
    main()
