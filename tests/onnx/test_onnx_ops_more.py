"""The ONNX plugins added for the rest of the standard operator set
(variadic ops over many inputs, bitwise and quantised ops, generators,
normalisations, 1-D and integer convolutions, sampling, data-dependent
selections), each against onnx's reference evaluator: one-node models,
each output's dtype and shape as the reference computes them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx_cases import NP_TO_OPGRAPH, OpCase, expected, inferred

import opgraph

rng = np.random.default_rng(1)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def u8(*shape: int) -> np.ndarray:
    return rng.integers(0, 255, shape).astype(np.uint8)


def scalar(value: float | int, dtype: type) -> np.ndarray:
    return np.array(value, dtype)


X = f32(2, 3, 8, 10)
ONE = scalar(1.0, np.float32)
ZERO_U8 = scalar(0, np.uint8)

CASES = [
    # Variadic ops over more than two inputs, with broadcasting.
    OpCase("Max", [f32(3, 1), f32(1, 4), f32(4)]),
    OpCase("Min", [f32(2, 1, 4), f32(3, 1), f32(1), f32(4)]),
    OpCase("Sum", [f32(5), f32(2, 1), f32(3, 2, 5)]),
    OpCase("Mean", [X]),
    OpCase("Mean", [X, f32(10)]),
    OpCase("Mean", [f32(3, 4), f32(3, 1), f32(1, 4)]),
    # Bitwise ops.
    OpCase("BitwiseAnd", [i64(1, 2, 3), i64(6)], opset=18),
    OpCase("BitwiseOr", [np.array([[1], [2]], np.int32), np.array([4, 8, 16], np.int32)], opset=18),
    OpCase("BitwiseXor", [u8(4), u8(1)], opset=18),
    OpCase("BitwiseNot", [u8(2, 3)], opset=18),
    OpCase("BitShift", [np.array([1, 2], np.uint32), np.array([[1], [3]], np.uint32)], {"direction": "LEFT"}),
    OpCase("BitShift", [np.array([16], np.uint8), np.array([1, 2], np.uint8)], {"direction": "RIGHT"}),
    # Casts and activations.
    OpCase("CastLike", [X, i64(1)], opset=15),
    OpCase("CastLike", [i64(1, 2), scalar(0.5, np.float64)], opset=21),
    OpCase("Swish", [X], {"alpha": 0.5}, opset=24),
    OpCase("Hardmax", [X], opset=13),
    OpCase("Hardmax", [f32(3, 4)], {"axis": 1}, opset=11),
    OpCase("LpNormalization", [X], {"axis": 1, "p": 1}),
    OpCase("MeanVarianceNormalization", [X]),
    OpCase("MeanVarianceNormalization", [X], {"axes": [1, 3]}),
    OpCase("RMSNormalization", [X, f32(10)], {"axis": -1}, constants=(1,), opset=23),
    OpCase("RMSNormalization", [X, f32(8, 10)], {"axis": 2}, constants=(1,), opset=23),
    OpCase(
        "RotaryEmbedding",
        [f32(2, 3, 4, 8), f32(4, 4), f32(4, 4), np.array([[0, 1, 2, 3]] * 2, np.int64)],
        opset=23,
    ),
    # Generators (random values; their dtype and shape are fixed).
    OpCase("RandomNormal", [], {"shape": [2, 5]}),
    OpCase("RandomUniform", [], {"shape": [3], "dtype": 11}),
    OpCase("RandomNormalLike", [X]),
    OpCase("RandomUniformLike", [i64(1, 2, 3)], {"dtype": 1}),
    OpCase("Bernoulli", [np.full((3, 4), 0.5, np.float32)], opset=15),
    OpCase("Bernoulli", [np.full((2,), 0.5, np.float64)], {"dtype": 7}, opset=15),
    OpCase("EyeLike", [f32(3, 5)], {"k": 1}),
    OpCase("EyeLike", [f32(4, 2)], {"dtype": 7}),
    OpCase("HannWindow", [scalar(10, np.int64)], constants=(0,)),
    OpCase("HammingWindow", [scalar(7, np.int32)], {"output_datatype": 11}, constants=(0,)),
    OpCase("BlackmanWindow", [scalar(8, np.int64)], {"periodic": 0}, constants=(0,)),
    # Quantisation.
    OpCase("QuantizeLinear", [X, scalar(0.1, np.float32)], constants=(1,), opset=13),
    OpCase(
        "QuantizeLinear",
        [X, scalar(0.1, np.float32), scalar(0, np.int8)],
        constants=(1, 2),
        opset=13,
    ),
    OpCase("QuantizeLinear", [X, f32(3) ** 2 + 0.1, np.zeros(3, np.uint8)], {"axis": 1}, constants=(1, 2)),
    OpCase("DequantizeLinear", [u8(2, 3), scalar(0.5, np.float32), ZERO_U8], constants=(1, 2), opset=19),
    OpCase("DequantizeLinear", [np.zeros((4,), np.int8), scalar(0.5, np.float16)], constants=(1,), opset=19),
    OpCase("DynamicQuantizeLinear", [X], outputs=3),
    OpCase("MatMulInteger", [u8(2, 3, 4), u8(4, 5)]),
    OpCase("MatMulInteger", [u8(4), u8(3, 4, 2), ZERO_U8, ZERO_U8]),
    OpCase(
        "QLinearMatMul",
        [u8(2, 3), ONE, ZERO_U8, u8(3, 6), ONE, ZERO_U8, ONE, scalar(0, np.int8)],
        constants=(1, 2, 4, 5, 6, 7),
    ),
    OpCase("ConvInteger", [u8(1, 3, 8, 8), u8(4, 3, 3, 3)], {"pads": [1, 1, 1, 1]}),
    OpCase(
        "QLinearConv",
        [u8(1, 4, 9, 9), ONE, ZERO_U8, u8(6, 2, 3, 3), ONE, ZERO_U8, ONE, ZERO_U8],
        {"strides": [2, 2], "group": 2},
        constants=(1, 2, 4, 5, 6, 7),
    ),
    # 1-D convolution ([N, C, L]).
    OpCase("Conv", [f32(2, 4, 50), f32(8, 4, 5), f32(8)], {"kernel_shape": [5]}, constants=(1, 2)),
    OpCase(
        "Conv",
        [f32(1, 6, 33), f32(6, 2, 3)],
        {"kernel_shape": [3], "strides": [2], "pads": [1, 1], "dilations": [2], "group": 3},
        constants=(1,),
    ),
    OpCase("Conv", [f32(1, 2, 17), f32(4, 2, 4)], {"auto_pad": "SAME_UPPER", "strides": [3]}),
    # Pooling, unpooling and sampling.
    OpCase("LpPool", [X], {"kernel_shape": [3, 3], "strides": [2, 2], "p": 2}, opset=18),
    OpCase("LpPool", [X], {"kernel_shape": [2, 3], "pads": [1, 1, 0, 0]}, opset=11),
    OpCase(
        "MaxUnpool",
        [f32(1, 2, 3, 4), i64(*range(24)).reshape(1, 2, 3, 4)],
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    OpCase(
        "MaxUnpool",
        [f32(1, 1, 2, 2), np.zeros((1, 1, 2, 2), np.int64), i64(1, 1, 5, 5)],
        {"kernel_shape": [2, 2], "strides": [2, 2]},
        constants=(2,),
    ),
    OpCase("GridSample", [f32(2, 3, 8, 10), np.tanh(f32(2, 5, 6, 2))], opset=16),
    OpCase("GridSample", [f32(1, 2, 4, 5, 6), np.tanh(f32(1, 3, 2, 2, 3))], {"mode": "nearest"}, opset=20),
    OpCase("AffineGrid", [f32(2, 2, 3), i64(2, 3, 5, 7)], constants=(1,), opset=20),
    OpCase("AffineGrid", [f32(1, 3, 4), i64(1, 1, 3, 4, 5)], {"align_corners": 1}, constants=(1,), opset=20),
    OpCase("CenterCropPad", [f32(5, 7, 3), i64(4, 9)], {"axes": [0, 1]}, constants=(1,), opset=18),
    OpCase("CenterCropPad", [f32(2, 3), i64(3, 1)], constants=(1,), opset=18),
    # Index and shape ops.
    OpCase("OneHot", [i64(0, 2, 1), scalar(5, np.int64), np.array([0.0, 1.0], np.float32)], constants=(1, 2)),
    OpCase(
        "OneHot",
        [np.array([[1, 2]], np.int32), scalar(3.0, np.float32), i64(0, 1)],
        {"axis": 0},
        constants=(1, 2),
    ),
    OpCase("ReverseSequence", [f32(4, 3, 2), i64(1, 2, 4)], {"batch_axis": 1, "time_axis": 0}),
    OpCase("ReverseSequence", [f32(3, 5), i64(1, 2, 5)], {"batch_axis": 0, "time_axis": 1}),
    OpCase("CumProd", [X, scalar(2, np.int64)], {"exclusive": 1}, constants=(1,), opset=26),
    OpCase("Det", [f32(3, 4, 4)]),
    OpCase("Det", [f32(2, 2)]),
    OpCase("Transpose", [X]),
    OpCase("Transpose", [f32(5)]),
    OpCase("ArgMax", [X]),
    OpCase("ArgMin", [X], {"axis": -1, "keepdims": 1}),
    OpCase("ArgMax", [X], {"axis": 2, "keepdims": 0, "select_last_index": 1}),
    OpCase("GatherND", [f32(2, 3, 4), np.array([[1], [0]], np.int64)], {"batch_dims": 1}),
    OpCase("GatherND", [f32(2, 3, 4, 5), np.zeros((2, 3, 2), np.int64)], {"batch_dims": 2}),
    OpCase("GatherND", [f32(2, 3, 4), np.array([[[1, 2]], [[0, 3]]], np.int64)], {"batch_dims": 1}),
    # Attention and its KV cache.
    OpCase("Attention", [f32(2, 4, 5, 8), f32(2, 4, 7, 8), f32(2, 4, 7, 6)], opset=23),
    OpCase(
        "Attention",
        [f32(2, 5, 32), f32(2, 7, 16), f32(2, 7, 12)],
        {"q_num_heads": 4, "kv_num_heads": 2},
        opset=23,
    ),
    OpCase(
        "Attention",
        [f32(1, 4, 3, 8), f32(1, 2, 3, 8), f32(1, 2, 3, 8), None, f32(1, 2, 5, 8), f32(1, 2, 5, 8)],
        {"is_causal": 1},
        opset=23,
        outputs=4,
    ),
    OpCase("TensorScatter", [f32(2, 3, 10, 4), f32(2, 3, 2, 4)], opset=24),
    OpCase("TensorScatter", [f32(2, 8, 4), f32(2, 3, 4), i64(1, 4)], {"axis": 1}, opset=24),
    # Deformable convolution, folding, spectra.
    OpCase("DeformConv", [f32(1, 2, 6, 6), f32(4, 2, 3, 3), np.zeros((1, 18, 4, 4), np.float32)], opset=19),
    OpCase(
        "DeformConv",
        [f32(1, 2, 7, 7), f32(4, 2, 3, 3), np.zeros((1, 18, 4, 4), np.float32), f32(4)],
        {"strides": [2, 2], "pads": [1, 1, 1, 1]},
        opset=19,
    ),
    OpCase("Col2Im", [f32(1, 18, 16), i64(6, 6), i64(3, 3)], constants=(1, 2), opset=18),
    OpCase("Col2Im", [f32(2, 8, 12), i64(4, 5), i64(2, 2)], constants=(1, 2), opset=18),
    OpCase(
        "MelWeightMatrix",
        [scalar(8, np.int64), scalar(16, np.int64), scalar(8000, np.int64), ONE, scalar(3000.0, np.float32)],
        constants=(0, 1, 2, 3, 4),
    ),
    OpCase("DFT", [f32(2, 10, 1)], opset=17),
    OpCase("DFT", [f32(2, 10, 2)], {"onesided": 1}, opset=17),
    OpCase("DFT", [f32(3, 10, 6, 1), scalar(16, np.int64)], {"axis": 2}, constants=(1,), opset=17),
    OpCase("DFT", [f32(3, 10, 6, 1), None, scalar(-2, np.int64)], constants=(2,), opset=20),
    OpCase(
        "DFT",
        [f32(3, 10, 6, 2), scalar(8, np.int64), scalar(1, np.int64)],
        {"inverse": 1},
        constants=(1, 2),
        opset=20,
    ),
    OpCase("Compress", [f32(3, 4), np.array([True, False, True])], {"axis": 0}, constants=(1,)),
    OpCase("Compress", [f32(3, 4), np.array([False, True])], constants=(1,)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_plugin_matches_the_reference(case: OpCase, tmp_path: Path) -> None:
    assert inferred(case, tmp_path) == expected(case)


#: Ops onnx's reference evaluator does not run: onnx's own shape inference
#: is the oracle.
NOT_IN_THE_REFERENCE = [
    OpCase("Multinomial", [np.log(np.full((2, 5), 0.2, np.float32))], {"sample_size": 3}),
    OpCase("Multinomial", [np.log(np.full((1, 3), 1 / 3, np.float32))], {"dtype": 7}),
]


@pytest.mark.parametrize("case", NOT_IN_THE_REFERENCE, ids=lambda c: c.id)
def test_plugin_matches_onnx_shape_inference(case: OpCase, tmp_path: Path) -> None:
    model = onnx.shape_inference.infer_shapes(case.model(), strict_mode=True)
    want = []
    for value in model.graph.output:
        tensor = value.type.tensor_type
        name = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        want.append((NP_TO_OPGRAPH[np.dtype(name)], tuple(d.dim_value for d in tensor.shape.dim)))
    assert inferred(case, tmp_path) == want


#: Ops whose output sizes depend on the data: opgraph leaves those dims
#: unknown (-1); everything else must match the reference.
DATA_DEPENDENT = [
    OpCase("Compress", [f32(3, 4), np.array([True, False, True])], {"axis": 0}),
    OpCase("Compress", [f32(3, 4), np.array([False, True, True, True, False])]),
    OpCase("Unique", [np.array([2, 1, 1, 3, 4, 3], np.int64)], outputs=4),
    OpCase("Unique", [np.array([[1, 0, 0], [1, 0, 0], [2, 3, 4]], np.float32)], {"axis": 0}, outputs=4),
    OpCase("Unique", [np.array([[1, 0, 0], [1, 0, 0]], np.int32)], {"axis": 1, "sorted": 0}, outputs=2),
]


@pytest.mark.parametrize("case", DATA_DEPENDENT, ids=lambda c: c.id)
def test_data_dependent_dims_are_unknown_and_the_rest_exact(case: OpCase, tmp_path: Path) -> None:
    got = inferred(case, tmp_path)
    want = expected(case)
    assert [dtype for dtype, _ in got] == [dtype for dtype, _ in want]
    for (_, shape), (_, real) in zip(got, want, strict=True):
        assert len(shape) == len(real)
        assert all(d in (r, -1) for d, r in zip(shape, real, strict=True)), (shape, real)
    # The selected count itself is not known before the data is.
    assert -1 in got[0][1]


def test_a_variadic_op_that_does_not_broadcast_names_the_input(tmp_path: Path) -> None:
    case = OpCase("Max", [f32(3, 1), f32(1, 4), f32(5)])
    with pytest.raises(opgraph.errors.InferShapeError, match="input 2 does not broadcast"):
        inferred(case, tmp_path)


def test_a_one_d_convolution_with_the_wrong_channels_names_both(tmp_path: Path) -> None:
    case = OpCase("Conv", [f32(1, 6, 9), f32(4, 2, 3)], {"group": 2, "kernel_shape": [3]}, constants=(1,))
    with pytest.raises(opgraph.errors.OpgraphError, match="x has 6 channels"):
        inferred(case, tmp_path)
