"""The Caffe frontend: :func:`load_caffe` and the parser-plugin API (GE's
``REGISTER_CUSTOM_OP`` for ``CAFFE``).

A plugin maps Caffe layer types (origin op types) onto a registered IR op::

    from opgraph.caffe import FrameworkOp, Operator, auto_mapping, plugin

    @plugin("MyOp", origin_op_types=["MyLayer"])
    def parse_my_layer(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping(src, dst)

See :mod:`opgraph.parser_plugin` for the plugin kinds and their rules."""

from __future__ import annotations

from ..parser_plugin import (
    AttrInput,
    BlobShapesFn,
    DelInputWithCond,
    DelInputWithOriginalType,
    DynamicPortKind,
    EnumValue,
    Framework,
    FrameworkOp,
    ImplyType,
    InputEdit,
    InputReorder,
    Operator,
    ParamValue,
    ParseOpToGraphFn,
    ParseParamsFn,
    PluginInfo,
    auto_mapping,
    auto_mapping_dynamic,
)
from .loader import load_caffe
from .plugin import plugin, register_plugin, registered_plugins

__all__ = [
    "AttrInput",
    "BlobShapesFn",
    "DelInputWithCond",
    "DelInputWithOriginalType",
    "DynamicPortKind",
    "EnumValue",
    "Framework",
    "FrameworkOp",
    "ImplyType",
    "InputEdit",
    "InputReorder",
    "Operator",
    "ParamValue",
    "ParseOpToGraphFn",
    "ParseParamsFn",
    "PluginInfo",
    "auto_mapping",
    "auto_mapping_dynamic",
    "load_caffe",
    "plugin",
    "register_plugin",
    "registered_plugins",
]
