"""Built-in array ops checked against numpy with ``opgraph.testing.check_inference``.

References follow TensorFlow's rules (shape functions and kernels) and use
numpy for the shapes; constant inputs (axes, perms, paddings, begin/end/strides,
split sizes...) are drawn from ``x``'s shape with ``value_inputs=`` so most
cases are valid, with some invalid values mixed in to check rejection.

Cast's target dtype (``DstT`` / ``dst_type``) is not a declared attribute, so
``check_inference`` cannot set it (``attrs=`` only takes declared ones): Cast
is covered by a table of cases instead.

Example counts: ``EXAMPLES`` (100) per op and check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import strategies as st

import opgraph
from opgraph import DataType
from opgraph.testing import check_inference, shapes

Array = npt.NDArray[Any]
EXAMPLES = 100
Arrays = dict[str, Array]


def ints(values: Any) -> Array:
    return np.array(values, np.int64)


def index(rank: int, slack: int = 1) -> st.SearchStrategy[int]:
    """An axis for ``rank`` dims, sometimes ``slack`` out of range."""
    return st.integers(-rank - slack, rank - 1 + slack)


def scalar_or_vector(values: st.SearchStrategy[int]) -> st.SearchStrategy[Array]:
    """Mostly a scalar, sometimes a one-element or two-element vector."""
    return st.one_of(
        values.map(ints),
        values.map(lambda v: ints([v])),
        st.lists(values, min_size=2, max_size=2).map(ints),
    )


def axis_in(rank: int, axis: int) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} out of range for rank {rank}")
    return axis % rank


def one_value(value: Array, what: str) -> int:
    """A scalar input's value. opgraph also takes a one-element vector (its
    value-depend inputs are read as "a scalar or one element", as GE does),
    where TensorFlow's shape functions want rank 0: references accept both."""
    if value.size != 1 or value.ndim > 1:
        raise ValueError(f"{what} must be a scalar")
    return int(value.reshape(-1)[0])


def same_dtypes(arrays: list[Array]) -> None:
    if len({a.dtype for a in arrays}) > 1:
        raise TypeError("inputs of different dtypes")


# ---- views -------------------------------------------------------------------------


def squeeze(x: Array, *, axis: list[int]) -> Array:
    if not axis:
        return np.squeeze(x)
    dims = {axis_in(x.ndim, a) for a in axis}  # TensorFlow allows repeats
    if any(x.shape[d] != 1 for d in dims):
        raise ValueError("can only squeeze dims of size 1")
    return np.squeeze(x, axis=tuple(sorted(dims)))


def expand_dims(x: Array, axis: Array) -> Array:
    if axis.size != 1:
        raise ValueError("axis must hold a single value")
    a = int(axis.reshape(-1)[0])
    if not -x.ndim - 1 <= a <= x.ndim:
        raise ValueError("axis out of range")
    return np.expand_dims(x, a)


def identity(x: Array) -> Array:
    result: Array = x.copy()
    return result


def identity_n(x: list[Array]) -> tuple[Array, ...]:
    if not x:
        raise ValueError("IdentityN needs an input")
    return tuple(a.copy() for a in x)


def shape_of(x: Array, *, out_type: DataType, start: int = 0, end: int = 2**63 - 1) -> Array:
    if out_type not in (DataType.INT32, DataType.INT64):
        raise ValueError("out_type must be int32 or int64")
    # ONNX's start / end clamp to [0, rank] after counting from the end, as
    # Python's slicing does.
    return np.array(x.shape[start:end], out_type.to_numpy())


def size_of(x: Array, *, out_type: DataType) -> Array:
    if out_type not in (DataType.INT32, DataType.INT64):
        raise ValueError("out_type must be int32 or int64")
    return np.array(x.size, out_type.to_numpy())


def rank_of(x: Array) -> Array:
    return np.array(x.ndim, np.int32)


def broadcast_to(x: Array, shape: Array) -> Array:
    if shape.ndim != 1:
        raise ValueError("shape must be a vector")
    return np.broadcast_to(x, tuple(int(d) for d in shape))


def broadcast_targets(arrays: Arrays) -> st.SearchStrategy[Array]:
    """``x``'s shape with dims grown from 1, leading dims added; sometimes arbitrary."""
    shape = arrays["x"].shape
    grown = st.tuples(
        st.lists(st.integers(0, 3), max_size=2),
        st.tuples(*[st.integers(0, 3) if d == 1 else st.just(d) for d in shape]),
    ).map(lambda t: ints([*t[0], *t[1]]))
    return st.one_of(grown, st.lists(st.integers(-1, 4), max_size=4).map(ints))


def fill(dims: Array, value: Array) -> Array:
    if dims.ndim != 1 or value.ndim != 0:
        raise ValueError("dims must be a vector and value a scalar")
    return np.full(tuple(int(d) for d in dims), value)  # negative dims raise


def range_(start: Array, limit: Array, delta: Array) -> Array:
    """TensorFlow's Range: scalars, delta != 0 pointing from start towards
    limit; size computed in the dtype as the kernel does."""
    if start.ndim or limit.ndim or delta.ndim:
        raise ValueError("start, limit and delta must be scalars")
    s, lim, d = start[()], limit[()], delta[()]
    if d == 0 or (d > 0 and s > lim) or (d < 0 and s < lim):
        raise ValueError("delta must be non-zero and point from start to limit")
    if start.dtype.kind in "iu":
        size = (abs(int(lim) - int(s)) + abs(int(d)) - 1) // abs(int(d))
    else:
        size = int(np.ceil(np.abs((lim - s) / d)))
    return np.empty(size, start.dtype)


RANGE_DTYPES = [
    DataType.FLOAT,
    DataType.DOUBLE,
    DataType.INT32,
    DataType.INT64,
    DataType.INT8,
    DataType.INT16,
    DataType.UINT16,
    DataType.UINT32,
    DataType.FLOAT16,
]

VIEWS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    ("Squeeze", squeeze, {"attrs": {"axis": st.lists(st.integers(-5, 4), max_size=3)}}),
    (
        "ExpandDims",
        expand_dims,
        {"value_inputs": {"axis": lambda a: scalar_or_vector(index(a["x"].ndim + 1))}},
    ),
    ("Identity", identity, {}),
    ("IdentityN", identity_n, {}),
    ("StopGradient", identity, {}),
    ("PreventGradient", lambda x, *, message: x.copy(), {}),
    ("ZerosLike", np.zeros_like, {}),
    ("OnesLike", np.ones_like, {}),
    ("Shape", shape_of, {"attrs": {"out_type": st.sampled_from([DataType.INT32, DataType.INT64])}}),
    ("Size", size_of, {"attrs": {"out_type": st.sampled_from([DataType.INT32, DataType.INT64])}}),
    ("Rank", rank_of, {}),
    ("BroadcastTo", broadcast_to, {"value_inputs": {"shape": broadcast_targets}}),
    (
        "Fill",
        fill,
        {
            "value_inputs": {
                "dims": st.one_of(st.lists(st.integers(-1, 4), max_size=4).map(ints), st.integers(0, 3))
            },
            "shapes": st.fixed_dictionaries({"value": st.sampled_from([(), (), (1,)])}),
        },
    ),
    ("Range", range_, {"dtypes": [d for d in RANGE_DTYPES if d != DataType.FLOAT16]}),
]


@pytest.mark.parametrize(("op_type", "reference", "overrides"), VIEWS, ids=[row[0] for row in VIEWS])
def test_view_op_matches_numpy(
    op_type: str, reference: Callable[..., Any], overrides: dict[str, Any]
) -> None:
    check_inference(op_type, reference, max_examples=EXAMPLES, **overrides)


def test_range_of_float16_bounds_is_sound() -> None:
    # opgraph does not read FLOAT16 bounds: the length stays unknown (-1) and a
    # zero delta is not rejected; sound, but less than TensorFlow's shape function
    check_inference("Range", range_, dtypes=[DataType.FLOAT16], unknown_dims=True, max_examples=EXAMPLES)


def test_shape_rejects_non_index_out_types() -> None:
    check_inference("Shape", shape_of, max_examples=EXAMPLES)


# Cast: the target dtype is an undeclared attribute (DstT, TensorFlow; dst_type, GE's number)
CAST_CASES = [
    ({"DstT": DataType.INT32}, DataType.FLOAT, (2, 3), DataType.INT32),
    ({"DstT": DataType.BOOL}, DataType.INT64, (), DataType.BOOL),
    ({"DstT": DataType.COMPLEX64}, DataType.UINT8, (0, 4), DataType.COMPLEX64),
    ({"dst_type": 1}, DataType.FLOAT, (5,), DataType.FLOAT16),
    ({"dst_type": 0, "DstT": DataType.INT8}, DataType.DOUBLE, (1, 1), DataType.FLOAT),
]


@pytest.mark.parametrize(("attrs", "dtype", "shape", "expected"), CAST_CASES)
def test_cast_keeps_shape_and_takes_the_target_dtype(
    attrs: dict[str, Any], dtype: DataType, shape: tuple[int, ...], expected: DataType
) -> None:
    graph = opgraph.Graph("cast")
    x = graph.add_input("x", dtype, shape)
    y = graph.add_node("Cast", "node", [x], attrs)
    opgraph.infer(graph)
    assert (graph.desc(y).dtype, graph.desc(y).shape) == (expected, shape)


@pytest.mark.parametrize("attrs", [{}, {"DstT": "int32"}, {"dst_type": 999}])
def test_cast_rejects_a_missing_or_bad_target(attrs: dict[str, Any]) -> None:
    graph = opgraph.Graph("cast")
    x = graph.add_input("x", DataType.FLOAT, (2,))
    graph.add_node("Cast", "node", [x], attrs)
    with pytest.raises(opgraph.OpgraphError):
        opgraph.infer(graph)


# ---- joining and splitting ---------------------------------------------------------


def concat_shapes(min_count: int) -> st.SearchStrategy[dict[str, Any]]:
    """Shapes for a concatenation: equal except along one axis, sometimes unrelated."""

    @st.composite
    def draw(d: st.DrawFn) -> list[tuple[int, ...]]:
        base = d(shapes(min_rank=0, max_rank=3))
        count = d(st.integers(min_count, 3))
        if not base or d(st.integers(0, 4)) == 0:
            return [d(shapes(max_rank=3)) for _ in range(count)]
        axis = d(st.integers(0, len(base) - 1))
        return [
            tuple(d(st.integers(0, 3)) if i == axis else s for i, s in enumerate(base)) for _ in range(count)
        ]

    return st.fixed_dictionaries({"x": draw()})


def concat(x: list[Array], axis: int) -> Array:
    if not x:
        raise ValueError("nothing to concatenate")
    same_dtypes(x)
    if x[0].ndim == 0:
        raise ValueError("cannot concatenate scalars")
    return np.concatenate(x, axis=axis_in(x[0].ndim, axis))  # ranks / dims mismatch raise


def concat_v2(x: list[Array], concat_dim: Array) -> Array:
    return concat(x, one_value(concat_dim, "concat_dim"))


def concat_v1(concat_dim: Array, x: list[Array]) -> Array:
    return concat_v2(x, concat_dim)


def concat_d(x: list[Array], *, concat_dim: int, N: int) -> Array:
    # GE's ConcatD: N at its default (1) is read as unset, else it counts the inputs
    if N not in (1, len(x)):
        raise ValueError("N must be the number of inputs")
    return concat(x, concat_dim)


def pack(x: list[Array], *, axis: int) -> Array:
    if not x:
        raise ValueError("nothing to pack")
    same_dtypes(x)
    rank = x[0].ndim + 1
    return np.stack(x, axis=axis_in(rank, axis))


def unpack(x: Array, *, axis: int) -> tuple[Array, ...]:
    a = axis_in(x.ndim, axis)
    return tuple(np.moveaxis(x, a, 0))


def split(split_dim: Array, x: Array, *, num_split: int) -> tuple[Array, ...]:
    if num_split < 1:
        raise ValueError("num_split must be positive")
    axis = axis_in(x.ndim, one_value(split_dim, "split_dim"))
    if x.shape[axis] % num_split:
        raise ValueError("dim not divisible by num_split")
    return tuple(np.split(x, num_split, axis=axis))


def split_v(x: Array, size_splits: Array, split_dim: Array, *, num_split: int) -> tuple[Array, ...]:
    """TensorFlow's SplitV: one size may be -1 (the rest), the others non-negative
    and summing to the dim; as many sizes as num_split."""
    if size_splits.ndim != 1:
        raise ValueError("size_splits must be a vector")
    axis = axis_in(x.ndim, one_value(split_dim, "split_dim"))
    sizes = [int(s) for s in size_splits]
    if num_split < 1 or len(sizes) != num_split:
        raise ValueError("num_split must equal the number of sizes")
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise ValueError("at most one -1 and no other negative size")
    known = sum(s for s in sizes if s != -1)
    if -1 in sizes:
        if known > x.shape[axis]:
            raise ValueError("sizes exceed the dim")
        sizes[sizes.index(-1)] = x.shape[axis] - known
    elif known != x.shape[axis]:
        raise ValueError("sizes must sum to the dim")
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


@st.composite
def split_sizes(draw: st.DrawFn, arrays: Arrays) -> Array:
    x = arrays["x"]
    if x.ndim == 0 or draw(st.integers(0, 4)) == 0:
        return ints(draw(st.lists(st.integers(-2, 4), min_size=1, max_size=3)))
    # split along the first axis: the dim drawn into parts, maybe one part -1
    dim = x.shape[0]
    cuts = sorted(draw(st.lists(st.integers(0, dim), max_size=2)))
    sizes = list(np.diff([0, *cuts, dim]))
    if draw(st.booleans()):
        sizes[draw(st.integers(0, len(sizes) - 1))] = -1
    return ints(sizes)


JOINS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    (
        "ConcatV2",
        concat_v2,
        {
            "shapes": concat_shapes(0),
            "value_inputs": {"concat_dim": lambda a: index(a["x0"].ndim if a else 1).map(ints)},
        },
    ),
    (
        "Concat",
        concat_v1,
        {
            "shapes": concat_shapes(0),
            "value_inputs": {"concat_dim": lambda a: scalar_or_vector(index(a["x0"].ndim if a else 1))},
        },
    ),
    (
        "ConcatD",
        concat_d,
        {
            "shapes": concat_shapes(1),
            "attrs": {
                "concat_dim": lambda a: index(a["x0"].ndim),
                "N": lambda a: st.one_of(st.just(len(a)), st.integers(0, 4)),
            },
        },
    ),
    ("Pack", pack, {"attrs": {"axis": st.integers(-5, 4)}}),
    ("Unpack", unpack, {"shapes": st.fixed_dictionaries({"x": shapes(min_rank=0, min_side=1)})}),
    (
        "Split",
        split,
        {
            "value_inputs": {"split_dim": lambda a: scalar_or_vector(index(a["x"].ndim))},
            "attrs": {"num_split": st.integers(0, 3)},
        },
    ),
    (
        "SplitV",
        split_v,
        {
            "value_inputs": {
                "size_splits": split_sizes,
                "split_dim": lambda a: st.one_of(st.just(ints(0)), scalar_or_vector(index(a["x"].ndim))),
            },
            "attrs": {
                "num_split": lambda a: st.integers(0, 3),
            },
        },
    ),
]


@pytest.mark.parametrize(("op_type", "reference", "overrides"), JOINS, ids=[row[0] for row in JOINS])
def test_join_or_split_op_matches_numpy(
    op_type: str, reference: Callable[..., Any], overrides: dict[str, Any]
) -> None:
    check_inference(op_type, reference, max_examples=EXAMPLES, **overrides)


# ---- slicing -----------------------------------------------------------------------


def slice_(x: Array, offsets: Array, size: Array) -> Array:
    """TensorFlow's Slice: begin >= 0, size -1 = to the end, begin + size <= dim."""
    if offsets.ndim != 1 or size.ndim != 1 or len(offsets) != x.ndim or len(size) != x.ndim:
        raise ValueError("offsets and size must be vectors of length rank")
    index = []
    for b, s, d in zip(offsets.tolist(), size.tolist(), x.shape, strict=True):
        end = d if s == -1 else b + s
        if b < 0 or b > d or s < -1 or end > d:
            raise ValueError("slice out of bounds")
        index.append(slice(b, end))
    return x[tuple(index)]


def bounds(arrays: Arrays, low: int, high: int) -> st.SearchStrategy[Array]:
    """A vector of ``x``'s rank with elements in ``low..high`` (sometimes another length)."""
    rank = arrays["x"].ndim
    length = st.one_of(st.just(rank), st.just(rank), st.integers(0, rank + 1))
    return length.flatmap(lambda n: st.lists(st.integers(low, high), min_size=n, max_size=n).map(ints))


def strided_slice(
    x: Array,
    begin: Array,
    end: Array,
    strides: Array,
    *,
    begin_mask: int,
    end_mask: int,
    ellipsis_mask: int,
    new_axis_mask: int,
    shrink_axis_mask: int,
) -> Array:
    """TensorFlow's StridedSlice without ellipsis / new-axis masks: Python's
    slicing, masked bounds left out, shrunk axes indexed with ``begin``
    (in range, positive stride); a spec shorter than the rank keeps the rest."""
    assert ellipsis_mask == 0 and new_axis_mask == 0
    if not begin.ndim == end.ndim == strides.ndim == 1 or not len(begin) == len(end) == len(strides):
        raise ValueError("begin, end and strides must be vectors of one length")
    if len(begin) > x.ndim:
        raise ValueError("more slice dims than the rank")
    index: list[Any] = []
    for i, (b, e, s) in enumerate(zip(begin.tolist(), end.tolist(), strides.tolist(), strict=True)):
        if s == 0:
            raise ValueError("stride 0")
        if shrink_axis_mask >> i & 1:
            if s < 0 or not -x.shape[i] <= b < x.shape[i]:
                raise ValueError("shrunk index out of range")
            index.append(b)
        else:
            index.append(slice(None if begin_mask >> i & 1 else b, None if end_mask >> i & 1 else e, s))
    return np.asarray(x[tuple(index)])


def strides_for(arrays: Arrays) -> st.SearchStrategy[Array]:
    rank = arrays["x"].ndim
    stride = st.sampled_from([1, 1, 1, 2, -1, -2, 3, 0])
    return st.lists(stride, min_size=rank, max_size=rank).map(ints)


def transpose(x: Array, perm: Array | None = None) -> Array:
    """TensorFlow's shape function takes entries in [-rank, rank) (the CPU
    kernel wants them non-negative); they must permute the dims. Without
    perm (ONNX's Transpose may omit it) numpy reverses the dims."""
    if perm is None:
        return np.transpose(x)
    if perm.ndim != 1 or len(perm) != x.ndim:
        raise ValueError("perm must have one entry per dim")
    dims = [axis_in(x.ndim, int(p)) for p in perm]
    if sorted(dims) != list(range(x.ndim)):
        raise ValueError("perm must be a permutation of the dims")
    return np.transpose(x, dims)


@st.composite
def perms(draw: st.DrawFn, arrays: Arrays) -> Array:
    rank = arrays["x"].ndim
    if draw(st.integers(0, 4)) == 0:
        return ints(draw(st.lists(st.integers(-1, rank), max_size=rank + 1)))
    return ints(draw(st.permutations(range(rank))))


def tile(x: Array, multiples: Array) -> Array:
    if multiples.ndim != 1 or len(multiples) != x.ndim or (multiples < 0).any():
        raise ValueError("multiples must be non-negative, one per dim")
    return np.tile(x, multiples.tolist())


def pad(x: Array, paddings: Array) -> Array:
    if paddings.shape != (x.ndim, 2) or (paddings < 0).any():
        raise ValueError("paddings must be non-negative, [rank, 2]")
    # np.pad's result shape (np.pad itself rejects the empty paddings of a scalar)
    return np.empty(tuple(int(d + p.sum()) for d, p in zip(x.shape, paddings, strict=True)), x.dtype)


def pad_v2(x: Array, paddings: Array, constant_values: Array) -> Array:
    if constant_values.ndim != 0:
        raise ValueError("constant_values must be a scalar")
    same_dtypes([x, constant_values])
    return pad(x, paddings)


def mirror_pad(x: Array, paddings: Array, *, mode: str) -> Array:
    """REFLECT pads less than the dim, SYMMETRIC at most the dim."""
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError("mode must be REFLECT or SYMMETRIC")
    if paddings.shape != (x.ndim, 2) or (paddings < 0).any():
        raise ValueError("paddings must be non-negative, [rank, 2]")
    limit = 0 if mode == "REFLECT" else 1
    for (before, after), d in zip(paddings.tolist(), x.shape, strict=True):
        if max(before, after) > d - 1 + limit:
            raise ValueError("paddings too large for the mode")
    return pad(x, paddings)


def paddings_for(arrays: Arrays) -> st.SearchStrategy[Array]:
    rank = arrays["x"].ndim
    good = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=rank, max_size=rank)
    bad = st.lists(st.tuples(st.integers(-1, 3), st.integers(-1, 3)), max_size=rank + 1)
    return st.one_of(good, good, bad).map(lambda p: ints(p).reshape(-1, 2))


def reverse(x: Array, axis: Array) -> Array:
    if axis.ndim != 1:
        raise ValueError("axis must be a vector")
    dims = [axis_in(x.ndim, int(a)) for a in axis]
    if len(set(dims)) != len(dims):
        raise ValueError("axis repeated")
    return np.flip(x, axis=tuple(dims))


SLICING: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    (
        "Slice",
        slice_,
        {"value_inputs": {"offsets": lambda a: bounds(a, -1, 3), "size": lambda a: bounds(a, -2, 3)}},
    ),
    (
        "StridedSlice",
        strided_slice,
        {
            "value_inputs": {
                "begin": lambda a: bounds(a, -5, 5).filter(lambda v: len(v) == a["x"].ndim),
                "end": lambda a: bounds(a, -5, 5).filter(lambda v: len(v) == a["x"].ndim),
                "strides": strides_for,
            },
            "attrs": {
                "begin_mask": st.integers(0, 15),
                "end_mask": st.integers(0, 15),
                "shrink_axis_mask": st.integers(0, 15),
                "ellipsis_mask": 0,
                "new_axis_mask": 0,
            },
        },
    ),
    ("Transpose", transpose, {"value_inputs": {"perm": perms}}),
    ("Tile", tile, {"value_inputs": {"multiples": lambda a: bounds(a, -1, 3)}}),
    ("Pad", pad, {"value_inputs": {"paddings": paddings_for}}),
    (
        "PadV2",
        pad_v2,
        {
            "value_inputs": {"paddings": paddings_for},
            "shapes": st.fixed_dictionaries(
                {"x": shapes(), "constant_values": st.sampled_from([(), (), (1,)])}
            ),
        },
    ),
    (
        "MirrorPad",
        mirror_pad,
        {
            "value_inputs": {"paddings": paddings_for},
            "attrs": {"mode": st.sampled_from(["REFLECT", "SYMMETRIC", "CONSTANT"])},
        },
    ),
    ("ReverseV2", reverse, {"value_inputs": {"axis": lambda a: bounds(a, -4, 3)}}),
]


@pytest.mark.parametrize(("op_type", "reference", "overrides"), SLICING, ids=[row[0] for row in SLICING])
def test_slicing_op_matches_numpy(
    op_type: str, reference: Callable[..., Any], overrides: dict[str, Any]
) -> None:
    check_inference(op_type, reference, max_examples=EXAMPLES, **overrides)


# ---- gathering and selecting -------------------------------------------------------


def gather_v2(
    x: Array, indices: Array, axis: Array, *, batch_dims: int, negative_index_support: bool = False
) -> Array:
    """TensorFlow's GatherV2 shape: params[:axis] + indices[batch_dims:] + params[axis+1:]
    (which indices count from the end does not change it)."""
    a = axis_in(x.ndim, one_value(axis, "axis"))
    b = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    if not 0 <= b <= indices.ndim or b > a:
        raise ValueError("batch_dims out of range")
    if x.shape[:b] != indices.shape[:b]:
        raise ValueError("batch dims differ")
    return np.empty(x.shape[:a] + indices.shape[b:] + x.shape[a + 1 :], x.dtype)


def gather(x: Array, indices: Array, *, validate_indices: bool, batch_dims: int) -> Array:
    return gather_v2(x, indices, ints(0), batch_dims=batch_dims)


def gather_nd(x: Array, indices: Array, *, batch_dims: int = 0) -> Array:
    """TensorFlow's GatherNd; with ONNX's batch_dims b the first b dims of x
    and indices are shared and each index addresses x's dims after them."""
    b = batch_dims
    if b < 0 or indices.ndim <= b or x.ndim < b or x.shape[:b] != indices.shape[:b]:
        raise ValueError("batch_dims must be shared leading dims of x and indices")
    if indices.ndim == 0 or indices.shape[-1] > x.ndim - b:
        raise ValueError("indices must be a vector or more, indexing at most rank dims")
    return np.empty(indices.shape[:-1] + x.shape[b + indices.shape[-1] :], x.dtype)


@st.composite
def gather_nd_shapes(draw: st.DrawFn) -> dict[str, tuple[int, ...]]:
    x = draw(shapes(max_rank=3))
    depth = draw(st.integers(0, len(x) + 1))
    batch = draw(shapes(max_rank=2))
    indices = (*batch, depth) if draw(st.integers(0, 5)) else ()
    return {"x": x, "indices": indices}


def one_hot(x: Array, depth: Array, on_value: Array, off_value: Array, *, axis: int) -> Array:
    n = one_value(depth, "depth")
    if n < 0:
        raise ValueError("depth must be non-negative")
    if on_value.ndim or off_value.ndim:
        raise ValueError("on_value and off_value must be scalars")
    same_dtypes([on_value, off_value])
    if not -1 <= axis <= x.ndim:
        raise ValueError("axis out of range")
    a = x.ndim if axis == -1 else axis
    return np.empty((*x.shape[:a], n, *x.shape[a:]), on_value.dtype)


def select(condition: Array, x1: Array, x2: Array) -> Array:
    """TensorFlow's Select: x1 and x2 of one shape; condition a scalar, of
    their shape, or a vector over their first dim."""
    same_dtypes([x1, x2])
    if x1.shape != x2.shape:
        raise ValueError("x1 and x2 differ in shape")
    if condition.ndim == 0 or condition.shape == x1.shape:
        result: Array = x1.copy()
        return result
    if condition.ndim == 1 and x1.ndim >= 1 and condition.shape[0] == x1.shape[0]:
        result = x1.copy()
        return result
    raise ValueError("condition must be a scalar, x's shape, or a vector over x's first dim")


def select_v2(condition: Array, x1: Array, x2: Array) -> Array:
    same_dtypes([x1, x2])
    return np.where(condition, x1, x2)


GATHERS: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
    (
        "GatherV2",
        gather_v2,
        {
            "shapes": st.fixed_dictionaries({"x": shapes(max_rank=3), "indices": shapes(max_rank=2)}),
            "value_inputs": {"axis": lambda a: scalar_or_vector(index(a["x"].ndim))},
            "attrs": {"batch_dims": st.sampled_from([0, 0, 0, 1, -1])},
        },
    ),
    (
        "Gather",
        gather,
        {
            "shapes": st.fixed_dictionaries({"x": shapes(max_rank=3), "indices": shapes(max_rank=2)}),
            "attrs": {"batch_dims": 0},
        },
    ),
    ("GatherNd", gather_nd, {"shapes": gather_nd_shapes(), "attrs": {"batch_dims": st.integers(-1, 2)}}),
    (
        "OneHot",
        one_hot,
        {
            "shapes": st.fixed_dictionaries(
                {
                    "x": shapes(max_rank=3),
                    "on_value": st.sampled_from([(), (), (1,)]),
                    "off_value": st.just(()),
                }
            ),
            "value_inputs": {"depth": scalar_or_vector(st.integers(-1, 4))},
            "attrs": {"axis": st.integers(-2, 4)},
        },
    ),
    ("Select", select, {}),
    ("SelectV2", select_v2, {}),
]


@pytest.mark.parametrize(("op_type", "reference", "overrides"), GATHERS, ids=[row[0] for row in GATHERS])
def test_gather_or_select_op_matches_numpy(
    op_type: str, reference: Callable[..., Any], overrides: dict[str, Any]
) -> None:
    check_inference(op_type, reference, max_examples=EXAMPLES, **overrides)
