"""ONNX parser plugins: the ``@plugin`` decorator and :func:`register_plugin`,
GE's ``REGISTER_CUSTOM_OP(op_type).FrameworkType(ONNX).OriginOpType(...)
.ParseParamsByOperatorFn(...).ImplyType(...)``::

    @opgraph.onnx.plugin("MyOp", origin_op_types=["com.example::1::MyOp"])
    def parse_my_op(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping(src, dst)

The origin op type is ``domain::opset::op_type`` (``ai.onnx`` is the
default domain); a node of type T in domain D is served by the plugin
registered for D and T with the highest opset not above the model's opset
for D. ``src`` carries the node's attributes by their ONNX names (graphs as
function names) and its inputs, absent optional ones included."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..parser_plugin import (
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
) -> None:
    """Registers an ONNX plugin mapping op types ``origin_op_types`` onto
    IR op ``op_type`` (see :mod:`opgraph.parser_plugin`). The ``@plugin``
    decorator is the usual way; this form suits a plugin with only
    ``parse_op_to_graph`` or one built from data."""
    register_parser_plugin(
        Framework.ONNX,
        op_type,
        origin_op_types,
        imply_type=imply_type,
        parse_params=parse_params,
        parse_op_to_graph=parse_op_to_graph,
        input_edits=input_edits,
        override=override,
    )


def plugin(
    op_type: str,
    *,
    origin_op_types: Sequence[str],
    imply_type: ImplyType = ImplyType.TVM,
    parse_op_to_graph: ParseOpToGraphFn | None = None,
    input_edits: Sequence[InputEdit] = (),
    override: bool = False,
) -> Callable[[_Parse], _Parse]:
    """Registers the decorated ``parse(src: FrameworkOp, dst: Operator) -> None``
    as the ``parse_params`` of a plugin mapping ONNX op types
    ``origin_op_types`` onto IR op ``op_type``. A plugin for an op type
    opgraph maps itself replaces the built-in one; replacing another user
    plugin needs ``override=True``. The function is returned unchanged."""
    return parse_params_plugin(
        Framework.ONNX,
        op_type,
        origin_op_types,
        imply_type=imply_type,
        parse_op_to_graph=parse_op_to_graph,
        input_edits=input_edits,
        override=override,
    )


def registered_plugins() -> list[PluginInfo]:
    """Every ONNX plugin (built-in and user), sorted by origin op type."""
    return registered_parser_plugins(Framework.ONNX)
