"""The ``report.json`` of ``opgraph compile``: a versioned, documented schema
(``report.schema.json`` beside this module)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from .. import __version__
from .._core import Graph, TensorDesc
from ..errors import NodeError, OpgraphError, ParseError
from ..tensorflow.scope_report import ScopePassRun
from .compile import CompileResult
from .profiles import Profile

SCHEMA_VERSION = "1.3"
SCHEMA_PATH = Path(__file__).with_name("report.schema.json")

ORIGIN_OP_TYPE_ATTRS = ("_origin_op_type", "original_type", "_original_type")


def load_schema() -> dict[str, Any]:
    """The JSON Schema a report validates against."""
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())
    return schema


def _input(name: str, desc: TensorDesc, symbols: list[str] | None) -> dict[str, Any]:
    tensor = _tensor(name, desc)
    if symbols is not None:
        tensor["symbols"] = symbols
    return tensor


def _tensor(name: str, desc: TensorDesc) -> dict[str, Any]:
    return {
        "name": name,
        "dtype": desc.dtype.name,
        "format": desc.format.name,
        "shape": list(desc.shape),
        "storage_format": desc.storage_format.name,
        "storage_shape": list(desc.storage_shape),
    }


def _nodes(graph: Graph, prefix: str = "") -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for node in graph.nodes():
        attrs = node.attrs
        origin = next((attrs[k] for k in ORIGIN_OP_TYPE_ATTRS if isinstance(attrs.get(k), str)), None)
        rows.append(
            {
                "name": prefix + node.name,
                "op_type": node.op_type,
                "origin_op_type": origin,
                "inputs": [
                    None if src is None else f"{prefix}{src[0]}:{src[1]}" for src in node.input_sources
                ],
                "outputs": [_tensor(f"{prefix}{node.name}:{i}", d) for i, d in enumerate(node.outputs)],
            }
        )
        for body in node.subgraph_names:
            rows += _nodes(graph.subgraph(node.name, body), f"{prefix}{node.name}/{body}/")
    return rows


def _finite(value: Any) -> Any:
    """JSON has no inf / nan: they become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def error_dict(error: OpgraphError) -> dict[str, Any]:
    """An error as plain data: kind, message, and the node it names."""
    row: dict[str, Any] = {
        "kind": type(error).__name__,
        "message": str(error),
        "node": None,
        "op_type": None,
        "inputs": [],
    }
    if isinstance(error, NodeError):
        row.update(node=error.node, op_type=error.op_type, inputs=list(error.inputs))
    elif isinstance(error, ParseError):
        row.update(node=error.node, op_type=error.origin_op_type)
    return row


def model_dict(result: CompileResult) -> dict[str, Any]:
    graph, options = result.graph, result.options
    counts = Counter(node.op_type for node in graph.nodes())
    return {
        "path": str(options.model),
        "name": graph.name,
        "framework": options.framework,
        "weights": None if options.weights is None else str(options.weights),
        "soc": result.prepared.soc if result.prepared else options.soc,
        "precision_mode": options.precision,
        "opgraph_version": __version__,
        "node_count": len(graph),
        "op_types": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        "inputs": [
            _input(f"{t.node}:{t.index}", graph.desc(t), result.symbols.get(t.node)) for t in graph.inputs
        ],
        "outputs": [_tensor(f"{t.node}:{t.index}", graph.desc(t)) for t in graph.outputs],
    }


def _pass_run(run: ScopePassRun) -> dict[str, Any]:
    return {
        "name": run.name,
        "status": run.status,
        "fused": [{"name": f.name, "op_type": f.op_type, "replaced": list(f.replaced)} for f in run.fused],
        "declined": [
            {"name": d.name, "op_type": d.op_type, "scopes": list(d.scopes), "reason": d.reason}
            for d in run.declined
        ],
    }


def _profile(profile: Profile) -> dict[str, Any]:
    memory, cost = profile.memory, profile.cost
    return {
        "label": profile.label,
        "input_shapes": {name: list(dims) for name, dims in profile.input_shapes.items()},
        "batch": profile.batch,
        "arena_bytes": None if memory is None else memory.arena_bytes,
        "lower_bound_bytes": None if memory is None else memory.lower_bound_bytes,
        "weights_bytes": None if memory is None else memory.weights_bytes,
        "io_bytes": None if memory is None else memory.io_bytes,
        "total_us": None if cost is None else cost.total_us,
        "throughput": None if cost is None else _finite(cost.throughput),
    }


def build_report(result: CompileResult, errors: list[OpgraphError] | None = None) -> dict[str, Any]:
    """The report of one compile (schema :data:`SCHEMA_VERSION`)."""
    memory = result.memory.to_dict() if result.memory is not None else None
    cost = result.cost.to_dict() if result.cost is not None else None
    return {
        "schema_version": SCHEMA_VERSION,
        "model": model_dict(result),
        "nodes": _nodes(result.graph),
        "scope_passes": [_pass_run(run) for run in result.scope_passes],
        "memory": _finite(memory),
        "cost": _finite(cost),
        "profiles": [_profile(p) for p in result.profiles],
        "aipp": [stage.to_dict() for stage in result.aipp],
        "output_file": None,
        "notes": list(result.notes),
        "warnings": list(result.warnings),
        "errors": [error_dict(e) for e in (errors if errors is not None else result.errors)],
    }


def write_report(report: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(report, indent=2) + "\n")
