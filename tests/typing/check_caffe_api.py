"""Exercises the Caffe frontend's public API with precise annotations; must
pass ``mypy --strict`` (run from the repository root, so the pyproject's
``mypy_path = "python"`` applies). ``main()`` also runs it.

It writes a parse_params plugin with the decorator and a parse_op_to_graph
plugin with ``register_plugin``, unit-tests a plugin with a hand-built
FrameworkOp and Operator, lists the registry, and loads a fixture network
with ``load_caffe``, reading a ParseError's attributes on failure.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

import opgraph
from opgraph import DataType, Graph, ParseError, TensorRef
from opgraph.caffe import (
    FrameworkOp,
    ImplyType,
    Operator,
    ParseParamsFn,
    PluginInfo,
    auto_mapping,
    load_caffe,
    plugin,
    register_plugin,
    registered_plugins,
)
from opgraph.errors import UnsupportedOp

DATA = Path(__file__).resolve().parent.parent / "caffe" / "data"


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def register_scaled_tanh(origin: str) -> ParseParamsFn:
    @plugin("Power", origin_op_types=[origin], imply_type=ImplyType.TVM)
    def parse_scaled_tanh(src: FrameworkOp, dst: Operator) -> None:
        scale: float = src.get_attr("scale") if src.has_attr("scale") else 1.0
        tops: list[str] = src.get_attr("top")
        dst.set_attr("scale", scale)
        dst.set_attr("power", 1.0)
        dst.set_attr("shift", 0.0 if len(tops) == 1 else 1.0)

    return parse_scaled_tanh


def register_squared_self(origin: str) -> None:
    def body(op: Operator) -> Graph:
        graph = Graph(f"{op.name}_body")
        x: TensorRef = graph.add_input("x", DataType.FLOAT, [-2])
        graph.set_outputs([graph.add_node("Mul", "mul", [x, x])])
        return graph

    register_plugin("Square", [origin], parse_params=auto_mapping, parse_op_to_graph=body, override=True)


def unit_test_plugin(parse: ParseParamsFn) -> float:
    attrs = {"scale": 2.5, "top": ["scaled"], "bottom": ["data"]}
    src = FrameworkOp("scaled", "ScaledTanh", ["data:0"], attrs)
    dst = Operator("scaled", "Power")
    parse(src, dst)
    scale: float = dst.get_attr("scale")
    return scale


def load(path: Path) -> dict[str, tuple[int, ...]] | list[UnsupportedOp]:
    try:
        graph = load_caffe(
            path,
            weights=None,
            custom_protos=[],
            input_shapes={"data": (1, 3, 4, 4)},
            plugins=[],
            outputs=["square"],
            infer=True,
        )
    except ParseError as error:
        node: str | None = error.node
        origin: str | None = error.origin_op_type
        assert node is None or origin is not None
        return error.unsupported
    return {n.name: n.outputs[0].shape for n in graph.nodes() if n.op_type != "Const"}


def main() -> None:
    types = {name: unique(name) for name in ("ScaledTanh", "ChannelScale", "SquaredSelf")}
    parse = register_scaled_tanh(types["ScaledTanh"])
    register_squared_self(types["SquaredSelf"])
    plugins: list[PluginInfo] = registered_plugins()
    assert PluginInfo(types["ScaledTanh"], "Power", False) in plugins
    assert PluginInfo("Convolution", "Conv2D", True) in plugins
    assert unit_test_plugin(parse) == 2.5

    text = (DATA / "plugin_custom.prototxt").read_text()
    for old, new in types.items():
        text = text.replace(f'type: "{old}"', f'type: "{new}"')
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plugin_custom.prototxt"
        path.write_text(text)
        unsupported = load(path)
        # ChannelScale has no plugin: the load reports it.
        assert isinstance(unsupported, list) and [u.op_type for u in unsupported] == [types["ChannelScale"]]
        register_plugin("Scale", [types["ChannelScale"]], parse_params=lambda src, dst: None)
        shapes = load(path)
        assert isinstance(shapes, dict) and shapes["square"] == (1, 3, 4, 4)
    assert opgraph.load_caffe is load_caffe


if __name__ == "__main__":
    main()
