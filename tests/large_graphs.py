"""Large TensorFlow GraphDefs for the scale tests and benchmark, written by the
``protobuf`` package on opgraph's own schema (``rust/core/proto``), whose
message classes ``schema_messages.py`` makes: the same bytes TensorFlow
would write, with no TensorFlow.

Two shapes of graph, ``n`` compute nodes after one Placeholder ``x``:

- ``chain``: ``x → Relu → Relu → …``;
- ``residual``: blocks ``y = Add(h, Relu(h))`` (two nodes each), every value
  read twice, as in a residual network.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from schema_messages import message_classes

SHAPES = ("chain", "residual")
# x's shape: small, so the graph's size is all nodes.
X_DIMS = (1, 64)
DT_FLOAT = 1  # TensorFlow's DataType number (types.proto)


@functools.cache
def graph_def_class() -> Any:
    """The ``tensorflow.GraphDef`` class of opgraph's schema (made once)."""
    return message_classes("tensorflow/graph.proto", ["tensorflow.GraphDef"])["tensorflow.GraphDef"]


def graphdef(shape: str, n: int) -> Any:
    """A GraphDef of ``n`` compute nodes of the given ``shape`` (see above)."""
    graph = graph_def_class()()
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = DT_FLOAT
    for d in X_DIMS:
        x.attr["shape"].shape.dim.add().size = d
    prev = "x"
    if shape == "chain":
        for i in range(n):
            node = graph.node.add(name=f"r{i}", op="Relu", input=[prev])
            node.attr["T"].type = DT_FLOAT
            prev = node.name
    elif shape == "residual":
        for i in range(n // 2):
            relu = graph.node.add(name=f"r{i}", op="Relu", input=[prev])
            relu.attr["T"].type = DT_FLOAT
            add = graph.node.add(name=f"a{i}", op="Add", input=[prev, relu.name])
            add.attr["T"].type = DT_FLOAT
            prev = add.name
    else:
        raise ValueError(f"graph shape is one of {SHAPES}, not {shape!r}")
    return graph


def write_graphdef(shape: str, n: int, path: Path) -> Path:
    """Writes :func:`graphdef` as a binary ``.pb`` at ``path``."""
    path.write_bytes(graphdef(shape, n).SerializeToString())
    return path
