"""Value ranges: the bounds of a shape vector read from ``Shape`` of a
tensor with ranged dims carry through Gather / Unsqueeze / Concat / Cast to
the ops that take a shape (ConstantOfShape, Expand), and a data-dependent
row count through Gemm and a Slice with data-dependent bounds.

``t = Transpose(NonZero(x))`` for ``x: [3, 4]`` has shape ``[?, 2]`` with
the first dim in ``0..=12``; each output below must be bounded by it, and
onnx's reference implementation, run on inputs with 0 to 12 non-zeros, must
produce sizes inside opgraph's ranges."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package builds and runs the models")
from onnx import NodeProto, TensorProto, helper, numpy_helper  # noqa: E402  (after the importorskip)
from onnx.reference import ReferenceEvaluator  # noqa: E402

import opgraph  # noqa: E402

I64 = TensorProto.INT64


def _const(name: str, values: list[int]) -> NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(values, np.int64)))


def _model(path: Path) -> Path:
    node = helper.make_node
    nodes = [
        node("NonZero", ["x"], ["nz"]),
        node("Transpose", ["nz"], ["t"], perm=[1, 0]),  # [?, 2], ? in 0..=12
        node("Shape", ["t"], ["t_shape"]),
        # ConstantOfShape straight from Shape.
        node("ConstantOfShape", ["t_shape"], ["filled"]),
        # Expand a [1, 1] to t's shape.
        node("Expand", ["ones", "t_shape"], ["expanded"]),
        # Gather -> Unsqueeze -> Concat [?, 5] -> Cast to INT32 -> ConstantOfShape.
        _const("zero", [0]),
        node("Gather", ["t_shape", "zero"], ["rows"], axis=0),
        _const("five", [5]),
        node("Concat", ["rows", "five"], ["rows_by_five"], axis=0),
        node("Cast", ["rows_by_five"], ["rows_by_five_i32"], to=TensorProto.INT32),
        node("Cast", ["rows_by_five_i32"], ["rows_by_five_i64"], to=I64),
        node("ConstantOfShape", ["rows_by_five_i64"], ["built"]),
        # A row count through Gemm.
        node("Cast", ["t"], ["t_f"], to=TensorProto.FLOAT),
        node("Gemm", ["t_f", "w"], ["projected"]),
        # The same through a transposed operand (transA).
        node("Transpose", ["t_f"], ["t_f_t"], perm=[1, 0]),
        node("Gemm", ["t_f_t", "w"], ["projected_t"], transA=1),
        # A Slice whose end is data (t's row count halved): never longer than its input.
        _const("two", [2]),
        node("Div", ["rows", "two"], ["half_rows"]),
        node("Slice", ["t", "zero", "half_rows", "zero"], ["sliced"]),
    ]
    outputs = ["filled", "expanded", "built", "projected", "projected_t", "sliced"]
    graph = helper.make_graph(
        nodes,
        "value_ranges",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs],
        [
            numpy_helper.from_array(np.ones((2, 3), np.float32), "w"),
            numpy_helper.from_array(np.ones((1, 1), np.float32), "ones"),
        ],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


EXPECTED = {
    "filled": [(0, 12), (2, 2)],
    "expanded": [(0, 12), (2, 2)],
    "built": [(0, 12), (5, 5)],
    "projected": [(0, 12), (3, 3)],
    "projected_t": [(0, 12), (3, 3)],
    "sliced": [(0, 12), (2, 2)],
}


def test_shape_vector_bounds_reach_the_ops_that_take_a_shape(tmp_path: Path) -> None:
    path = _model(tmp_path / "m.onnx")
    graph, report = opgraph.onnx.load_onnx_reported(str(path))
    got = {}
    for value in EXPECTED:
        node, index = report.tensors[value].rsplit(":", 1)
        desc = graph.node(node).outputs[int(index)]
        got[value] = (desc.shape, desc.shape_range)
    assert got == {v: ((-1, r[1][0]), r) for v, r in EXPECTED.items()}

    # onnx's reference implementation: every real size inside the range.
    run = ReferenceEvaluator(str(path))
    rng = np.random.default_rng(0)
    for nonzeros in range(13):
        x = np.zeros(12, np.float32)
        x[rng.choice(12, nonzeros, replace=False)] = 1.0
        results = dict(zip(EXPECTED, run.run(None, {"x": x.reshape(3, 4)}), strict=True))
        for value, result in results.items():
            for size, (lo, hi) in zip(np.shape(result), EXPECTED[value], strict=True):
                assert lo <= size <= hi, f"{value} at {nonzeros} non-zeros: {np.shape(result)}"
        # The sizes really vary: the rows of t, and half of them in the slice.
        assert np.shape(results["filled"])[0] == nonzeros
        assert np.shape(results["sliced"])[0] == nonzeros // 2
