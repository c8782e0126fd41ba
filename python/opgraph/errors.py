"""The exception hierarchy. Every error opgraph raises for bad input is an
:class:`OpgraphError`; node errors carry the node's name, op type and inputs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple


class OpgraphError(Exception):
    """Base of every opgraph error."""


class InternalError(OpgraphError):
    """opgraph itself failed (a caught panic in the Rust core): a bug to
    report, never a fault of the model. The message keeps the panic's text
    and ``location`` (``file:line:column`` in opgraph's source, when known);
    ``node`` names the node being inferred, if any. The graph the failing
    call worked on may be half updated, so it is marked unusable: every
    later call on it raises InternalError until it is rebuilt or reloaded."""

    def __init__(
        self,
        message: str,
        *,
        node: str | None = None,
        op_type: str | None = None,
        inputs: Sequence[str] = (),
        location: str | None = None,
    ) -> None:
        super().__init__(message)
        self.node = node
        self.op_type = op_type
        self.inputs: list[str] = list(inputs)
        self.location = location


class ShapeArgumentError(OpgraphError, ValueError):
    """A shape given as an argument (``input_shapes``, ``--input-shape``, a
    graph builder shape) breaks GE's conventions: each dim is ``>= 0`` or
    ``-1`` (unknown) and fits int64, ``[-2]`` alone is an unknown rank, and
    the rank is at most 254. ``input`` names the input (when the shape has
    one) and ``dim`` the offending dim's index (when one dim is at fault)."""

    def __init__(self, message: str, *, input: str | None = None, dim: int | None = None) -> None:
        super().__init__(message)
        self.input = input
        self.dim = dim


class ShapeTypeError(ShapeArgumentError, TypeError):
    """A shape argument is not a sequence of ints (a string, a float dim ...)."""


class MemoryLimitError(OpgraphError):
    """A pass stopped because it would need more memory than the process may
    use (its address-space limit, its control group's limit, or the memory
    the machine has available); see ``docs/limits.md``. Raised instead of
    letting an allocation fail, which would abort the process."""


class RegistrationError(OpgraphError):
    """An op prototype or plugin could not be registered."""


class GraphError(OpgraphError):
    """A graph edit or graph structure is invalid."""


class CycleError(GraphError):
    """The graph has a cycle; ``nodes`` lists one cycle, first node repeated last."""

    def __init__(self, message: str, *, nodes: Sequence[str] = (), path: str = "") -> None:
        super().__init__(message)
        self.nodes: list[str] = list(nodes)
        self.path = path


class UnsupportedOp(NamedTuple):
    """An origin op type no parser plugin maps: how many nodes use it, and one of them."""

    op_type: str
    node_count: int
    example_node: str


class ParseError(OpgraphError):
    """A model could not be loaded: the file is unreadable or malformed, some
    origin op types have no parser plugin (``unsupported`` lists every one),
    a plugin failed on ``node`` (of ``origin_op_type``; a Python plugin's own
    exception is ``__cause__``), or scope-fusion pass ``scope_pass`` failed."""

    def __init__(
        self,
        message: str,
        *,
        node: str | None = None,
        origin_op_type: str | None = None,
        unsupported: Iterable[tuple[str, int, str]] = (),
        scope_pass: str | None = None,
    ) -> None:
        super().__init__(message)
        self.node = node
        self.origin_op_type = origin_op_type
        self.unsupported: list[UnsupportedOp] = [UnsupportedOp(*op) for op in unsupported]
        self.scope_pass = scope_pass


class ContextError(OpgraphError):
    """An infer / verify context or a parser plugin's operator was used wrongly
    (bad index, missing attribute, or used after its function returned)."""


class NodeError(OpgraphError):
    """A node failed; ``node`` is its name (``caller/body/name`` inside a body)."""

    def __init__(
        self,
        message: str,
        *,
        node: str | None = None,
        op_type: str | None = None,
        inputs: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.node = node
        self.op_type = op_type
        self.inputs: list[str] = list(inputs)


class VerifyError(NodeError):
    """A node does not match its prototype or failed its verify function."""


class UnknownOpTypeError(VerifyError):
    """No prototype is registered for a node's op type."""


class InferShapeError(NodeError):
    """Shape inference failed for a node."""


class InferDataTypeError(InferShapeError):
    """Dtype inference failed for a node."""


class InvalidShapeError(VerifyError, InferShapeError):
    """A shape rule found a node's inputs or attributes invalid (non-positive
    strides, an axis out of range, mismatched concat dims, an element count
    that does not match, a product that overflows int64, ...). It is a
    VerifyError (the node is invalid) and an InferShapeError (shape inference
    found it), so either ``except`` catches it."""


class DeviceError(OpgraphError):
    """A device pass cannot work with its input: an unknown soc, a graph that
    is not inferred (or already prepared), or a storage shape that cannot be
    computed. ``node`` names the node when one is to blame (``caller/body/name``
    inside a body)."""

    def __init__(self, message: str, *, node: str | None = None) -> None:
        super().__init__(message)
        self.node = node


class DeviceSpecError(DeviceError):
    """A device description is unknown (no such preset), malformed or has an
    unusable figure (the message names the field)."""


class CostError(DeviceError):
    """The cost model could not estimate a graph: a tensor it needs has an
    unknown size, a size overflows, or an op cannot run on the device;
    ``node`` names the node (``caller/body/name`` inside a body)."""


class MemoryPlanError(DeviceError):
    """A memory plan could not be made: a tensor's size is unknown (unknown
    dims without an upper bound), the graph is not inferred, or a size
    overflows. ``tensor`` names the tensor (``node:i``) when one is at fault,
    and ``node`` its node."""

    def __init__(self, message: str, *, tensor: str | None = None) -> None:
        super().__init__(message, node=None if tensor is None else tensor.rsplit(":", 1)[0])
        self.tensor = tensor


class AtcConfigError(OpgraphError):
    """A configuration file an ATC option names (``--insert_op_conf``,
    ``--keep_dtype``, ``--customize_dtypes``, ``--op_precision_mode``,
    ``--fusion_switch_file``) cannot be used: it does not parse, or a field
    has a value that does not fit the model. ``path`` is the file and
    ``field`` the offending field (or line), when one is to blame."""

    def __init__(self, message: str, *, path: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.field = field


class BuiltinShadowedWarning(UserWarning):
    """A user op type or parser plugin replaced one of opgraph's built-ins of
    the same name. Replacing needs ``override=True`` and still warns, since
    the built-in is gone for every graph in the process; filter this category
    where the replacement is intended."""


class ParamShadowedWarning(UserWarning):
    """``load_caffe``: a layer that a user plugin maps sets a parameter field
    that GE's flattened attributes drop (another field of the same name came
    first, e.g. ``bias_filler.type`` after ``weight_filler.type``); the
    plugin can read it with ``FrameworkOp.param_path``. Once per layer type."""
