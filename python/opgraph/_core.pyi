"""Type stubs of the compiled module ``opgraph._core`` (the one source of
these types; the wheel ships this file and CI checks it with stubtest)."""

from collections.abc import Callable, Mapping, Sequence
from os import PathLike
from typing import Any, TypeAlias, TypeVar, final, overload

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from opgraph.dtype import DataType
from opgraph.errors import OpgraphError
from opgraph.format import Format

__version__: str

__all__ = [
    "FUSION_DISABLE_INDEX",
    "INPUT_FROM_FUSION_SCOPE",
    "OUTPUT_TO_FUSION_SCOPE",
    "SCOPE_INVALID_TYPE",
    "SCOPE_TO_MULTI_NODES",
    "DeviceSpec",
    "EnumValue",
    "FrameworkOp",
    "FusionScopesResult",
    "Graph",
    "InferDataTypeContext",
    "InferShapeContext",
    "InnerNodeInfo",
    "NamedAttrs",
    "Node",
    "NodeAttrFeature",
    "NodeOpTypeFeature",
    "OpContext",
    "Operator",
    "Scope",
    "ScopeFeature",
    "ScopeGraph",
    "ScopeNode",
    "ScopePattern",
    "ScopeTree",
    "ScopesResult",
    "TensorDesc",
    "TensorRef",
    "VerifyContext",
    "__version__",
    "_register_panicking_op",
    "_run_scope_passes",
    "auto_mapping",
    "auto_mapping_dynamic",
    "check_alignment",
    "check_formats",
    "check_placement",
    "data_type_table",
    "estimate_cost",
    "format_table",
    "infer",
    "load_caffe",
    "load_onnx",
    "load_tensorflow",
    "memory_strategies",
    "narrow_ranges",
    "op_schema",
    "parse_insert_op_config",
    "parser_plugins",
    "plan_lifetimes",
    "plan_memory",
    "prepare",
    "register_op",
    "register_parser_plugin",
    "register_scope_fusion_pass",
    "registered_op_types",
    "registered_scope_fusion_passes",
    "soc_versions",
    "storage_shape",
]

@final
class NamedAttrs:
    """A function reference or named attribute group (GE's `NamedAttrs`):
    ``NamedAttrs(name, attrs=None)``."""
    def __new__(cls, name: str, attrs: dict[str, Any] | None = None) -> NamedAttrs: ...
    @property
    def name(self) -> str:
        """The function's or group's name."""
    @property
    def attrs(self) -> dict[str, Any]:
        """Its attributes (a fresh dict)."""

@final
class TensorRef:
    """A handle to one output of one node of a particular graph."""
    @property
    def node(self) -> str:
        """Name of the producing node."""
    @property
    def index(self) -> int:
        """The producing node's output index."""
    def output(self, index: int) -> TensorRef:
        """The handle of another output of the same node."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class TensorDesc:
    """A tensor descriptor: dtype, origin and storage format and shape, shape
    range and host value.

    ``TensorDesc(dtype, shape, format=None, *, value=None, shape_range=None)``
    builds one (format ND by default; ``value`` a numpy-convertible host value;
    ``shape_range`` inclusive ``(min, max)`` per dim), e.g. for
    :meth:`InferShapeContext.standalone`:

    >>> import numpy as np
    >>> from opgraph import DataType, TensorDesc
    >>> TensorDesc(DataType.FLOAT, [1, 3, 224, 224], "NCHW")
    TensorDesc(float[1, 3, 224, 224], NCHW)
    >>> TensorDesc(DataType.INT64, [2], value=np.array([4, 5])).value
    array([4, 5])"""
    def __new__(
        cls,
        dtype: DataType,
        shape: Sequence[int],
        format: Format | str | None = None,
        *,
        value: npt.ArrayLike | None = None,
        shape_range: Sequence[tuple[int, int]] | None = None,
    ) -> TensorDesc: ...
    @property
    def dtype(self) -> DataType:
        """The element type."""
    @property
    def shape(self) -> tuple[int, ...]:
        """The origin shape (what inference works on)."""
    @property
    def format(self) -> Format:
        """The origin format."""
    @property
    def storage_format(self) -> Format:
        """The format the device stores it in (the origin format until
        :func:`~opgraph.prepare` chooses one)."""
    @property
    def storage_shape(self) -> tuple[int, ...]:
        """The shape in the storage format (e.g. NC1HWC0's five dims)."""
    @property
    def shape_range(self) -> list[tuple[int, int]] | None:
        """Inclusive ``(min, max)`` per dim (``max == -1``: unbounded), or None when not set."""
    @property
    def shape_value(self) -> tuple[int, ...] | None:
        """For a 1-D integer tensor holding a shape: what folding knows of it
        element by element (-1 unknown), when the full value is not known."""
    @property
    def value_range(self) -> list[tuple[int, int]] | None:
        """For a scalar or 1-D integer tensor whose value is not fully known:
        inclusive ``(min, max)`` per element (``max == -1``: unbounded), GE's
        value range; ``(0, -1)`` says nothing of its element, which may be
        negative. ``Shape`` of an ``x`` with a shape range records it, and a
        cast of such sizes to float keeps it. None when not set."""
    @property
    def value(self) -> np.ndarray[Any, Any] | None:
        """The host value as a numpy array, when known."""
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]

@final
class Node:
    """A read-only snapshot of a node, taken when it was requested."""
    @property
    def name(self) -> str:
        """The node's name."""
    @property
    def op_type(self) -> str:
        """The node's op type."""
    @property
    def attrs(self) -> dict[str, Any]:
        """The attributes set on the node (prototype defaults not filled in)."""
    @property
    def inputs(self) -> list[TensorDesc | None]:
        """Descriptors of the input instances (None for absent optional inputs)."""
    @property
    def input_sources(self) -> list[tuple[str, int] | None]:
        """(producer node name, output index) per input instance."""
    @property
    def outputs(self) -> list[TensorDesc]:
        """Descriptors of the output instances."""
    @property
    def control_inputs(self) -> list[str]:
        """Names of the nodes this one runs after without reading their data."""
    @property
    def subgraph_names(self) -> list[str]:
        """Names of the node's bodies (``then_branch``, ``body`` …); see :meth:`Graph.subgraph`."""

@final
class Graph:
    """A computation graph; `add_*` methods build it, `opgraph.infer` infers it.

    ``Graph(name="graph")`` is empty. Nodes are addressed by name and tensors
    by :class:`TensorRef` handles, which ``add_input``, ``add_const`` and
    ``add_node`` return:

    >>> import opgraph
    >>> from opgraph import DataType, Graph
    >>> g = Graph("net")
    >>> x = g.add_input("x", DataType.FLOAT, [2, 3])
    >>> y = g.add_node("Relu", "relu", [x])
    >>> opgraph.infer(g)
    []
    >>> g.desc(y)
    TensorDesc(float[2, 3], ND)"""
    def __new__(cls, name: str = "graph") -> Graph: ...
    @property
    def name(self) -> str:
        """The graph's name."""
    @property
    def inputs(self) -> list[TensorRef]:
        """The graph's inputs (its Data nodes' outputs), in order."""
    @property
    def outputs(self) -> list[TensorRef]:
        """The graph's outputs, as set by :meth:`set_outputs`."""
    def add_input(
        self,
        name: str,
        dtype: DataType,
        shape: Sequence[int],
        format: Format | str | None = None,
        *,
        shape_range: Sequence[tuple[int, int]] | None = None,
    ) -> TensorRef:
        """Adds a graph input (a Data node) and returns its tensor.
        `shape_range`: inclusive `(min, max)` per dim (`max == -1`: unbounded)."""
    def set_input_shape_range(self, name: str, shape_range: Sequence[tuple[int, int]]) -> None:
        """Sets the shape range of graph input `name` (a Data or Placeholder
        node): inclusive `(min, max)` per dim, `max == -1` unbounded; a known
        dim must lie in its range. Infer the graph again for its tensors to
        take it (as ATC's `--input_shape="x:1,3,128~2048,128~2048"`)."""
    def set_input_shape(self, name: str, shape: Sequence[int]) -> None:
        """Sets the shape of graph input `name` (a Data or Placeholder node),
        keeping its rank and dtype: one profile of ATC's
        `--dynamic_batch_size`/`--dynamic_dims`. Each dim is a size or -1,
        and lies in the input's shape range when it has one. Infer the graph
        again for its tensors to take it."""
    def set_input_desc(
        self, name: str, dtype: DataType, shape: Sequence[int], format: Format | str | None = None
    ) -> None:
        """Replaces what graph input `name` (a Data or Placeholder node)
        delivers: its dtype, shape and format (`None`: kept), its shape range
        dropped; what ATC's AIPP does to the input it feeds (a uint8 image).
        Infer the graph again for its readers to see it."""
    def add_const(self, name: str, value: npt.ArrayLike, format: Format | str | None = None) -> TensorRef:
        """Adds a Const node holding a copy of `value` (a numpy array)."""
    def add_node(
        self,
        op_type: str,
        name: str,
        inputs: Sequence[_Input] | Mapping[str, _Input] | None = None,
        attrs: dict[str, Any] | None = None,
        *,
        dynamic_outputs: Sequence[tuple[str, int]] | None = None,
        subgraphs: dict[str, Graph] | None = None,
        control_inputs: Sequence[TensorRef] | None = None,
    ) -> TensorRef:
        """Adds a node of a registered op type; returns its first output."""
    def set_attr(self, node: str, name: str, value: Any) -> None:
        """Sets one attribute of an existing node; as in `add_node`, a name its
        op's prototype does not declare is an error."""
    def set_outputs(self, outputs: Sequence[TensorRef]) -> None:
        """The graph's outputs, in order."""
    def set_input(self, node: str, index: int, tensor: TensorRef | None) -> None:
        """Rewires input instance `index` of `node` (None makes it absent)."""
    def node(self, name: str) -> Node:
        """A snapshot of node `name`."""
    def nodes(self) -> list[Node]:
        """Snapshots of every node, in insertion order."""
    def tensor(self, name: str, index: int = 0) -> TensorRef:
        """The handle of output `index` of node `name`."""
    def desc(self, tensor: TensorRef) -> TensorDesc:
        """The descriptor of the tensor a handle names."""
    def subgraph(self, node: str, body: str) -> Graph:
        """A copy of body `body` of node `node`."""
    def copy(self) -> Graph:
        """An independent copy of the graph (later edits to either do not affect the other)."""
    def __len__(self) -> int: ...
    def __contains__(self, name: str, /) -> bool: ...

@disjoint_base
class OpContext:
    """Base class of the three contexts: node identity, inputs, attributes."""
    @property
    def node_name(self) -> str:
        """The name of the node being checked or inferred."""
    @property
    def op_type(self) -> str:
        """The node's op type."""
    def input_count(self) -> int:
        """Number of input instances (absent optional inputs included)."""
    def input_desc(self, i: int) -> TensorDesc | None:
        """Descriptor of input instance `i`, or None when it is absent."""
    def input_shape(self, i: int) -> tuple[int, ...]:
        """Origin shape of input instance ``i`` (``-1``: unknown dim, ``(-2,)``:
        unknown rank). Raises :class:`~opgraph.ContextError` when ``i`` is out of
        range or the input is absent."""
    def input_dtype(self, i: int) -> DataType:
        """Dtype of input instance ``i``; :class:`~opgraph.ContextError` as :meth:`input_shape`."""
    def input_format(self, i: int) -> Format:
        """Origin format of input instance ``i``; :class:`~opgraph.ContextError` as :meth:`input_shape`."""
    def optional_input_shape(self, ir_index: int) -> tuple[int, ...] | None:
        """Shape of optional prototype input `ir_index`, or None when absent."""
    def optional_input_desc(self, ir_index: int) -> TensorDesc | None:
        """Descriptor of OPTIONAL prototype input ``ir_index``, or None when absent."""
    def dynamic_input_count(self, ir_index: int) -> int:
        """How many instances DYNAMIC prototype input ``ir_index`` has on this node."""
    def dynamic_input_shape(self, ir_index: int, relative_index: int) -> tuple[int, ...]:
        """Shape of instance ``relative_index`` of DYNAMIC prototype input
        ``ir_index``. Raises :class:`~opgraph.ContextError` when either index is
        out of range."""
    def dynamic_input_dtype(self, ir_index: int, relative_index: int) -> DataType:
        """Dtype of instance ``relative_index`` of DYNAMIC prototype input ``ir_index``."""
    def dynamic_input_desc(self, ir_index: int, relative_index: int) -> TensorDesc:
        """Descriptor of instance ``relative_index`` of DYNAMIC prototype input ``ir_index``."""
    def input_tensor(self, i: int) -> np.ndarray[Any, Any] | None:
        """Host value of input instance `i` as a numpy array: only for inputs
        the prototype marks value-depend, and only when the value is known."""
    def input_shape_value(self, i: int) -> tuple[int, ...] | None:
        """Input instance `i` read as a shape vector: its value when known, else
        what value folding knows element by element (-1 unknown), else None."""
    def attr(self, key: str | int) -> Any:
        """Attribute by name, or by position in the prototype's attribute list;
        the prototype default when the node does not set it."""
    def has_attr(self, name: str) -> bool:
        """Whether attribute ``name`` has a value (set on the node, or a prototype default)."""
    def attr_int(self, name: str) -> int:
        """Attribute ``name`` as an int. Raises :class:`~opgraph.ContextError` when
        it is missing or not an int. The other ``attr_*`` readers work alike."""
    def attr_float(self, name: str) -> float:
        """Attribute ``name`` as a float (errors as :meth:`attr_int`)."""
    def attr_bool(self, name: str) -> bool:
        """Attribute ``name`` as a bool (errors as :meth:`attr_int`)."""
    def attr_str(self, name: str) -> str:
        """Attribute ``name`` as a str (errors as :meth:`attr_int`)."""
    def attr_dtype(self, name: str) -> DataType:
        """Attribute ``name`` as a :class:`~opgraph.DataType` (errors as :meth:`attr_int`)."""
    def attr_list_int(self, name: str) -> list[int]:
        """Attribute ``name`` as a list of ints (errors as :meth:`attr_int`)."""
    def attr_list_float(self, name: str) -> list[float]:
        """Attribute ``name`` as a list of floats (errors as :meth:`attr_int`)."""
    def attr_list_str(self, name: str) -> list[str]:
        """Attribute ``name`` as a list of strs (errors as :meth:`attr_int`)."""
    def output_count(self) -> int:
        """Number of output instances (DYNAMIC outputs counted per instance)."""
    def output_desc(self, i: int) -> TensorDesc:
        """The output as set so far in this call."""

@final
class VerifyContext(OpContext):
    """What a verify function receives: the node's inputs and attributes
    (everything :class:`OpContext` reads). The function returns ``False`` or
    raises to reject the node.

    Build one with :meth:`standalone` to unit-test a verify function."""
    @staticmethod
    def standalone(
        op_type: str,
        inputs: Sequence[_DescInput],
        attrs: dict[str, Any] | None = None,
        *,
        name: str = "node",
    ) -> VerifyContext:
        """A context over a one-node graph of ``op_type``, to unit-test a verify
        function; arguments as :meth:`InferShapeContext.standalone`."""

@final
class InferDataTypeContext(OpContext):
    """What an infer-dtype function receives: :class:`OpContext`'s reads plus
    :meth:`set_output_dtype`. Build one with :meth:`standalone` to unit-test
    an infer-dtype function."""
    def set_output_dtype(self, i: int, dtype: DataType) -> None:
        """Sets the dtype of output instance ``i``."""
    @staticmethod
    def standalone(
        op_type: str,
        inputs: Sequence[_DescInput],
        attrs: dict[str, Any] | None = None,
        *,
        name: str = "node",
    ) -> InferDataTypeContext:
        """A context over a one-node graph of ``op_type``, to unit-test an
        infer-dtype function; arguments as :meth:`InferShapeContext.standalone`."""

@final
class InferShapeContext(OpContext):
    """What an infer-shape function receives: :class:`OpContext`'s reads plus
    setters for each output's shape, shape range and format.

    Build one with :meth:`standalone` to unit-test an infer-shape function; a
    DYNAMIC input is given as a list of descriptors, and its instances are
    numbered after the inputs before it:

    >>> from opgraph import DataType, InferShapeContext, TensorDesc
    >>> ctx = InferShapeContext.standalone(
    ...     "ConcatD",
    ...     [[TensorDesc(DataType.FLOAT, [2, 3]), TensorDesc(DataType.FLOAT, [4, 3])]],
    ...     {"concat_dim": 0},
    ... )
    >>> ctx.dynamic_input_count(0), ctx.dynamic_input_shape(0, 1), ctx.input_shape(1)
    (2, (4, 3), (4, 3))
    >>> ctx.set_output_shape(0, [6, 3])
    >>> ctx.output_desc(0).shape
    (6, 3)"""
    def set_output_shape(self, i: int, shape: Sequence[int]) -> None:
        """Sets the shape of output instance `i` (a sequence of ints; -1 unknown
        dim, (-2,) unknown rank)."""
    def set_output_shape_range(self, i: int, ranges: Sequence[tuple[int, int]]) -> None:
        """Sets inclusive (min, max) ranges per dim; max -1 is unbounded."""
    def set_output_format(self, i: int, format: Format | str) -> None:
        """Sets the origin format of output instance ``i`` (a :class:`~opgraph.Format` or its name)."""
    @staticmethod
    def standalone(
        op_type: str,
        inputs: Sequence[_DescInput],
        attrs: dict[str, Any] | None = None,
        *,
        name: str = "node",
    ) -> InferShapeContext:
        """A context over a one-node graph of ``op_type`` (a registered type), to
        unit-test an infer-shape function. ``inputs`` gives one entry per prototype
        input: a :class:`TensorDesc`, None for an absent OPTIONAL input, or a list
        of descriptors for a DYNAMIC input. ``attrs`` are the node's attributes.
        Raises :class:`~opgraph.UnknownOpTypeError` for an unregistered type and
        :class:`~opgraph.GraphError` when the inputs do not fit the prototype."""

_D = TypeVar("_D")

_AttrInput: TypeAlias = (
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
"""What ``Operator.set_attr`` takes (see its doc)."""

@final
class EnumValue:
    """A protobuf enum value: its name (its number when the enum does not name
    it) and its number."""

    def __new__(cls, name: str, number: int) -> EnumValue: ...
    @property
    def name(self) -> str:
        """The value's name (its number as text when the enum does not name it)."""
    @property
    def number(self) -> int:
        """The value's number."""
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

_ParamValue: TypeAlias = (
    bool | int | float | str | bytes | EnumValue | list[_ParamValue] | dict[str, _ParamValue]
)

@final
class FrameworkOp:
    """One framework node, as a parser plugin receives it. A copy: keeping it
    after the plugin returns is safe.

    ``FrameworkOp(name, op_type, inputs=[], attrs=None, *, control_inputs=[],
    fused_ops=[])`` builds one by hand to unit-test a plugin function; inputs
    are ``node``, ``node:index`` or ``node:arg:index`` names:

    >>> from opgraph.tensorflow import FrameworkOp
    >>> op = FrameworkOp("add", "AddV2", ["x", "y:1"], {"T": 1})
    >>> op.inputs, op.get_attr("T")
    (['x:0', 'y:1'], 1)"""
    def __new__(
        cls,
        name: str,
        op_type: str,
        inputs: Sequence[str] = ...,
        attrs: dict[str, Any] | None = None,
        *,
        control_inputs: Sequence[str] = ...,
        fused_ops: Sequence[FrameworkOp] = ...,
    ) -> FrameworkOp: ...
    @property
    def name(self) -> str:
        """The framework node's name."""
    @property
    def op_type(self) -> str:
        """The framework's op type (the origin op type, e.g. `TopKV2`)."""
    @property
    def inputs(self) -> list[str]:
        """Data inputs in order, as `node:index` (`node:arg:index` in a body)."""
    @property
    def control_inputs(self) -> list[str]:
        """Producers of the ordering-only (`^name`) inputs."""
    @property
    def attrs(self) -> dict[str, Any]:
        """Every attribute as IR values (a fresh dict)."""
    def has_attr(self, name: str) -> bool:
        """Whether the framework node has attribute ``name``."""
    def get_attr(self, name: str) -> Any:
        """Attribute `name`; ContextError when the node does not set it."""
    @overload
    def get_int(self, name: str) -> int:
        """Attribute `name` as an int;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_int(self, name: str, default: int) -> int:
        """Attribute `name` as an int;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_int(self, name: str, default: None) -> int | None:
        """Attribute `name` as an int;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_float(self, name: str) -> float:
        """Attribute `name` as a float (an int attribute converts);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_float(self, name: str, default: float) -> float:
        """Attribute `name` as a float (an int attribute converts);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_float(self, name: str, default: None) -> float | None:
        """Attribute `name` as a float (an int attribute converts);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_bool(self, name: str) -> bool:
        """Attribute `name` as a bool;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_bool(self, name: str, default: bool) -> bool:
        """Attribute `name` as a bool;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_bool(self, name: str, default: None) -> bool | None:
        """Attribute `name` as a bool;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_str(self, name: str) -> str:
        """Attribute `name` as a str;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_str(self, name: str, default: str) -> str:
        """Attribute `name` as a str;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_str(self, name: str, default: None) -> str | None:
        """Attribute `name` as a str;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_ints(self, name: str) -> list[int]:
        """Attribute `name` as a list of ints;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_ints(self, name: str, default: list[int]) -> list[int]:
        """Attribute `name` as a list of ints;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_ints(self, name: str, default: None) -> list[int] | None:
        """Attribute `name` as a list of ints;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_floats(self, name: str) -> list[float]:
        """Attribute `name` as a list of floats;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_floats(self, name: str, default: list[float]) -> list[float]:
        """Attribute `name` as a list of floats;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_floats(self, name: str, default: None) -> list[float] | None:
        """Attribute `name` as a list of floats;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_strs(self, name: str) -> list[str]:
        """Attribute `name` as a list of strs;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_strs(self, name: str, default: list[str]) -> list[str]:
        """Attribute `name` as a list of strs;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_strs(self, name: str, default: None) -> list[str] | None:
        """Attribute `name` as a list of strs;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_shape(self, name: str) -> list[int]:
        """Attribute `name` as a shape (list of ints, -1 unknown dim, [-2] unknown rank);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_shape(self, name: str, default: list[int]) -> list[int]:
        """Attribute `name` as a shape (list of ints, -1 unknown dim, [-2] unknown rank);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_shape(self, name: str, default: None) -> list[int] | None:
        """Attribute `name` as a shape (list of ints, -1 unknown dim, [-2] unknown rank);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_dtype(self, name: str) -> DataType:
        """Attribute `name` as a DataType;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_dtype(self, name: str, default: DataType) -> DataType:
        """Attribute `name` as a DataType;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_dtype(self, name: str, default: None) -> DataType | None:
        """Attribute `name` as a DataType;
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_tensor(self, name: str) -> npt.NDArray[np.generic]:
        """Attribute `name` as a tensor (numpy array);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_tensor(self, name: str, default: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]:
        """Attribute `name` as a tensor (numpy array);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def get_tensor(self, name: str, default: None) -> npt.NDArray[np.generic] | None:
        """Attribute `name` as a tensor (numpy array);
        `default` when absent (ParseError when
        absent without a default, or of another type)."""
    @overload
    def param(self, name: str) -> dict[str, _ParamValue]:
        """Parameter message `name` (e.g. `prior_box_param`) with its structure."""
    @overload
    def param(self, name: str, default: _D) -> dict[str, _ParamValue] | _D:
        """Parameter message `name` (e.g. `prior_box_param`) with its structure."""
    @overload
    def param_path(self, path: str) -> _ParamValue:
        """The parameter value at a dotted path (`a_param.b.c`, `param[0].x`)."""
    @overload
    def param_path(self, path: str, default: _D) -> _ParamValue | _D:
        """The parameter value at a dotted path (`a_param.b.c`, `param[0].x`)."""
    def has_param(self, name: str) -> bool:
        """Whether parameter message `name` is set."""
    @property
    def param_names(self) -> list[str]:
        """The names of the parameter messages set, in field-number order."""
    @property
    def fused_ops(self) -> list[FrameworkOp]:
        """The ops a scope-fusion pass folded into this one, in graph order."""

@final
class Operator:
    """The IR operator a parser plugin fills (GE's ``ge::Operator``): its
    attributes, dynamic port sizes and formats. It is valid only during the
    plugin call it was passed to; using it afterwards raises
    :class:`~opgraph.ContextError`. ``Operator(name, op_type)`` builds one by
    hand to unit-test a plugin function:

    >>> from opgraph._core import Operator
    >>> op = Operator("conv1", "Conv2D")
    >>> op.set_attr("strides", [1, 1, 1, 1])
    >>> op.get_attr("strides")
    [1, 1, 1, 1]"""
    def __new__(cls, name: str, op_type: str) -> Operator: ...
    @property
    def name(self) -> str:
        """The IR node's name."""
    @property
    def op_type(self) -> str:
        """The IR op type the plugin produces."""
    @property
    def attrs(self) -> dict[str, Any]:
        """Every attribute set so far (a fresh dict)."""
    def has_attr(self, name: str) -> bool:
        """Whether attribute ``name`` has been set."""
    def get_attr(self, name: str) -> Any:
        """Attribute `name`; ContextError when it is not set."""
    def set_attr(self, name: str, value: _AttrInput) -> None:
        """Sets attribute `name` (values convert as in `Graph.add_node`)."""
    def set_int(self, name: str, value: int) -> None:
        """Sets attribute `name` to an int. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_float(self, name: str, value: float) -> None:
        """Sets attribute `name` to a float. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_bool(self, name: str, value: bool) -> None:
        """Sets attribute `name` to a bool. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_str(self, name: str, value: str) -> None:
        """Sets attribute `name` to a string. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_ints(self, name: str, value: Sequence[int]) -> None:
        """Sets attribute `name` to a list of ints. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_floats(self, name: str, value: Sequence[float]) -> None:
        """Sets attribute `name` to a list of floats. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_bools(self, name: str, value: Sequence[bool]) -> None:
        """Sets attribute `name` to a list of bools. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_strs(self, name: str, value: Sequence[str]) -> None:
        """Sets attribute `name` to a list of strings. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_dtype(self, name: str, value: DataType | str) -> None:
        """Sets attribute `name` to a DataType. A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_tensor(self, name: str, value: npt.NDArray[np.generic]) -> None:
        """Sets attribute `name` to a tensor (a numpy array). A name the op's prototype does not
        declare raises `ContextError` listing the declared ones (unless the
        prototype takes extra attributes)."""
    def set_dynamic_input(self, port: str, count: int) -> None:
        """Sizes DYNAMIC input port `port` to `count` instances."""
    def set_dynamic_output(self, port: str, count: int) -> None:
        """Sizes DYNAMIC output port `port` to `count` instances."""
    @property
    def dynamic_inputs(self) -> list[tuple[str, int]]:
        """Instance counts of the sized DYNAMIC input ports, by port name."""
    @property
    def dynamic_outputs(self) -> list[tuple[str, int]]:
        """Instance counts of the sized DYNAMIC output ports, by port name."""
    def set_input_format(self, index: int, format: Format | str) -> None:
        """Format (origin and current) of input `index`."""
    def set_output_format(self, index: int, format: Format | str) -> None:
        """Format (origin and current) of output `index`."""
    def input_format(self, index: int) -> Format | None:
        """The format input `index` gets (its own, else `data_format`'s), or None."""
    def output_format(self, index: int) -> Format | None:
        """The format output `index` gets (its own, else `data_format`'s), or None."""

def register_parser_plugin(
    framework: str,
    op_type: str,
    origin_op_types: Sequence[str],
    imply_type: str = "tvm",
    parse_params: Callable[[FrameworkOp, Operator], None] | None = None,
    fusion_parse_params: Callable[[list[FrameworkOp], Operator], None] | None = None,
    parse_op_to_graph: Callable[[Operator], Graph] | None = None,
    input_edits: Sequence[tuple[Any, ...]] = ...,
    allow_override: bool = False,
    blob_shapes: Callable[[FrameworkOp], Sequence[Sequence[int]]] | None = None,
) -> None:
    """Registers a parser plugin into the process-wide registry. A plugin for
    an origin type with a built-in plugin replaces it; replacing a user
    plugin needs `allow_override`."""

def parser_plugins(framework: str) -> list[tuple[str, str, bool]]:
    """`(origin op type, IR op type, built-in)` of every plugin of `framework`, sorted."""

def auto_mapping(src: FrameworkOp, dst: Operator) -> None:
    """GE's `AutoMappingByOpFn`: copies every attribute of `src` to `dst`
    except framework bookkeeping (a Caffe layer's `bottom`, `top` and enum
    `<field>_name` companions) and takes the tensor formats from
    `data_format`."""

def auto_mapping_dynamic(src: FrameworkOp, dst: Operator, ports: Sequence[tuple[str, str, str]]) -> None:
    """GE's `AutoMappingByOpFnDynamic`: :func:`auto_mapping`, then sizes each
    `(kind, port, count_attr)` dynamic port from an int or type-list attribute."""

def load_caffe(
    prototxt: str | PathLike[str],
    weights: str | PathLike[str] | None = None,
    custom_protos: Sequence[str | PathLike[str]] = ...,
    input_shapes: Sequence[tuple[str, Sequence[int]]] = ...,
    outputs: Sequence[str] = ...,
) -> Graph:
    """Loads a Caffe network definition (`.prototxt`), optionally its weights
    (`.caffemodel`) and users' `custom.proto` files, as an uninferred Graph
    with the registered parser plugins and op types."""

def load_onnx(
    path: str | PathLike[str],
    input_shapes: Sequence[tuple[str, Sequence[int]]] = ...,
    outputs: Sequence[str] = ...,
    with_values: bool = ...,
) -> tuple[
    Graph,
    tuple[
        list[tuple[str, str]],
        list[tuple[str, int]],
        int,
        str,
        list[tuple[str, list[str]]],
        list[str],
    ],
]:
    """Loads an ONNX model (`.onnx`, external data beside it) as an uninferred
    Graph with the registered parser plugins and op types. The value map
    (and the list of values pruned because no output needs them) is left
    empty unless `with_values` (naming thousands of values costs more than a
    small model's whole load)."""

def load_tensorflow(
    path: str | PathLike[str],
    input_shapes: Sequence[tuple[str, Sequence[int]]] = ...,
    outputs: Sequence[str] = ...,
    enable_scope_passes: Sequence[str] = ...,
    disable_scope_passes: Sequence[str] = ...,
) -> tuple[
    Graph,
    list[
        tuple[
            str,
            str,
            list[tuple[str, str, list[str]]],
            list[tuple[str, str, list[str], str]],
        ]
    ],
]:
    """Loads a frozen TensorFlow GraphDef (`.pb` or `.pbtxt`) as an uninferred
    Graph with the registered parser plugins and op types, with what every
    registered scope pass did."""

def infer(graph: Graph, collect_errors: bool = False, fold_limit: int | None = None) -> list[OpgraphError]:
    """Verifies and infers every node. Raises the first failure; with
    `collect_errors=True` returns every failure instead (empty when all passed)."""

def narrow_ranges(
    graph: Graph, symbols: dict[str, list[str]] | None = None
) -> tuple[int, int, int, int, list[tuple[str, int, int]], bool, str | None, list[tuple[str, int]]]:
    """Narrows the shape ranges of an inferred graph by inferring copies of it
    at fixed sizes of its ranged inputs (`symbols`: per input, one name per
    dim, `""` for none; dims named alike share a size)."""

@final
class DeviceSpec:
    """The figures of one Ascend SoC the cost model uses, each with its source."""
    @staticmethod
    def presets() -> list[DeviceSpec]:
        """Every built-in preset: Ascend310, Ascend310P3, Ascend310B1, Ascend910A, Ascend910B2."""
    @staticmethod
    def preset(name: str) -> DeviceSpec:
        """The preset ATC calls `name` (`Ascend310`, `Ascend310P3` / `Ascend310P`,
        `Ascend310B1` / `Ascend310B`, `Ascend910A` / `Ascend910`, `Ascend910B2`;
        case and spaces ignored)."""
    @staticmethod
    def load(path: str | PathLike[str]) -> DeviceSpec:
        """A description from a TOML file, or JSON when the name ends in `.json`."""
    @staticmethod
    def from_toml(text: str) -> DeviceSpec:
        """A description from TOML text; :class:`~opgraph.DeviceSpecError` when it is invalid."""
    @staticmethod
    def from_json(text: str) -> DeviceSpec:
        """A description from JSON text; :class:`~opgraph.DeviceSpecError` when it is invalid."""
    def to_toml(self) -> str:
        """This description as TOML text, which :meth:`from_toml` reads back."""
    def to_json(self) -> str:
        """This description as JSON text, which :meth:`from_json` reads back."""
    @property
    def name(self) -> str:
        """The preset's or description's name (e.g. ``Ascend910B2``)."""
    @property
    def aliases(self) -> list[str]:
        """Other names :meth:`preset` accepts for it."""
    @property
    def ai_cores(self) -> int:
        """Number of AI Cores (each with a Cube unit)."""
    @property
    def vector_cores(self) -> int:
        """Cores that run vector ops (the AI Cores, or split vector cores)."""
    @property
    def clock_mhz(self) -> float:
        """Core clock in MHz."""
    @property
    def memory_gb_per_s(self) -> float:
        """Off-chip (DDR / HBM) bandwidth of the whole chip, in GB/s."""
    @property
    def task_launch_us(self) -> float:
        """Fixed cost of one AI Core task (launch, scalar set-up, pipeline fill), in microseconds."""
    @property
    def peak_fp16_flops(self) -> float:
        """Peak Cube FLOP/s in fp16 (2 per multiply-add)."""
    @property
    def peak_int8_ops(self) -> float:
        """Peak Cube OP/s in int8."""
    @property
    def sustained_bytes_per_s(self) -> float:
        """Off-chip bytes per second the model assumes (bandwidth x memory efficiency)."""
    @property
    def sustained_fp16_flops(self) -> float:
        """Cube FLOP/s the model assumes in fp16 (peak x Cube efficiency)."""
    @property
    def sources(self) -> dict[str, str]:
        """Where each figure comes from, keyed by field name."""
    @property
    def validated(self) -> bool:
        """Whether published measurements validate this description's times; a
        cost report on one that is not carries a flag saying so."""
    @property
    def validation(self) -> str:
        """What validates the times, or why nothing does."""
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]

def estimate_cost(
    graph: Graph,
    spec: DeviceSpec,
    precision: str = "force_fp16",
    fuse: bool = True,
    loop_trip_count: int | None = None,
    l2_residency: bool = True,
    at_upper_bounds: bool = False,
) -> dict[str, Any]:
    """The cost report of `graph` on `spec`, as columns (see `report_columns`)."""

def data_type_table() -> list[tuple[str, int, int | None]]:
    """`(name, GE number, bits or None)` for every DataType."""

def prepare(
    graph: Graph, soc: str, allow_fp32_to_fp16: bool = False
) -> tuple[str, str, bool, int, int, int, int, int, int, list[tuple[int, int]]]:
    """Chooses every tensor's storage format for `soc` (the graph must be inferred)."""

def check_formats(graph: Graph, soc: str) -> list[str]:
    """Every place the graph's storage does not fit what its consumers need."""

def storage_shape(
    shape: Sequence[int],
    origin_format: Format | str,
    storage_format: Format | str,
    dtype: DataType,
    groups: int = 1,
    soc: str = "Ascend910B",
) -> list[int]:
    """GE's storage shape of a tensor; :func:`opgraph.storage_shape` documents the rules."""

def soc_versions() -> list[str]:
    """The soc names `prepare` accepts: the family names, then ATC's soc_versions."""

def format_table() -> list[tuple[str, int]]:
    """`(name, GE number)` for every Format."""

def register_op(
    op_type: str,
    inputs: Sequence[tuple[Any, ...]],
    outputs: Sequence[tuple[Any, ...]],
    attrs: Sequence[tuple[str, str, bool, Any]],
    verify: Any = None,
    infer_dtype: Any = None,
    infer_shape: Any = None,
    allow_override: bool = False,
    extra_attrs: bool = False,
    weight_shapes: Any = None,
) -> None:
    """Registers an op type described by plain data (the typed `opgraph.OpDef`
    builds these arguments). `attrs` holds `(name, type_name, default)`
    where a missing default is passed as `has_default=False`."""

def registered_op_types() -> list[str]:
    """Registered op types, sorted."""

def op_schema(op_type: str) -> dict[str, Any] | None:
    """The prototype of `op_type` as plain data, or None when not registered."""

def _register_panicking_op(op_type: str) -> None:
    """TEST ONLY, not part of the API: registers ``op_type`` (input ``x``,
    output ``y``) whose Rust shape function panics, so tests can check that a
    panic in the engine comes out as ``InternalError`` and poisons the graph."""

# The memory planner (opgraph.memory wraps these).

def parse_insert_op_config(text: str) -> str:
    """The config `text` as JSON (proto field names, default fields omitted);
    `ValueError` with the line and column of what does not parse."""

def memory_strategies() -> list[str]:
    """The strategy names, in reporting order."""

def check_alignment(alignment: int) -> None:
    """Raises what `plan_memory` raises for `alignment` when it is not a power
    of two from 1 byte to 2**30; for callers that must know before other work."""

def plan_memory(
    graph: Graph,
    strategy: str | None,
    alignment: int,
    use_shape_ranges: bool = True,
    allow_dynamic: bool = False,
    schedule: str = "auto",
) -> dict[str, Any]:
    """Plans the memory of an inferred graph. Returns per-tensor columns
    (`names` as a `StrColumn`'s `names_data` / `names_offsets`, `regions`,
    and int64 arrays `sizes`, `offsets`, `first_steps`,
    `last_steps`, `view_of`, with -1 for none) and the totals."""

def plan_lifetimes(
    sizes: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    strategy: str | None,
    alignment: int,
) -> dict[str, Any]:
    """Plans a bare lifetime set (int64 columns): offsets (int64 array) and totals."""

def check_placement(
    sizes: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    arena_bytes: int,
    alignment: int,
) -> list[str]:
    """The checker: problems of placing the lifetimes at `offsets` (-1: not
    placed) in an arena of `arena_bytes`; empty when valid."""

# Scope fusion (opgraph.tensorflow.scope documents the rules).

FUSION_DISABLE_INDEX: int
SCOPE_TO_MULTI_NODES: str
SCOPE_INVALID_TYPE: str
INPUT_FROM_FUSION_SCOPE: str
OUTPUT_TO_FUSION_SCOPE: str

@final
class ScopeNode:
    """One framework op of the graph, as TensorFlow decoded it."""
    @property
    def name(self) -> str:
        """The op's full name."""
    @property
    def op_type(self) -> str:
        """The framework op type (`Mul`, `Conv2D` …)."""
    @property
    def inputs(self) -> list[tuple[str, int]]:
        """Data inputs as `(producer, output index)`."""
    @property
    def control_inputs(self) -> list[str]:
        """Names of the ops this one has control edges from."""
    @property
    def consumers(self) -> list[tuple[int, str, int]]:
        """Who reads this op: `(output index, consumer, input index)`, input
        index -1 for a control edge."""
    @property
    def attrs(self) -> dict[str, Any]:
        """Attributes, converted to IR values as plugins see them."""

@final
class Scope:
    """One scope: a `/`-separated name prefix (GE's `Scope`)."""
    @property
    def name(self) -> str:
        """Full name with a trailing `/` (`model/LayerNorm/`), or `root`."""
    @property
    def sub_type(self) -> str:
        """The sub-type a pattern gave this scope ("" when none)."""
    @property
    def last_name(self) -> str:
        """The last name component without a `_N` index (GE's `LastName`)."""
    @property
    def father_scope(self) -> Scope | None:
        """The enclosing scope; None for the root (GE's `GetFatherScope`)."""
    def sub_scopes(self) -> list[Scope]:
        """The direct sub-scopes, in graph order."""
    def all_sub_scopes(self) -> list[Scope]:
        """Every descendant scope (GE's `GetAllSubScopes`)."""
    def get_sub_scope(self, name: str) -> Scope | None:
        """A sub-scope by full name (`a/b/`) or relative path (`b`, `b/c`)."""
    def all_nodes_map(self) -> dict[str, ScopeNode]:
        """The ops of this scope and of every sub-scope, by name in graph
        order (GE's `AllNodesMap`)."""
    def nodes_by_type(self, op_type: str) -> list[ScopeNode]:
        """The ops of `op_type` in this scope and its sub-scopes."""
    def op_type_count(self, op_type: str) -> int:
        """How many ops of `op_type` the scope holds, -1 for none (GE's count)."""
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ScopeTree:
    """The scopes of a graph (GE's `ScopeTree`)."""
    @property
    def root(self) -> Scope:
        """The root scope (named `root`)."""
    def all_scopes(self) -> list[Scope]:
        """Every scope, root first, then in graph order (GE's `GetAllScopes`)."""

@final
class ScopeGraph:
    """The graph a scope fusion pass looks at (GE's `ScopeGraph`)."""
    @property
    def scope_tree(self) -> ScopeTree:
        """The scope tree built from the op names."""
    def nodes_map(self) -> dict[str, ScopeNode]:
        """Every op by name, in graph order (GE's `GetNodesMap`)."""
    def node(self, name: str) -> ScopeNode | None:
        """The op named `name`, or None."""

@final
class NodeOpTypeFeature:
    """Ops of `op_type` in the scope (sub-scopes included): their number `n`
    (-1 when there are none) must equal `num`, or with `step` satisfy
    `n % step == num`."""
    def __new__(cls, op_type: str, num: int, step: int = 0) -> NodeOpTypeFeature: ...
    @property
    def op_type(self) -> str:
        """The op type counted."""
    @property
    def num(self) -> int:
        """The count required (or the remainder, with ``step``)."""
    @property
    def step(self) -> int:
        """The modulus applied to the count (0: exact count)."""

@final
class NodeAttrFeature:
    """Some direct op of `op_type` in the scope has attribute `attr` equal to
    `value` (bool, int, float or str)."""
    def __new__(cls, op_type: str, attr: str, value: bool | int | float | str) -> NodeAttrFeature: ...
    @property
    def op_type(self) -> str:
        """The op type whose attribute is checked."""
    @property
    def attr(self) -> str:
        """The attribute's name."""
    @property
    def value(self) -> bool | int | float | str:
        """The value the attribute must equal."""

@final
class ScopeFeature:
    """Sub-scope conditions: `num` descendants of `sub_type`, last name
    `suffix`, a descendant whose last name contains `sub_scope_mask`."""
    def __new__(
        cls, sub_type: str, num: int, suffix: str = "", sub_scope_mask: str = "", step: int = 0
    ) -> ScopeFeature: ...
    @property
    def sub_type(self) -> str:
        """The sub-type descendants must have ("": no condition)."""
    @property
    def num(self) -> int:
        """How many descendants of ``sub_type`` are required (or the remainder, with ``step``)."""
    @property
    def suffix(self) -> str:
        """The last name the scope must have ("": no condition)."""
    @property
    def sub_scope_mask(self) -> str:
        """Text some descendant's last name must contain ("": no condition)."""
    @property
    def step(self) -> int:
        """The modulus applied to the count (0: exact count)."""

@final
class ScopePattern:
    """A set of features a scope must all have; a matching scope gets
    `sub_type`."""
    def __new__(cls, sub_type: str = "") -> ScopePattern: ...
    @property
    def sub_type(self) -> str:
        """The sub-type a matching scope gets."""
    @property
    def node_op_type_features(self) -> list[NodeOpTypeFeature]:
        """The op-type count features, in the order added."""
    @property
    def node_attr_features(self) -> list[NodeAttrFeature]:
        """The attribute features, in the order added."""
    @property
    def scope_features(self) -> list[ScopeFeature]:
        """The sub-scope features, in the order added."""
    def set_sub_type(self, sub_type: str) -> ScopePattern:
        """Sets the sub-type a matching scope gets; returns the pattern."""
    def add_node_op_type_feature(self, feature: NodeOpTypeFeature) -> ScopePattern:
        """Adds an op-type count feature; returns the pattern (calls chain)."""
    def add_node_attr_feature(self, feature: NodeAttrFeature) -> ScopePattern:
        """Adds an attribute feature; returns the pattern."""
    def add_scope_feature(self, feature: ScopeFeature) -> ScopePattern:
        """Adds a sub-scope feature; returns the pattern."""

@final
class ScopesResult:
    """One choice of `last_match_scopes_and_ops`: scopes and single ops to fuse."""
    def __new__(cls) -> ScopesResult: ...
    def set_scopes(self, scopes: Sequence[Scope]) -> None:
        """The scopes to fuse (replacing earlier ones)."""
    def set_nodes(self, nodes: Sequence[ScopeNode | str]) -> None:
        """Single ops to fuse, as ScopeNodes or names (replacing earlier ones)."""
    @property
    def scopes(self) -> list[str]:
        """The chosen scopes' full names."""
    @property
    def nodes(self) -> list[str]:
        """The chosen ops' names."""

@final
class InnerNodeInfo:
    """One node of a many-to-many result (GE's `InnerNodeInfo`)."""
    def insert_input(self, node: str, index: int) -> InnerNodeInfo:
        """Adds a data input: `(INPUT_FROM_FUSION_SCOPE, fused input)` or
        `(inner node name, its output)`; index -1 makes a control edge."""
    def insert_output(self, node: str, index: int) -> InnerNodeInfo:
        """Declares the node's next output: `(OUTPUT_TO_FUSION_SCOPE, fused
        output)` or `(inner node name, its input)`."""
    def set_attr(self, name: str, value: Any) -> InnerNodeInfo:
        """Sets an attribute of the node's framework op."""
    @property
    def name(self) -> str:
        """The inner node's name."""
    @property
    def type(self) -> str:
        """The inner node's framework op type."""
    @property
    def inputs(self) -> list[tuple[str, int]]:
        """Its data inputs as added by :meth:`insert_input`."""
    @property
    def outputs(self) -> list[tuple[str, int]]:
        """Its outputs as declared by :meth:`insert_output`."""
    @property
    def attrs(self) -> dict[str, Any]:
        """The attributes set by :meth:`set_attr` (a fresh dict)."""

@final
class FusionScopesResult:
    """How one choice is fused: name, type, index maps, inner nodes."""
    def set_name(self, name: str) -> None:
        """Sets the fused op's name."""
    def set_type(self, op_type: str) -> None:
        """Sets the fused op's type (``SCOPE_TO_MULTI_NODES`` for a many-to-many result)."""
    def set_description(self, description: str) -> None:
        """Sets a free-text description of the fusion."""
    def insert_inputs(self, inner_op_name: str, index_map: Sequence[int]) -> None:
        """Fused op `inner_op_name`'s data input k becomes fused input
        `index_map[k]` (FUSION_DISABLE_INDEX or -1: not an input)."""
    def insert_outputs(self, inner_op_name: str, index_map: Sequence[int]) -> None:
        """Fused op `inner_op_name`'s output k becomes fused output
        `index_map[k]` (FUSION_DISABLE_INDEX or -1: not an output)."""
    def add_inner_node(self, name: str, op_type: str) -> InnerNodeInfo:
        """Adds a node of a many-to-many result (type ScopeToMultiNodes)."""
    @property
    def name(self) -> str:
        """The fused op's name."""
    @property
    def type(self) -> str:
        """The fused op's type."""
    @property
    def description(self) -> str:
        """The description set by :meth:`set_description`."""
    @property
    def scopes(self) -> list[str]:
        """The full names of the scopes being fused."""
    @property
    def nodes(self) -> list[str]:
        """The single ops being fused (from ScopesResult.set_nodes)."""
    @property
    def inputs(self) -> list[tuple[str, list[int]]]:
        """The input index maps, by inner op name."""
    @property
    def outputs(self) -> list[tuple[str, list[int]]]:
        """The output index maps, by inner op name."""

def register_scope_fusion_pass(
    name: str, factory: Callable[[], Any], general: bool = False, allow_override: bool = False
) -> None:
    """Registers a Python pass: `factory()` makes one instance per graph."""

def registered_scope_fusion_passes() -> list[tuple[str, bool, bool]]:
    """`(name, general, builtin)` of every registered pass, in run order."""

def _run_scope_passes(
    ops: Sequence[tuple[str, str, Sequence[str], dict[str, Any]]],
    enable_scope_passes: Sequence[str] = ...,
) -> tuple[
    list[tuple[str, str, list[str], dict[str, Any], list[str]]],
    list[tuple[str, str, str, list[str], str, list[str]]],
]: ...

# Inputs given per prototype port: one tensor, absent, or a dynamic port's list.
_Input = TensorRef | Sequence[TensorRef] | None
_DescInput = TensorDesc | Sequence[TensorDesc] | None
