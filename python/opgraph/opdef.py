"""Operator prototypes written in Python: GE's ``REG_OP`` / ``OpDef`` as a
typed builder, with verify / infer functions attached by decorator.

    conv = OpDef("MyScale")
    conv.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16])
    conv.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16], follow="x")
    conv.attr("factor", float, default=1.0)
    register(conv)
"""

from __future__ import annotations

import enum
import typing
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from . import _core
from ._core import InferDataTypeContext, InferShapeContext, NamedAttrs, VerifyContext
from .dtype import DataType
from .errors import BuiltinShadowedWarning, UnknownOpTypeError
from .format import Format


class ParamType(enum.IntEnum):
    """How many instances a port takes."""

    REQUIRED = 0
    OPTIONAL = 1
    DYNAMIC = 2


class FollowType(enum.IntEnum):
    """What a ``follow`` rule copies from the port it follows."""

    ALL = 0
    DTYPE = 1
    FORMAT = 2
    SHAPE = 3


class ValueDepend(enum.IntEnum):
    """Whether inference needs an input's value (GE's ``ValueDepend``)."""

    REQUIRED = 0
    OPTIONAL = 1


REQUIRED = ParamType.REQUIRED
OPTIONAL = ParamType.OPTIONAL
DYNAMIC = ParamType.DYNAMIC

InferShapeFn = Callable[[InferShapeContext], None]
InferDataTypeFn = Callable[[InferDataTypeContext], None]
VerifyFn = Callable[[VerifyContext], "bool | None"]
ShapeFnT = TypeVar("ShapeFnT", bound=InferShapeFn)
DtypeFnT = TypeVar("DtypeFnT", bound=InferDataTypeFn)
VerifyFnT = TypeVar("VerifyFnT", bound=VerifyFn)
WeightShapesFn = Callable[[VerifyContext], Mapping[int, Sequence[int]]]
WeightShapesFnT = TypeVar("WeightShapesFnT", bound=WeightShapesFn)

Follow = str | tuple[str, FollowType]
"""A port name (follow everything) or ``(port, FollowType)``."""


class _NoDefault:
    def __repr__(self) -> str:
        return "<required>"


NO_DEFAULT: Any = _NoDefault()
"""Marks an attribute as required (the default for ``OpDef.attr``)."""


@dataclass(frozen=True)
class PortSpec:
    """One input or output of a prototype."""

    name: str
    param_type: ParamType
    dtypes: tuple[DataType, ...]
    dtype_list: bool
    formats: tuple[Format, ...]
    value_depend: ValueDepend | None
    follow: tuple[str, FollowType] | None
    reuses_input: str | None = None
    """For an output: the input whose memory it shares (a view or an
    in-place op); the memory planner gives it no buffer of its own."""


@dataclass(frozen=True)
class AttrSpec:
    """One attribute of a prototype; ``default is NO_DEFAULT`` means required."""

    name: str
    type_name: str
    default: object

    @property
    def required(self) -> bool:
        """Whether the attribute has no default."""
        return self.default is NO_DEFAULT


_SCALAR_TYPES: dict[object, str] = {
    int: "int",
    float: "float",
    str: "str",
    bool: "bool",
    DataType: "DataType",
    np.ndarray: "tensor",
    NamedAttrs: "NamedAttrs",
}


def attr_type_name(attr_type: object) -> str:
    """The core's name for an attribute type given as a Python type:
    ``int``, ``float``, ``bool``, ``str``, ``DataType``, ``numpy.ndarray``,
    ``NamedAttrs``, ``list[...]`` of the first five, or ``list[list[int]]``."""
    if attr_type in _SCALAR_TYPES:
        return _SCALAR_TYPES[attr_type]
    if typing.get_origin(attr_type) is list and len(typing.get_args(attr_type)) == 1:
        (item,) = typing.get_args(attr_type)
        if typing.get_origin(item) is list and typing.get_args(item) == (int,):
            return "list[list[int]]"
        if item in (int, float, str, bool, DataType):
            return f"list[{_SCALAR_TYPES[item]}]"
    raise TypeError(
        f"{attr_type!r} is not an attribute type (int, float, str, bool, DataType, numpy.ndarray, "
        "NamedAttrs, a list[...] of the first five, or list[list[int]])"
    )


def _follow_spec(port_name: str, follow: Follow | None) -> tuple[str, FollowType] | None:
    if follow is None:
        return None
    if isinstance(follow, str):
        return (follow, FollowType.ALL)
    if isinstance(follow, tuple) and len(follow) == 2 and isinstance(follow[0], str):
        try:
            return (follow[0], FollowType(follow[1]))
        except ValueError:
            pass
    raise TypeError(f"port {port_name!r}: follow is a port name or (port name, FollowType), got {follow!r}")


_E = typing.TypeVar("_E", DataType, Format)


def _enum_items(
    port_name: str, what: str, enum: type[_E], example: _E, values: Sequence[Any]
) -> tuple[_E, ...]:
    """``values`` as members of ``enum`` (a DataType or Format list), or a
    TypeError naming the port and the value."""
    items = []
    for value in values:
        try:
            items.append(enum(value))
        except ValueError:
            raise TypeError(
                f"port {port_name!r}: {what} holds {value!r}, which is not a {enum.__name__} "
                f"(e.g. {enum.__name__}.{example.name})"
            ) from None
    return tuple(items)


class OpDef:
    """A prototype under construction; register it with :func:`register`."""

    def __init__(self, op_type: str) -> None:
        self.op_type = op_type
        self.inputs: list[PortSpec] = []
        self.outputs: list[PortSpec] = []
        self.attrs: list[AttrSpec] = []
        self.verify_fn: VerifyFn | None = None
        self.weight_shapes_fn: WeightShapesFn | None = None
        self.infer_dtype_fn: InferDataTypeFn | None = None
        self.infer_shape_fn: InferShapeFn | None = None
        self.builtin = False
        self.extra_attrs = False

    def input(
        self,
        name: str,
        *,
        dtypes: Sequence[DataType] | None = None,
        dtype_list: Sequence[DataType] | None = None,
        formats: Sequence[Format] | None = None,
        param_type: ParamType = ParamType.REQUIRED,
        value_depend: ValueDepend | None = None,
        follow: Follow | None = None,
    ) -> OpDef:
        """Adds an input. ``dtypes`` are GE OpDef's parallel lists (entry k of
        every port forms combination k); ``dtype_list`` is an independent set
        for this port instead. Neither means any dtype."""
        self.inputs.append(self._port(name, dtypes, dtype_list, formats, param_type, follow))
        if value_depend is not None:
            last = self.inputs[-1]
            self.inputs[-1] = PortSpec(**{**last.__dict__, "value_depend": value_depend})
        return self

    def output(
        self,
        name: str,
        *,
        dtypes: Sequence[DataType] | None = None,
        dtype_list: Sequence[DataType] | None = None,
        formats: Sequence[Format] | None = None,
        param_type: ParamType = ParamType.REQUIRED,
        follow: Follow | None = None,
        reuses_input: str | None = None,
    ) -> OpDef:
        """Adds an output; ``follow`` copies dtype / shape / format from a port.
        ``reuses_input`` names the input whose memory the output shares (a
        view such as a reshape, or an in-place op): :func:`opgraph.plan_memory`
        gives it no buffer and keeps the input's alive for its readers. A
        DYNAMIC output pairs with a DYNAMIC input instance by instance."""
        port = self._port(name, dtypes, dtype_list, formats, param_type, follow)
        self.outputs.append(PortSpec(**{**port.__dict__, "reuses_input": reuses_input}))
        return self

    @staticmethod
    def _port(
        name: str,
        dtypes: Sequence[DataType] | None,
        dtype_list: Sequence[DataType] | None,
        formats: Sequence[Format] | None,
        param_type: ParamType,
        follow: Follow | None,
    ) -> PortSpec:
        if dtypes is not None and dtype_list is not None:
            raise TypeError(f"port {name!r}: give dtypes or dtype_list, not both")
        try:
            kind = ParamType(param_type)
        except ValueError:
            raise TypeError(
                f"port {name!r}: param_type is a ParamType (REQUIRED, OPTIONAL or DYNAMIC), "
                f"got {param_type!r}"
            ) from None
        return PortSpec(
            name=name,
            param_type=kind,
            dtypes=_enum_items(
                name, "dtypes", DataType, DataType.FLOAT, dtypes if dtypes is not None else dtype_list or ()
            ),
            dtype_list=dtype_list is not None,
            formats=_enum_items(name, "formats", Format, Format.NCHW, formats or ()),
            value_depend=None,
            follow=_follow_spec(name, follow),
        )

    def attr(self, name: str, attr_type: object, *, default: object = NO_DEFAULT) -> OpDef:
        """Adds an attribute of ``attr_type`` (see :func:`attr_type_name`);
        without a default it is required."""
        try:
            type_name = attr_type_name(attr_type)
        except TypeError as exc:
            raise TypeError(f"op {self.op_type!r} attribute {name!r}: {exc}") from None
        self.attrs.append(AttrSpec(name, type_name, default))
        return self

    def allow_extra_attrs(self) -> OpDef:
        """Lets nodes of this op carry attributes it does not declare (a
        passthrough of framework attributes, GE's private ``_``-prefixed
        ones). Without it, an undeclared attribute given to
        :meth:`Graph.add_node` or set by a parser plugin is an error that
        lists the declared ones and suggests the closest, so a typo such as
        ``scael`` cannot pass silently."""
        self.extra_attrs = True
        return self

    def infer_shape(self, fn: ShapeFnT) -> ShapeFnT:
        """Decorator: the infer-shape function (wins over ``follow``). It sets
        the outputs through its context and returns None; a shape range it
        sets must fit the shape (one ``(min, max)`` per dim, holding it)."""
        self.infer_shape_fn = fn
        return fn

    def infer_dtype(self, fn: DtypeFnT) -> DtypeFnT:
        """Decorator: the infer-dtype function (wins over ``follow``); it sets
        the dtypes through its context and returns None."""
        self.infer_dtype_fn = fn
        return fn

    def verify(self, fn: VerifyFnT) -> VerifyFnT:
        """Decorator: the verify function: return True or None to accept the
        node, False (or raise) to reject it; anything else is an error."""
        self.verify_fn = fn
        return fn

    def weight_shapes(self, fn: WeightShapesFnT) -> WeightShapesFnT:
        """Decorator: the shapes this op's weight inputs need, from its
        attributes and its inferred data inputs, as ``{input index: shape}``
        (-1: still unknown). Before inferring a node, the engine gives them
        to its weights that were loaded without values (a Caffe net without
        its ``.caffemodel``: see the ``blob_shapes`` of
        :func:`opgraph.caffe.plugin`), so the memory plan and the cost model
        size them; weights with known dims must agree."""
        self.weight_shapes_fn = fn
        return fn

    def __repr__(self) -> str:
        ins = ", ".join(p.name for p in self.inputs)
        outs = ", ".join(p.name for p in self.outputs)
        return f"OpDef({self.op_type!r}: ({ins}) -> ({outs}), {len(self.attrs)} attrs)"


def _port_args(port: PortSpec) -> tuple[Any, ...]:
    value_depend = None if port.value_depend is None else int(port.value_depend)
    follow = None if port.follow is None else (port.follow[0], int(port.follow[1]))
    return (
        port.name,
        int(port.param_type),
        list(port.dtypes),
        port.dtype_list,
        list(port.formats),
        value_depend,
        follow,
        port.reuses_input,
    )


def register(op_def: OpDef, override: bool = False) -> None:
    """Registers ``op_def`` in the OperatorFactory.

    One rule for op types and parser plugins alike: replacing a registration,
    built-in or user, needs ``override=True`` (else
    :class:`RegistrationError`), and replacing one of opgraph's built-ins
    also warns with :class:`~opgraph.BuiltinShadowedWarning`, because every
    graph in the process then uses the user's definition. An explicit flag
    rather than a silent replacement: a user op named like a built-in by
    accident would otherwise change every model that uses the built-in."""
    if not isinstance(op_def, OpDef):
        raise TypeError(f"register() takes an OpDef, got {type(op_def).__name__} {op_def!r}")
    existing = _core.op_schema(op_def.op_type)
    if existing is not None and bool(existing["builtin"]) and override:
        warnings.warn(
            f"user op type {op_def.op_type!r} replaces opgraph's built-in {op_def.op_type} "
            "for every graph in this process",
            BuiltinShadowedWarning,
            stacklevel=2,
        )
    _core.register_op(
        op_def.op_type,
        [_port_args(p) for p in op_def.inputs],
        [_port_args(p) for p in op_def.outputs],
        [(a.name, a.type_name, not a.required, None if a.required else a.default) for a in op_def.attrs],
        verify=op_def.verify_fn,
        infer_dtype=op_def.infer_dtype_fn,
        infer_shape=op_def.infer_shape_fn,
        allow_override=override,
        extra_attrs=op_def.extra_attrs,
        weight_shapes=op_def.weight_shapes_fn,
    )


def registered_op_types() -> list[str]:
    """Every registered op type, sorted."""
    return _core.registered_op_types()


def _port_from_core(raw: dict[str, Any]) -> PortSpec:
    follow = raw["follow"]
    depend = raw["value_depend"]
    return PortSpec(
        name=raw["name"],
        param_type=ParamType(raw["param_type"]),
        dtypes=tuple(raw["dtypes"]),
        dtype_list=raw["dtype_list"],
        formats=tuple(raw["formats"]),
        value_depend=None if depend is None else ValueDepend(depend),
        follow=None if follow is None else (follow[0], FollowType(follow[1])),
        reuses_input=raw.get("reuses_input"),
    )


def op_def(op_type: str) -> OpDef:
    """The registered prototype of ``op_type`` (functions are not included)."""
    raw = _core.op_schema(op_type)
    if raw is None:
        raise UnknownOpTypeError(f"no op type {op_type!r} is registered", op_type=op_type)
    result = OpDef(op_type)
    result.inputs = [_port_from_core(p) for p in raw["inputs"]]
    result.outputs = [_port_from_core(p) for p in raw["outputs"]]
    result.attrs = [AttrSpec(a["name"], a["type"], a.get("default", NO_DEFAULT)) for a in raw["attrs"]]
    result.builtin = bool(raw["builtin"])
    result.extra_attrs = bool(raw["extra_attrs"])
    return result
