"""The TensorFlow frontend: :func:`load_tensorflow` and the parser-plugin
API (GE's ``REGISTER_CUSTOM_OP`` for ``TENSORFLOW``).

A plugin maps TensorFlow op types (origin op types) onto a registered IR op::

    from opgraph.tensorflow import FrameworkOp, ImplyType, Operator, auto_mapping, plugin

    @plugin("TopK", origin_op_types=["TopKV2"], imply_type=ImplyType.TVM)
    def parse_topk(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping(src, dst)

See :mod:`opgraph.parser_plugin` for the plugin kinds and their rules, and
:mod:`opgraph.tensorflow.scope` for scope-fusion passes."""

from __future__ import annotations

from ..parser_plugin import (
    AttrInput,
    DelInputWithCond,
    DelInputWithOriginalType,
    DynamicPortKind,
    Framework,
    FrameworkOp,
    FusionParseParamsFn,
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
from .loader import load_tensorflow, load_tensorflow_reported
from .plugin import fusion_plugin, plugin, register_plugin, registered_plugins
from .scope import (
    FUSION_DISABLE_INDEX,
    INPUT_FROM_FUSION_SCOPE,
    OUTPUT_TO_FUSION_SCOPE,
    SCOPE_INVALID_TYPE,
    SCOPE_TO_MULTI_NODES,
    FusionScopesResult,
    InnerNodeInfo,
    NodeAttrFeature,
    NodeOpTypeFeature,
    PatternGroups,
    RegisteredScopePass,
    Scope,
    ScopeBasePass,
    ScopeFeature,
    ScopeGraph,
    ScopeNode,
    ScopePattern,
    ScopesResult,
    ScopeTree,
    register_scope_fusion_pass,
    registered_scope_fusion_passes,
)
from .scope_report import DeclinedScope, FusedScope, ScopeFusionDeclined, ScopePassRun

__all__ = [
    "FUSION_DISABLE_INDEX",
    "INPUT_FROM_FUSION_SCOPE",
    "OUTPUT_TO_FUSION_SCOPE",
    "SCOPE_INVALID_TYPE",
    "SCOPE_TO_MULTI_NODES",
    "AttrInput",
    "DeclinedScope",
    "DelInputWithCond",
    "DelInputWithOriginalType",
    "DynamicPortKind",
    "Framework",
    "FrameworkOp",
    "FusedScope",
    "FusionParseParamsFn",
    "FusionScopesResult",
    "ImplyType",
    "InnerNodeInfo",
    "InputEdit",
    "InputReorder",
    "NodeAttrFeature",
    "NodeOpTypeFeature",
    "Operator",
    "ParseOpToGraphFn",
    "ParseParamsFn",
    "PatternGroups",
    "PluginInfo",
    "RegisteredScopePass",
    "Scope",
    "ScopeBasePass",
    "ScopeFeature",
    "ScopeFusionDeclined",
    "ScopeGraph",
    "ScopeNode",
    "ScopePassRun",
    "ScopePattern",
    "ScopeTree",
    "ScopesResult",
    "auto_mapping",
    "auto_mapping_dynamic",
    "fusion_plugin",
    "load_tensorflow",
    "load_tensorflow_reported",
    "plugin",
    "register_plugin",
    "register_scope_fusion_pass",
    "registered_plugins",
    "registered_scope_fusion_passes",
]
