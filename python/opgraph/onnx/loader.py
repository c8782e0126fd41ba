"""``load_onnx``: an ONNX model (with its external data) as an opgraph Graph."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .. import _core
from .._core import Graph
from ..plugins import PluginModule, load_plugin_modules
from ..shape import input_shape_pairs

__all__ = ["OnnxReport", "load_onnx", "load_onnx_reported"]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class OnnxReport:
    """What loading an ONNX model found besides the graph."""

    #: Every value of the main graph → the IR tensor holding it (``"node:i"``),
    #: but for those in :attr:`pruned`.
    tensors: dict[str, str]
    #: The model's operator set version by domain (``"ai.onnx"`` for the default).
    opsets: dict[str, int]
    ir_version: int
    #: ``producer_name producer_version``.
    producer: str
    #: Each graph input with symbolic dims → the symbol of every dim ("" for
    #: a dim that is not symbolic), e.g. ``{"input_ids": ["batch", "seq"]}``.
    symbols: dict[str, list[str]]
    #: Values of nodes that no graph output needs (dead nodes an exporter
    #: left, or all but what ``outputs`` asks for): not in the graph, pruned
    #: as ATC prunes them.
    pruned: list[str]


def load_onnx_reported(
    path: PathLike,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    outputs: Sequence[str] | None = None,
    plugins: Sequence[PluginModule] = (),
    *,
    infer: bool = True,
) -> tuple[Graph, OnnxReport]:
    """:func:`load_onnx`, also returning an :class:`OnnxReport` (which IR
    tensor holds each ONNX value, the opsets)."""
    return _load(path, input_shapes, outputs, plugins, infer=infer, with_values=True)


def _load(
    path: PathLike,
    input_shapes: Mapping[str, Sequence[int]] | None,
    outputs: Sequence[str] | None,
    plugins: Sequence[PluginModule],
    *,
    infer: bool,
    with_values: bool,
) -> tuple[Graph, OnnxReport]:
    if isinstance(outputs, str):
        raise TypeError(f"outputs is a list of tensor names; wrap it: [{outputs!r}]")
    load_plugin_modules(plugins)
    shapes = input_shape_pairs(input_shapes)
    graph, (values, opsets, ir_version, producer, symbols, pruned) = _core.load_onnx(
        os.fspath(path), shapes, list(outputs or ()), with_values
    )
    if infer:
        _core.infer(graph, False, None)
    return graph, OnnxReport(dict(values), dict(opsets), ir_version, producer, dict(symbols), pruned)


def load_onnx(
    path: PathLike,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    outputs: Sequence[str] | None = None,
    plugins: Sequence[PluginModule] = (),
    *,
    infer: bool = True,
) -> Graph:
    """Loads an ONNX model (``.onnx``; initializers stored externally are
    read, memory-mapped, from files beside it) and maps every node onto IR
    ops with the parser plugins: opgraph's built-in ones (the standard
    ``ai.onnx`` operator set) and every user plugin registered so far.

    - graph inputs become Data nodes named after them; symbolic dims
      (``dim_param``) are unknown (-1) until ``input_shapes`` fixes them,
      e.g. ``{"input_ids": [1, 128]}`` (ATC's ``--input_shape``); the size
      it gives a symbol applies to every input naming that symbol;
    - initializers become Const nodes named after them, nodes take their
      ONNX name (or their first output's name when they have none);
    - ``outputs`` names the graph outputs as IR tensors (``"node"`` or
      ``"node:1"``) and prunes the graph to what they need; by default the
      model's own outputs;
    - ``plugins`` are modules (names, ``.py`` paths or module objects)
      imported first so their plugins and ops register;
    - ``infer`` (default true) verifies and infers the loaded graph.

    Raises :class:`~opgraph.ParseError` when the file cannot be decoded, an
    external data file is missing, short or outside the model's directory,
    op types have no plugin (all of them are listed with counts), or a
    plugin fails; inference failures raise as :func:`opgraph.infer` does."""
    # The value map is the report's; without it a small model loads ~10% faster.
    graph, _ = _load(path, input_shapes, outputs, plugins, infer=infer, with_values=False)
    return graph
