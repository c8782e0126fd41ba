"""TensorFlow parser plugins: the ``@plugin`` / ``@fusion_plugin``
decorators and :func:`register_plugin`, GE's
``REGISTER_CUSTOM_OP(op_type).FrameworkType(TENSORFLOW).OriginOpType(...)
.ParseParamsByOperatorFn(...).ImplyType(...)``::

    @opgraph.tensorflow.plugin("TopK", origin_op_types=["TopKV2"], imply_type=ImplyType.TVM)
    def parse_topk(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping(src, dst)

Input edits are listed in ``input_edits=[...]`` in the order they apply
(GE's chained ``DelInputWithCond`` / ``DelInputWithOriginalType`` /
``InputReorderVector`` calls)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..parser_plugin import (
    Framework,
    FrameworkOp,
    FusionParseParamsFn,
    ImplyType,
    InputEdit,
    Operator,
    ParseOpToGraphFn,
    ParseParamsFn,
    PluginInfo,
    fusion_parse_params_plugin,
    parse_params_plugin,
    register_parser_plugin,
    registered_parser_plugins,
)

__all__ = ["fusion_plugin", "plugin", "register_plugin", "registered_plugins"]

_Parse = TypeVar("_Parse", bound=Callable[[FrameworkOp, Operator], None])
_FusionParse = TypeVar("_FusionParse", bound=Callable[[list[FrameworkOp], Operator], None])


def register_plugin(
    op_type: str,
    origin_op_types: Sequence[str],
    *,
    imply_type: ImplyType = ImplyType.TVM,
    parse_params: ParseParamsFn | None = None,
    fusion_parse_params: FusionParseParamsFn | None = None,
    parse_op_to_graph: ParseOpToGraphFn | None = None,
    input_edits: Sequence[InputEdit] = (),
    override: bool = False,
) -> None:
    """Registers a TensorFlow plugin mapping ``origin_op_types`` onto IR op
    ``op_type`` (see :mod:`opgraph.parser_plugin`). The decorators below are
    the usual way; this form suits a plugin with only ``parse_op_to_graph``
    or one built from data."""
    register_parser_plugin(
        Framework.TENSORFLOW,
        op_type,
        origin_op_types,
        imply_type=imply_type,
        parse_params=parse_params,
        fusion_parse_params=fusion_parse_params,
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
    as the ``parse_params`` of a plugin mapping ``origin_op_types`` onto IR op
    ``op_type``; the function is returned unchanged (so it can be unit-tested
    with a hand-built ``FrameworkOp`` and ``Operator``)."""
    return parse_params_plugin(
        Framework.TENSORFLOW,
        op_type,
        origin_op_types,
        imply_type=imply_type,
        parse_op_to_graph=parse_op_to_graph,
        input_edits=input_edits,
        override=override,
    )


def fusion_plugin(
    op_type: str,
    *,
    origin_op_types: Sequence[str],
    imply_type: ImplyType = ImplyType.TVM,
    parse_op_to_graph: ParseOpToGraphFn | None = None,
    input_edits: Sequence[InputEdit] = (),
    override: bool = False,
) -> Callable[[_FusionParse], _FusionParse]:
    """Registers the decorated function as the ``fusion_parse_params`` of a
    plugin for the fused op types a scope-fusion pass produces
    (``origin_op_types``); it is called as ``parse(fused, dst)`` with the
    fused ops (``list[FrameworkOp]``) and the :class:`Operator` to fill."""
    return fusion_parse_params_plugin(
        Framework.TENSORFLOW,
        op_type,
        origin_op_types,
        imply_type=imply_type,
        parse_op_to_graph=parse_op_to_graph,
        input_edits=input_edits,
        override=override,
    )


def registered_plugins() -> list[PluginInfo]:
    """Every TensorFlow plugin (built-in and user), sorted by origin op type."""
    return registered_parser_plugins(Framework.TENSORFLOW)
