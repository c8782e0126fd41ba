"""Benchmark (c): opgraph inference vs ONNX shape inference on the same chain.

Builds the synthetic residual chain of benchmark (a) (Conv2D -> Add ->
Identity -> Reshape, repeated) once as an opgraph Graph and once as an ONNX
model, then times ``opgraph.infer`` against
``onnx.shape_inference.infer_shapes`` in the same process.
Target: opgraph >= 10x faster.

    pip install onnx && python tests/benchmarks/bench_vs_onnx.py [NODES]
"""

from __future__ import annotations

import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

import opgraph
from opgraph import DataType, Format

DIMS = (1, 16, 32, 32)
TARGET_RATIO = 10.0


def build_opgraph(blocks: int) -> opgraph.Graph:
    g = opgraph.Graph("chain")
    prev = g.add_input("x", DataType.FLOAT, DIMS, Format.NCHW)
    w = g.add_const("w", np.zeros((16, 16, 3, 3), np.float32), Format.NCHW)
    shape = g.add_const("shape", np.array(DIMS, np.int64))
    conv_attrs = {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "data_format": "NCHW"}
    for i in range(blocks):
        conv = g.add_node("Conv2D", f"conv{i}", [prev, w], conv_attrs)
        add = g.add_node("Add", f"add{i}", [conv, prev])
        ident = g.add_node("Identity", f"id{i}", [add])
        prev = g.add_node("Reshape", f"reshape{i}", [ident, shape])
    g.set_outputs([prev])
    return g


def build_onnx(blocks: int) -> onnx.ModelProto:
    nodes = []
    prev = "x"
    for i in range(blocks):
        nodes += [
            helper.make_node("Conv", [prev, "w"], [f"conv{i}"], pads=[1, 1, 1, 1], strides=[1, 1]),
            helper.make_node("Add", [f"conv{i}", prev], [f"add{i}"]),
            helper.make_node("Identity", [f"add{i}"], [f"id{i}"]),
            helper.make_node("Reshape", [f"id{i}", "shape"], [f"reshape{i}"]),
        ]
        prev = f"reshape{i}"
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, DIMS)],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)],
        initializer=[
            numpy_helper.from_array(np.zeros((16, 16, 3, 3), np.float32), "w"),
            numpy_helper.from_array(np.array(DIMS, np.int64), "shape"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def timed(fn: object) -> float:
    assert callable(fn)
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    blocks = nodes // 4
    graph = build_opgraph(blocks)
    model = build_onnx(blocks)

    t_opgraph = min(timed(lambda: opgraph.infer(graph)) for _ in range(3))
    inferred: list[onnx.ModelProto] = []
    t_onnx = min(timed(lambda: inferred.append(shape_inference.infer_shapes(model))) for _ in range(3))

    # Same answer: the last tensor's shape agrees.
    last = graph.desc(graph.outputs[0]).shape
    onnx_last = next(v for v in inferred[-1].graph.value_info if v.name == f"id{blocks - 1}")
    onnx_dims = tuple(d.dim_value for d in onnx_last.type.tensor_type.shape.dim)
    assert onnx_dims == last, (onnx_dims, last)

    n = blocks * 4
    ratio = t_onnx / t_opgraph
    print(
        f"{n} ops: opgraph.infer {t_opgraph * 1e3:.1f} ms ({n / t_opgraph / 1e6:.2f} M nodes/s), "
        f"onnx.shape_inference.infer_shapes {t_onnx * 1e3:.1f} ms (onnx {onnx.__version__})"
    )
    print(
        f"opgraph is {ratio:.1f}x faster; target >= {TARGET_RATIO:.0f}x; "
        f"ratio to target {ratio / TARGET_RATIO:.2f}x"
    )


if __name__ == "__main__":
    main()
