"""opgraph: Ascend-style operator prototypes, verify and shape inference over
graphs, with a Rust core.

Define an op with :class:`OpDef`, register it with :func:`register`, build a
:class:`Graph` and call :func:`infer`; or load a frozen TensorFlow model with
:func:`load_tensorflow` (parser plugins in :mod:`opgraph.tensorflow`) or a
Caffe network with :func:`load_caffe` (parser plugins in :mod:`opgraph.caffe`)
or an ONNX model with :func:`load_onnx` (parser plugins in :mod:`opgraph.onnx`).
:func:`prepare` (in :mod:`opgraph.device`) then chooses device storage formats
for an Ascend target, :func:`plan_memory` plans its device memory
(:mod:`opgraph.memory`), and :func:`estimate_cost` times it on an Ascend
device (:class:`DeviceSpec`)."""

from __future__ import annotations

import os

# The extension allocates with mimalloc, read once when it loads (a user's
# own settings win). Address space is reserved 64 MiB at a time, not 1 GiB,
# so a process under an address-space limit (ulimit -v) keeps that room for
# its graphs; arenas are committed when reserved, which on a million-node
# load cuts the kernel's page-fault time from 4.6 s to 0.8 s
# (tests/benchmarks/bench_scale.py). Freed pages go back to the system
# after 250 ms unused rather than 10 ms: a load frees and reallocates as it
# goes, and every page given back too early is zeroed again by the kernel
# when reused (on a million-node load, 6.7 s against 2.9 s).
os.environ.setdefault("MIMALLOC_ARENA_RESERVE", "64MiB")
os.environ.setdefault("MIMALLOC_ARENA_EAGER_COMMIT", "1")
os.environ.setdefault("MIMALLOC_PURGE_DELAY", "250")

from . import _core, caffe, cost, device, memory, onnx, tensorflow
from ._core import (
    Graph,
    InferDataTypeContext,
    InferShapeContext,
    NamedAttrs,
    Node,
    OpContext,
    TensorDesc,
    TensorRef,
    VerifyContext,
)
from ._str_column import StrColumn
from .caffe import load_caffe
from .cost import BatchCost, CostReport, DeviceSpec, NodeCost, estimate_cost
from .device import SOC_VERSIONS, PrepareReport, check_formats, prepare, storage_shape
from .dtype import _BITS, DataType
from .errors import (
    BuiltinShadowedWarning,
    ContextError,
    CostError,
    CycleError,
    DeviceError,
    DeviceSpecError,
    GraphError,
    InferDataTypeError,
    InferShapeError,
    InternalError,
    InvalidShapeError,
    MemoryLimitError,
    MemoryPlanError,
    NodeError,
    OpgraphError,
    ParamShadowedWarning,
    ParseError,
    RegistrationError,
    ShapeArgumentError,
    ShapeTypeError,
    UnknownOpTypeError,
    VerifyError,
)
from .format import Format
from .memory import (
    LifetimePlan,
    MemoryPlan,
    PlannedTensor,
    ProfilePlan,
    check_placement,
    plan_lifetimes,
    plan_memory,
)
from .onnx import load_onnx
from .opdef import (
    DYNAMIC,
    OPTIONAL,
    REQUIRED,
    FollowType,
    OpDef,
    ParamType,
    ValueDepend,
    op_def,
    register,
    registered_op_types,
)
from .plugins import PluginWarning, load_entry_point_plugins, load_op_libraries, load_plugin_modules
from .ranges import RangeProbe, narrow_ranges
from .shape import UNKNOWN_DIM, UNKNOWN_RANK, Shape
from .tensorflow import load_tensorflow

__version__: str = _core.__version__

__all__ = [
    "DYNAMIC",
    "OPTIONAL",
    "REQUIRED",
    "SOC_VERSIONS",
    "UNKNOWN_DIM",
    "UNKNOWN_RANK",
    "BatchCost",
    "BuiltinShadowedWarning",
    "ContextError",
    "CostError",
    "CostReport",
    "CycleError",
    "DataType",
    "DeviceError",
    "DeviceSpec",
    "DeviceSpecError",
    "FollowType",
    "Format",
    "Graph",
    "GraphError",
    "InferDataTypeContext",
    "InferDataTypeError",
    "InferShapeContext",
    "InferShapeError",
    "InternalError",
    "InvalidShapeError",
    "LifetimePlan",
    "MemoryLimitError",
    "MemoryPlan",
    "MemoryPlanError",
    "NamedAttrs",
    "Node",
    "NodeCost",
    "NodeError",
    "OpContext",
    "OpDef",
    "OpgraphError",
    "ParamShadowedWarning",
    "ParamType",
    "ParseError",
    "PlannedTensor",
    "PluginWarning",
    "PrepareReport",
    "ProfilePlan",
    "RangeProbe",
    "RegistrationError",
    "Shape",
    "ShapeArgumentError",
    "ShapeTypeError",
    "StrColumn",
    "TensorDesc",
    "TensorRef",
    "UnknownOpTypeError",
    "ValueDepend",
    "VerifyContext",
    "VerifyError",
    "caffe",
    "check_formats",
    "check_placement",
    "cost",
    "device",
    "estimate_cost",
    "infer",
    "load_caffe",
    "load_entry_point_plugins",
    "load_onnx",
    "load_op_libraries",
    "load_plugin_modules",
    "load_tensorflow",
    "memory",
    "narrow_ranges",
    "onnx",
    "op_def",
    "plan_lifetimes",
    "plan_memory",
    "prepare",
    "register",
    "registered_op_types",
    "storage_shape",
    "tensorflow",
]


def infer(graph: Graph, *, collect_errors: bool = False, fold_limit: int | None = None) -> list[OpgraphError]:
    """Verifies and infers every node of ``graph`` in topological order.

    Small integer tensors (shape vectors, sizes) are folded on the host so
    value-depend inputs see their values; ``fold_limit`` bounds the elements
    of a folded output (default 4096).

    Raises the first failure (a :class:`NodeError` subclass naming the node, or
    :class:`CycleError`). With ``collect_errors=True`` it keeps going and
    returns every failure instead; nodes fed by a failed node are skipped."""
    errors = _core.infer(graph, collect_errors, fold_limit)
    for error in errors:
        if not isinstance(error, OpgraphError):
            raise error  # opgraph itself is broken (e.g. errors module missing)
    return errors


_BITS.update({DataType(value): bits for _name, value, bits in _core.data_type_table()})

# Installed op libraries register on import, as GE loads op_proto libraries.
if os.environ.get("OPGRAPH_NO_PLUGINS") != "1":
    load_entry_point_plugins()
