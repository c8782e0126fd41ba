"""Caffe parser plugins: the ``@plugin`` decorator and :func:`register_plugin`,
GE's ``REGISTER_CUSTOM_OP(op_type).FrameworkType(CAFFE).OriginOpType(...)
.ParseParamsByOperatorFn(...).ImplyType(...)``::

    @opgraph.caffe.plugin("MyOp", origin_op_types=["MyLayer"])
    def parse_my_layer(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping(src, dst)

The origin op type is the layer's ``type`` string; ``src`` carries the
layer's parameters as attributes by field name (nested messages flattened,
enums as numbers, repeated messages as a JSON string), its ``top`` names,
and its inputs: the bottoms, then one per weight blob."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..parser_plugin import (
    BlobShapesFn,
    Framework,
    FrameworkOp,
    ImplyType,
    InputEdit,
    Operator,
    ParseOpToGraphFn,
    ParseParamsFn,
    PluginInfo,
    parse_params_plugin,
    register_parser_plugin,
    registered_parser_plugins,
)

__all__ = ["plugin", "register_plugin", "registered_plugins"]

_Parse = TypeVar("_Parse", bound=Callable[[FrameworkOp, Operator], None])


def register_plugin(
    op_type: str,
    origin_op_types: Sequence[str],
    *,
    imply_type: ImplyType = ImplyType.TVM,
    parse_params: ParseParamsFn | None = None,
    parse_op_to_graph: ParseOpToGraphFn | None = None,
    input_edits: Sequence[InputEdit] = (),
    override: bool = False,
    blob_shapes: BlobShapesFn | None = None,
) -> None:
    """Registers a Caffe plugin mapping layer types ``origin_op_types`` onto
    IR op ``op_type`` (see :mod:`opgraph.parser_plugin`). The ``@plugin``
    decorator is the usual way; this form suits a plugin with only
    ``parse_op_to_graph`` or one built from data."""
    register_parser_plugin(
        Framework.CAFFE,
        op_type,
        origin_op_types,
        imply_type=imply_type,
        parse_params=parse_params,
        parse_op_to_graph=parse_op_to_graph,
        input_edits=input_edits,
        override=override,
        blob_shapes=blob_shapes,
    )


def plugin(
    op_type: str,
    *,
    origin_op_types: Sequence[str],
    imply_type: ImplyType = ImplyType.TVM,
    parse_op_to_graph: ParseOpToGraphFn | None = None,
    input_edits: Sequence[InputEdit] = (),
    override: bool = False,
    blob_shapes: BlobShapesFn | None = None,
) -> Callable[[_Parse], _Parse]:
    """Registers the decorated ``parse(src: FrameworkOp, dst: Operator) -> None``
    as the ``parse_params`` of a plugin mapping Caffe layer types
    ``origin_op_types`` onto IR op ``op_type``. A plugin for a layer type
    opgraph maps itself replaces the built-in one; replacing another user
    plugin needs ``override=True``. The function is returned unchanged.

    ``blob_shapes(src)`` declares the layer's weight blobs for a net loaded
    without a ``.caffemodel``: one shape per blob from the layer's
    parameters, -1 for a dim only the input tells (the IR op's
    :meth:`~opgraph.OpDef.weight_shapes` completes it at inference). Blobs a
    weights file gives must agree with it."""
    return parse_params_plugin(
        Framework.CAFFE,
        op_type,
        origin_op_types,
        imply_type=imply_type,
        parse_op_to_graph=parse_op_to_graph,
        input_edits=input_edits,
        override=override,
        blob_shapes=blob_shapes,
    )


def registered_plugins() -> list[PluginInfo]:
    """Every Caffe plugin (built-in and user), sorted by layer type."""
    return registered_parser_plugins(Framework.CAFFE)
