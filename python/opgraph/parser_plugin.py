"""Parser plugins, GE's ``REGISTER_CUSTOM_OP``: how a framework op becomes an
IR op. This module is framework-neutral; :mod:`opgraph.tensorflow` and
:mod:`opgraph.caffe` bind it to their framework with the ``@plugin``
decorators.

A plugin maps one or more *origin op types* (the framework's, e.g.
``TopKV2``) onto one IR *op type* (a registered op, e.g. ``TopK``) with:

- ``parse_params(src, dst)``: fills ``dst`` (:class:`Operator`) from one
  framework op ``src`` (:class:`FrameworkOp`), usually with
  :func:`auto_mapping`;
- ``fusion_parse_params(fused, dst)``: the same from the ops a scope-fusion
  pass folded into one (many-to-one);
- ``parse_op_to_graph(op)``: returns a body :class:`~opgraph.Graph` for the
  parsed op, which becomes a PartitionedCall of it (one-to-many). The body's
  inputs (``Graph.add_input``) take the node's inputs in order (their
  ``index`` attribute), its outputs are the node's outputs;
- ``input_edits``: applied to the framework op's inputs before wiring, in
  order (:class:`DelInputWithCond`, :class:`DelInputWithOriginalType`,
  :class:`InputReorder`).

One rule for plugins and op types (:func:`opgraph.register`): replacing a
plugin, built-in or user, needs ``override=True`` (else
:class:`~opgraph.RegistrationError`), and replacing a built-in one also
warns with :class:`~opgraph.BuiltinShadowedWarning`.
"""

from __future__ import annotations

import enum
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt

from . import _core
from ._core import EnumValue, FrameworkOp, Graph, NamedAttrs, Operator
from .dtype import DataType
from .errors import BuiltinShadowedWarning, RegistrationError

ParamValue: TypeAlias = (
    bool | int | float | str | bytes | EnumValue | list["ParamValue"] | dict[str, "ParamValue"]
)
"""A value of :meth:`FrameworkOp.param` / :meth:`FrameworkOp.param_path`:
messages as dicts, repeated fields as lists, enums as :class:`EnumValue`."""

AttrInput: TypeAlias = (
    bool
    | int
    | float
    | str
    | DataType
    | NamedAttrs
    | Sequence[int]
    | Sequence[float]
    | Sequence[str]
    | Sequence[bool]
    | Sequence[DataType]
    | Sequence[Sequence[int]]
    | npt.NDArray[np.generic]
)
"""What :meth:`Operator.set_attr` takes."""

__all__ = [
    "AttrInput",
    "BlobShapesFn",
    "DelInputWithCond",
    "DelInputWithOriginalType",
    "DynamicPortKind",
    "EnumValue",
    "Framework",
    "FrameworkOp",
    "FusionParseParamsFn",
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
    "fusion_parse_params_plugin",
    "parse_params_plugin",
    "register_parser_plugin",
    "registered_parser_plugins",
]


class Framework(enum.Enum):
    """The framework a model and its plugins come from."""

    TENSORFLOW = "tensorflow"
    CAFFE = "caffe"
    ONNX = "onnx"


class ImplyType(enum.Enum):
    """GE's ``ImplyType``: how the IR op is implemented on the device."""

    BUILTIN = "builtin"
    TVM = "tvm"
    CUSTOM = "custom"
    AI_CPU = "ai_cpu"


class InputEdit:
    """An edit of a framework op's inputs before they are wired to the IR op:
    :class:`DelInputWithCond`, :class:`DelInputWithOriginalType` or
    :class:`InputReorder`."""

    __slots__ = ()


@dataclass(frozen=True)
class DelInputWithCond(InputEdit):
    """GE's ``DelInputWithCond``: drop input ``index`` when the framework op's
    bool attribute ``attr`` equals ``value``."""

    index: int
    attr: str
    value: bool


@dataclass(frozen=True)
class DelInputWithOriginalType(InputEdit):
    """GE's ``DelInputWithOriginalType``: drop input ``index`` when its
    producer's origin op type is ``op_type`` (e.g. ``"Const"``)."""

    index: int
    op_type: str


@dataclass(frozen=True, init=False)
class InputReorder(InputEdit):
    """GE's ``InputReorderVector``: new input ``i`` is old input ``order[i]``."""

    order: tuple[int, ...]

    def __init__(self, order: Sequence[int]) -> None:
        object.__setattr__(self, "order", tuple(order))


ParseParamsFn: TypeAlias = Callable[[FrameworkOp, Operator], None]
"""``ParseParamsByOperatorFn``: fills the IR op from one framework op."""

FusionParseParamsFn: TypeAlias = Callable[[list[FrameworkOp], Operator], None]
"""``FusionParseParamsFn``: fills the IR op from the ops a scope pass fused."""

ParseOpToGraphFn: TypeAlias = Callable[[Operator], Graph]
"""``ParseOpToGraphFn``: the body graph the parsed op expands into."""
BlobShapesFn: TypeAlias = Callable[[FrameworkOp], Sequence[Sequence[int]]]
"""A Caffe plugin's ``blob_shapes``: the weight blobs its layer has without a
``.caffemodel``, one shape per blob from the layer's parameters (-1 for a dim
only the input tells; the IR op's :meth:`~opgraph.OpDef.weight_shapes`
completes those at inference)."""

DynamicPortKind: TypeAlias = Literal["input", "output"]


class PluginInfo(NamedTuple):
    """One registered plugin, as :func:`registered_parser_plugins` lists it."""

    origin_op_type: str
    op_type: str
    builtin: bool


def _edit_spec(edit: InputEdit) -> tuple[object, ...]:
    if isinstance(edit, DelInputWithCond):
        return ("del_with_cond", edit.index, edit.attr, edit.value)
    if isinstance(edit, DelInputWithOriginalType):
        return ("del_with_original_type", edit.index, edit.op_type)
    if isinstance(edit, InputReorder):
        return ("reorder", list(edit.order))
    raise TypeError(
        f"an input edit is a DelInputWithCond, DelInputWithOriginalType or InputReorder, got {edit!r}"
    )


def register_parser_plugin(
    framework: Framework,
    op_type: str,
    origin_op_types: Sequence[str],
    *,
    imply_type: ImplyType = ImplyType.TVM,
    parse_params: ParseParamsFn | None = None,
    fusion_parse_params: FusionParseParamsFn | None = None,
    parse_op_to_graph: ParseOpToGraphFn | None = None,
    input_edits: Sequence[InputEdit] = (),
    override: bool = False,
    blob_shapes: BlobShapesFn | None = None,
) -> None:
    """Registers a plugin mapping ``origin_op_types`` of ``framework`` onto IR
    op ``op_type``. Needs at least one of ``parse_params``,
    ``fusion_parse_params`` and ``parse_op_to_graph``; ``blob_shapes``
    (Caffe only) declares the layer's weight blobs. Raises
    :class:`~opgraph.RegistrationError` when a plugin (built-in or user)
    already maps one of the origin types and ``override`` is false; replacing
    a built-in one warns with :class:`~opgraph.BuiltinShadowedWarning`."""
    if isinstance(origin_op_types, str):
        raise TypeError(f"origin_op_types is a list of op types; wrap it: [{origin_op_types!r}]")
    if not isinstance(op_type, str) or not op_type:
        raise TypeError(f"a {framework.value} plugin's op_type is an IR op type name, got {op_type!r}")
    bad = [origin for origin in origin_op_types if not isinstance(origin, str) or not origin]
    if bad:
        raise TypeError(
            f"the {framework.value} plugin for {op_type}: origin_op_types holds {bad[0]!r}; each is "
            "a non-empty op type name of the framework"
        )
    if not isinstance(imply_type, ImplyType):
        raise TypeError(
            f"the {framework.value} plugin for {op_type}: imply_type is an ImplyType "
            f"(e.g. ImplyType.TVM), got {imply_type!r}"
        )
    _check_shadowed_builtins(framework, origin_op_types, override)
    _core.register_parser_plugin(
        framework.value,
        op_type,
        list(origin_op_types),
        imply_type.value,
        parse_params,
        fusion_parse_params,
        parse_op_to_graph,
        [_edit_spec(edit) for edit in input_edits],
        override,
        blob_shapes,
    )


_Parse = TypeVar("_Parse", bound=Callable[[FrameworkOp, Operator], None])
_FusionParse = TypeVar("_FusionParse", bound=Callable[[list[FrameworkOp], Operator], None])
_Fn = TypeVar("_Fn", bound=Callable[..., None])


def parse_params_plugin(
    framework: Framework,
    op_type: str,
    origin_op_types: Sequence[str],
    *,
    imply_type: ImplyType = ImplyType.TVM,
    parse_op_to_graph: ParseOpToGraphFn | None = None,
    input_edits: Sequence[InputEdit] = (),
    override: bool = False,
    blob_shapes: BlobShapesFn | None = None,
) -> Callable[[_Parse], _Parse]:
    """The decorator each framework's ``@plugin`` is: registers the decorated
    ``parse(src: FrameworkOp, dst: Operator) -> None`` as the
    ``parse_params`` of a ``framework`` plugin mapping ``origin_op_types``
    onto IR op ``op_type`` and returns the function unchanged (so it can be
    unit-tested with a hand-built ``FrameworkOp`` and ``Operator``)."""
    return _registering(
        framework,
        op_type,
        origin_op_types,
        fusion=False,
        imply_type=imply_type,
        parse_op_to_graph=parse_op_to_graph,
        input_edits=input_edits,
        override=override,
        blob_shapes=blob_shapes,
    )


def fusion_parse_params_plugin(
    framework: Framework,
    op_type: str,
    origin_op_types: Sequence[str],
    *,
    imply_type: ImplyType = ImplyType.TVM,
    parse_op_to_graph: ParseOpToGraphFn | None = None,
    input_edits: Sequence[InputEdit] = (),
    override: bool = False,
) -> Callable[[_FusionParse], _FusionParse]:
    """The decorator a ``@fusion_plugin`` is: registers the decorated
    ``parse(fused: list[FrameworkOp], dst: Operator) -> None`` as the
    ``fusion_parse_params`` of a ``framework`` plugin for the fused op types
    a scope-fusion pass produces (``origin_op_types``); returns the function
    unchanged."""
    return _registering(
        framework,
        op_type,
        origin_op_types,
        fusion=True,
        imply_type=imply_type,
        parse_op_to_graph=parse_op_to_graph,
        input_edits=input_edits,
        override=override,
    )


def _check_shadowed_builtins(framework: Framework, origin_op_types: Sequence[str], override: bool) -> None:
    """Replacing a built-in plugin needs ``override`` and warns (the core
    registry checks user plugins replacing each other)."""
    builtin = {info[0] for info in _core.parser_plugins(framework.value) if info[2]}
    shadowed = [
        (origin, by) for origin in origin_op_types if (by := _shadowed_builtin(framework, origin, builtin))
    ]
    if not shadowed:
        return
    listed = ", ".join(origin if by == origin else f"{origin} (over {by})" for origin, by in shadowed)
    if not override:
        raise RegistrationError(
            f"cannot register the {framework.value} plugin for {listed}: opgraph has a built-in "
            "plugin for it; pass override=True to replace it"
        )
    warnings.warn(
        f"user {framework.value} plugin for {listed} replaces opgraph's built-in plugin for every "
        "load in this process",
        BuiltinShadowedWarning,
        stacklevel=4,
    )


def _shadowed_builtin(framework: Framework, origin: str, builtin: set[str]) -> str | None:
    """The built-in plugin a plugin for ``origin`` takes nodes from, if any.
    An ONNX plugin for ``domain::v::op`` serves opsets from ``v`` on, so it
    takes them from the built-in for that op of the highest version up to
    ``v``, not only from one spelled the same."""
    if origin in builtin:
        return origin
    parsed = _onnx_origin(origin) if framework is Framework.ONNX else None
    if parsed is None:
        return None
    domain, version, op_type = parsed
    below = [
        (other[1], name)
        for name in builtin
        if (other := _onnx_origin(name)) is not None
        and other[0] == domain
        and other[2] == op_type
        and other[1] <= version
    ]
    return max(below)[1] if below else None


def _onnx_origin(origin: str) -> tuple[str, int, str] | None:
    """``(domain, opset version, op type)`` of ``domain::version::op_type``
    (the empty domain is ``ai.onnx``), or None for another form."""
    parts = origin.split("::")
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    return (parts[0] or "ai.onnx", int(parts[1]), parts[2])


def _registering(
    framework: Framework,
    op_type: str,
    origin_op_types: Sequence[str],
    *,
    fusion: bool,
    imply_type: ImplyType,
    parse_op_to_graph: ParseOpToGraphFn | None,
    input_edits: Sequence[InputEdit],
    override: bool,
    blob_shapes: BlobShapesFn | None = None,
) -> Callable[[_Fn], _Fn]:
    """The decorator registering its function as the plugin's
    ``fusion_parse_params`` (``fusion``) or ``parse_params``."""

    def decorate(parse: _Fn) -> _Fn:
        register_parser_plugin(
            framework,
            op_type,
            origin_op_types,
            imply_type=imply_type,
            parse_params=None if fusion else parse,
            fusion_parse_params=parse if fusion else None,
            parse_op_to_graph=parse_op_to_graph,
            input_edits=input_edits,
            override=override,
            blob_shapes=blob_shapes,
        )
        return parse

    return decorate


def registered_parser_plugins(framework: Framework) -> list[PluginInfo]:
    """Every plugin of ``framework`` (built-in and user), by origin op type."""
    return [PluginInfo(*info) for info in _core.parser_plugins(framework.value)]


def auto_mapping(src: FrameworkOp, dst: Operator) -> None:
    """GE's ``AutoMappingByOpFn``: copies every attribute of ``src`` to ``dst``
    except a Caffe layer's bookkeeping (``bottom``, ``top`` and the
    ``<field>_name`` companion of an enum field), which no IR op declares
    (already IR values: TensorFlow ``s`` → str, ``i`` → int, ``f`` → float,
    ``b`` → bool, ``type`` → DataType, ``shape`` → list of ints, ``tensor`` →
    numpy array, ``func`` → NamedAttrs, lists likewise) and sets every input
    and output format from ``data_format``. Raises
    :class:`~opgraph.ParseError` for a ``data_format`` it does not know."""
    _core.auto_mapping(src, dst)


def auto_mapping_dynamic(
    src: FrameworkOp, dst: Operator, ports: Sequence[tuple[DynamicPortKind, str, str]]
) -> None:
    """GE's ``AutoMappingByOpFnDynamic``: :func:`auto_mapping`, then sizes each
    ``(kind, port, count_attr)`` DYNAMIC port of the IR op from attribute
    ``count_attr`` of ``src``: an int (TensorFlow's ``N``) or a type list
    (``T``). Raises :class:`~opgraph.ParseError` when the attribute is
    missing or of another kind."""
    _core.auto_mapping_dynamic(src, dst, [(kind, port, attr) for kind, port, attr in ports])
