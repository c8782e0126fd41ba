"""Hypothesis draws of one-op TensorFlow graphs (:class:`tf_op_cases.TfCase`)
for the built-in plugins whose attributes and constant inputs interact:
broadcasting, axes (negative, out of range, as scalars or lists), slicing
masks, window ops (padding modes, strides, dilations), batch dims, block
ops. Shapes are small; data inputs are Placeholders, shape-like inputs
Consts, as frozen graphs hold them.

Not every draw is valid: TensorFlow's verdict on each (its shape functions
at import, then its kernels) is what opgraph is judged against."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st
from tf_op_cases import TfCase, run_tensorflow

Draw = Callable[[st.DataObject], TfCase]
#: Each group of ops by name → its draw.
DRAWS: dict[str, Draw] = {}

_rng = np.random.default_rng(0)


def draw_case(group: str, d: st.DataObject) -> TfCase:
    """A case of ``group``, its array data from a seed hypothesis draws too,
    so that replaying or shrinking an example replays its data. One
    Placeholder in three declares a partly unknown shape: some dims, or
    (for a scalar, or one in four) the rank."""
    global _rng
    _rng = np.random.default_rng(d.draw(st.integers(0, 2**32 - 1), label="data seed"))
    case = DRAWS[group](d)
    for name, array in case.arrays().items():
        if name in case.constants or d.draw(st.integers(0, 2), label="declared partly") != 1:
            continue
        if array.ndim == 0 or d.draw(st.integers(0, 3), label="rank unknown") == 2:
            case.unknown[name] = None
        else:
            case.unknown[name] = tuple(d.draw(st.sets(st.integers(0, array.ndim - 1), min_size=1)))
    return case


def _draw(name: str) -> Callable[[Draw], Draw]:
    def register(draw: Draw) -> Draw:
        DRAWS[name] = draw
        return draw

    return register


def f32(shape: tuple[int, ...]) -> np.ndarray:
    return _rng.standard_normal(shape).astype(np.float32)


def i32(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int32)


def dims(d: st.DataObject, rank: int, lo: int = 1, hi: int = 5) -> tuple[int, ...]:
    return tuple(d.draw(st.lists(st.integers(lo, hi), min_size=rank, max_size=rank)))


def rarely(d: st.DataObject) -> bool:
    """True about one draw in twenty: for the invalid variants. A middle
    value, not 0: hypothesis favours the simplest (smallest) draws."""
    return d.draw(st.integers(0, 19), label="rarely") == 10


def rank_of(d: st.DataObject, lo: int = 0, hi: int = 4) -> int:
    return d.draw(st.integers(lo, hi))


def axis(d: st.DataObject, rank: int, extra: int = 0) -> int:
    """An axis of a rank-``rank`` tensor (``extra`` more for ops that add
    one), maybe negative; rarely out of range, which TensorFlow refuses."""
    if rarely(d):
        return d.draw(st.sampled_from([rank + extra, -rank - extra - 1]))
    return d.draw(st.integers(-rank - extra, rank + extra - 1))


def distinct_axes(d: st.DataObject, rank: int, min_size: int = 0) -> list[int]:
    return list(
        d.draw(
            st.lists(
                st.integers(-rank, rank - 1), min_size=min_size, max_size=rank, unique_by=lambda a: a % rank
            )
        )
    )


def maybe_constant(d: st.DataObject, *names: str) -> frozenset[str]:
    """``names`` are Consts (the shape-like inputs), and one draw in four
    every input is: then opgraph may fold the output and its value is judged."""
    return frozenset(names) | (
        {"*"} if d.draw(st.integers(0, 3), label="every input constant") == 2 else set()
    )


def _all_constant(case: TfCase) -> TfCase:
    if "*" in case.constants:
        case.constants = frozenset(case.arrays())
    return case


def _broadcast_pair(d: st.DataObject) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast (each dim its own, 1 or the other's), or
    rarely one dim that does not."""
    rank = rank_of(d)
    full = dims(d, rank, 1, 4)
    shapes = []
    for _ in range(2):
        own = rank - d.draw(st.integers(0, rank))
        shapes.append(tuple(n if d.draw(st.booleans()) else 1 for n in full[rank - own :]))
    a, b = shapes
    if a and rarely(d):
        a = (*a[:-1], a[-1] + 1 if a[-1] > 1 else 3)
    return a, b


FLOAT_BINARY = [
    "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference", "Pow", "Atan2",
    "Xdivy", "Xlogy", "DivNoNan", "MulNoNan", "FloorDiv", "FloorMod", "Add", "Div",
]  # fmt: skip
INT_BINARY = ["AddV2", "Sub", "Mul", "Maximum", "Minimum", "FloorDiv", "FloorMod", "Add"]
COMPARE = ["Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"]


@_draw("binary")
def _binary(d: st.DataObject) -> TfCase:
    a, b = _broadcast_pair(d)
    kind = d.draw(st.sampled_from(["float", "int", "compare", "logical"]))
    if kind == "float":
        op = d.draw(st.sampled_from(FLOAT_BINARY))
        x, y = f32(a), f32(b)
        if op == "Pow":
            x = np.abs(x) + np.float32(0.5)
    elif kind == "int":
        op = d.draw(st.sampled_from(INT_BINARY))
        x, y = i32(_rng.integers(-9, 10, a)), i32(_rng.integers(1, 6, b))
    elif kind == "compare":
        op = d.draw(st.sampled_from(COMPARE))
        x, y = i32(_rng.integers(-2, 3, a)), i32(_rng.integers(-2, 3, b))
    else:
        op = d.draw(st.sampled_from(["LogicalAnd", "LogicalOr"]))
        x, y = _rng.integers(0, 2, a).astype(bool), _rng.integers(0, 2, b).astype(bool)
    return _all_constant(TfCase(op, {"x": x, "y": y}, constants=maybe_constant(d)))


UNARY = [
    "Abs", "Neg", "Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign", "Sigmoid", "Tanh", "Exp",
    "Sqrt", "Rsqrt", "Square", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Erf", "Erfc",
    "Reciprocal", "Inv", "Expm1", "Log", "Log1p", "Asinh", "Atan", "Sinh", "Cosh", "ZerosLike",
    "OnesLike", "IsNan", "IsInf", "IsFinite", "Softmax", "LogSoftmax", "L2Loss", "Identity",
]  # fmt: skip
#: Unary ops that need a positive input for a finite output.
POSITIVE = {"Sqrt", "Rsqrt", "Log", "Log1p", "Reciprocal", "Inv"}


@_draw("unary")
def _unary(d: st.DataObject) -> TfCase:
    op = d.draw(st.sampled_from([*UNARY, "LeakyRelu", "Cast", "ClipByValue", "LogicalNot"]))
    shape = dims(d, rank_of(d, 1 if op in ("Softmax", "LogSoftmax") else 0))
    x = f32(shape)
    if op in POSITIVE:
        x = np.abs(x) + np.float32(0.25)
    constants = maybe_constant(d)
    if op == "LeakyRelu":
        return _all_constant(TfCase(op, {"features": x}, {"alpha": 0.2}, constants))
    if op == "Cast":
        dst = d.draw(st.sampled_from([np.int32, np.int64, np.float16, np.float64, np.bool_]))
        return _all_constant(TfCase(op, {"x": x}, {"DstT": dst}, constants))
    if op == "ClipByValue":
        lo_shape = d.draw(st.sampled_from([(), shape]))
        lo = np.full(lo_shape, -0.5, np.float32)
        return _all_constant(
            TfCase(op, {"t": x, "clip_value_min": lo, "clip_value_max": -lo}, constants=constants)
        )
    if op == "LogicalNot":
        return _all_constant(TfCase(op, {"x": x > 0}, constants=constants))
    name = {"Softmax": "logits", "LogSoftmax": "logits", "L2Loss": "t", "Identity": "input"}.get(op, "x")
    if op in ("Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign"):
        name = "features"
    return _all_constant(TfCase(op, {name: x}, constants=constants))


@_draw("reduce")
def _reduce(d: st.DataObject) -> TfCase:
    rank = rank_of(d, 1)
    shape = dims(d, rank)
    op = d.draw(st.sampled_from(["Sum", "Mean", "Max", "Min", "Prod", "All", "Any", "ArgMax", "ArgMin"]))
    x = f32(shape)
    constants = maybe_constant(d, "axis" if op in ("ArgMax", "ArgMin") else "reduction_indices")
    if op in ("ArgMax", "ArgMin"):
        out = d.draw(st.sampled_from([np.int32, np.int64]))
        return _all_constant(
            TfCase(
                op,
                {"input": x, "dimension": i32(axis(d, rank))},
                {"output_type": out},
                constants | {"dimension"},
            )
        )
    if op in ("All", "Any"):
        x = x > 0
    axes = distinct_axes(d, rank)
    if rarely(d):
        axes.append(rank)
    indices = i32(axes[0]) if len(axes) == 1 and d.draw(st.booleans()) else i32(axes)
    keep = d.draw(st.booleans())
    return _all_constant(TfCase(op, {"input": x, "axis": indices}, {"keep_dims": keep}, constants | {"axis"}))


def _factor_shape(d: st.DataObject, count: int) -> list[int]:
    """A shape of ``count`` elements: its factors in drawn order, one maybe -1."""
    factors: list[int] = []
    left = count
    for p in (2, 3, 5):
        while left % p == 0:
            factors.append(p)
            left //= p
    shuffled = d.draw(st.permutations(factors))
    groups = d.draw(st.integers(1, max(1, len(shuffled))))
    shape = [1] * groups
    for i, p in enumerate(shuffled):
        shape[i % groups] *= p
    if d.draw(st.booleans()):
        shape[d.draw(st.integers(0, groups - 1))] = -1
    if rarely(d):
        shape[0] += 1  # rarely a shape of another size
    return shape


@_draw("reshape")
def _reshape(d: st.DataObject) -> TfCase:
    rank = rank_of(d)
    shape = dims(d, rank)
    x = f32(shape)
    op = d.draw(
        st.sampled_from(
            ["Reshape", "ExpandDims", "Squeeze", "Transpose", "Tile", "BroadcastTo", "Fill", "Shape"]
        )
    )
    if op == "Reshape":
        shape_input = i32(_factor_shape(d, x.size))
        return _all_constant(
            TfCase(op, {"tensor": x, "shape": shape_input}, constants=maybe_constant(d, "shape"))
        )
    if op == "ExpandDims":
        return _all_constant(
            TfCase(op, {"input": x, "axis": i32(axis(d, rank, 1))}, constants=maybe_constant(d, "axis"))
        )
    if op == "Squeeze":
        ones = [a for a, n in enumerate(shape) if n == 1]
        picked = list(d.draw(st.lists(st.sampled_from(ones), unique=True))) if ones else []
        picked = [a - rank if d.draw(st.booleans()) else a for a in picked]
        if rank and rarely(d):
            picked.append(d.draw(st.integers(0, rank - 1)))  # maybe a dim that is not 1
        return _all_constant(TfCase(op, {"input": x}, {"axis": picked}, maybe_constant(d)))
    if op == "Transpose":
        perm = list(d.draw(st.permutations(range(rank))))
        return _all_constant(TfCase(op, {"x": x, "perm": i32(perm)}, constants=maybe_constant(d, "perm")))
    if op == "Tile":
        multiples = i32(dims(d, rank, 0, 3))
        return _all_constant(
            TfCase(op, {"input": x, "multiples": multiples}, constants=maybe_constant(d, "multiples"))
        )
    if op == "BroadcastTo":
        extra = dims(d, d.draw(st.integers(0, 2)), 1, 3)
        target = [*extra, *(n if n != 1 else d.draw(st.integers(1, 3)) for n in shape)]
        if target and rarely(d):
            target[-1] += 1
        return _all_constant(
            TfCase(op, {"input": x, "shape": i32(target)}, constants=maybe_constant(d, "shape"))
        )
    if op == "Fill":
        return _all_constant(
            TfCase(op, {"dims": i32(shape), "value": f32(())}, constants=maybe_constant(d, "dims"))
        )
    out = d.draw(st.sampled_from([np.int32, np.int64]))
    return _all_constant(TfCase("Shape", {"input": x}, {"out_type": out}, maybe_constant(d)))


@_draw("concat_split")
def _concat_split(d: st.DataObject) -> TfCase:
    rank = rank_of(d, 1)
    shape = dims(d, rank)
    op = d.draw(st.sampled_from(["ConcatV2", "Pack", "Unpack", "Split", "SplitV"]))
    if op == "ConcatV2":
        at = axis(d, rank)
        values = []
        for _ in range(d.draw(st.integers(2, 4))):
            own = list(shape)
            if -rank <= at < rank:
                own[at] = d.draw(st.integers(0, 4))
            values.append(f32(tuple(own)))
        return _all_constant(
            TfCase(op, {"values": values, "axis": i32(at)}, constants=maybe_constant(d, "axis"))
        )
    if op == "Pack":
        values = [f32(shape) for _ in range(d.draw(st.integers(1, 4)))]
        return _all_constant(TfCase(op, {"values": values}, {"axis": axis(d, rank, 1)}, maybe_constant(d)))
    at = axis(d, rank)
    size = shape[at] if -rank <= at < rank else 2
    x = f32(shape)
    if op == "Unpack":
        return _all_constant(TfCase(op, {"value": x}, {"num": size, "axis": at}, maybe_constant(d)))
    if op == "Split":
        parts = d.draw(st.sampled_from([n for n in range(1, size + 1) if size % n == 0] or [1]))
        if rarely(d):
            parts = size + 1
        return _all_constant(
            TfCase(op, {"axis": i32(at), "value": x}, {"num_split": parts}, maybe_constant(d, "axis"))
        )
    sizes = list(d.draw(st.lists(st.integers(0, size), min_size=1, max_size=3)))
    if sum(sizes) <= size and d.draw(st.booleans()):
        sizes.append(-1)
    elif sum(sizes) != size:
        sizes.append(max(0, size - sum(sizes)))
    splits = i32(sizes)
    return _all_constant(
        TfCase(
            op,
            {"value": x, "size_splits": splits, "axis": i32(at)},
            {"num_split": len(sizes)},
            maybe_constant(d, "size_splits", "axis"),
        )
    )


@_draw("slice")
def _slice(d: st.DataObject) -> TfCase:
    rank = rank_of(d, 1)
    shape = dims(d, rank, 1, 6)
    x = f32(shape)
    if d.draw(st.integers(0, 3), label="Slice") == 2:
        begin = [d.draw(st.integers(0, n)) for n in shape]
        size = [d.draw(st.integers(-1, n - b)) for n, b in zip(shape, begin, strict=True)]
        if rarely(d):
            size[0] = shape[0] + 1
        return _all_constant(
            TfCase(
                "Slice",
                {"input": x, "begin": i32(begin), "size": i32(size)},
                constants=maybe_constant(d, "begin", "size"),
            )
        )
    # StridedSlice: every mask crossed with every kind of bound.
    count = d.draw(st.integers(1, rank + 1))
    begin, end, strides = [], [], []
    for _ in range(count):
        n = d.draw(st.sampled_from(shape))
        begin.append(d.draw(st.integers(-n - 2, n + 2)))
        end.append(d.draw(st.integers(-n - 2, n + 2)))
        strides.append(d.draw(st.sampled_from([1, 1, 2, 3, -1, -2])))
    masks = {
        name: d.draw(st.integers(0, 2**count - 1))
        for name in ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask")
    }
    masks["ellipsis_mask"] = d.draw(st.sampled_from([0, 0, 1 << d.draw(st.integers(0, count - 1))]))
    return _all_constant(
        TfCase(
            "StridedSlice",
            {"input": x, "begin": i32(begin), "end": i32(end), "strides": i32(strides)},
            masks,
            maybe_constant(d, "begin", "end", "strides"),
        )
    )


@_draw("gather")
def _gather(d: st.DataObject) -> TfCase:
    rank = rank_of(d, 1, 3)
    shape = dims(d, rank)
    x = f32(shape)
    op = d.draw(st.sampled_from(["GatherV2", "GatherNd", "OneHot", "ReverseV2", "Cumsum", "TopKV2", "Range"]))
    if op == "GatherV2":
        at = d.draw(st.integers(-rank, rank - 1))
        batch = d.draw(st.integers(0, at % rank))
        index_shape = (*shape[:batch], *dims(d, d.draw(st.integers(0, 2))))
        indices = i32(_rng.integers(0, shape[at], index_shape))
        return _all_constant(
            TfCase(
                op,
                {"params": x, "indices": indices, "axis": i32(at)},
                {"batch_dims": batch},
                maybe_constant(d, "axis"),
            )
        )
    if op == "GatherNd":
        depth = d.draw(st.integers(1, rank))
        index_shape = (*dims(d, d.draw(st.integers(0, 2))), depth)
        indices = np.stack([_rng.integers(0, n, index_shape[:-1]) for n in shape[:depth]], -1).astype(
            np.int32
        )
        return _all_constant(TfCase(op, {"params": x, "indices": indices}, constants=maybe_constant(d)))
    if op == "OneHot":
        indices = i32(_rng.integers(-1, 5, shape))
        on, off = np.float32(1), np.float32(0)
        return _all_constant(
            TfCase(
                op,
                {
                    "indices": indices,
                    "depth": i32(d.draw(st.integers(0, 5))),
                    "on_value": on,
                    "off_value": off,
                },
                {"axis": d.draw(st.integers(-1, rank))},
                maybe_constant(d, "depth"),
            )
        )
    if op == "ReverseV2":
        axes = i32(distinct_axes(d, rank))
        return _all_constant(TfCase(op, {"tensor": x, "axis": axes}, constants=maybe_constant(d, "axis")))
    if op == "Cumsum":
        flags = {"exclusive": d.draw(st.booleans()), "reverse": d.draw(st.booleans())}
        return _all_constant(
            TfCase(op, {"x": x, "axis": i32(axis(d, rank))}, flags, maybe_constant(d, "axis"))
        )
    if op == "TopKV2":
        k = i32(d.draw(st.integers(0, shape[-1] + (1 if rarely(d) else 0))))
        return _all_constant(TfCase(op, {"input": x, "k": k}, {"sorted": True}, maybe_constant(d, "k")))
    kind = d.draw(st.sampled_from([np.dtype(np.int32), np.dtype(np.float32)]))
    start, limit = (np.asarray(d.draw(st.integers(-6, 6)), kind) for _ in range(2))
    steps: list[float] = [1, 2, 3, -1, -2] if kind == np.int32 else [0.5, 1.5, -0.75]
    delta = np.asarray(d.draw(st.sampled_from(steps)), kind)
    if (limit - start) * delta < 0:
        start, limit = limit, start
    return TfCase(
        "Range",
        {"start": start, "limit": limit, "delta": delta},
        constants=frozenset({"start", "limit", "delta"}),
    )


@_draw("pad")
def _pad(d: st.DataObject) -> TfCase:
    rank = rank_of(d, 1)
    shape = dims(d, rank)
    x = f32(shape)
    op = d.draw(st.sampled_from(["Pad", "PadV2", "MirrorPad"]))
    if op == "MirrorPad":
        mode = d.draw(st.sampled_from(["REFLECT", "SYMMETRIC"]))
        most = [n - 1 if mode == "REFLECT" else n for n in shape]
        pads = [[d.draw(st.integers(0, m)) for _ in range(2)] for m in most]
        if rarely(d):
            pads[0][0] = most[0] + 1
        return _all_constant(
            TfCase(op, {"input": x, "paddings": i32(pads)}, {"mode": mode}, maybe_constant(d, "paddings"))
        )
    pads = [[d.draw(st.integers(0, 3)) for _ in range(2)] for _ in shape]
    inputs: dict[str, Any] = {"input": x, "paddings": i32(pads)}
    if op == "PadV2":
        inputs["constant_values"] = np.float32(1.5)
    return _all_constant(TfCase(op, inputs, constants=maybe_constant(d, "paddings", "constant_values")))


def _window(d: st.DataObject, conv: bool) -> dict[str, Any]:
    """strides (and dilations for a convolution: TensorFlow's CPU kernels
    take dilations only with unit strides) and a padding."""
    attrs: dict[str, Any] = {}
    strides = dims(d, 2, 1, 3)
    attrs["strides"] = [1, *strides, 1]
    attrs["padding"] = d.draw(st.sampled_from(["SAME", "VALID", "EXPLICIT"] if conv else ["SAME", "VALID"]))
    if conv and strides == (1, 1) and d.draw(st.booleans()):
        attrs["dilations"] = [1, *dims(d, 2, 1, 3), 1]
    if attrs["padding"] == "EXPLICIT":
        attrs["explicit_paddings"] = [0, 0, *(d.draw(st.integers(0, 2)) for _ in range(4)), 0, 0]
    return attrs


@_draw("conv")
def _conv(d: st.DataObject) -> TfCase:
    n, h, w, c = 1, d.draw(st.integers(1, 9)), d.draw(st.integers(1, 9)), d.draw(st.integers(1, 3))
    x = f32((n, h, w, c))
    op = d.draw(st.sampled_from(["Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool", "BiasAdd"]))
    kernel = dims(d, 2, 1, 4)
    if op == "Conv2D":
        filt = f32((*kernel, c, d.draw(st.integers(1, 3))))
        return _all_constant(
            TfCase(op, {"input": x, "filter": filt}, _window(d, True), maybe_constant(d, "filter"))
        )
    if op == "DepthwiseConv2dNative":
        attrs = _window(d, True)
        filt = f32((*kernel, c, d.draw(st.integers(1, 2))))
        return _all_constant(TfCase(op, {"input": x, "filter": filt}, attrs, maybe_constant(d, "filter")))
    if op == "BiasAdd":
        bias = f32((c + (1 if rarely(d) else 0),))
        return _all_constant(TfCase(op, {"value": x, "bias": bias}, constants=maybe_constant(d, "bias")))
    return _all_constant(
        TfCase(
            op,
            {"input" if op == "MaxPool" else "value": x},
            {"ksize": [1, *kernel, 1], **_window(d, False)},
            maybe_constant(d),
        )
    )


@_draw("matmul")
def _matmul(d: st.DataObject) -> TfCase:
    m, k, n = dims(d, 3)
    k2 = k + 1 if rarely(d) else k
    op = d.draw(st.sampled_from(["MatMul", "BatchMatMulV2", "Einsum"]))
    if op == "MatMul":
        ta, tb = d.draw(st.booleans()), d.draw(st.booleans())
        a = f32((k, m) if ta else (m, k))
        b = f32((n, k2) if tb else (k2, n))
        return _all_constant(
            TfCase(op, {"a": a, "b": b}, {"transpose_a": ta, "transpose_b": tb}, maybe_constant(d, "b"))
        )
    batch_a, batch_b = _broadcast_pair(d)
    if op == "BatchMatMulV2":
        ax, ay = d.draw(st.booleans()), d.draw(st.booleans())
        a = f32((*batch_a, *((k, m) if ax else (m, k))))
        b = f32((*batch_b, *((n, k2) if ay else (k2, n))))
        return _all_constant(TfCase(op, {"x": a, "y": b}, {"adj_x": ax, "adj_y": ay}, maybe_constant(d)))
    einsums: list[tuple[str, list[tuple[int, ...]]]] = [
        ("ij,jk->ik", [(m, k), (k2, n)]),
        ("bij,bjk->bik", [(2, m, k), (2, k2, n)]),
        ("bhqd,bhkd->bhqk", [(1, 2, m, k), (1, 2, n, k2)]),
        ("ij->ji", [(m, k)]),
        ("ii->i", [(m, m)]),
        ("i,j->ij", [(m,), (n,)]),
        ("...ij,...jk->...ik", [(3, m, k), (k2, n)]),
        ("abc->", [(m, k, n)]),
        ("ij,ij->i", [(m, k), (m, k2)]),
    ]
    equation, shapes = d.draw(st.sampled_from(einsums))
    return _all_constant(
        TfCase(op, {"inputs": [f32(s) for s in shapes]}, {"equation": equation}, maybe_constant(d))
    )


@_draw("space")
def _space(d: st.DataObject) -> TfCase:
    op = d.draw(
        st.sampled_from(
            [
                "SpaceToDepth",
                "DepthToSpace",
                "SpaceToBatchND",
                "BatchToSpaceND",
                "ResizeBilinear",
                "ResizeNearestNeighbor",
            ]
        )
    )
    block = d.draw(st.integers(2, 3))
    n, h, w, c = (
        d.draw(st.integers(1, 2)),
        d.draw(st.integers(1, 7)),
        d.draw(st.integers(1, 7)),
        d.draw(st.integers(1, 3)),
    )
    if op == "SpaceToDepth":
        h, w = h * block if not rarely(d) else h, w * block
        return _all_constant(
            TfCase(op, {"input": f32((n, h, w, c))}, {"block_size": block}, maybe_constant(d))
        )
    if op == "DepthToSpace":
        c = c * block * block if not rarely(d) else c
        return _all_constant(
            TfCase(op, {"input": f32((n, h, w, c))}, {"block_size": block}, maybe_constant(d))
        )
    blocks = dims(d, 2, 1, 3)
    if op == "SpaceToBatchND":
        pads = [[d.draw(st.integers(0, 2)), 0] for _ in range(2)]
        for pad, size, b in zip(pads, (h, w), blocks, strict=True):
            pad[1] = -(size + pad[0]) % b
        inputs = {"input": f32((n, h, w, c)), "block_shape": i32(blocks), "paddings": i32(pads)}
        return _all_constant(TfCase(op, inputs, constants=maybe_constant(d, "block_shape", "paddings")))
    if op == "BatchToSpaceND":
        crops = [[d.draw(st.integers(0, 1)), d.draw(st.integers(0, 1))] for _ in range(2)]
        inputs = {
            "input": f32((n * blocks[0] * blocks[1], h + 1, w + 1, c)),
            "block_shape": i32(blocks),
            "crops": i32(crops),
        }
        return _all_constant(TfCase(op, inputs, constants=maybe_constant(d, "block_shape", "crops")))
    target = i32(dims(d, 2, 1, 9))
    corners = d.draw(st.booleans())
    attrs = {"align_corners": corners, "half_pixel_centers": not corners and d.draw(st.booleans())}
    return _all_constant(
        TfCase(op, {"images": f32((n, h, w, c)), "size": target}, attrs, maybe_constant(d, "size"))
    )


@_draw("select")
def _select(d: st.DataObject) -> TfCase:
    op = d.draw(st.sampled_from(["SelectV2", "Select"]))
    if op == "SelectV2":
        a, b = _broadcast_pair(d)
        cond = _rng.integers(0, 2, a).astype(bool)
        x, y = f32(b), f32(b)
    else:
        shape = dims(d, rank_of(d, 1))
        cond_shape = d.draw(st.sampled_from([shape, shape[:1]]))
        cond = _rng.integers(0, 2, cond_shape).astype(bool)
        x, y = f32(shape), f32(shape)
    inputs = {"condition": cond, "t": x, "e": y} if op == "SelectV2" else {"condition": cond, "x": x, "y": y}
    return _all_constant(TfCase(op, inputs, constants=maybe_constant(d)))


NN_MORE_OPS = [
    "Conv2DBackpropInput", "Conv3D", "MaxPool3D", "AvgPool3D", "MaxPoolV2", "FusedBatchNormV3", "LRN",
    "BatchMatMulV3", "ResizeArea", "ResizeBicubic", "CropAndResize", "FusedBatchNorm",
    "FusedBatchNormV2", "BatchMatMul", "BiasAddV1",
]  # fmt: skip


@_draw("nn_more")
def _nn_more(d: st.DataObject) -> TfCase:
    op = d.draw(st.sampled_from(NN_MORE_OPS))
    c = d.draw(st.integers(1, 3))
    if op == "Conv2DBackpropInput":
        attrs = _window(d, True)
        size = (1, d.draw(st.integers(1, 8)), d.draw(st.integers(1, 8)), c)
        kernel = (*dims(d, 2, 1, 3), c, d.draw(st.integers(1, 3)))
        forward = TfCase("Conv2D", {"input": f32(size), "filter": f32(kernel)}, attrs)
        # The gradient's shape is the forward convolution's output (when it has one).
        grad = _forward_shape(forward)
        if grad is None or rarely(d):
            grad = (1, 2, 2, kernel[3])
        inputs = {"input_sizes": i32(size), "filter": f32(kernel), "out_backprop": f32(grad)}
        return _all_constant(TfCase(op, inputs, attrs, maybe_constant(d, "input_sizes", "filter")))
    if op in ("Conv3D", "MaxPool3D", "AvgPool3D"):
        x = f32((1, *dims(d, 3, 1, 6), c))
        kernel = dims(d, 3, 1, 3)
        attrs = {"strides": [1, *dims(d, 3, 1, 2), 1], "padding": d.draw(st.sampled_from(["SAME", "VALID"]))}
        if op == "Conv3D":
            filt = f32((*kernel, c, d.draw(st.integers(1, 2))))
            return _all_constant(TfCase(op, {"input": x, "filter": filt}, attrs, maybe_constant(d, "filter")))
        return _all_constant(TfCase(op, {"input": x}, {"ksize": [1, *kernel, 1], **attrs}, maybe_constant(d)))
    x = f32((d.draw(st.integers(1, 2)), *dims(d, 2, 1, 7), c))
    if op == "MaxPoolV2":
        window = _window(d, False)
        inputs = {"input": x, "ksize": i32([1, *dims(d, 2, 1, 4), 1]), "strides": i32(window["strides"])}
        return _all_constant(
            TfCase(op, inputs, {"padding": window["padding"]}, maybe_constant(d, "ksize", "strides"))
        )
    if op == "BiasAddV1":
        return _all_constant(TfCase(op, {"value": x, "bias": f32((c,))}, constants=maybe_constant(d, "bias")))
    if op.startswith("FusedBatchNorm"):
        stats = {name: f32((c,)) for name in ("scale", "offset", "mean")}
        stats["variance"] = np.abs(f32((c,))) + np.float32(0.5)
        inputs = {"x": x, **stats}
        return _all_constant(TfCase(op, inputs, {"is_training": False}, maybe_constant(d, *stats)))
    if op == "LRN":
        return _all_constant(
            TfCase(op, {"input": x}, {"depth_radius": d.draw(st.integers(0, 3))}, maybe_constant(d))
        )
    if op == "BatchMatMul":
        m, k, n = dims(d, 3)
        ax, ay = d.draw(st.booleans()), d.draw(st.booleans())
        inputs = {"x": f32((2, *((k, m) if ax else (m, k)))), "y": f32((2, *((n, k) if ay else (k, n))))}
        return _all_constant(TfCase(op, inputs, {"adj_x": ax, "adj_y": ay}, maybe_constant(d)))
    if op == "BatchMatMulV3":
        m, k, n = dims(d, 3)
        out = d.draw(st.sampled_from([np.float32, np.float64]))
        inputs = {
            "x": f32((2, m, k)),
            "y": f32((2, k, n)).astype(np.float64 if out is np.float64 else np.float32),
        }
        if out is np.float64:
            inputs["x"] = inputs["x"].astype(np.float64)
        return _all_constant(TfCase(op, inputs, {"Tout": out}, maybe_constant(d)))
    if op == "CropAndResize":
        boxes = np.sort(_rng.uniform(0, 1, (d.draw(st.integers(1, 3)), 2, 2)), axis=1).reshape(-1, 4)
        box_ind = i32(_rng.integers(0, x.shape[0], len(boxes)))
        inputs = {
            "image": x,
            "boxes": boxes.astype(np.float32),
            "box_ind": box_ind,
            "crop_size": i32(dims(d, 2, 1, 5)),
        }
        return _all_constant(TfCase(op, inputs, constants=maybe_constant(d, "crop_size")))
    target = i32(dims(d, 2, 1, 9))
    return _all_constant(
        TfCase(
            op,
            {"images": x, "size": target},
            {"align_corners": d.draw(st.booleans())},
            maybe_constant(d, "size"),
        )
    )


def _forward_shape(case: TfCase) -> tuple[int, ...] | None:
    """The output shape TensorFlow's shape function gives ``case``, or None
    where it refuses."""
    verdict = run_tensorflow(case, case.graph_def())
    if verdict.refused or verdict.static[0] is None:
        return None
    return verdict.static[0]


LIST_AND_DATA_OPS = [
    "AddN", "ShapeN", "Size", "Rank", "Concat", "Gather", "ReverseSequence", "MatrixBandPart",
    "Cumprod", "CumulativeLogsumexp", "EnsureShape", "IdentityN", "Unique", "UniqueWithCounts",
    "Where", "NonMaxSuppressionV3", "NonMaxSuppressionV5", "NonMaxSuppressionV2",
    "NonMaxSuppressionV4", "CombinedNonMaxSuppression", "CheckNumerics", "PlaceholderWithDefault",
]  # fmt: skip


@_draw("lists_and_data")
def _lists_and_data(d: st.DataObject) -> TfCase:
    op = d.draw(st.sampled_from(LIST_AND_DATA_OPS))
    rank = rank_of(d, 1, 3)
    shape = dims(d, rank)
    x = f32(shape)
    constants = maybe_constant(d)
    if op == "AddN":
        return _all_constant(
            TfCase(
                op, {"inputs": [f32(shape) for _ in range(d.draw(st.integers(1, 3)))]}, constants=constants
            )
        )
    if op in ("ShapeN", "IdentityN"):
        values = [f32(dims(d, rank_of(d))) for _ in range(d.draw(st.integers(1, 3)))]
        attrs: dict[str, Any] = (
            {"out_type": d.draw(st.sampled_from([np.int32, np.int64]))} if op == "ShapeN" else {}
        )
        return _all_constant(TfCase(op, {"input": values}, attrs, constants))
    if op in ("Size", "Rank"):
        attrs = {"out_type": np.int64} if op == "Size" and d.draw(st.booleans()) else {}
        return _all_constant(TfCase(op, {"input": x}, attrs, constants))
    if op == "Concat":
        at = d.draw(st.integers(0, rank - 1))
        values = [
            f32((*shape[:at], d.draw(st.integers(1, 3)), *shape[at + 1 :]))
            for _ in range(d.draw(st.integers(2, 3)))
        ]
        return _all_constant(
            TfCase(op, {"concat_dim": i32(at), "values": values}, constants=constants | {"concat_dim"})
        )
    if op == "Gather":
        indices = i32(_rng.integers(0, shape[0], dims(d, d.draw(st.integers(0, 2)))))
        return _all_constant(TfCase(op, {"params": x, "indices": indices}, constants=constants))
    if op == "ReverseSequence":
        shape = (*shape, 2) if rank == 1 else shape
        batch, seq = d.draw(st.permutations(range(len(shape))))[:2]
        lengths = np.asarray(_rng.integers(0, shape[seq] + 1, shape[batch]), np.int64)
        attrs = {"seq_dim": seq, "batch_dim": batch}
        return _all_constant(TfCase(op, {"input": f32(shape), "seq_lengths": lengths}, attrs, constants))
    if op == "MatrixBandPart":
        shape = (*shape, 3) if rank == 1 else shape
        lower, upper = (i32(d.draw(st.integers(-1, 2))) for _ in range(2))
        inputs = {"input": f32(shape), "num_lower": lower, "num_upper": upper}
        return _all_constant(TfCase(op, inputs, constants=constants | {"num_lower", "num_upper"}))
    if op in ("Cumprod", "CumulativeLogsumexp"):
        flags = {"exclusive": d.draw(st.booleans()), "reverse": d.draw(st.booleans())}
        return _all_constant(TfCase(op, {"x": x, "axis": i32(axis(d, rank))}, flags, constants | {"axis"}))
    if op == "EnsureShape":
        claimed: list[int | None] = [n if d.draw(st.booleans()) else None for n in shape]
        if rarely(d):
            claimed[0] = shape[0] + 1
        return _all_constant(TfCase(op, {"input": x}, {"shape": claimed}, constants))
    if op == "CheckNumerics":
        return _all_constant(TfCase(op, {"tensor": x}, {"message": "checked"}, constants))
    if op == "PlaceholderWithDefault":
        claimed = [n if d.draw(st.booleans()) else None for n in shape]
        return TfCase(op, {"input": x}, {"shape": claimed}, frozenset({"input"}))
    if op == "CombinedNonMaxSuppression":
        batch, classes, count = d.draw(st.integers(1, 2)), d.draw(st.integers(1, 3)), shape[0]
        corners = np.sort(_rng.uniform(0, 1, (batch, count, 1, 2, 2)), axis=3).reshape(batch, count, 1, 4)
        inputs = {
            "boxes": corners.astype(np.float32),
            "scores": _rng.uniform(0, 1, (batch, count, classes)).astype(np.float32),
            "max_output_size_per_class": i32(d.draw(st.integers(1, 4))),
            "max_total_size": i32(d.draw(st.integers(1, 6))),
            "iou_threshold": np.float32(0.5),
            "score_threshold": np.float32(0.2),
        }
        attrs = {"pad_per_class": d.draw(st.booleans()), "clip_boxes": True}
        return _all_constant(
            TfCase(op, inputs, attrs, constants | {"max_output_size_per_class", "max_total_size"})
        )
    if op in ("Unique", "UniqueWithCounts"):
        ids = i32(_rng.integers(0, 4, shape[0]))
        return _all_constant(TfCase(op, {"x": ids}, {"out_idx": np.int32}, constants))
    if op == "Where":
        return _all_constant(TfCase(op, {"condition": x > 0}, constants=constants))
    boxes = np.sort(_rng.uniform(0, 1, (shape[0], 2, 2)), axis=1).reshape(-1, 4).astype(np.float32)
    inputs = {
        "boxes": boxes,
        "scores": _rng.uniform(0, 1, shape[0]).astype(np.float32),
        "max_output_size": i32(d.draw(st.integers(0, 6))),
        "iou_threshold": np.float32(0.5),
        "score_threshold": np.float32(0.2),
    }
    if op == "NonMaxSuppressionV5":
        inputs["soft_nms_sigma"] = np.float32(0.0)
    if op == "NonMaxSuppressionV2":
        del inputs["score_threshold"]
    attrs = (
        {"pad_to_max_output_size": d.draw(st.booleans())}
        if op in ("NonMaxSuppressionV4", "NonMaxSuppressionV5")
        else {}
    )
    shape_like = {"max_output_size", "iou_threshold", "score_threshold"}
    return _all_constant(TfCase(op, inputs, attrs, constants | shape_like))
