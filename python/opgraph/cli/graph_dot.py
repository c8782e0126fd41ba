"""``graph.dot``: the compiled graph for Graphviz, nodes clustered by name
scope (``a/b/op`` sits in cluster ``a`` inside ``a/b``) as ``report.html``
groups them; op type and output shapes per node.

opgraph no longer renders it to ``graph.svg``: a static drawing cannot
collapse scopes, so a real model's SVG is unreadably large (MobileNetV2's
was 47,437 x 20,086 pt). ``report.html`` is the view to explore a graph;
``dot -Tsvg graph.dot`` still works for those who want the picture."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .._core import Graph, Node


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _shape(dims: tuple[int, ...]) -> str:
    return "[" + ",".join("?" if d == -1 else "??" if d == -2 else str(d) for d in dims) + "]"


def _scope(name: str) -> tuple[str, ...]:
    """The scopes a node's name puts it in, outermost first."""
    parts = [p for p in name.split("/") if p]
    return tuple(parts[:-1])


class _Scope:
    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.children: dict[str, _Scope] = {}


def _tree(graph: Graph) -> _Scope:
    root = _Scope()
    for node in graph.nodes():
        scope = root
        for part in _scope(node.name):
            scope = scope.children.setdefault(part, _Scope())
        scope.nodes.append(node)
    return root


def _lines(scope: _Scope, path: str, indent: str, counter: Iterator[int]) -> Iterator[str]:
    for node in scope.nodes:
        shapes = " ".join(f"{d.dtype.name} {_shape(d.shape)}" for d in node.outputs)
        short = node.name.rsplit("/", 1)[-1] or node.name
        label = f"{short}\n{node.op_type}" + (f"\n{shapes}" if shapes else "")
        yield f"{indent}{_quote(node.name)} [label={_quote(label)}, tooltip={_quote(node.name)}];"
    for part, child in scope.children.items():
        inner = f"{path}/{part}" if path else part
        yield f"{indent}subgraph cluster_{next(counter)} {{"
        yield f"{indent}  label={_quote(part)}; tooltip={_quote(inner)};"
        yield from _lines(child, inner, indent + "  ", counter)
        yield f"{indent}}}"


def to_dot(graph: Graph) -> str:
    """The top-level graph in DOT: one box per node inside one cluster per
    name scope, one edge per data input."""
    lines = [
        f"digraph {_quote(graph.name)} {{",
        "  rankdir=TB;",
        '  node [shape=box, fontname="Helvetica"];',
        '  graph [fontname="Helvetica", style=rounded];',
    ]
    counter = iter(range(1 << 62))
    lines += _lines(_tree(graph), "", "  ", counter)
    for node in graph.nodes():
        for source in node.input_sources:
            if source is not None:
                lines.append(f"  {_quote(source[0])} -> {_quote(node.name)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_dot(graph: Graph, path: Path) -> Path:
    """Writes ``path`` (see :func:`to_dot`) and returns it."""
    path.write_text(to_dot(graph))
    return path
