"""Built-in math ops checked against numpy with ``opgraph.testing.check_inference``.

Each op is one row of a table: (op type, numpy reference, overrides). TensorFlow
semantics are the spec, numpy is the oracle for shapes: where numpy promotes
dtypes differently from TensorFlow (true division of ints, ``np.sum`` of int8,
``np.mean`` of ints) the reference casts back to the TensorFlow output dtype;
where numpy lacks an op or a dtype (erf of float16, floor division of complex
numbers, integer powers with negative exponents) the reference uses a stand-in
with the same shape and dtype (broadcasting via ``np.broadcast_shapes``).

Example counts: ``EXAMPLES`` (100) per op and check; the whole module runs in a
few seconds with the debug build.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import opgraph
from opgraph import DataType
from opgraph.testing import check_inference, shapes

Array = npt.NDArray[Any]
EXAMPLES = 100

BROADCAST_PAIRS = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4)
# broadcastable pairs plus arbitrary (mostly incompatible) ones, so rejection is checked too
BINARY_SHAPES = st.one_of(BROADCAST_PAIRS, st.tuples(shapes(), shapes()))


# ---- binary elementwise ops --------------------------------------------------------


def broadcast(x1: Array, x2: Array, dtype: Any = None) -> Array:
    """A stand-in: the broadcast shape (raises when incompatible), ``x1``'s dtype."""
    return np.empty(np.broadcast_shapes(x1.shape, x2.shape), dtype if dtype is not None else x1.dtype)


def same_dtype(fn: Callable[[Array, Array], Array]) -> Callable[[Array, Array], Array]:
    """``fn`` with the result cast to the inputs' dtype (TensorFlow keeps it);
    numpy's missing dtype support (TypeError) falls back to :func:`broadcast`."""

    def reference(x1: Array, x2: Array) -> Array:
        np.broadcast_shapes(x1.shape, x2.shape)  # incompatible shapes reject
        try:
            return np.asarray(fn(x1, x2)).astype(x1.dtype)
        except TypeError:
            return broadcast(x1, x2)

    reference.__qualname__ = f"same_dtype({getattr(fn, '__name__', 'fn')})"
    return reference


def float_pow(x1: Array, x2: Array) -> Array:
    # np.power rejects negative integer exponents; TensorFlow's Pow does not
    return np.power(x1.astype(np.complex128 if x1.dtype.kind == "c" else np.float64), x2)


def squared_difference(x1: Array, x2: Array) -> Array:
    result: Array = np.square(x1 - x2)
    return result


def compare_ref(fn: Callable[[Array, Array], Array]) -> Callable[..., Array]:
    """A comparison (``incompatible_shape_error`` is checked separately)."""

    def reference(x1: Array, x2: Array, *, incompatible_shape_error: bool = True) -> Array:
        return np.asarray(fn(x1, x2))

    reference.__qualname__ = f"compare({fn.__name__})"
    return reference


BINARY: list[tuple[str, Callable[..., Array]]] = [
    ("Add", np.add),
    ("AddV2", np.add),
    ("Sub", np.subtract),
    ("Mul", np.multiply),
    ("RealDiv", same_dtype(np.true_divide)),
    ("Div", same_dtype(np.true_divide)),
    ("FloorDiv", same_dtype(np.floor_divide)),
    ("FloorMod", same_dtype(np.mod)),
    ("Maximum", np.maximum),
    ("Minimum", np.minimum),
    ("Pow", same_dtype(float_pow)),
    ("SquaredDifference", same_dtype(squared_difference)),
    ("Less", np.less),
    ("LessEqual", np.less_equal),
    ("Greater", np.greater),
    ("GreaterEqual", np.greater_equal),
    ("LogicalAnd", np.logical_and),
    ("LogicalOr", np.logical_or),
]


@pytest.mark.parametrize(("op_type", "reference"), BINARY, ids=[row[0] for row in BINARY])
def test_binary_op_broadcasts_like_numpy(op_type: str, reference: Callable[..., Array]) -> None:
    # the parallel dtype lists pair equal dtypes, as numpy needs for no promotion
    check_inference(op_type, reference, shapes=BINARY_SHAPES, max_examples=EXAMPLES)


@pytest.mark.parametrize(
    ("op_type", "fn"), [("Equal", np.equal), ("NotEqual", np.not_equal)], ids=["Equal", "NotEqual"]
)
def test_equality_broadcasts_like_numpy(op_type: str, fn: Callable[[Array, Array], Array]) -> None:
    check_inference(
        op_type,
        compare_ref(fn),
        shapes=BINARY_SHAPES,
        attrs={"incompatible_shape_error": True},
        max_examples=EXAMPLES,
    )


# ---- unary elementwise ops ---------------------------------------------------------


def cast_back(fn: Callable[..., Array]) -> Callable[..., Array]:
    """``fn`` with the result cast to the input's dtype (TensorFlow keeps it)."""

    def reference(x: Array, **attrs: Any) -> Array:
        return np.asarray(fn(x, **attrs)).astype(x.dtype)

    reference.__qualname__ = f"cast_back({getattr(fn, '__name__', 'fn')})"
    return reference


def erf(x: Array) -> Array:
    result: Array = np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))
    return result


def gelu(x: Array) -> Array:
    result: Array = 0.5 * x * (1 + erf(x / math.sqrt(2)))
    return result


def selu(x: Array) -> Array:
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return scale * np.where(x > 0, x, alpha * np.expm1(x))


def elu(x: Array, *, alpha: float, input_scale: float, output_scale: float) -> Array:
    x = x.astype(np.float64)
    return output_scale * np.where(x > 0, x, alpha * np.expm1(input_scale * x))


def leaky_relu(x: Array, *, alpha: float) -> Array:
    return np.where(x > 0, x, x * alpha)


def swish(x: Array, *, scale: float) -> Array:
    x = x.astype(np.float64)
    result: Array = x / (1 + np.exp(-scale * x))
    return result


def caffe_exp(x: Array, *, base: float, scale: float, shift: float) -> Array:
    """GE's Exp (Caffe's): ``base ** (shift + scale * x)``, base -1 meaning e."""
    y = shift + scale * x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    with np.errstate(all="ignore"):
        return np.exp(y) if base == -1 else np.power(base, y)


def caffe_log(x: Array, *, base: float, scale: float, shift: float) -> Array:
    """GE's Log (Caffe's): ``log_base(shift + scale * x)``, base -1 meaning e."""
    y = shift + scale * x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    with np.errstate(all="ignore"):
        return np.log(y) if base == -1 else np.log(y) / np.log(base)


def sigmoid(x: Array) -> Array:
    return 1 / (1 + np.exp(-x))


def rsqrt(x: Array) -> Array:
    return 1 / np.sqrt(x)


def softplus(x: Array) -> Array:
    return np.logaddexp(0, x.astype(np.float64))


def relu(x: Array) -> Array:
    result: Array = np.maximum(x, x.dtype.type(0))
    return result


def relu6(x: Array) -> Array:
    return np.clip(x, x.dtype.type(0), x.dtype.type(6))


UNARY: list[tuple[str, Callable[..., Array]]] = [
    ("Abs", np.abs),
    ("Neg", np.negative),
    ("Sign", np.sign),
    ("Square", np.square),
    ("Round", np.round),
    ("Floor", np.floor),
    ("Ceil", np.ceil),
    ("Exp", cast_back(caffe_exp)),
    ("Log", cast_back(caffe_log)),
    ("Sqrt", np.sqrt),
    ("Rsqrt", cast_back(rsqrt)),
    ("Reciprocal", np.reciprocal),
    ("Tanh", np.tanh),
    ("Sigmoid", cast_back(sigmoid)),
    ("Erf", cast_back(erf)),
    ("Gelu", cast_back(gelu)),
    ("Selu", cast_back(selu)),
    ("Softplus", cast_back(softplus)),
    ("Relu", relu),
    ("Relu6", relu6),
    ("LeakyRelu", cast_back(leaky_relu)),
    ("Elu", cast_back(elu)),
    ("Swish", cast_back(swish)),
    ("LogicalNot", np.logical_not),
]


@pytest.mark.parametrize(("op_type", "reference"), UNARY, ids=[row[0] for row in UNARY])
def test_unary_op_keeps_shape_and_dtype(op_type: str, reference: Callable[..., Array]) -> None:
    check_inference(op_type, reference, max_examples=EXAMPLES)


# ---- reductions --------------------------------------------------------------------


@st.composite
def axes_for(draw: st.DrawFn, rank: int) -> Array:
    """Reduction axes for a rank-``rank`` input: mostly valid (a scalar, a
    list, possibly empty, negative or repeated), sometimes out of range."""
    valid = st.integers(-rank, rank - 1) if rank else st.nothing()
    anything = st.integers(-rank - 2, rank + 1)
    element = st.one_of(valid, anything) if rank else anything
    if draw(st.booleans()):
        return np.array(draw(element), np.int64)
    return np.array(draw(st.lists(element, max_size=max(rank, 1) + 1)), np.int64)


def tf_axes(axes: Array, rank: int) -> tuple[int, ...]:
    """TensorFlow's reduction axes: rank 0 or 1, each in [-rank, rank),
    repeats allowed (numpy rejects them)."""
    if axes.ndim > 1:
        raise ValueError("axes must be a scalar or a vector")
    values = [int(a) for a in axes.reshape(-1)]
    if any(not -rank <= a < rank for a in values):
        raise ValueError(f"axis out of range for rank {rank}")
    return tuple(sorted({a % rank for a in values}))


def reduction(kind: str) -> Callable[..., Array]:
    """The reference of a reduction: ``np.sum`` (in the input dtype) for the
    shape of sum / mean / max / min / prod, ``np.all`` / ``np.any`` for bool."""

    def reference(
        x: Array, axes: Array | None, *, keep_dims: bool, noop_with_empty_axes: bool = True
    ) -> Array:
        # The GE names take ONNX's optional axes: absent is empty.
        axis: tuple[int, ...] | None = () if axes is None else tf_axes(axes, x.ndim)
        if axis == () and not noop_with_empty_axes:
            axis = None  # ONNX: no axes reduce every dim
        if kind == "all":
            result: Array = np.all(x, axis=axis, keepdims=keep_dims)
            return result
        if kind == "any":
            result = np.any(x, axis=axis, keepdims=keep_dims)
            return result
        # Max / Min of an empty axis are TensorFlow's lowest / highest value; numpy
        # raises, so the shape comes from a sum in the input dtype.
        return np.sum(x, axis=axis, keepdims=keep_dims, dtype=x.dtype)

    reference.__qualname__ = f"reduce_{kind}"
    return reference


REDUCTIONS = [
    ("Sum", "sum"),
    ("Mean", "sum"),
    ("Max", "sum"),
    ("Min", "sum"),
    ("Prod", "sum"),
    ("All", "all"),
    ("Any", "any"),
    ("ReduceSum", "sum"),
    ("ReduceMean", "sum"),
    ("ReduceMax", "sum"),
    ("ReduceMin", "sum"),
    ("ReduceProd", "sum"),
    ("ReduceAll", "all"),
    ("ReduceAny", "any"),
]


@pytest.mark.parametrize(("op_type", "kind"), REDUCTIONS, ids=[row[0] for row in REDUCTIONS])
def test_reduction_matches_numpy(op_type: str, kind: str) -> None:
    data, axes = ("input", "reduction_indices") if not op_type.startswith("Reduce") else ("x", "axes")
    check_inference(
        op_type,
        reduction(kind),
        shapes=st.fixed_dictionaries({data: shapes()}),
        value_inputs={axes: lambda arrays: axes_for(arrays[data].ndim)},
        max_examples=EXAMPLES,
    )


# ---- axis ops ----------------------------------------------------------------------


def scalar_axis(rank: int) -> st.SearchStrategy[Array]:
    """A scalar axis, mostly in range; sometimes a vector (TensorFlow rejects it)."""
    axis = st.integers(-rank - 1, rank)
    return st.one_of(
        axis.map(lambda a: np.array(a, np.int64)),
        axis.map(lambda a: np.array([a], np.int64)),
    )


def arg_reduce(input: Array, dimension: Array, *, output_type: DataType, keep_dims: bool = False) -> Array:
    """TensorFlow's ArgMax / ArgMin: a scalar dimension in [-rank, rank) over
    a non-empty axis (the kernel rejects an empty one, as numpy does); the
    dimension is removed, or kept as 1 with ONNX's keepdims (numpy's
    ``argmax(..., keepdims=True)``)."""
    if dimension.ndim != 0:
        raise ValueError("dimension must be a scalar")
    if output_type not in (DataType.INT32, DataType.INT64):
        raise ValueError("output_type must be int32 or int64")
    rank = input.ndim
    axis = int(dimension)
    if not -rank <= axis < rank:
        raise ValueError("dimension out of range")
    if input.shape[axis] == 0:
        raise ValueError("arg extremum of an empty axis")
    kept = np.argmax(np.empty(input.shape), axis=axis, keepdims=keep_dims).shape
    return np.empty(kept, output_type.to_numpy())


@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_reduction_drops_the_axis(op_type: str) -> None:
    check_inference(
        op_type,
        arg_reduce,
        shapes=st.fixed_dictionaries({"input": shapes()}),
        value_inputs={"dimension": lambda arrays: scalar_axis(arrays["input"].ndim)},
        attrs={
            "output_type": st.sampled_from([DataType.INT32, DataType.INT64, DataType.FLOAT]),
            "keep_dims": st.booleans(),
        },
        max_examples=EXAMPLES,
    )


def softmax(logits: Array) -> Array:
    if logits.ndim == 0:
        raise ValueError("logits must have rank >= 1")
    result: Array = logits.copy()
    return result


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax"])
def test_softmax_keeps_shape(op_type: str) -> None:
    check_inference(op_type, softmax, max_examples=EXAMPLES)


def softmax_v2(x: Array, *, axes: Sequence[int]) -> Array:
    """GE's SoftmaxV2: non-empty axes in [-rank, rank), none repeated."""
    if not axes or any(not -x.ndim <= a < x.ndim for a in axes):
        raise ValueError("axes out of range")
    if len({a % x.ndim for a in axes}) != len(axes):
        raise ValueError("repeated axis")
    result: Array = x.copy()
    return result


@pytest.mark.parametrize("op_type", ["SoftmaxV2", "LogSoftmaxV2"])
def test_softmax_v2_checks_axes(op_type: str) -> None:
    check_inference(
        op_type,
        softmax_v2,
        attrs={"axes": st.lists(st.integers(-5, 4), min_size=0, max_size=2)},
        max_examples=EXAMPLES,
    )


def cumsum(x: Array, axis: Array, *, exclusive: bool, reverse: bool) -> Array:
    if axis.ndim != 0:
        raise ValueError("axis must be a scalar")
    if x.ndim == 0:
        raise ValueError("x must have rank >= 1")
    return np.cumsum(x, axis=int(axis), dtype=x.dtype)


def test_cumsum_keeps_shape() -> None:
    check_inference(
        "Cumsum",
        cumsum,
        shapes=st.fixed_dictionaries({"x": shapes()}),
        value_inputs={"axis": lambda arrays: scalar_axis(arrays["x"].ndim)},
        max_examples=EXAMPLES,
    )


def add_n(x: list[Array], *, N: int) -> Array:
    if not x or len(x) != N:
        raise ValueError("N must be the (positive) number of inputs")
    if any(a.shape != x[0].shape for a in x):
        raise ValueError("AddN does not broadcast")
    total: Array = x[0].copy()
    for a in x[1:]:
        total += a
    return total


def test_add_n_sums_equal_shapes() -> None:
    check_inference(
        "AddN",
        add_n,
        attrs={"N": lambda arrays: st.one_of(st.just(len(arrays)), st.integers(-1, 4))},
        max_examples=EXAMPLES,
    )


# incompatible_shape_error=False: TensorFlow's shape function gives an unknown
# shape for incompatible shapes (the kernel returns a scalar); compatible ones broadcast.
EQUAL_NO_ERROR = [
    ((2, 3), (4,), (-2,)),
    ((2, 3), (3,), (2, 3)),
    ((1, 3), (2, 1), (2, 3)),
    ((), (0,), (0,)),
]


@pytest.mark.parametrize("op_type", ["Equal", "NotEqual"])
@pytest.mark.parametrize(("x1", "x2", "expected"), EQUAL_NO_ERROR)
def test_equality_without_shape_error(
    op_type: str, x1: tuple[int, ...], x2: tuple[int, ...], expected: tuple[int, ...]
) -> None:
    graph = opgraph.Graph("equal")
    a = graph.add_input("a", DataType.INT32, x1)
    b = graph.add_input("b", DataType.INT32, x2)
    node = graph.add_node(op_type, "node", [a, b], {"incompatible_shape_error": False})
    opgraph.infer(graph)
    assert graph.desc(node).shape == expected
    assert graph.desc(node).dtype == DataType.BOOL
