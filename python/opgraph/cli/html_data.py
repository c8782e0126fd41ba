"""The data ``report.html`` shows, as one JSON-ready dict: the graph's nodes
with their attributes, tensors, memory and cost, and the charts' series
(memory timeline, time by op type, roofline), profiles, warnings and errors.

Node rows come from ``report.json``'s ``nodes`` (bodies included, names
qualified), joined by name with the memory plan's tensors and the cost
report's rows."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._core import Graph
from .._memory_plot import live_bytes
from .._roofline import LINKS, ceilings, roofline_points
from ..cost import BOUNDS, CostReport, DeviceSpec
from ..errors import DeviceSpecError
from ..memory import MemoryPlan
from .compile import CompileResult
from .report import _finite as finite

#: The longest attribute value shown in full; longer ones are cut.
ATTR_CHARS = 160
#: Elements of a list attribute shown before "…".
ATTR_ITEMS = 16
#: Activation buffers the timeline draws as boxes (the largest), and those it names.
TIMELINE_BOXES = 3000
TIMELINE_NAMED = 10
#: Op types in the time-by-op-type chart.
TOP_OP_TYPES = 20


def attr_text(value: Any) -> str:
    """An attribute value as short text (arrays by dtype and shape, long
    lists and strings cut)."""
    if isinstance(value, np.ndarray):
        return f"tensor {value.dtype} {list(value.shape)}"
    if isinstance(value, (bytes, bytearray)):
        return f"{len(value)} bytes"
    if isinstance(value, (list, tuple)):
        shown = ", ".join(attr_text(v) for v in value[:ATTR_ITEMS])
        more = f", \u2026 ({len(value)} items)" if len(value) > ATTR_ITEMS else ""
        text = f"[{shown}{more}]"
    elif isinstance(value, float):
        text = repr(value) if math.isfinite(value) else str(value)
    elif hasattr(value, "name") and not isinstance(value, str):  # DataType, Format
        text = str(value.name)
    else:
        text = str(value)
    return text if len(text) <= ATTR_CHARS else text[: ATTR_CHARS - 1] + "\u2026"


def _attrs(graph: Graph, prefix: str = "") -> Iterator[tuple[str, dict[str, str]]]:
    for node in graph.nodes():
        yield prefix + node.name, {k: attr_text(v) for k, v in sorted(node.attrs.items())}
        for body in node.subgraph_names:
            yield from _attrs(graph.subgraph(node.name, body), f"{prefix}{node.name}/{body}/")


def _tensor_memory(plan: MemoryPlan | None) -> dict[str, list[Any]]:
    """Per tensor name: [size, offset, first step, last step, region, view of]."""
    if plan is None:
        return {}
    names = list(plan.names)
    rows = zip(
        plan.sizes.tolist(),
        plan.offsets.tolist(),
        plan.first_steps.tolist(),
        plan.last_steps.tolist(),
        plan.regions,
        plan.view_of.tolist(),
        strict=True,
    )
    return {
        name: [size, offset, first, last, region, names[owner] if owner >= 0 else None]
        for name, (size, offset, first, last, region, owner) in zip(names, rows, strict=True)
    }


def _node_cost(cost: CostReport | None) -> dict[str, list[Any]]:
    """Per node name: [time us, bound, flops, bytes, fused into, note]."""
    if cost is None:
        return {}
    c = cost.columns
    fused = [None if f < 0 else c.fused_into[f] for f in c.fused_into_codes.tolist()]
    notes = [None if n < 0 else c.notes[n] for n in c.note_codes.tolist()]
    rows = zip(
        c.time_us.tolist(),
        (BOUNDS[b] for b in c.bound_codes.tolist()),
        c.flops.tolist(),
        c.bytes.tolist(),
        fused,
        notes,
        strict=True,
    )
    return {name: list(row) for name, row in zip(c.names, rows, strict=True)}


def graph_nodes(result: CompileResult, report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per node (report.json's node rows with attributes, each
    output's memory and the node's cost)."""
    attrs = dict(_attrs(result.graph))
    memory = _tensor_memory(result.memory)
    cost = _node_cost(result.cost)
    rows = []
    for node in report["nodes"]:
        outputs = [{**t, "memory": memory.get(t["name"])} for t in node["outputs"]]
        rows.append(
            {
                "name": node["name"],
                "op": node["op_type"],
                "origin": node["origin_op_type"],
                "attrs": attrs.get(node["name"], {}),
                "inputs": node["inputs"],
                "outputs": outputs,
                "cost": cost.get(node["name"]),
            }
        )
    return rows


def memory_timeline(plan: MemoryPlan | None) -> dict[str, Any] | None:
    """Live activation bytes per step, the arena and its lower bound, and
    the largest buffers as boxes (step span by address span), named."""
    if plan is None:
        return None
    owners = np.flatnonzero(
        np.fromiter((r == "activation" for r in plan.regions), dtype=bool, count=len(plan.regions))
        & (plan.view_of < 0)
        & (plan.sizes >= 0)
    )
    sizes, firsts, lasts = plan.sizes[owners], plan.first_steps[owners], plan.last_steps[owners]
    largest = owners[np.argsort(-sizes, kind="stable")[:TIMELINE_BOXES]]
    names = plan.names
    return {
        "steps": plan.steps,
        "arena": plan.arena_bytes,
        "lower_bound": plan.lower_bound_bytes,
        "strategy": plan.chosen_strategy,
        "live": live_bytes(sizes, firsts, lasts).tolist(),
        # [name or None, size, offset, first, last], largest first; the first few are named.
        "boxes": [
            [
                names[i] if k < TIMELINE_NAMED else None,
                plan.sizes.item(i),
                plan.offsets.item(i),
                plan.first_steps.item(i),
                plan.last_steps.item(i),
            ]
            for k, i in enumerate(largest.tolist())
        ],
        "weights": plan.weights_bytes,
        "io": plan.io_bytes,
    }


def cost_charts(cost: CostReport | None) -> dict[str, Any] | None:
    """Totals, time by op type and by bound, and the roofline's points and
    ceilings (each op at the intensity of the link that times it)."""
    if cost is None:
        return None
    charts: dict[str, Any] = {
        "device": cost.device,
        "precision": cost.precision,
        "total_us": cost.total_us,
        "critical_path_us": cost.critical_path_us,
        "task_count": cost.task_count,
        "by_op_type": list(cost.time_by_op_type().items())[:TOP_OP_TYPES],
        "by_bound": list(cost.time_by_bound().items()),
        "roofline": None,
    }
    try:
        spec = DeviceSpec.preset(cost.device)
    except DeviceSpecError:
        return charts  # a device described by a file: no preset to draw ceilings from
    limits = ceilings(spec)
    points = roofline_points(cost, limits)
    names, bounds = cost.columns.names, cost.columns.bound_codes
    charts["roofline"] = {
        "peak": limits.peak_flops,
        "links": [[link, limits.bytes_per_s[link]] for link in LINKS],
        # [name, bound, link, intensity, achieved FLOP/s]
        "points": [
            [names[row], BOUNDS[bounds.item(row)], LINKS[link], x, y]
            for row, link, x, y in zip(
                points.rows.tolist(),
                points.links.tolist(),
                points.intensity.tolist(),
                points.achieved.tolist(),
                strict=True,
            )
        ],
    }
    return charts


def view_data(result: CompileResult, report: dict[str, Any]) -> dict[str, Any]:
    """Everything the page shows. ``report`` is :func:`~.report.build_report`'s."""
    memory = report["memory"]
    # JSON has no inf / nan (JSON.parse would refuse the page's data): they become null.
    data: dict[str, Any] = finite(
        {
            "model": report["model"],
            "nodes": graph_nodes(result, report),
            "memory": memory_timeline(result.memory),
            # The plan's totals; its tensors are in the nodes' outputs already.
            "memory_totals": None if memory is None else {k: v for k, v in memory.items() if k != "tensors"},
            "cost": cost_charts(result.cost),
            "profiles": report["profiles"],
            "warnings": report["warnings"],
            "errors": report["errors"],
            "scope_passes": report["scope_passes"],
        }
    )
    return data
