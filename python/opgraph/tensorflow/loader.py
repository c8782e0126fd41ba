"""``load_tensorflow``: a frozen TensorFlow model as an opgraph Graph."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from .. import _core
from .._core import Graph
from ..plugins import PluginModule, load_plugin_modules
from ..shape import input_shape_pairs
from .scope_report import ScopePassRun, pass_runs, warn_declined

__all__ = ["load_tensorflow", "load_tensorflow_reported"]


def load_tensorflow(
    path: str | os.PathLike[str],
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    outputs: Sequence[str] | None = None,
    plugins: Sequence[PluginModule] = (),
    enable_scope_passes: Sequence[str] = (),
    *,
    disable_scope_passes: Sequence[str] = (),
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
    - ``disable_scope_passes`` names passes not to run, general ones included;
    - ``infer`` (default true) verifies and infers the loaded graph, as
      :func:`opgraph.infer` does.

    Raises :class:`~opgraph.ShapeArgumentError` for an invalid
    ``input_shapes`` value (naming the input and the dim), and
    :class:`~opgraph.ParseError` when the file cannot be decoded, when
    origin op types have no plugin (all of them are listed), or when a plugin
    fails (a Python plugin's exception is the error's ``__cause__``);
    inference failures raise as :func:`opgraph.infer` does. A scope a pass
    matched but could not fuse (its fused op's plugin rejected it) stays
    unfused, with a :class:`~opgraph.tensorflow.ScopeFusionDeclined` warning
    naming the pass, the scope and the reason."""
    graph, _ = load_tensorflow_reported(
        path,
        input_shapes,
        outputs,
        plugins,
        enable_scope_passes,
        disable_scope_passes=disable_scope_passes,
        infer=infer,
    )
    return graph


def load_tensorflow_reported(
    path: str | os.PathLike[str],
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    outputs: Sequence[str] | None = None,
    plugins: Sequence[PluginModule] = (),
    enable_scope_passes: Sequence[str] = (),
    *,
    disable_scope_passes: Sequence[str] = (),
    infer: bool = True,
) -> tuple[Graph, list[ScopePassRun]]:
    """:func:`load_tensorflow`, also returning what every registered
    scope-fusion pass did (ran, disabled or not enabled; scopes fused and
    declined), in registration order."""
    pass_lists = {"enable_scope_passes": enable_scope_passes, "disable_scope_passes": disable_scope_passes}
    for arg, value in pass_lists.items():
        if isinstance(value, str):
            raise TypeError(f"{arg} is a list of pass names; wrap it: [{value!r}]")
    if isinstance(outputs, str):
        raise TypeError(f"outputs is a list of tensor names; wrap it: [{outputs!r}]")
    load_plugin_modules(plugins)
    shapes = input_shape_pairs(input_shapes)
    graph, raw = _core.load_tensorflow(
        os.fspath(path), shapes, list(outputs or ()), list(enable_scope_passes), list(disable_scope_passes)
    )
    runs = pass_runs(raw)
    warn_declined(runs)
    if infer:
        _core.infer(graph, False, None)
    return graph, runs
