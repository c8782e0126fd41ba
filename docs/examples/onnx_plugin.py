"""An ONNX plugin for a custom-domain op, resolved by opset as GE does (the
"Parser plugins" guide includes this file). Builds its model with the onnx
package (``pip install onnx``).

    python docs/examples/onnx_plugin.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import onnx
from onnx import TensorProto, helper

import opgraph
from opgraph.onnx import FrameworkOp, Operator, load_onnx_reported


# A custom-domain op from opset 2 on: GE's LeakyRelu with the node's `slope`.
# An origin op type is `domain::opset::op_type`; a model importing opset 3 of
# the domain uses the plugin of the highest opset not above 3.
@opgraph.onnx.plugin("LeakyRelu", origin_op_types=["com.example.vision::2::Leaky"])
def parse_leaky(src: FrameworkOp, dst: Operator) -> None:
    dst.set_float("alpha", src.get_float("slope"))


with tempfile.TemporaryDirectory() as tmp:
    image = helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 32, 32])
    nodes = [
        helper.make_node("Leaky", ["image"], ["act"], domain="com.example.vision", slope=0.1),
        helper.make_node("GlobalAveragePool", ["act"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["features"]),
    ]
    features = helper.make_tensor_value_info("features", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "net", [image], [features])
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.example.vision", 3)]
    model_path = Path(tmp) / "net.onnx"
    onnx.save(helper.make_model(graph, opset_imports=opsets), model_path)

    onnx_graph, report = load_onnx_reported(model_path)
    assert onnx_graph.node("act").op_type == "LeakyRelu"
    assert abs(onnx_graph.node("act").attrs["alpha"] - 0.1) < 1e-6
    # A symbolic dim (`batch`) is unknown (-1) until an input shape fixes it.
    assert report.symbols == {"image": ["batch", "", "", ""]}
    assert [d.shape for d in onnx_graph.node("features").outputs] == [(-1, 3)]
    fixed = opgraph.load_onnx(model_path, input_shapes={"image": [8, 3, 32, 32]})
    assert [d.shape for d in fixed.node("features").outputs] == [(8, 3)]
