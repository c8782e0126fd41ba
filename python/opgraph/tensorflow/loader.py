"""``load_tensorflow``: a frozen TensorFlow model as an opgraph Graph."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from .. import _core
from .._core import Graph
from ..plugins import PluginModule, load_plugin_modules
from ..shape import input_shape_pairs

__all__ = ["load_tensorflow"]


def load_tensorflow(
    path: str | os.PathLike[str],
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    outputs: Sequence[str] | None = None,
    plugins: Sequence[PluginModule] = (),
    enable_scope_passes: Sequence[str] = (),
    *,
    infer: bool = True,
) -> Graph:
    """Loads a frozen GraphDef (binary ``.pb`` or text ``.pbtxt``, function
    library included) and maps every op onto IR ops with the parser plugins:
    opgraph's built-in ones and every user plugin registered so far.

    - ``input_shapes`` replaces Placeholder shapes, e.g. ``{"x": [1, 224, 224, 3]}``;
    - ``outputs`` names the graph outputs as tensors (``"node"`` or
      ``"node:1"``) and prunes the graph to what they need (ATC's
      ``out_nodes``); by default the model's sinks are its outputs;
    - ``plugins`` are modules (names, ``.py`` paths or module objects)
      imported first so their plugins, ops and scope passes register;
    - ``enable_scope_passes`` names the non-general scope-fusion passes to run;
    - ``infer`` (default true) verifies and infers the loaded graph, as
      :func:`opgraph.infer` does.

    Raises :class:`~opgraph.ShapeArgumentError` for an invalid
    ``input_shapes`` value (naming the input and the dim), and
    :class:`~opgraph.ParseError` when the file cannot be decoded, when
    origin op types have no plugin (all of them are listed), or when a plugin
    fails (a Python plugin's exception is the error's ``__cause__``);
    inference failures raise as :func:`opgraph.infer` does."""
    if isinstance(outputs, str):
        raise TypeError(f"outputs is a list of tensor names; wrap it: [{outputs!r}]")
    if isinstance(enable_scope_passes, str):
        raise TypeError(f"enable_scope_passes is a list of pass names; wrap it: [{enable_scope_passes!r}]")
    load_plugin_modules(plugins)
    shapes = input_shape_pairs(input_shapes)
    graph = _core.load_tensorflow(os.fspath(path), shapes, list(outputs or ()), list(enable_scope_passes))
    if infer:
        _core.infer(graph, False, None)
    return graph
