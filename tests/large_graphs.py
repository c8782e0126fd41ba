"""Large TensorFlow GraphDefs for the scale tests and benchmark, written by the
``protobuf`` package on opgraph's own schema (``rust/core/proto``), whose
Python classes ``grpc_tools.protoc`` generates into a temporary folder once
per process: the same bytes TensorFlow would write, with no TensorFlow.

Two shapes of graph, ``n`` compute nodes after one Placeholder ``x``:

- ``chain``: ``x → Relu → Relu → …``;
- ``residual``: blocks ``y = Add(h, Relu(h))`` (two nodes each), every value
  read twice, as in a residual network.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PROTO_ROOT = REPO / "rust" / "core" / "proto"
SHAPES = ("chain", "residual")
# x's shape: small, so the graph's size is all nodes.
X_DIMS = (1, 64)

_modules: dict[str, ModuleType] = {}


def _graph_pb2() -> ModuleType:
    """``tensorflow.graph_pb2`` generated from opgraph's schema (cached)."""
    if "graph" not in _modules:
        out = Path(tempfile.mkdtemp(prefix="opgraph-pb2-"))
        protos = sorted(str(p) for p in (PROTO_ROOT / "tensorflow").glob("*.proto"))
        subprocess.run(
            [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_ROOT}", f"--python_out={out}", *protos],
            check=True,
        )
        sys.path.insert(0, str(out))
        _modules["graph"] = importlib.import_module("tensorflow.graph_pb2")
        _modules["types"] = importlib.import_module("tensorflow.types_pb2")
    return _modules["graph"]


def graphdef(shape: str, n: int) -> Any:
    """A GraphDef of ``n`` compute nodes of the given ``shape`` (see above)."""
    graph_pb2 = _graph_pb2()
    dt_float = _modules["types"].DT_FLOAT
    graph = graph_pb2.GraphDef()
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = dt_float
    for d in X_DIMS:
        x.attr["shape"].shape.dim.add().size = d
    prev = "x"
    if shape == "chain":
        for i in range(n):
            node = graph.node.add(name=f"r{i}", op="Relu", input=[prev])
            node.attr["T"].type = dt_float
            prev = node.name
    elif shape == "residual":
        for i in range(n // 2):
            relu = graph.node.add(name=f"r{i}", op="Relu", input=[prev])
            relu.attr["T"].type = dt_float
            add = graph.node.add(name=f"a{i}", op="Add", input=[prev, relu.name])
            add.attr["T"].type = dt_float
            prev = add.name
    else:
        raise ValueError(f"graph shape is one of {SHAPES}, not {shape!r}")
    return graph


def write_graphdef(shape: str, n: int, path: Path) -> Path:
    """Writes :func:`graphdef` as a binary ``.pb`` at ``path``."""
    path.write_bytes(graphdef(shape, n).SerializeToString())
    return path
