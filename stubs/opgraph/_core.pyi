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
    "op_schema",
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
    def __new__(cls, name: str, attrs: dict[str, Any] | None = None) -> NamedAttrs: ...
    @property
    def name(self) -> str: ...
    @property
    def attrs(self) -> dict[str, Any]: ...

@final
class TensorRef:
    @property
    def node(self) -> str: ...
    @property
    def index(self) -> int: ...
    def output(self, index: int) -> TensorRef: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class TensorDesc:
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
    def dtype(self) -> DataType: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def format(self) -> Format: ...
    @property
    def storage_format(self) -> Format: ...
    @property
    def storage_shape(self) -> tuple[int, ...]: ...
    @property
    def shape_range(self) -> list[tuple[int, int]] | None: ...
    @property
    def shape_value(self) -> tuple[int, ...] | None: ...
    @property
    def value(self) -> np.ndarray[Any, Any] | None: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]

@final
class Node:
    @property
    def name(self) -> str: ...
    @property
    def op_type(self) -> str: ...
    @property
    def attrs(self) -> dict[str, Any]: ...
    @property
    def inputs(self) -> list[TensorDesc | None]: ...
    @property
    def input_sources(self) -> list[tuple[str, int] | None]: ...
    @property
    def outputs(self) -> list[TensorDesc]: ...
    @property
    def control_inputs(self) -> list[str]: ...
    @property
    def subgraph_names(self) -> list[str]: ...

@final
class Graph:
    def __new__(cls, name: str = "graph") -> Graph: ...
    @property
    def name(self) -> str: ...
    @property
    def inputs(self) -> list[TensorRef]: ...
    @property
    def outputs(self) -> list[TensorRef]: ...
    def add_input(
        self,
        name: str,
        dtype: DataType,
        shape: Sequence[int],
        format: Format | str | None = None,
        *,
        shape_range: Sequence[tuple[int, int]] | None = None,
    ) -> TensorRef: ...
    def set_input_shape_range(self, name: str, shape_range: Sequence[tuple[int, int]]) -> None: ...
    def add_const(self, name: str, value: npt.ArrayLike, format: Format | str | None = None) -> TensorRef: ...
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
    ) -> TensorRef: ...
    def set_attr(self, node: str, name: str, value: Any) -> None: ...
    def set_outputs(self, outputs: Sequence[TensorRef]) -> None: ...
    def set_input(self, node: str, index: int, tensor: TensorRef | None) -> None: ...
    def node(self, name: str) -> Node: ...
    def nodes(self) -> list[Node]: ...
    def tensor(self, name: str, index: int = 0) -> TensorRef: ...
    def desc(self, tensor: TensorRef) -> TensorDesc: ...
    def subgraph(self, node: str, body: str) -> Graph: ...
    def copy(self) -> Graph: ...
    def __len__(self) -> int: ...
    def __contains__(self, name: str, /) -> bool: ...

@disjoint_base
class OpContext:
    @property
    def node_name(self) -> str: ...
    @property
    def op_type(self) -> str: ...
    def input_count(self) -> int: ...
    def input_desc(self, i: int) -> TensorDesc | None: ...
    def input_shape(self, i: int) -> tuple[int, ...]: ...
    def input_dtype(self, i: int) -> DataType: ...
    def input_format(self, i: int) -> Format: ...
    def optional_input_shape(self, ir_index: int) -> tuple[int, ...] | None: ...
    def optional_input_desc(self, ir_index: int) -> TensorDesc | None: ...
    def dynamic_input_count(self, ir_index: int) -> int: ...
    def dynamic_input_shape(self, ir_index: int, relative_index: int) -> tuple[int, ...]: ...
    def dynamic_input_dtype(self, ir_index: int, relative_index: int) -> DataType: ...
    def dynamic_input_desc(self, ir_index: int, relative_index: int) -> TensorDesc: ...
    def input_tensor(self, i: int) -> np.ndarray[Any, Any] | None: ...
    def input_shape_value(self, i: int) -> tuple[int, ...] | None: ...
    def attr(self, key: str | int) -> Any: ...
    def has_attr(self, name: str) -> bool: ...
    def attr_int(self, name: str) -> int: ...
    def attr_float(self, name: str) -> float: ...
    def attr_bool(self, name: str) -> bool: ...
    def attr_str(self, name: str) -> str: ...
    def attr_dtype(self, name: str) -> DataType: ...
    def attr_list_int(self, name: str) -> list[int]: ...
    def attr_list_float(self, name: str) -> list[float]: ...
    def attr_list_str(self, name: str) -> list[str]: ...
    def output_count(self) -> int: ...
    def output_desc(self, i: int) -> TensorDesc: ...

@final
class VerifyContext(OpContext):
    @staticmethod
    def standalone(
        op_type: str,
        inputs: Sequence[_DescInput],
        attrs: dict[str, Any] | None = None,
        *,
        name: str = "node",
    ) -> VerifyContext: ...

@final
class InferDataTypeContext(OpContext):
    def set_output_dtype(self, i: int, dtype: DataType) -> None: ...
    @staticmethod
    def standalone(
        op_type: str,
        inputs: Sequence[_DescInput],
        attrs: dict[str, Any] | None = None,
        *,
        name: str = "node",
    ) -> InferDataTypeContext: ...

@final
class InferShapeContext(OpContext):
    def set_output_shape(self, i: int, shape: Sequence[int]) -> None: ...
    def set_output_shape_range(self, i: int, ranges: Sequence[tuple[int, int]]) -> None: ...
    def set_output_format(self, i: int, format: Format | str) -> None: ...
    @staticmethod
    def standalone(
        op_type: str,
        inputs: Sequence[_DescInput],
        attrs: dict[str, Any] | None = None,
        *,
        name: str = "node",
    ) -> InferShapeContext: ...

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
    """A protobuf enum value in a Caffe layer's parameters: its ``name``
    (its number as text when the enum does not name it) and ``number``."""

    def __new__(cls, name: str, number: int) -> EnumValue: ...
    @property
    def name(self) -> str: ...
    @property
    def number(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

_ParamValue: TypeAlias = (
    bool | int | float | str | bytes | EnumValue | list[_ParamValue] | dict[str, _ParamValue]
)

@final
class FrameworkOp:
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
    def name(self) -> str: ...
    @property
    def op_type(self) -> str: ...
    @property
    def inputs(self) -> list[str]: ...
    @property
    def control_inputs(self) -> list[str]: ...
    @property
    def attrs(self) -> dict[str, Any]: ...
    def has_attr(self, name: str) -> bool: ...
    def get_attr(self, name: str) -> Any: ...
    @overload
    def get_int(self, name: str) -> int:
        """Attribute ``name`` as an int.

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_int(self, name: str, default: int) -> int: ...
    @overload
    def get_int(self, name: str, default: None) -> int | None: ...
    @overload
    def get_float(self, name: str) -> float:
        """Attribute ``name`` as a float (an int attribute converts).

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_float(self, name: str, default: float) -> float: ...
    @overload
    def get_float(self, name: str, default: None) -> float | None: ...
    @overload
    def get_bool(self, name: str) -> bool:
        """Attribute ``name`` as a bool.

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_bool(self, name: str, default: bool) -> bool: ...
    @overload
    def get_bool(self, name: str, default: None) -> bool | None: ...
    @overload
    def get_str(self, name: str) -> str:
        """Attribute ``name`` as a str.

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_str(self, name: str, default: str) -> str: ...
    @overload
    def get_str(self, name: str, default: None) -> str | None: ...
    @overload
    def get_ints(self, name: str) -> list[int]:
        """Attribute ``name`` as a list of ints (an empty list of any type reads as []).

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_ints(self, name: str, default: list[int]) -> list[int]: ...
    @overload
    def get_ints(self, name: str, default: None) -> list[int] | None: ...
    @overload
    def get_floats(self, name: str) -> list[float]:
        """Attribute ``name`` as a list of floats (ints convert).

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_floats(self, name: str, default: list[float]) -> list[float]: ...
    @overload
    def get_floats(self, name: str, default: None) -> list[float] | None: ...
    @overload
    def get_strs(self, name: str) -> list[str]:
        """Attribute ``name`` as a list of strs.

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_strs(self, name: str, default: list[str]) -> list[str]: ...
    @overload
    def get_strs(self, name: str, default: None) -> list[str] | None: ...
    @overload
    def get_shape(self, name: str) -> list[int]:
        """Attribute ``name`` as a shape: dims in GE's convention (-1 an unknown dim, [-2] an unknown rank).

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_shape(self, name: str, default: list[int]) -> list[int]: ...
    @overload
    def get_shape(self, name: str, default: None) -> list[int] | None: ...
    @overload
    def get_dtype(self, name: str) -> DataType:
        """Attribute ``name`` as a DataType.

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_dtype(self, name: str, default: DataType) -> DataType: ...
    @overload
    def get_dtype(self, name: str, default: None) -> DataType | None: ...
    @overload
    def get_tensor(self, name: str) -> npt.NDArray[np.generic]:
        """Attribute ``name`` as a tensor, as a numpy array.

        With ``default`` (None included), an absent attribute returns it;
        without, an absent attribute raises :class:`~opgraph.ParseError`
        naming the node and listing the attributes it has. A value of
        another type raises ``ParseError`` naming the expected and actual
        types."""
    @overload
    def get_tensor(self, name: str, default: npt.NDArray[np.generic]) -> npt.NDArray[np.generic]: ...
    @overload
    def get_tensor(self, name: str, default: None) -> npt.NDArray[np.generic] | None: ...
    @overload
    def param(self, name: str) -> dict[str, _ParamValue]:
        """Parameter message ``name`` of a Caffe layer (``"prior_box_param"``)
        with its structure, which the flattened attributes lose: messages
        as dicts, repeated fields as lists (present even when empty), enums
        as :class:`EnumValue`. A singular scalar is present when set or when
        it declares a default; a nested message when set. Without
        ``default``, a message the layer does not set raises
        :class:`~opgraph.ParseError` listing the ones it sets."""
    @overload
    def param(self, name: str, default: _D) -> dict[str, _ParamValue] | _D: ...
    @overload
    def param_path(self, path: str) -> _ParamValue:
        """The parameter value at a dotted path,
        ``"detection_output_param.nms_param.top_k"``; ``name[i]`` selects
        element ``i`` of a repeated field. A field that is not set returns
        ``default`` when given, else raises :class:`~opgraph.ParseError`
        naming the path and the fields that are there."""
    @overload
    def param_path(self, path: str, default: _D) -> _ParamValue | _D: ...
    def has_param(self, name: str) -> bool:
        """Whether the layer sets parameter message ``name``."""
    @property
    def param_names(self) -> list[str]:
        """The parameter messages the layer sets, in field-number order."""
    @property
    def fused_ops(self) -> list[FrameworkOp]: ...

@final
class Operator:
    def __new__(cls, name: str, op_type: str) -> Operator: ...
    @property
    def name(self) -> str: ...
    @property
    def op_type(self) -> str: ...
    @property
    def attrs(self) -> dict[str, Any]: ...
    def has_attr(self, name: str) -> bool: ...
    def get_attr(self, name: str) -> Any: ...
    def set_attr(self, name: str, value: _AttrInput) -> None:
        """Sets attribute ``name``; the value's Python type picks the
        attribute type (``set_float`` and friends say it explicitly, e.g. a
        float attribute from an int). A name the op's prototype does not
        declare raises :class:`~opgraph.ContextError` listing the declared
        ones and the closest match (unless the prototype takes extra
        attributes)."""
    def set_int(self, name: str, value: int) -> None:
        """Sets attribute ``name`` to an int. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_float(self, name: str, value: float) -> None:
        """Sets attribute ``name`` to a float. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_bool(self, name: str, value: bool) -> None:
        """Sets attribute ``name`` to a bool. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_str(self, name: str, value: str) -> None:
        """Sets attribute ``name`` to a str. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_ints(self, name: str, value: Sequence[int]) -> None:
        """Sets attribute ``name`` to a list of ints. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_floats(self, name: str, value: Sequence[float]) -> None:
        """Sets attribute ``name`` to a list of floats. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_bools(self, name: str, value: Sequence[bool]) -> None:
        """Sets attribute ``name`` to a list of bools. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_strs(self, name: str, value: Sequence[str]) -> None:
        """Sets attribute ``name`` to a list of strs. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_dtype(self, name: str, value: DataType | str) -> None:
        """Sets attribute ``name`` to a DataType. A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_tensor(self, name: str, value: npt.NDArray[np.generic]) -> None:
        """Sets attribute ``name`` to a tensor (numpy array). A name the op's prototype does
        not declare raises :class:`~opgraph.ContextError` listing the
        declared ones (unless the prototype takes extra attributes)."""
    def set_dynamic_input(self, port: str, count: int) -> None: ...
    def set_dynamic_output(self, port: str, count: int) -> None: ...
    @property
    def dynamic_inputs(self) -> list[tuple[str, int]]: ...
    @property
    def dynamic_outputs(self) -> list[tuple[str, int]]: ...
    def set_input_format(self, index: int, format: Format | str) -> None: ...
    def set_output_format(self, index: int, format: Format | str) -> None: ...
    def input_format(self, index: int) -> Format | None: ...
    def output_format(self, index: int) -> Format | None: ...

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
) -> None: ...
def parser_plugins(framework: str) -> list[tuple[str, str, bool]]: ...
def auto_mapping(src: FrameworkOp, dst: Operator) -> None: ...
def auto_mapping_dynamic(src: FrameworkOp, dst: Operator, ports: Sequence[tuple[str, str, str]]) -> None: ...
def load_caffe(
    prototxt: str | PathLike[str],
    weights: str | PathLike[str] | None = None,
    custom_protos: Sequence[str | PathLike[str]] = ...,
    input_shapes: Sequence[tuple[str, Sequence[int]]] = ...,
    outputs: Sequence[str] = ...,
) -> Graph: ...
def load_onnx(
    path: str | PathLike[str],
    input_shapes: Sequence[tuple[str, Sequence[int]]] = ...,
    outputs: Sequence[str] = ...,
    with_values: bool = ...,
) -> tuple[
    Graph,
    tuple[list[tuple[str, str]], list[tuple[str, int]], int, str, list[tuple[str, list[str]]]],
]: ...
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
]: ...
def infer(
    graph: Graph, collect_errors: bool = False, fold_limit: int | None = None
) -> list[OpgraphError]: ...

@final
class DeviceSpec:
    @staticmethod
    def presets() -> list[DeviceSpec]: ...
    @staticmethod
    def preset(name: str) -> DeviceSpec: ...
    @staticmethod
    def load(path: str | PathLike[str]) -> DeviceSpec: ...
    @staticmethod
    def from_toml(text: str) -> DeviceSpec: ...
    @staticmethod
    def from_json(text: str) -> DeviceSpec: ...
    def to_toml(self) -> str: ...
    def to_json(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def aliases(self) -> list[str]: ...
    @property
    def ai_cores(self) -> int: ...
    @property
    def vector_cores(self) -> int: ...
    @property
    def clock_mhz(self) -> float: ...
    @property
    def memory_gb_per_s(self) -> float: ...
    @property
    def task_launch_us(self) -> float: ...
    @property
    def peak_fp16_flops(self) -> float: ...
    @property
    def peak_int8_ops(self) -> float: ...
    @property
    def sustained_bytes_per_s(self) -> float: ...
    @property
    def sustained_fp16_flops(self) -> float: ...
    @property
    def sources(self) -> dict[str, str]: ...
    @property
    def validated(self) -> bool: ...
    @property
    def validation(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: None  # type: ignore[assignment]

def estimate_cost(
    graph: Graph,
    spec: DeviceSpec,
    precision: str = "force_fp16",
    fuse: bool = True,
    loop_trip_count: int | None = None,
    l2_residency: bool = True,
) -> dict[str, Any]: ...
def data_type_table() -> list[tuple[str, int, int | None]]: ...
def prepare(
    graph: Graph, soc: str, allow_fp32_to_fp16: bool = False
) -> tuple[str, str, bool, int, int, int, int, int, list[tuple[int, int]]]: ...
def check_formats(graph: Graph, soc: str) -> list[str]: ...
def storage_shape(
    shape: Sequence[int],
    origin_format: Format | str,
    storage_format: Format | str,
    dtype: DataType,
    groups: int = 1,
    soc: str = "Ascend910B",
) -> list[int]: ...
def soc_versions() -> list[str]: ...
def format_table() -> list[tuple[str, int]]: ...
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
) -> None: ...
def registered_op_types() -> list[str]: ...
def op_schema(op_type: str) -> dict[str, Any] | None: ...
def _register_panicking_op(op_type: str) -> None:
    """TEST ONLY, not part of the API: registers ``op_type`` (input ``x``,
    output ``y``) whose Rust shape function panics, so tests can check that a
    panic in the engine comes out as ``InternalError`` and poisons the graph."""

# The memory planner (opgraph.memory wraps these).

def memory_strategies() -> list[str]: ...
def plan_memory(
    graph: Graph,
    strategy: str | None = None,
    alignment: int = 512,
    use_shape_ranges: bool = True,
    allow_dynamic: bool = False,
    schedule: str = "auto",
) -> dict[str, Any]: ...
def plan_lifetimes(
    sizes: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    strategy: str | None = None,
    alignment: int = 512,
) -> dict[str, Any]: ...
def check_placement(
    sizes: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    arena_bytes: int,
    alignment: int = 512,
) -> list[str]: ...

# Scope fusion (opgraph.tensorflow.scope documents the rules).

FUSION_DISABLE_INDEX: int
SCOPE_TO_MULTI_NODES: str
SCOPE_INVALID_TYPE: str
INPUT_FROM_FUSION_SCOPE: str
OUTPUT_TO_FUSION_SCOPE: str

@final
class ScopeNode:
    @property
    def name(self) -> str: ...
    @property
    def op_type(self) -> str: ...
    @property
    def inputs(self) -> list[tuple[str, int]]: ...
    @property
    def control_inputs(self) -> list[str]: ...
    @property
    def consumers(self) -> list[tuple[int, str, int]]: ...
    @property
    def attrs(self) -> dict[str, Any]: ...

@final
class Scope:
    @property
    def name(self) -> str: ...
    @property
    def sub_type(self) -> str: ...
    @property
    def last_name(self) -> str: ...
    @property
    def father_scope(self) -> Scope | None: ...
    def sub_scopes(self) -> list[Scope]: ...
    def all_sub_scopes(self) -> list[Scope]: ...
    def get_sub_scope(self, name: str) -> Scope | None: ...
    def all_nodes_map(self) -> dict[str, ScopeNode]: ...
    def nodes_by_type(self, op_type: str) -> list[ScopeNode]: ...
    def op_type_count(self, op_type: str) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class ScopeTree:
    @property
    def root(self) -> Scope: ...
    def all_scopes(self) -> list[Scope]: ...

@final
class ScopeGraph:
    @property
    def scope_tree(self) -> ScopeTree: ...
    def nodes_map(self) -> dict[str, ScopeNode]: ...
    def node(self, name: str) -> ScopeNode | None: ...

@final
class NodeOpTypeFeature:
    def __new__(cls, op_type: str, num: int, step: int = 0) -> NodeOpTypeFeature: ...
    @property
    def op_type(self) -> str: ...
    @property
    def num(self) -> int: ...
    @property
    def step(self) -> int: ...

@final
class NodeAttrFeature:
    def __new__(cls, op_type: str, attr: str, value: bool | int | float | str) -> NodeAttrFeature: ...
    @property
    def op_type(self) -> str: ...
    @property
    def attr(self) -> str: ...
    @property
    def value(self) -> bool | int | float | str: ...

@final
class ScopeFeature:
    def __new__(
        cls, sub_type: str, num: int, suffix: str = "", sub_scope_mask: str = "", step: int = 0
    ) -> ScopeFeature: ...
    @property
    def sub_type(self) -> str: ...
    @property
    def num(self) -> int: ...
    @property
    def suffix(self) -> str: ...
    @property
    def sub_scope_mask(self) -> str: ...
    @property
    def step(self) -> int: ...

@final
class ScopePattern:
    def __new__(cls, sub_type: str = "") -> ScopePattern: ...
    @property
    def sub_type(self) -> str: ...
    @property
    def node_op_type_features(self) -> list[NodeOpTypeFeature]: ...
    @property
    def node_attr_features(self) -> list[NodeAttrFeature]: ...
    @property
    def scope_features(self) -> list[ScopeFeature]: ...
    def set_sub_type(self, sub_type: str) -> ScopePattern: ...
    def add_node_op_type_feature(self, feature: NodeOpTypeFeature) -> ScopePattern: ...
    def add_node_attr_feature(self, feature: NodeAttrFeature) -> ScopePattern: ...
    def add_scope_feature(self, feature: ScopeFeature) -> ScopePattern: ...

@final
class ScopesResult:
    def __new__(cls) -> ScopesResult: ...
    def set_scopes(self, scopes: Sequence[Scope]) -> None: ...
    def set_nodes(self, nodes: Sequence[ScopeNode | str]) -> None: ...
    @property
    def scopes(self) -> list[str]: ...
    @property
    def nodes(self) -> list[str]: ...

@final
class InnerNodeInfo:
    def insert_input(self, node: str, index: int) -> InnerNodeInfo: ...
    def insert_output(self, node: str, index: int) -> InnerNodeInfo: ...
    def set_attr(self, name: str, value: Any) -> InnerNodeInfo: ...
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def inputs(self) -> list[tuple[str, int]]: ...
    @property
    def outputs(self) -> list[tuple[str, int]]: ...
    @property
    def attrs(self) -> dict[str, Any]: ...

@final
class FusionScopesResult:
    def set_name(self, name: str) -> None: ...
    def set_type(self, op_type: str) -> None: ...
    def set_description(self, description: str) -> None: ...
    def insert_inputs(self, inner_op_name: str, index_map: Sequence[int]) -> None: ...
    def insert_outputs(self, inner_op_name: str, index_map: Sequence[int]) -> None: ...
    def add_inner_node(self, name: str, op_type: str) -> InnerNodeInfo: ...
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def scopes(self) -> list[str]: ...
    @property
    def nodes(self) -> list[str]: ...
    @property
    def inputs(self) -> list[tuple[str, list[int]]]: ...
    @property
    def outputs(self) -> list[tuple[str, list[int]]]: ...

def register_scope_fusion_pass(
    name: str, factory: Callable[[], Any], general: bool = False, allow_override: bool = False
) -> None: ...
def registered_scope_fusion_passes() -> list[tuple[str, bool, bool]]: ...
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
