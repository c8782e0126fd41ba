"""Every built-in ONNX plugin, across the opsets where its form changed,
against onnx's reference evaluator: one-node models, each output's dtype
and shape as the reference computes them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from onnx_cases import OpCase, expected, inferred

rng = np.random.default_rng(0)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


X = f32(2, 3, 8, 10)

CASES = [
    # Elementwise.
    *(
        OpCase(op, [X])
        for op in ["Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Neg", "Floor", "Erf", "Sqrt", "Softplus"]
    ),
    OpCase("LeakyRelu", [X], {"alpha": 0.1}),
    OpCase("Elu", [X], {"alpha": 0.5}),
    OpCase("Add", [X, f32(8, 1)]),
    OpCase("Mul", [f32(3, 1, 1), X]),
    OpCase("Div", [X, f32(1)]),
    OpCase("Pow", [X, f32()]),
    OpCase("Equal", [i64(1, 2, 3), i64(3)]),
    OpCase("Greater", [X, f32(10)]),
    OpCase("Where", [np.array([True, False]), f32(3, 2), f32(1)]),
    OpCase("Max", [X, f32(10)]),
    OpCase("Min", [X]),
    OpCase("Sum", [X, f32(1, 3, 1, 1)]),
    OpCase("Cast", [X], {"to": 7}),
    OpCase("Cast", [i64(1, 2)], {"to": 1}),
    OpCase("Clip", [X], {"min": -1.0, "max": 1.0}, opset=6),
    OpCase("Clip", [X, np.array(-1, np.float32), np.array(1, np.float32)], constants=(1, 2), opset=13),
    OpCase("Clip", [X, None, np.array(1, np.float32)], constants=(2,), opset=13),
    OpCase("Clip", [X], opset=13),
    # Shape and index ops.
    OpCase("Reshape", [X, i64(0, -1)], constants=(1,)),
    OpCase("Reshape", [X, i64(2, 0, -1)], constants=(1,)),
    OpCase("Reshape", [X, i64(-1, 10)], constants=(1,), opset=14, attrs={"allowzero": 0}),
    OpCase("Flatten", [X]),
    OpCase("Flatten", [X], {"axis": 3}),
    OpCase("Flatten", [X], {"axis": 0}),
    OpCase("Transpose", [X], {"perm": [0, 2, 3, 1]}),
    OpCase("Concat", [X, f32(2, 3, 8, 4)], {"axis": -1}),
    OpCase("Concat", [X, X, X], {"axis": 1}),
    OpCase("Gather", [X, i64(0, 2)], {"axis": 1}, constants=(1,)),
    OpCase("Gather", [X, np.array(1, np.int64)], {"axis": -1}, constants=(1,)),
    OpCase("Shape", [X]),
    OpCase("Shape", [X], {"start": 1, "end": -1}, opset=15),
    OpCase("Size", [X]),
    OpCase("Tile", [f32(2, 3), i64(2, 1)], constants=(1,)),
    OpCase(
        "Range", [np.array(0, np.int64), np.array(10, np.int64), np.array(3, np.int64)], constants=(0, 1, 2)
    ),
    OpCase("CumSum", [X, np.array(1, np.int64)], constants=(1,)),
    # Convolution and normalisation.
    OpCase("Conv", [X, f32(4, 3, 3, 3)], {"kernel_shape": [3, 3]}, constants=(1,)),
    OpCase(
        "Conv",
        [X, f32(6, 1, 3, 3), f32(6)],
        {"kernel_shape": [3, 3], "pads": [1, 0, 1, 2], "strides": [2, 1], "group": 3},
        constants=(1, 2),
    ),
    OpCase(
        "Conv",
        [X, f32(4, 3, 3, 3)],
        {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER", "strides": [2, 2]},
        constants=(1,),
    ),
    OpCase("Conv", [X, f32(4, 3, 2, 2)], {"kernel_shape": [2, 2], "dilations": [2, 3]}, constants=(1,)),
    OpCase("Gemm", [f32(4, 5), f32(6, 5), f32(6)], {"transB": 1}, constants=(1, 2)),
    OpCase("Gemm", [f32(5, 4), f32(5, 6)], {"transA": 1}, constants=(1,)),
    OpCase("MatMul", [f32(2, 3, 4, 5), f32(5, 6)], constants=(1,)),
    OpCase("MatMul", [f32(3, 4, 5), f32(2, 1, 5, 6)]),
    OpCase("Softmax", [X], {"axis": 1}, opset=11),
    OpCase("Softmax", [X]),
    OpCase("LogSoftmax", [X]),
    OpCase("LayerNormalization", [X, f32(10), f32(10)], {"axis": -1}, constants=(1, 2)),
    OpCase("Einsum", [f32(2, 3, 4), f32(2, 4, 5)], {"equation": "bij,bjk->bik"}),
    OpCase("DepthToSpace", [f32(1, 8, 2, 3)], {"blocksize": 2}),
    OpCase("SpaceToDepth", [f32(1, 2, 4, 6)], {"blocksize": 2}),
    OpCase(
        "RoiAlign",
        [f32(2, 3, 8, 8), np.abs(f32(5, 4)), np.array([0, 1, 1, 0, 1], np.int64)],
        {"output_height": 3, "output_width": 2},
    ),
    OpCase(
        "LSTM", [f32(5, 2, 3), f32(1, 16, 3), f32(1, 16, 4)], {"hidden_size": 4}, constants=(1, 2), outputs=3
    ),
    OpCase(
        "LSTM",
        [f32(2, 5, 3), f32(2, 16, 3), f32(2, 16, 4)],
        {"hidden_size": 4, "direction": "bidirectional", "layout": 1},
        constants=(1, 2),
        opset=14,
        outputs=3,
    ),
    OpCase(
        "GRU", [f32(5, 2, 3), f32(1, 12, 3), f32(1, 12, 4)], {"hidden_size": 4}, constants=(1, 2), outputs=2
    ),
    OpCase(
        "RNN",
        [f32(5, 2, 3), f32(2, 4, 3), f32(2, 4, 4)],
        {"hidden_size": 4, "direction": "bidirectional"},
        outputs=2,
    ),
    OpCase("MaxPool", [X], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, outputs=2),
    OpCase("MaxPool", [X], {"kernel_shape": [2, 2], "ceil_mode": 1}),
    OpCase("AveragePool", [X], {"kernel_shape": [3, 2], "auto_pad": "SAME_UPPER"}),
    OpCase("GlobalAveragePool", [X]),
    OpCase("BatchNormalization", [X, f32(3), f32(3), f32(3), np.abs(f32(3))], constants=(1, 2, 3, 4)),
    OpCase("Squeeze", [f32(2, 1, 3, 1), i64(1, 3)], constants=(1,), opset=13),
    OpCase("Squeeze", [f32(2, 1, 3, 1)], {"axes": [-1]}, opset=11),
    OpCase("Unsqueeze", [f32(2, 3), i64(0, 3)], constants=(1,), opset=13),
    OpCase("Unsqueeze", [f32(2, 3)], {"axes": [1]}, opset=11),
    OpCase("Split", [f32(6, 4), i64(2, 4)], {"axis": 0}, constants=(1,), opset=13, outputs=2),
    OpCase("Split", [f32(6, 4)], {"axis": 1, "split": [1, 3]}, opset=11, outputs=2),
    OpCase("Split", [f32(6, 4)], {"axis": 0}, opset=13, outputs=3),
    OpCase("Slice", [X, i64(1, -4), i64(1000, -1), i64(2, 3), i64(1, 1)], constants=(1, 2, 3, 4)),
    OpCase("Slice", [X], {"starts": [0], "ends": [-1], "axes": [1]}, opset=9),
    OpCase("Pad", [X, i64(0, 0, 1, 2, 0, 0, 3, 4)], constants=(1,), opset=13),
    OpCase("Pad", [X], {"pads": [0, 0, 1, 2, 0, 0, 3, 4]}, opset=9),
    OpCase("Resize", [X, None, np.array([1, 1, 2, 0.5], np.float32)], constants=(2,), opset=13),
    OpCase("Resize", [X, None, None, i64(2, 3, 5, 7)], constants=(3,), opset=13),
    OpCase("TopK", [X, i64(4)], {"axis": 2}, constants=(1,), outputs=2),
    OpCase("TopK", [X], {"k": 3}, opset=9, outputs=2),
    OpCase("ReduceMean", [X], {"axes": [2, 3]}, opset=13),
    OpCase("ReduceMean", [X, i64(1)], {"keepdims": 0}, constants=(1,), opset=18),
    OpCase("ReduceSum", [X], opset=13),
    OpCase("ReduceMax", [X], {"keepdims": 0}, opset=11),
    OpCase("Expand", [f32(3, 1), i64(2, 1, 6)], constants=(1,)),
    OpCase("ConstantOfShape", [i64(2, 3)], constants=(0,)),
    OpCase("Where", [X > 0, X, f32(1)]),
    OpCase("ConvTranspose", [X, f32(3, 2, 3, 3)], {"strides": [2, 2]}, constants=(1,)),
    OpCase("Identity", [X]),
    OpCase("Dropout", [X]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_plugin_matches_the_reference(case: OpCase, tmp_path: Path) -> None:
    assert inferred(case, tmp_path) == expected(case)
