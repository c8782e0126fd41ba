"""More draw groups for :mod:`onnx_node_draws`: the ops its groups left
out — element-indexed gathers and scatters, the softmax family across the
opset-13 change of ``axis``, global pools, signal ops (DFT before and after
``axis`` became an input, windows, mel matrices), integer and QLinear
arithmetic, random generators, unary math across dtypes, and the ops whose
optional outputs depend on attributes (Dropout's mask, BatchNormalization's
training statistics). Importing this module registers the groups."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from onnx_cases import OpCase
from onnx_node_draws import _draw, axes_of, constants_after_first, dims, f32, i64, window


def _indices(d: st.DataObject, shape: tuple[int, ...], bound: int) -> np.ndarray:
    """int64 indices of ``shape``, each in ``[-bound, bound)``."""
    seed = d.draw(st.integers(0, 2**32 - 1), label="index seed")
    return np.random.default_rng(seed).integers(-bound, bound, shape).astype(np.int64)


@_draw("ElementIndexed")
def element_indexed(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(["GatherElements", "ScatterElements", "Scatter", "ScatterND"]))
    rank = d.draw(st.integers(1, 3))
    shape = dims(d, rank, 1, 4)
    x = f32(shape)
    constant = d.draw(st.booleans())
    if op == "ScatterND":
        k = d.draw(st.integers(1, rank))
        # Distinct index tuples: duplicates are undefined without a reduction.
        grid = np.stack(np.meshgrid(*[np.arange(s) for s in shape[:k]], indexing="ij"), -1).reshape(-1, k)
        count = d.draw(st.integers(1, len(grid)))
        picked = grid[np.random.default_rng(count).permutation(len(grid))[:count]].astype(np.int64)
        lead = d.draw(st.sampled_from([(count,), (1, count)]))
        indices = picked.reshape(*lead, k)
        updates = f32((*lead, *shape[k:]))
        attrs: dict[str, Any] = {}
        if d.draw(st.booleans()):
            attrs["reduction"] = d.draw(st.sampled_from(["add", "mul"]))
        opset = d.draw(st.sampled_from([11, 13, 16, 18]))
        if opset < 16:
            attrs = {}
        return OpCase(op, [x, indices, updates], attrs, opset, (1,) if constant else ())
    axis = d.draw(st.integers(-rank, rank - 1))
    index_shape = tuple(d.draw(st.integers(1, s)) for s in shape)
    attrs = {"axis": axis} if axis or d.draw(st.booleans()) else {}
    if op == "GatherElements":
        index_shape = tuple(
            d.draw(st.integers(1, 4)) if a == axis % rank else s for a, s in enumerate(index_shape)
        )
    indices = _indices(d, index_shape, shape[axis])
    if op == "GatherElements":
        return OpCase(op, [x, indices], attrs, d.draw(st.sampled_from([11, 13])), (1,) if constant else ())
    # Scatters: distinct indices along the axis (a permutation's first
    # entries in each column), so that no two updates collide.
    seed = d.draw(st.integers(0, 2**32 - 1), label="permutation seed")
    full = tuple(shape[a] if a == axis % rank else n for a, n in enumerate(index_shape))
    permuted = np.argsort(np.random.default_rng(seed).random(full), axis=axis % rank)
    indices = np.take(permuted, np.arange(index_shape[axis]), axis=axis % rank).astype(np.int64)
    inputs: list[np.ndarray | None] = [x, indices, f32(index_shape)]
    if op == "Scatter":
        return OpCase(op, inputs, attrs, d.draw(st.sampled_from([9, 10])), (1,) if constant else ())
    opset = d.draw(st.sampled_from([11, 13, 16, 18]))
    if opset >= 16 and d.draw(st.booleans()):
        attrs["reduction"] = d.draw(st.sampled_from(["add", "mul"] + (["max", "min"] if opset >= 18 else [])))
    return OpCase(op, inputs, attrs, opset, (1,) if constant else ())


@_draw("Normalizing")
def normalizing(d: st.DataObject) -> OpCase:
    op = d.draw(
        st.sampled_from(
            [
                "Softmax",
                "LogSoftmax",
                "Hardmax",
                "LpNormalization",
                "MeanVarianceNormalization",
                "LRN",
                "Shrink",
            ]
        )
    )
    rank = d.draw(st.integers(1, 4))
    if op == "LRN":
        x = f32(dims(d, 4, 1, 4))  # (onnxruntime's LRN takes 4-D only)
        return OpCase(op, [x], {"size": d.draw(st.sampled_from([1, 3, 5]))}, 13)
    x = f32(dims(d, rank, 1, 4))
    attrs: dict[str, Any] = {}
    if op == "MeanVarianceNormalization":
        if d.draw(st.booleans()):
            attrs["axes"] = axes_of(d, rank)
        return OpCase(op, [x], attrs, 13)
    if op == "Shrink":
        return OpCase(op, [x], {"lambd": 0.5, "bias": 0.25}, 9)
    if d.draw(st.booleans()):
        attrs["axis"] = d.draw(st.integers(-rank, rank - 1))
    if op == "LpNormalization":
        attrs["p"] = d.draw(st.sampled_from([1, 2]))
        return OpCase(op, [x], attrs, d.draw(st.sampled_from([1, 22])))
    # Before 13 the softmaxes flatten to 2-D at `axis`; the shape stays.
    return OpCase(op, [x], attrs, d.draw(st.sampled_from([11, 13])))


@_draw("GlobalPool")
def global_pool(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(["GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"]))
    x = f32(dims(d, d.draw(st.integers(3, 5)), 1, 4))
    attrs = (
        {"p": d.draw(st.sampled_from([1, 2, 3]))} if op == "GlobalLpPool" and d.draw(st.booleans()) else {}
    )
    # (GlobalLpPool at 2: onnxruntime has no kernel for 1, whose p is a float, or for 22.)
    return OpCase(op, [x], attrs, 2 if op == "GlobalLpPool" else 22)


@_draw("Signal")
def signal(d: st.DataObject) -> OpCase:
    op = d.draw(
        st.sampled_from(["DFT", "DFT", "HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix"])
    )
    if op == "MelWeightMatrix":
        bins, length = d.draw(st.integers(1, 8)), d.draw(st.integers(2, 32))
        inputs: list[np.ndarray | None] = [
            i64(bins),
            i64(length),
            i64(16000),
            np.asarray(0.0, np.float32),
            np.asarray(8000.0, np.float32),
        ]
        attrs = {"output_datatype": d.draw(st.sampled_from([1, 10, 11]))} if d.draw(st.booleans()) else {}
        return OpCase(op, inputs, attrs, 17, (0, 1, 2, 3, 4))
    if op != "DFT":
        attrs = {"periodic": d.draw(st.integers(0, 1))} if d.draw(st.booleans()) else {}
        if d.draw(st.booleans()):
            attrs["output_datatype"] = d.draw(st.sampled_from([1, 7, 10, 11]))
        return OpCase(op, [i64(d.draw(st.integers(1, 9)))], attrs, 17, (0,))
    # x is [batch, signal dims..., 1 or 2 (real or complex)]. The DFT axis
    # is a signal axis at 17 (attribute, default 1), any but the last at 20
    # (an input, default -2, negative counted with the complex dim).
    opset = d.draw(st.sampled_from([17, 20]))
    rank = d.draw(st.integers(3 if opset == 17 else 2, 4))
    x = f32((*dims(d, rank - 1, 1, 6), d.draw(st.sampled_from([1, 2]))))
    attrs = {}
    axis = d.draw(st.integers(1 if opset == 17 else 0, rank - 2))
    default = 1 if opset == 17 else rank - 2
    if opset == 20 and d.draw(st.booleans()):
        axis -= rank
    # inverse takes a complex input, onesided a real one.
    if x.shape[-1] == 2 and d.draw(st.booleans()):
        attrs["inverse"] = 1
    elif x.shape[-1] == 1 and d.draw(st.booleans()):
        attrs["onesided"] = d.draw(st.integers(0, 1))
    dft_length = i64(d.draw(st.integers(1, 8))) if d.draw(st.booleans()) else None
    inputs = [x, dft_length]
    given = axis % rank != default or d.draw(st.booleans())
    if opset == 20 and given:
        inputs.append(i64(axis))
    elif given:
        attrs["axis"] = axis
    while inputs[-1] is None:
        inputs.pop()
    return OpCase(op, inputs, attrs, opset, constants_after_first(inputs))


@_draw("Integer")
def integer(d: st.DataObject) -> OpCase:
    op = d.draw(
        st.sampled_from(
            ["MatMulInteger", "ConvInteger", "QLinearMatMul", "QLinearConv", "DynamicQuantizeLinear"]
        )
    )
    u8 = np.dtype(np.uint8)
    if op == "DynamicQuantizeLinear":
        return OpCase(op, [f32(dims(d, d.draw(st.integers(0, 3)), 1, 4))], {}, 11, outputs=3)
    if op in ("MatMulInteger", "QLinearMatMul"):
        k = d.draw(st.integers(1, 4))
        a_rank, b_rank = d.draw(st.integers(2, 3)), d.draw(st.integers(2, 3))
        batch = dims(d, max(a_rank, b_rank) - 2, 1, 3)
        a = np.ones((*batch[len(batch) - (a_rank - 2) :], d.draw(st.integers(1, 4)), k), u8)
        b = np.ones((*batch[len(batch) - (b_rank - 2) :], k, d.draw(st.integers(1, 4))), u8)
        zero = np.asarray(0, u8)
        if op == "MatMulInteger":
            inputs: list[np.ndarray | None] = [a, b]
            if d.draw(st.booleans()):
                inputs += [zero, zero]
            return OpCase(op, inputs, {}, 10, constants_after_first(inputs))
        scale = np.asarray(0.5, np.float32)
        return OpCase(op, [a, scale, zero, b, scale, zero, scale, zero], {}, 10, (1, 2, 4, 5, 6, 7))
    spatial = d.draw(st.integers(1, 2))
    kernel = dims(d, spatial, 1, 3)
    attrs = window(d, kernel, dilations=True)
    if d.draw(st.booleans()):
        attrs["kernel_shape"] = list(kernel)
    cin, cout = d.draw(st.integers(1, 2)), d.draw(st.integers(1, 3))
    x = np.ones((1, cin, *dims(d, spatial, 1, 7)), u8)
    w = np.ones((cout, cin, *kernel), u8)
    zero = np.asarray(0, u8)
    if op == "ConvInteger":
        inputs = [x, w, zero, *([zero] if d.draw(st.booleans()) else [])]
        return OpCase(op, inputs, attrs, 10, constants_after_first(inputs))
    scale = np.asarray(0.5, np.float32)
    inputs = [x, scale, zero, w, scale, zero, scale, zero]
    if d.draw(st.booleans()):
        inputs.append(np.zeros((cout,), np.int32))
    return OpCase(op, inputs, attrs, 10, constants_after_first(inputs))


@_draw("Random")
def random(d: st.DataObject) -> OpCase:
    op = d.draw(
        st.sampled_from(
            [
                "RandomNormal",
                "RandomUniform",
                "RandomNormalLike",
                "RandomUniformLike",
                "Multinomial",
                "Bernoulli",
            ]
        )
    )
    dtype: dict[str, Any] = {"dtype": d.draw(st.sampled_from([1, 10, 11]))} if d.draw(st.booleans()) else {}
    shape = dims(d, d.draw(st.integers(0, 3)), 1, 4)
    if op in ("RandomNormal", "RandomUniform"):  # (onnx's helper cannot write an empty `shape`)
        return OpCase(op, [], {"shape": list(shape) or [1], **dtype}, 1)
    if op == "Multinomial":
        attrs: dict[str, Any] = {"sample_size": d.draw(st.integers(1, 4))}
        if d.draw(st.booleans()):
            attrs["dtype"] = d.draw(st.sampled_from([6, 7]))
        return OpCase(op, [f32(dims(d, 2, 1, 4))], attrs, 7)
    x = np.full(shape, 0.5, d.draw(st.sampled_from([np.float32, np.float64])))
    return OpCase(op, [x], dtype, 15 if op == "Bernoulli" else 1)


UNARY = [
    "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cos", "Cosh", "Sin", "Sinh", "Tan", "Tanh",
    "Exp", "Log", "Sqrt", "Reciprocal", "Round", "Erf", "Sigmoid", "Relu", "Softplus", "Softsign",
    "Elu", "Selu", "Celu", "LeakyRelu", "HardSigmoid", "HardSwish", "ThresholdedRelu", "Mish",
    "Gelu", "IsInf", "Floor", "Ceil", "Neg", "Abs", "Identity",
]  # fmt: skip


@_draw("Unary")
def unary(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(UNARY))
    dtype = d.draw(st.sampled_from([np.float32, np.float32, np.float16, np.float64]))
    x = np.full(dims(d, d.draw(st.integers(0, 4)), 1, 4), 0.5, dtype)
    attrs: dict[str, Any] = {}
    if op == "Gelu" and d.draw(st.booleans()):
        attrs["approximate"] = d.draw(st.sampled_from(["none", "tanh"]))
    if op == "IsInf" and d.draw(st.booleans()):
        attrs["detect_negative"] = d.draw(st.integers(0, 1))
    opset = {"Gelu": 20, "Mish": 18, "HardSwish": 14, "Celu": 12}.get(op, d.draw(st.sampled_from([13, 22])))
    return OpCase(op, [x], attrs, opset)


@_draw("Bitwise")
def bitwise(d: st.DataObject) -> OpCase:
    op = d.draw(st.sampled_from(["BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot", "Or", "Xor", "Not"]))
    out = dims(d, d.draw(st.integers(0, 3)), 1, 3)

    def operand(dtype: Any) -> np.ndarray:
        rank = d.draw(st.integers(0, len(out)))
        return np.ones(tuple(d.draw(st.sampled_from([1, s])) for s in out[len(out) - rank :]), dtype)

    if op in ("Or", "Xor", "Not"):
        inputs: list[np.ndarray | None] = [operand(np.bool_), *([] if op == "Not" else [operand(np.bool_)])]
        return OpCase(op, inputs, {}, 7 if op != "Not" else 1)
    dtype = d.draw(st.sampled_from([np.int32, np.int64, np.uint8]))
    inputs = [operand(dtype), *([] if op == "BitwiseNot" else [operand(dtype)])]
    return OpCase(op, inputs, {}, 18)


@_draw("Misc")
def misc(d: st.DataObject) -> OpCase:
    op = d.draw(
        st.sampled_from(
            [
                "EyeLike",
                "CastLike",
                "Det",
                "ReverseSequence",
                "CumSum",
                "Trilu",
                "Upsample",
                "Dropout",
                "BatchNorm",
            ]
        )
    )
    if op == "EyeLike":
        shape = dims(d, 2, 1, 5)
        attrs: dict[str, Any] = {"k": d.draw(st.integers(-3, 3))} if d.draw(st.booleans()) else {}
        if d.draw(st.booleans()):
            attrs["dtype"] = d.draw(st.sampled_from([1, 6, 7, 9]))
        return OpCase(op, [np.zeros(shape, d.draw(st.sampled_from([np.float32, np.int64])))], attrs, 9)
    if op == "CastLike":
        like = np.zeros(
            dims(d, d.draw(st.integers(0, 2)), 1, 3), d.draw(st.sampled_from([np.int32, np.float16]))
        )
        return OpCase(
            op, [f32(dims(d, d.draw(st.integers(0, 3)), 1, 3)), like], {}, d.draw(st.sampled_from([15, 19]))
        )
    if op == "Det":
        m = d.draw(st.integers(1, 3))
        return OpCase(op, [f32((*dims(d, d.draw(st.integers(0, 2)), 1, 3), m, m))], {}, 11)
    if op == "ReverseSequence":
        batch_axis = d.draw(st.integers(0, 1))
        batch, time = dims(d, 2, 1, 4)
        layout = [time, time, *dims(d, d.draw(st.integers(0, 1)), 1, 3)]
        layout[batch_axis] = batch
        lengths = i64([time] * batch)
        attrs = {"batch_axis": batch_axis, "time_axis": 1 - batch_axis}
        return OpCase(op, [f32(tuple(layout)), lengths], attrs, 10, (1,) if d.draw(st.booleans()) else ())
    if op == "CumSum":
        rank = d.draw(st.integers(1, 3))
        attrs = {k: d.draw(st.integers(0, 1)) for k in ("exclusive", "reverse") if d.draw(st.booleans())}
        axis = np.asarray(d.draw(st.integers(-rank, rank - 1)), d.draw(st.sampled_from([np.int32, np.int64])))
        return OpCase(op, [f32(dims(d, rank, 1, 4)), axis], attrs, 14, (1,) if d.draw(st.booleans()) else ())
    if op == "Trilu":
        x = f32(dims(d, d.draw(st.integers(2, 4)), 1, 4))
        attrs = {"upper": d.draw(st.integers(0, 1))} if d.draw(st.booleans()) else {}
        inputs: list[np.ndarray | None] = [
            x,
            *([i64(d.draw(st.integers(-3, 3)))] if d.draw(st.booleans()) else []),
        ]
        return OpCase(op, inputs, attrs, 14, constants_after_first(inputs))
    if op == "Upsample":
        rank = d.draw(st.integers(1, 4))
        x = f32(dims(d, rank, 1, 4))
        scales = [float(d.draw(st.sampled_from([1.0, 1.5, 2.0, 3.0]))) for _ in range(rank)]
        mode = {"mode": d.draw(st.sampled_from(["nearest", "linear"]))}
        if d.draw(st.booleans()):
            return OpCase(op, [x], {"scales": scales, **mode}, 7)
        return OpCase(op, [x, np.asarray(scales, np.float32)], mode, 9, (1,))
    if op == "Dropout":
        x = f32(dims(d, d.draw(st.integers(0, 3)), 1, 4))
        outputs = d.draw(st.integers(1, 2))
        opset = d.draw(st.sampled_from([10, 12, 13, 22]))
        if opset < 12:
            return OpCase(op, [x], {"ratio": 0.25} if d.draw(st.booleans()) else {}, opset, outputs=outputs)
        inputs = [x]
        if d.draw(st.booleans()):
            inputs.append(np.asarray(0.25, np.float32))
            if d.draw(st.booleans()):
                inputs.append(np.asarray(d.draw(st.booleans())))
        return OpCase(op, inputs, {}, opset, constants_after_first(inputs), outputs)
    shape = (d.draw(st.integers(1, 3)), d.draw(st.integers(1, 3)), *dims(d, d.draw(st.integers(0, 2)), 1, 4))
    channels = (shape[1],)
    inputs = [
        f32(shape),
        *(f32(channels) for _ in range(2)),
        np.zeros(channels, np.float32),
        np.ones(channels, np.float32),
    ]
    training = d.draw(st.booleans())
    attrs = {"training_mode": 1} if training else {}
    return OpCase("BatchNormalization", inputs, attrs, 15, (1, 2, 3, 4), 3 if training else 1)
