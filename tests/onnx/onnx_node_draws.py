"""Hypothesis draws of one-node ONNX models (:class:`onnx_cases.OpCase`)
for the ops whose attributes and constant inputs interact in ways fixed
cases miss: window ops (auto_pad with strides, dilations and ceil_mode), the
inputs that were attributes in older opsets (axes, split, pads, sizes),
negative axes, clamped slice bounds, Resize's axes and aspect-ratio
policy. Shapes are small; the data inputs are graph inputs, the shape-like
ones initializers, as exporters write them.

Not every draw is a valid model: the test asks onnxruntime first and
judges opgraph only on the models it runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st
from onnx_cases import OpCase

Draw = Callable[[st.DataObject], OpCase]
#: Each group of ops by name → its draw.
DRAWS: dict[str, Draw] = {}

_rng = np.random.default_rng(0)


def draw_case(group: str, d: st.DataObject) -> OpCase:
    """A case of ``group``, its array data from a seed hypothesis draws too,
    so that replaying or shrinking an example replays its data."""
    global _rng
    _rng = np.random.default_rng(d.draw(st.integers(0, 2**32 - 1), label="data seed"))
    return DRAWS[group](d)


def _draw(name: str) -> Callable[[Draw], Draw]:
    def register(draw: Draw) -> Draw:
        DRAWS[name] = draw
        return draw

    return register


def f32(shape: tuple[int, ...]) -> np.ndarray:
    return _rng.standard_normal(shape).astype(np.float32)


def i64(values: Any) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def dims(d: st.DataObject, rank: int, lo: int = 1, hi: int = 6) -> tuple[int, ...]:
    return tuple(d.draw(st.lists(st.integers(lo, hi), min_size=rank, max_size=rank)))


def axes_of(d: st.DataObject, rank: int, min_size: int = 1) -> list[int]:
    """Distinct axes of a rank-``rank`` tensor, each maybe negative."""
    return list(
        d.draw(
            st.lists(
                st.integers(-rank, rank - 1),
                min_size=min_size,
                max_size=rank,
                unique_by=lambda a: a % rank,
            )
        )
    )


def constants_after_first(inputs: list[np.ndarray | None]) -> tuple[int, ...]:
    return tuple(i for i, a in enumerate(inputs) if i > 0 and a is not None)


def window(d: st.DataObject, kernel: tuple[int, ...], dilations: bool) -> dict[str, Any]:
    """strides, dilations and one of auto_pad's four modes or explicit pads."""
    spatial = len(kernel)
    attrs: dict[str, Any] = {}
    if d.draw(st.booleans()):
        attrs["strides"] = list(dims(d, spatial, 1, 3))
    if dilations and d.draw(st.booleans()):
        attrs["dilations"] = list(dims(d, spatial, 1, 3))
    mode = d.draw(st.sampled_from(["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "pads"]))
    if mode == "pads":
        attrs["pads"] = [d.draw(st.integers(0, max(k - 1, 0))) for k in kernel + kernel]
    elif mode != "NOTSET" or d.draw(st.booleans()):
        attrs["auto_pad"] = mode
    return attrs


@_draw("Conv")
def conv(d: st.DataObject) -> OpCase:
    spatial = d.draw(st.integers(1, 3))
    group = d.draw(st.sampled_from([1, 1, 2]))
    cin, cout = group * d.draw(st.integers(1, 2)), group * d.draw(st.integers(1, 2))
    kernel = dims(d, spatial, 1, 3)
    attrs = window(d, kernel, dilations=True)
    if group > 1:
        attrs["group"] = group
    if d.draw(st.booleans()):
        attrs["kernel_shape"] = list(kernel)
    x = (d.draw(st.integers(1, 2)), cin, *dims(d, spatial, 1, 9))
    inputs: list[np.ndarray | None] = [f32(x), f32((cout, cin // group, *kernel))]
    if d.draw(st.booleans()):
        inputs.append(f32((cout,)))
    opset = d.draw(st.sampled_from([11, 13, 22]))
    return OpCase("Conv", inputs, attrs, opset, constants_after_first(inputs))


@_draw("ConvTranspose")
def conv_transpose(d: st.DataObject) -> OpCase:
    spatial = d.draw(st.integers(1, 2))
    group = d.draw(st.sampled_from([1, 1, 2]))
    cin = group * d.draw(st.integers(1, 2))
    kernel = dims(d, spatial, 1, 3)
    attrs = window(d, kernel, dilations=True)
    strides = attrs.get("strides", [1] * spatial)
    dilations = attrs.get("dilations", [1] * spatial)
    if d.draw(st.booleans()):
        attrs["output_padding"] = [
            d.draw(st.integers(0, max(s, dl) - 1)) for s, dl in zip(strides, dilations, strict=True)
        ]
    if d.draw(st.integers(0, 3)) == 0:
        attrs["output_shape"] = list(dims(d, spatial, 1, 20))
    if group > 1:
        attrs["group"] = group
    inputs: list[np.ndarray | None] = [
        f32((1, cin, *dims(d, spatial, 1, 6))),
        f32((cin, d.draw(st.integers(1, 2)), *kernel)),
    ]
    return OpCase("ConvTranspose", inputs, attrs, d.draw(st.sampled_from([11, 22])), (1,))


@_draw("MaxPool")
def max_pool(d: st.DataObject) -> OpCase:
    spatial = d.draw(st.integers(1, 3))
    kernel = dims(d, spatial, 1, 3)
    attrs = {**window(d, kernel, dilations=True), "kernel_shape": list(kernel)}
    if d.draw(st.booleans()):
        attrs["ceil_mode"] = 1
    x = f32((1, 2, *dims(d, spatial, 1, 9)))
    outputs = d.draw(st.integers(1, 2))
    return OpCase("MaxPool", [x], attrs, d.draw(st.sampled_from([10, 12, 22])), outputs=outputs)


@_draw("AveragePool")
def average_pool(d: st.DataObject) -> OpCase:
    spatial = d.draw(st.integers(1, 3))
    kernel = dims(d, spatial, 1, 3)
    opset = d.draw(st.sampled_from([11, 19, 22]))
    attrs = {**window(d, kernel, dilations=opset >= 19), "kernel_shape": list(kernel)}
    if d.draw(st.booleans()):
        attrs["ceil_mode"] = 1
    if d.draw(st.booleans()):
        attrs["count_include_pad"] = 1
    return OpCase("AveragePool", [f32((1, 2, *dims(d, spatial, 1, 9)))], attrs, opset)


@_draw("LpPool")
def lp_pool(d: st.DataObject) -> OpCase:
    spatial = d.draw(st.integers(1, 2))
    kernel = dims(d, spatial, 1, 3)
    opset = d.draw(st.sampled_from([11, 18, 22]))
    attrs = {**window(d, kernel, dilations=opset >= 18), "kernel_shape": list(kernel)}
    if opset >= 18 and d.draw(st.booleans()):
        attrs["ceil_mode"] = 1
    return OpCase("LpPool", [f32((1, 2, *dims(d, spatial, 1, 9)))], attrs, opset)


@_draw("Resize")
def resize(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(3, 4))
    x = f32(dims(d, rank, 1, 6))
    opset = d.draw(st.sampled_from([11, 13, 18, 19]))
    attrs: dict[str, Any] = {"mode": d.draw(st.sampled_from(["nearest", "linear"]))}
    if d.draw(st.booleans()):
        attrs["coordinate_transformation_mode"] = d.draw(
            st.sampled_from(["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"])
        )
    count = rank
    if opset >= 18 and d.draw(st.booleans()):
        # Non-negative: onnxruntime 1.23 ignores negative Resize axes
        # (test_onnx_vs_onnxruntime.py checks them against these).
        attrs["axes"] = [a % rank for a in axes_of(d, rank)]
        count = len(attrs["axes"])
    empty = np.zeros((0,), np.float32)
    # Before 13 roi and scales are required (empty when unused).
    roi = empty if opset < 13 or d.draw(st.booleans()) else None
    if d.draw(st.booleans()):
        scales = [d.draw(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0, 0.34])) for _ in range(count)]
        inputs: list[np.ndarray | None] = [x, roi, np.asarray(scales, np.float32)]
    else:
        if opset >= 18 and d.draw(st.booleans()):
            attrs["keep_aspect_ratio_policy"] = d.draw(st.sampled_from(["not_larger", "not_smaller"]))
        scales_input = empty if opset < 13 or d.draw(st.booleans()) else None
        inputs = [x, roi, scales_input, i64([d.draw(st.integers(1, 12)) for _ in range(count)])]
    return OpCase("Resize", inputs, attrs, opset, constants_after_first(inputs))


@_draw("Slice")
def slice_(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 4))
    x = f32(dims(d, rank, 1, 8))
    steps_given = d.draw(st.booleans())
    axes = axes_of(d, rank) if steps_given or d.draw(st.booleans()) else list(range(rank))
    bound = st.one_of(
        st.integers(-10, 10), st.sampled_from([2**63 - 1, -(2**63), 2**31 - 1, -(2**31), 2**31])
    )
    starts = [d.draw(bound) for _ in axes]
    ends = [d.draw(bound) for _ in axes]
    inputs: list[np.ndarray | None] = [x, i64(starts), i64(ends)]
    if steps_given:
        steps = [d.draw(st.sampled_from([1, 2, 3, -1, -2, -3])) for _ in axes]
        inputs += [i64(axes), i64(steps)]
    elif axes != list(range(rank)):
        inputs.append(i64(axes))
    return OpCase("Slice", inputs, {}, d.draw(st.sampled_from([10, 11, 13])), (1, 2, 3, 4))


@_draw("Pad")
def pad(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 4))
    x = f32(dims(d, rank, 1, 6))
    opset = d.draw(st.sampled_from([11, 13, 18, 19, 21]))
    mode = d.draw(st.sampled_from(["constant", "reflect", "edge", *(["wrap"] if opset >= 19 else [])]))
    axes = axes_of(d, rank) if opset >= 18 and d.draw(st.booleans()) else None
    lowest = -3 if mode == "constant" else 0
    pads = [d.draw(st.integers(lowest, 3)) for _ in range(2 * (rank if axes is None else len(axes)))]
    inputs: list[np.ndarray | None] = [x, i64(pads)]
    if axes is not None:
        inputs += [None, i64(axes)]
    elif d.draw(st.booleans()):
        inputs.append(np.asarray(1.5, np.float32))
    return OpCase("Pad", inputs, {"mode": mode}, opset, constants_after_first(inputs))


@_draw("Reduce")
def reduce(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 4))
    x = f32(dims(d, rank, 1, 5))
    op = d.draw(
        st.sampled_from(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceProd", "ReduceL2", "ReduceLogSumExp"])
    )
    opset = d.draw(st.sampled_from([11, 13, 18]))
    attrs: dict[str, Any] = {}
    if d.draw(st.booleans()):
        attrs["keepdims"] = d.draw(st.integers(0, 1))
    axes = axes_of(d, rank, min_size=0) if d.draw(st.booleans()) else None
    inputs: list[np.ndarray | None] = [x]
    # ReduceSum took axes as an input at 13, the others at 18.
    if opset >= 18 or (op == "ReduceSum" and opset >= 13):
        if d.draw(st.booleans()):
            attrs["noop_with_empty_axes"] = d.draw(st.integers(0, 1))
        if axes is not None:
            inputs.append(i64(axes))
    elif axes:
        attrs["axes"] = axes
    return OpCase(op, inputs, attrs, opset, constants_after_first(inputs))


@_draw("Squeeze")
def squeeze(d: st.DataObject) -> OpCase:
    opset = d.draw(st.sampled_from([11, 13, 21]))
    rank = d.draw(st.integers(1, 4))
    shape = tuple(d.draw(st.sampled_from([1, 1, 2, 3])) for _ in range(rank))
    op = d.draw(st.sampled_from(["Squeeze", "Unsqueeze"]))
    axes: list[int] | None
    if op == "Squeeze":
        ones = [i for i, s in enumerate(shape) if s == 1]
        chosen = d.draw(st.lists(st.sampled_from(ones), unique=True)) if ones else []
        axes = [a - rank if d.draw(st.booleans()) else a for a in chosen] if chosen else None
    else:
        out_rank = rank + d.draw(st.integers(1, 2))
        axes = d.draw(
            st.lists(
                st.integers(-out_rank, out_rank - 1),
                min_size=out_rank - rank,
                max_size=out_rank - rank,
                unique_by=lambda a: a % out_rank,
            )
        )
    inputs: list[np.ndarray | None] = [f32(shape)]
    attrs: dict[str, Any] = {}
    if axes is not None and opset >= 13:
        inputs.append(i64(axes))
    elif axes is not None:
        attrs["axes"] = axes
    return OpCase(op, inputs, attrs, opset, constants_after_first(inputs))


@_draw("Split")
def split(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 3))
    shape = dims(d, rank, 1, 8)
    axis = d.draw(st.integers(-rank, rank - 1))
    opset = d.draw(st.sampled_from([11, 13, 18]))
    size = shape[axis]
    attrs: dict[str, Any] = {"axis": axis}
    inputs: list[np.ndarray | None] = [f32(shape)]
    kind = d.draw(st.sampled_from(["sizes", "equal", *(["num_outputs"] if opset >= 18 else [])]))
    if kind == "sizes":
        cuts = sorted(d.draw(st.lists(st.integers(0, size), max_size=3)))
        sizes = [b - a for a, b in zip([0, *cuts], [*cuts, size], strict=True)]
        if opset >= 13:
            inputs.append(i64(sizes))
        else:
            attrs["split"] = sizes
        outputs = len(sizes)
    elif kind == "equal":
        outputs = d.draw(st.sampled_from([k for k in range(1, 5) if size % k == 0]))
        if opset >= 18:
            attrs["num_outputs"] = outputs
    else:
        outputs = d.draw(st.integers(1, min(size, 4)))
        attrs["num_outputs"] = outputs
    return OpCase("Split", inputs, attrs, opset, constants_after_first(inputs), outputs)


@_draw("Gather")
def gather(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 3))
    shape = dims(d, rank, 1, 5)
    axis = d.draw(st.integers(-rank, rank - 1))
    indices = _rng.integers(-shape[axis], shape[axis], dims(d, d.draw(st.integers(0, 2)), 1, 3))
    constants = (1,) if d.draw(st.booleans()) else ()
    return OpCase("Gather", [f32(shape), indices.astype(np.int64)], {"axis": axis}, 13, constants)


@_draw("GatherND")
def gather_nd(d: st.DataObject) -> OpCase:
    batch = d.draw(st.integers(0, 1))
    rank = d.draw(st.integers(batch + 1, 4))
    shape = dims(d, rank, 1, 4)
    last = d.draw(st.integers(1, rank - batch))
    lead = shape[:batch] + dims(d, d.draw(st.integers(0, 2)), 1, 3)
    columns = [_rng.integers(0, shape[batch + k], lead) for k in range(last)]
    indices = np.stack(columns, axis=-1).astype(np.int64)
    attrs = {"batch_dims": batch} if batch else {}
    return OpCase("GatherND", [f32(shape), indices], attrs, 13, (1,))


@_draw("TopK")
def top_k(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 3))
    shape = dims(d, rank, 1, 6)
    axis = d.draw(st.integers(-rank, rank - 1))
    k = i64([d.draw(st.integers(0, shape[axis]))])
    return OpCase("TopK", [f32(shape), k], {"axis": axis}, 11, (1,), outputs=2)


@_draw("Reshape")
def reshape(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 4))
    shape = dims(d, rank, 1, 4)
    rest = int(np.prod(shape))
    target: list[int] = []
    for _ in range(d.draw(st.integers(0, 3))):
        k = d.draw(st.sampled_from([k for k in range(1, rest + 1) if rest % k == 0]))
        target.append(k)
        rest //= k
    target.append(rest)
    if d.draw(st.booleans()):
        target[d.draw(st.integers(0, len(target) - 1))] = -1
    for i in range(min(len(target), rank)):
        if target[i] == shape[i] and d.draw(st.booleans()):
            target[i] = 0  # copy the input's dim
    opset = d.draw(st.sampled_from([13, 14, 19]))
    allowzero = opset >= 14 and 0 not in target and d.draw(st.booleans())
    attrs = {"allowzero": 1} if allowzero else {}
    return OpCase("Reshape", [f32(shape), i64(target)], attrs, opset, (1,))


@_draw("ExpandTile")
def expand_tile(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 3))
    shape = tuple(d.draw(st.sampled_from([1, 1, 2, 3])) for _ in range(rank))
    if d.draw(st.booleans()):
        lead = [d.draw(st.sampled_from([1, 2, 3])) for _ in range(d.draw(st.integers(0, 2)))]
        own = [d.draw(st.sampled_from([1, s] if s != 1 else [1, 2, 4])) for s in shape]
        return OpCase("Expand", [f32(shape), i64(lead + own)], {}, 13, (1,))
    repeats = i64([d.draw(st.integers(0, 3)) for _ in shape])
    return OpCase("Tile", [f32(shape), repeats], {}, 13, (1,))


@_draw("DepthSpace")
def depth_space(d: st.DataObject) -> OpCase:
    block = d.draw(st.sampled_from([2, 3, 1]))  # 1 is refused (REFUSALS): last, not shrunk to
    if d.draw(st.booleans()):
        x = f32((1, block * block * d.draw(st.integers(1, 2)), *dims(d, 2, 1, 4)))
        attrs: dict[str, Any] = {"blocksize": block}
        if d.draw(st.booleans()):
            attrs["mode"] = d.draw(st.sampled_from(["DCR", "CRD"]))
        return OpCase("DepthToSpace", [x], attrs, 13)
    x = f32((1, d.draw(st.integers(1, 3)), *(block * d.draw(st.integers(1, 3)) for _ in range(2))))
    return OpCase("SpaceToDepth", [x], {"blocksize": block}, 13)


@_draw("Layout")
def layout(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(0, 4))
    x = f32(dims(d, rank, 1, 4))
    op = d.draw(st.sampled_from(["Flatten", "Transpose", "Shape"]))
    if op == "Flatten" and rank > 0:
        return OpCase(op, [x], {"axis": d.draw(st.integers(-rank, rank))}, 13)
    if op == "Transpose":
        given = rank > 0 and d.draw(st.booleans())
        attrs = {"perm": d.draw(st.permutations(range(rank)))} if given else {}
        return OpCase(op, [x], attrs, 13)
    bounds = {k: d.draw(st.integers(-6, 6)) for k in ("start", "end") if d.draw(st.booleans())}
    return OpCase("Shape", [x], bounds, 15)


@_draw("ArgMinMax")
def arg_min_max(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 4))
    attrs: dict[str, Any] = {"axis": d.draw(st.integers(-rank, rank - 1))}
    if d.draw(st.booleans()):
        attrs["keepdims"] = d.draw(st.integers(0, 1))
    return OpCase(d.draw(st.sampled_from(["ArgMax", "ArgMin"])), [f32(dims(d, rank, 1, 4))], attrs, 13)


@_draw("MatMulGemm")
def matmul_gemm(d: st.DataObject) -> OpCase:
    if d.draw(st.booleans()):
        m, k, n = dims(d, 3, 1, 4)
        trans_a, trans_b = d.draw(st.integers(0, 1)), d.draw(st.integers(0, 1))
        inputs: list[np.ndarray | None] = [
            f32((k, m) if trans_a else (m, k)),
            f32((n, k) if trans_b else (k, n)),
        ]
        if d.draw(st.booleans()):
            inputs.append(f32(d.draw(st.sampled_from([(), (n,), (1, n), (m, n), (m, 1)]))))
        return OpCase("Gemm", inputs, {"transA": trans_a, "transB": trans_b}, 13, (1, 2))
    rank_a, rank_b = d.draw(st.integers(1, 4)), d.draw(st.integers(1, 4))
    k = d.draw(st.integers(1, 3))
    batch = dims(d, max(rank_a, rank_b, 2) - 2, 1, 3)

    def operand(rank: int, last: tuple[int, ...]) -> tuple[int, ...]:
        lead = batch[len(batch) - (rank - len(last)) :] if rank > len(last) else ()
        return (*(d.draw(st.sampled_from([1, s])) for s in lead), *last)

    a = (k,) if rank_a == 1 else operand(rank_a, (d.draw(st.integers(1, 3)), k))
    b = (k,) if rank_b == 1 else operand(rank_b, (k, d.draw(st.integers(1, 3))))
    return OpCase("MatMul", [f32(a), f32(b)], {}, 13, (1,) if d.draw(st.booleans()) else ())


@_draw("Concat")
def concat(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 4))
    shape = dims(d, rank, 1, 4)
    axis = d.draw(st.integers(-rank, rank - 1))
    parts: list[np.ndarray | None] = []
    for _ in range(d.draw(st.integers(1, 3))):
        part = list(shape)
        part[axis] = d.draw(st.integers(0, 3))
        parts.append(f32(tuple(part)))
    constants = tuple(i for i in range(len(parts)) if d.draw(st.booleans()))
    return OpCase("Concat", parts, {"axis": axis}, 13, constants)


@_draw("Norms")
def norms(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(2, 4))
    shape = dims(d, rank, 1, 4)
    x = f32(shape)
    op = d.draw(st.sampled_from(["LayerNormalization", "InstanceNormalization", "GroupNormalization"]))
    if op == "LayerNormalization":
        axis = d.draw(st.integers(-rank, rank - 1))
        normalized = shape[axis % rank :]
        # The bias is optional (PyTorch's LayerNorm(bias=False) leaves it out).
        inputs: list[np.ndarray | None] = [x, f32(normalized)]
        if d.draw(st.booleans()):
            inputs.append(f32(normalized))
        outputs = d.draw(st.integers(1, 3))
        return OpCase(op, inputs, {"axis": axis}, 17, constants_after_first(inputs), outputs)
    channels = (shape[1],)
    if op == "InstanceNormalization":
        return OpCase(op, [x, f32(channels), f32(channels)], {}, 13, (1, 2))
    groups = d.draw(st.sampled_from([g for g in range(1, shape[1] + 1) if shape[1] % g == 0]))
    return OpCase(op, [x, f32(channels), f32(channels)], {"num_groups": groups}, 21, (1, 2))


@_draw("Generators")
def generators(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(["Range", "ConstantOfShape", "OneHot", "CumSum", "Trilu", "CenterCropPad"]))
    if op == "Range":
        start, limit = d.draw(st.integers(-5, 5)), d.draw(st.integers(-5, 5))
        delta = d.draw(st.sampled_from([1, 2, 3, -1, -2]))
        return OpCase(op, [i64(start), i64(limit), i64(delta)], {}, 11, (0, 1, 2))
    if op == "ConstantOfShape":
        return OpCase(op, [i64(list(dims(d, d.draw(st.integers(0, 3)), 0, 4)))], {}, 9, (0,))
    if op == "OneHot":
        rank = d.draw(st.integers(0, 2))
        indices = _rng.integers(0, 3, dims(d, rank, 1, 3)).astype(np.int64)
        depth, values = i64(d.draw(st.integers(1, 5))), np.asarray([0, 1], np.float32)
        return OpCase(
            op, [indices, depth, values], {"axis": d.draw(st.integers(-rank - 1, rank))}, 11, (1, 2)
        )
    if op == "CumSum":
        rank = d.draw(st.integers(1, 3))
        return OpCase(op, [f32(dims(d, rank, 1, 4)), i64(d.draw(st.integers(-rank, rank - 1)))], {}, 14, (1,))
    if op == "Trilu":
        x = f32(dims(d, d.draw(st.integers(2, 3)), 1, 4))
        k = i64(d.draw(st.integers(-5, 5)))
        return OpCase(op, [x, k], {"upper": d.draw(st.integers(0, 1))}, 14, (1,))
    rank = d.draw(st.integers(1, 3))
    axes = axes_of(d, rank) if d.draw(st.booleans()) else None
    sizes = i64([d.draw(st.integers(1, 8)) for _ in range(rank if axes is None else len(axes))])
    attrs = {} if axes is None else {"axes": axes}
    return OpCase("CenterCropPad", [f32(dims(d, rank, 1, 6)), sizes], attrs, 18, (1,))


@_draw("Einsum")
def einsum(d: st.DataObject) -> OpCase:
    letters = "abcd"
    size = {c: d.draw(st.integers(1, 3)) for c in letters}
    a = "".join(d.draw(st.permutations(letters))[: d.draw(st.integers(1, 3))])
    b = "".join(d.draw(st.permutations(letters))[: d.draw(st.integers(1, 3))])
    kept = "".join(c for c in d.draw(st.permutations(sorted(set(a + b)))) if d.draw(st.booleans()))
    equation = f"{a},{b}->{kept}" if d.draw(st.booleans()) else f"{a},{b}"
    inputs: list[np.ndarray | None] = [f32(tuple(size[c] for c in a)), f32(tuple(size[c] for c in b))]
    return OpCase("Einsum", inputs, {"equation": equation}, 12)


@_draw("Where")
def where(d: st.DataObject) -> OpCase:
    out_rank = d.draw(st.integers(0, 3))
    out = dims(d, out_rank, 1, 3)
    shapes = []
    for _ in range(3):
        rank = d.draw(st.integers(0, out_rank))
        shapes.append(tuple(d.draw(st.sampled_from([1, s])) for s in out[out_rank - rank :]))
    cond = _rng.integers(0, 2, shapes[0]).astype(bool)
    return OpCase("Where", [cond, f32(shapes[1]), f32(shapes[2])], {}, 16, (2,))


@_draw("Recurrent")
def recurrent(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(["LSTM", "GRU", "RNN"]))
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    seq, batch, width, hidden = dims(d, 4, 1, 4)
    direction = d.draw(st.sampled_from(["forward", "reverse", "bidirectional"]))
    directions = 2 if direction == "bidirectional" else 1
    opset = d.draw(st.sampled_from([7, 14, 22]))
    layout = d.draw(st.integers(0, 1)) if opset >= 14 else 0
    x = f32((batch, seq, width) if layout else (seq, batch, width))
    inputs: list[np.ndarray | None] = [
        x,
        f32((directions, gates * hidden, width)),
        f32((directions, gates * hidden, hidden)),
    ]
    if d.draw(st.booleans()):
        inputs.append(f32((directions, 2 * gates * hidden)))
        if d.draw(st.booleans()):
            inputs.append(np.full((batch,), seq, np.int32))
            if d.draw(st.booleans()):
                state = (batch, directions, hidden) if layout else (directions, batch, hidden)
                inputs.append(f32(state))
    attrs: dict[str, Any] = {"hidden_size": hidden, "direction": direction}
    if layout:
        attrs["layout"] = 1
    outputs = d.draw(st.integers(1, 3 if op == "LSTM" else 2))
    return OpCase(op, inputs, attrs, opset, constants_after_first(inputs), outputs)


@_draw("Quantize")
def quantize(d: st.DataObject) -> OpCase:
    rank = d.draw(st.integers(1, 4))
    shape = dims(d, rank, 1, 4)
    opset = d.draw(st.sampled_from([13, 19, 21]))
    attrs: dict[str, Any] = {}
    scale_shape: tuple[int, ...] = ()
    if d.draw(st.booleans()):
        axis = d.draw(st.integers(-rank, rank - 1))
        attrs["axis"] = axis
        scale_shape = (shape[axis],)
        if opset >= 21 and d.draw(st.booleans()) and shape[axis] > 1:
            block = d.draw(st.integers(1, shape[axis]))
            attrs["block_size"] = block
            scale_shape = tuple(-(-s // block) if i == axis % rank else s for i, s in enumerate(shape))
    scale = np.abs(f32(scale_shape)) + 0.1
    if d.draw(st.booleans()):
        zero = np.zeros(scale_shape, d.draw(st.sampled_from([np.uint8, np.int8])))
        return OpCase("QuantizeLinear", [f32(shape), scale, zero], attrs, opset, (1, 2))
    data = np.zeros(shape, d.draw(st.sampled_from([np.uint8, np.int8, np.int32])))
    inputs: list[np.ndarray | None] = [data, scale]
    if data.dtype != np.int32 and d.draw(st.booleans()):
        inputs.append(np.zeros(scale_shape, data.dtype))
    return OpCase("DequantizeLinear", inputs, attrs, opset, constants_after_first(inputs))


@_draw("Sampling")
def sampling(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(["GridSample", "RoiAlign", "MaxUnpool", "Col2Im", "AffineGrid"]))
    if op == "GridSample":
        spatial = d.draw(st.sampled_from([2, 3])) if d.draw(st.booleans()) else 2
        opset = 20 if spatial == 3 else d.draw(st.sampled_from([16, 20]))
        x = f32((1, 2, *dims(d, spatial, 1, 5)))
        grid = f32((1, *dims(d, spatial, 1, 5), spatial))
        return OpCase(op, [x, grid], {}, opset)
    if op == "RoiAlign":
        rois = d.draw(st.integers(1, 3))
        boxes = np.tile(np.asarray([[0, 0, 1, 1]], np.float32), (rois, 1))
        attrs: dict[str, Any] = {
            "output_height": d.draw(st.integers(1, 4)),
            "output_width": d.draw(st.integers(1, 4)),
        }
        inputs: list[np.ndarray | None] = [f32((1, 2, *dims(d, 2, 2, 6))), boxes, np.zeros((rois,), np.int64)]
        return OpCase(op, inputs, attrs, 16, (1, 2))
    if op == "MaxUnpool":
        kernel = dims(d, 2, 1, 3)
        shape = (1, 1, *dims(d, 2, 1, 4))
        attrs = {"kernel_shape": list(kernel)}
        if d.draw(st.booleans()):
            attrs["strides"] = list(dims(d, 2, 1, 3))
        if d.draw(st.booleans()):
            attrs["pads"] = [d.draw(st.integers(0, k - 1)) for k in kernel + kernel]
        inputs = [f32(shape), np.zeros(shape, np.int64)]
        if d.draw(st.booleans()):
            inputs.append(i64([1, 1, *dims(d, 2, 1, 12)]))
        return OpCase(op, inputs, attrs, 11, constants_after_first(inputs))
    if op == "Col2Im":
        block = dims(d, 2, 1, 3)
        image = tuple(b + d.draw(st.integers(0, 4)) for b in block)
        attrs = {}
        if d.draw(st.booleans()):
            attrs["strides"] = list(dims(d, 2, 1, 2))
        strides = attrs.get("strides", [1, 1])
        blocks = [(i - b) // s + 1 for i, b, s in zip(image, block, strides, strict=True)]
        x = f32((1, 2 * block[0] * block[1], blocks[0] * blocks[1]))
        return OpCase(op, [x, i64(list(image)), i64(list(block))], attrs, 18, (1, 2))
    spatial = d.draw(st.sampled_from([2, 3]))
    theta = f32((2, spatial, spatial + 1))
    size = i64([2, 3, *dims(d, spatial, 1, 5)])
    attrs = {"align_corners": d.draw(st.integers(0, 1))}
    return OpCase("AffineGrid", [theta, size], attrs, 20, (1,))


@_draw("DataDependent")
def data_dependent(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(["NonZero", "Compress", "Unique", "NonMaxSuppression", "TopK"]))
    rank = d.draw(st.integers(1, 3))
    shape = dims(d, rank, 1, 4)
    x = _rng.integers(0, 2, shape).astype(np.float32)
    constant = d.draw(st.booleans())
    if op == "NonZero":
        return OpCase(op, [x], {}, 13, (0,) if constant else ())
    if op == "Compress":
        attrs = {"axis": d.draw(st.integers(-rank, rank - 1))} if d.draw(st.booleans()) else {}
        length = shape[attrs["axis"]] if attrs else int(np.prod(shape))
        condition = np.asarray(d.draw(st.lists(st.booleans(), min_size=1, max_size=length)), bool)
        return OpCase(op, [x, condition], attrs, 11, (1,) if constant else ())
    if op == "Unique":
        attrs = {"axis": d.draw(st.integers(-rank, rank - 1))} if d.draw(st.booleans()) else {}
        return OpCase(op, [x], attrs, 11, outputs=d.draw(st.integers(1, 4)))
    if op == "NonMaxSuppression":
        boxes = np.sort(_rng.random((1, shape[0] * 2, 4)).astype(np.float32), axis=-1)
        scores = _rng.random((1, 2, shape[0] * 2)).astype(np.float32)
        inputs: list[np.ndarray | None] = [boxes, scores, i64([d.draw(st.integers(0, 3))])]
        return OpCase(op, inputs, {}, 11, (2,))
    axis = d.draw(st.integers(-rank, rank - 1))
    return OpCase("TopK", [x, i64([d.draw(st.integers(0, shape[axis]))])], {"axis": axis}, 11, (), 2)


@_draw("Elementwise")
def elementwise(d: st.DataObject) -> OpCase:
    out = dims(d, d.draw(st.integers(0, 3)), 1, 3)

    def operand() -> tuple[int, ...]:
        rank = d.draw(st.integers(0, len(out)))
        return tuple(d.draw(st.sampled_from([1, s])) for s in out[len(out) - rank :])

    op = d.draw(
        st.sampled_from(
            [
                "Add",
                "Sub",
                "Mul",
                "Div",
                "Pow",
                "Mod",
                "Max",
                "Min",
                "Equal",
                "Less",
                "GreaterOrEqual",
                "And",
                "BitShift",
                "PRelu",
                "Sum",
                "Mean",
                "Cast",
                "IsNaN",
                "Sign",
                "Clip",
            ]
        )
    )
    dtype = d.draw(st.sampled_from([np.float32, np.int32, np.int64]))
    a, b = np.ones(operand(), dtype), np.ones(operand(), dtype)
    if op == "And":
        return OpCase(op, [a.astype(bool), b.astype(bool)], {}, 13)
    if op == "BitShift":
        direction = d.draw(st.sampled_from(["LEFT", "RIGHT"]))
        return OpCase(op, [a.astype(np.uint8), b.astype(np.uint8)], {"direction": direction}, 11)
    if op == "Mod":
        return OpCase(op, [a, b], {"fmod": 1} if dtype == np.float32 else {}, 13, (1,))
    if op == "Pow":
        exponent = np.ones(operand(), d.draw(st.sampled_from([np.float32, np.int64])))
        return OpCase(op, [a.astype(np.float32), exponent], {}, 15, (1,))
    if op in ("Sum", "Mean", "Max", "Min"):
        extra = [np.ones(operand(), dtype) for _ in range(d.draw(st.integers(0, 2)))]
        return OpCase(
            op, [a.astype(np.float32), b.astype(np.float32), *(e.astype(np.float32) for e in extra)], {}, 13
        )
    if op == "PRelu":
        # The slope broadcasts to x one way only: no more dims than x's.
        slope = np.ones(a.shape[len(a.shape) - min(b.ndim, a.ndim) :], np.float32)
        return OpCase(op, [a.astype(np.float32), slope], {}, 16, (1,))
    if op == "Cast":
        to = d.draw(st.sampled_from([1, 6, 7, 9, 10, 11]))
        return OpCase(op, [a], {"to": to}, d.draw(st.sampled_from([13, 19, 21])))
    if op in ("IsNaN", "Sign"):
        return OpCase(op, [a.astype(np.float32)], {}, 13)
    if op == "Clip":
        bounds = [np.asarray(0, np.float32) if d.draw(st.booleans()) else None for _ in range(2)]
        inputs: list[np.ndarray | None] = [a.astype(np.float32), *bounds]
        while inputs and inputs[-1] is None:
            inputs.pop()
        return OpCase(op, inputs, {}, 13, constants_after_first(inputs))
    return OpCase(
        op,
        [a, b],
        {},
        14 if op in ("Add", "Sub", "Mul", "Div") else 13,
        (1,) if d.draw(st.booleans()) else (),
    )


@_draw("Attention")
def attention(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(["Attention", "Attention", "RMSNormalization"]))
    batch, q_seq, kv_seq, head = dims(d, 4, 1, 3)
    if op == "RMSNormalization":
        rank = d.draw(st.integers(2, 4))
        shape = dims(d, rank, 1, 4)
        axis = d.draw(st.integers(-rank, rank - 1))
        return OpCase(op, [f32(shape), f32(shape[axis % rank :])], {"axis": axis}, 23, (1,))
    kv_heads = d.draw(st.sampled_from([1, 2]))
    q_heads = kv_heads * d.draw(st.sampled_from([1, 2]))
    v_head = d.draw(st.integers(1, 3))
    past = d.draw(st.integers(0, 2))
    total = past + kv_seq
    attrs: dict[str, Any] = {}
    if d.draw(st.booleans()):
        q = f32((batch, q_heads, q_seq, head))
        k = f32((batch, kv_heads, kv_seq, head))
        v = f32((batch, kv_heads, kv_seq, v_head))
    else:
        q = f32((batch, q_seq, q_heads * head))
        k = f32((batch, kv_seq, kv_heads * head))
        v = f32((batch, kv_seq, kv_heads * v_head))
        attrs = {"q_num_heads": q_heads, "kv_num_heads": kv_heads}
    if d.draw(st.booleans()):
        attrs["is_causal"] = 1
    inputs: list[np.ndarray | None] = [q, k, v, None, None, None]
    if d.draw(st.booleans()):
        inputs[3] = f32(d.draw(st.sampled_from([(q_seq, total), (batch, 1, q_seq, total)])))
    if past:
        inputs[4] = f32((batch, kv_heads, past, head))
        inputs[5] = f32((batch, kv_heads, past, v_head))
    while inputs[-1] is None:
        inputs.pop()
    outputs = d.draw(st.sampled_from([1, 1, 3, 4]))
    return OpCase("Attention", inputs, attrs, 23, (), outputs)
