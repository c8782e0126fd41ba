"""Exercises the TensorFlow frontend's public API with precise annotations;
must pass ``mypy --strict`` (run from the repository root, so the
pyproject's ``mypy_path = "python"`` applies). ``main()`` also runs it.

It writes the three plugin kinds (parse_params with the decorator,
parse_op_to_graph building a body, fusion_parse_params), unit-tests a plugin
with a hand-built FrameworkOp and Operator, and loads a fixture model with
``load_tensorflow``, reading a ParseError's attributes on failure.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import numpy as np

import opgraph
from opgraph import DataType, Format, Graph, NamedAttrs, ParseError, TensorRef
from opgraph.errors import UnsupportedOp
from opgraph.tensorflow import (
    DelInputWithCond,
    DelInputWithOriginalType,
    DynamicPortKind,
    FrameworkOp,
    ImplyType,
    InputEdit,
    InputReorder,
    Operator,
    ParseParamsFn,
    PluginInfo,
    auto_mapping,
    auto_mapping_dynamic,
    fusion_plugin,
    load_tensorflow,
    plugin,
    register_plugin,
    registered_plugins,
)

MODEL = Path(__file__).resolve().parent.parent / "tensorflow" / "data" / "plugin_topk.pbtxt"


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def register_topk(origin: str) -> ParseParamsFn:
    @plugin("TopK", origin_op_types=[origin], imply_type=ImplyType.TVM)
    def parse_topk(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping(src, dst)
        sorted_: bool = src.get_attr("sorted") if src.has_attr("sorted") else True
        dst.set_attr("sorted", sorted_)
        dst.set_attr("dim", -1)

    return parse_topk


def register_concat(origin: str) -> None:
    ports: list[tuple[DynamicPortKind, str, str]] = [("input", "x", "N")]

    @plugin("ConcatV2", origin_op_types=[origin], override=True)
    def parse_concat(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping_dynamic(src, dst, ports)
        dst.set_output_format(0, Format.ND)


def register_expansion(origin: str) -> None:
    def body(op: Operator) -> Graph:
        graph = Graph(f"{op.name}_body")
        a: TensorRef = graph.add_input("a", DataType.FLOAT, [-2])
        b: TensorRef = graph.add_input("b", DataType.FLOAT, [-2])
        graph.set_outputs([graph.add_node("Square", "square", [graph.add_node("Sub", "sub", [a, b])])])
        return graph

    edits: list[InputEdit] = [
        InputReorder([0, 1]),
        DelInputWithCond(2, "has_extra", False),
        DelInputWithOriginalType(3, "NoOp"),
    ]
    register_plugin(
        "SquaredDifference",
        [origin],
        parse_params=auto_mapping,
        parse_op_to_graph=body,
        input_edits=edits,
    )


def register_fusion(origin: str) -> None:
    @fusion_plugin("Sigmoid", origin_op_types=[origin], imply_type=ImplyType.BUILTIN)
    def parse_fused(fused: list[FrameworkOp], dst: Operator) -> None:
        names: list[str] = [op.name for op in fused]
        dst.set_attr("_fused_from", names)  # private: a note, not a Sigmoid attribute


def unit_test_plugin(parse: ParseParamsFn) -> dict[str, Any]:
    src = FrameworkOp(
        "topk",
        "TopKV2",
        ["x", "topk/k:0"],
        {"sorted": False, "T": DataType.FLOAT, "value": np.zeros(2, np.float32), "f": NamedAttrs("fn")},
        control_inputs=["init"],
    )
    inputs: list[str] = src.inputs
    controls: list[str] = src.control_inputs
    fused: list[FrameworkOp] = src.fused_ops
    assert inputs == ["x:0", "topk/k:0"] and controls == ["init"] and fused == []
    dst = Operator("topk", "TopK")
    parse(src, dst)
    dst.set_input_format(0, "ND")
    input_format: Format | None = dst.input_format(0)
    output_format: Format | None = dst.output_format(0)
    assert input_format is Format.ND and output_format is None
    dst.set_dynamic_input("x", 1)
    counts: list[tuple[str, int]] = dst.dynamic_inputs + dst.dynamic_outputs
    assert counts == [("x", 1)]
    return dst.attrs


def load(path: Path) -> tuple[int, ...] | list[UnsupportedOp]:
    try:
        graph = load_tensorflow(
            path,
            input_shapes={"x": (3, 10)},
            outputs=["topk:0", "topk:1"],
            plugins=[],
            enable_scope_passes=(),
        )
    except ParseError as error:
        node: str | None = error.node
        origin: str | None = error.origin_op_type
        assert node is None or origin is not None
        return error.unsupported
    values: TensorRef = graph.outputs[0]
    return graph.desc(values).shape


def main() -> None:
    topk = unique("TopKV2")
    parse = register_topk(topk)
    register_concat(unique("ConcatV2"))
    register_expansion(unique("SquaredDifference"))
    register_fusion(unique("FusedSoftsign"))
    plugins: list[PluginInfo] = registered_plugins()
    assert PluginInfo(topk, "TopK", False) in plugins
    attrs = unit_test_plugin(parse)
    assert attrs["sorted"] is False and attrs["dim"] == -1
    assert load(MODEL) == (3, 3)
    assert opgraph.load_tensorflow is load_tensorflow


if __name__ == "__main__":
    main()
