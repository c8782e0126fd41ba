"""Writes ``seeds/*.onnx``: small models, built with the onnx package, that
the ONNX fuzz target (``fuzz/fuzz_targets/onnx.rs``) starts from: typed and
raw initializers, symbolic inputs, an If with outer-scope reads, absent
optional inputs, a custom domain, a -0.0 attribute. Run from the repository root:
``python tests/onnx/make_fuzz_seeds.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEEDS = Path(__file__).parent / "seeds"


def model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[str],
    initializers: list[onnx.TensorProto],
    opsets: dict[str, int],
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "seed",
        inputs,
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        initializers,
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()])
    m.ir_version = 8
    return m


def main() -> None:
    SEEDS.mkdir(exist_ok=True)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])
    w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
    typed = helper.make_tensor("shape", TensorProto.INT64, [2], [0, -1])
    conv = model(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            helper.make_node("Clip", ["c", "", "c"], ["k"]),
            helper.make_node("Reshape", ["k", "shape"], ["y"]),
        ],
        [x],
        ["y"],
        [w, typed],
        {"": 13},
    )
    branch = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["a"])],
        "then",
        [],
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, None)],
    )
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    if_model = model(
        [helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)],
        [x, cond],
        ["y"],
        [],
        {"": 16},
    )
    custom = model(
        [helper.make_node("MyOp", ["x"], ["y"], domain="com.example", alpha=0.5, names=["a", "b"])],
        [x],
        ["y"],
        [],
        {"": 17, "com.example": 3},
    )
    # A scalar -0.0 attribute: proto3 re-encoding drops it (fuzz finding).
    negative_zero = model(
        [helper.make_node("MyOp", ["x"], ["y"], domain="com.example", alpha=-0.0)],
        [x],
        ["y"],
        [],
        {"": 17, "com.example": 3},
    )
    models = [("conv", conv), ("if", if_model), ("custom", custom), ("negative_zero", negative_zero)]
    for name, m in models:
        onnx.save(m, SEEDS / f"{name}.onnx")


if __name__ == "__main__":
    main()
