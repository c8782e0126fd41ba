"""The ONNX frontend: :func:`load_onnx` and the parser-plugin API (GE's
``REGISTER_CUSTOM_OP`` for ``ONNX``, ATC's ``--framework=5``).

A plugin maps ONNX op types, named ``domain::opset::op_type``, onto a
registered IR op; a plugin registered for opset N serves every model whose
opset for that domain is N or later, until a plugin for a later opset::

    from opgraph.onnx import FrameworkOp, Operator, plugin

    @plugin("MyOp", origin_op_types=["com.example::1::MyOp"])
    def parse_my_op(src: FrameworkOp, dst: Operator) -> None:
        dst.set_attr("alpha", src.get_attr("alpha"))

See :mod:`opgraph.parser_plugin` for the plugin kinds and their rules."""

from __future__ import annotations

from ..parser_plugin import (
    AttrInput,
    DelInputWithCond,
    DelInputWithOriginalType,
    DynamicPortKind,
    Framework,
    FrameworkOp,
    ImplyType,
    InputEdit,
    InputReorder,
    Operator,
    ParseOpToGraphFn,
    ParseParamsFn,
    PluginInfo,
    auto_mapping,
    auto_mapping_dynamic,
)
from .loader import OnnxReport, load_onnx, load_onnx_reported
from .plugin import plugin, register_plugin, registered_plugins

__all__ = [
    "AttrInput",
    "DelInputWithCond",
    "DelInputWithOriginalType",
    "DynamicPortKind",
    "Framework",
    "FrameworkOp",
    "ImplyType",
    "InputEdit",
    "InputReorder",
    "OnnxReport",
    "Operator",
    "ParseOpToGraphFn",
    "ParseParamsFn",
    "PluginInfo",
    "auto_mapping",
    "auto_mapping_dynamic",
    "load_onnx",
    "load_onnx_reported",
    "plugin",
    "register_plugin",
    "registered_plugins",
]
