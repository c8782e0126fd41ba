"""``load_caffe``: a Caffe network (and optionally its weights) as an
opgraph Graph."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from .. import _core
from .._core import Graph
from ..plugins import PluginModule, load_plugin_modules
from ..shape import input_shape_pairs

__all__ = ["load_caffe"]

PathLike = str | os.PathLike[str]


def load_caffe(
    prototxt: PathLike,
    weights: PathLike | None = None,
    custom_protos: Sequence[PathLike] = (),
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    plugins: Sequence[PluginModule] = (),
    *,
    outputs: Sequence[str] | None = None,
    infer: bool = True,
) -> Graph:
    """Loads a Caffe network definition (``.prototxt``, the current ``layer``
    or the legacy V1 ``layers`` form, TEST phase) and maps every layer onto
    IR ops with the parser plugins: opgraph's built-in ones and every user
    plugin registered so far.

    - ``weights`` is the ``.caffemodel``; without it the weight blobs keep
      their shapes (unknown dims where only the weights would tell) but no
      values;
    - ``custom_protos`` are ``custom.proto`` files merged into opgraph's
      ``caffe.proto`` in order, the way GE merges them (``LayerParameter``
      gains their fields, their messages replace same-named ones);
    - ``input_shapes`` replaces net input shapes, e.g. ``{"data": [1, 3, 224, 224]}``;
    - ``plugins`` are modules (names, ``.py`` paths or module objects)
      imported first so their plugins and ops register;
    - ``outputs`` names the graph outputs as tensors (``"layer"`` or
      ``"layer:1"``) and prunes the graph to what they need; by default the
      layers nothing reads are the outputs;
    - ``infer`` (default true) verifies and infers the loaded graph, as
      :func:`opgraph.infer` does.

    A layer that a user plugin maps and that sets a parameter field GE's
    flattened attributes drop (a clash of field names) warns with
    :class:`~opgraph.ParamShadowedWarning`, once per layer type; the plugin
    reads it with ``FrameworkOp.param_path``.

    Each layer becomes a node of the same name (an in-place layer too), so
    every layer's output shapes can be read off the graph. Raises
    :class:`~opgraph.ShapeArgumentError` for an invalid ``input_shapes``
    value (naming the input and the dim), :class:`~opgraph.ParseError`
    when a file cannot be decoded (naming the file, line and field), when
    layer types have no plugin (all of them are listed), or when a plugin
    fails (a Python plugin's exception is the error's ``__cause__``);
    inference failures raise as :func:`opgraph.infer` does."""
    if isinstance(custom_protos, (str, os.PathLike)):
        raise TypeError(f"custom_protos is a list of paths; wrap it: [{custom_protos!r}]")
    if isinstance(outputs, str):
        raise TypeError(f"outputs is a list of tensor names; wrap it: [{outputs!r}]")
    load_plugin_modules(plugins)
    shapes = input_shape_pairs(input_shapes)
    graph = _core.load_caffe(
        os.fspath(prototxt),
        None if weights is None else os.fspath(weights),
        [os.fspath(p) for p in custom_protos],
        shapes,
        list(outputs or ()),
    )
    if infer:
        _core.infer(graph, False, None)
    return graph
