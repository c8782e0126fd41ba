"""Issue 18 item 3: an attribute the op's prototype does not declare is an
error (graph builder and plugin set_attr) with the declared names and a
"did you mean" suggestion, unless the prototype opts into extra attributes
or the name is private (``_``-prefixed, as GE's); auto_mapping does not copy
Caffe bookkeeping."""

from __future__ import annotations

from pathlib import Path

import pytest

import opgraph
from opgraph import ContextError, DataType, Graph, GraphError, OpDef
from opgraph.caffe import FrameworkOp, Operator, auto_mapping


def scale_op(op_type: str, *, extra: bool = False) -> OpDef:
    op = OpDef(op_type)
    op.input("x")
    op.output("y", follow="x")
    op.attr("scale", float, default=1.0)
    op.attr("bias", float, default=0.0)
    if extra:
        op.allow_extra_attrs()
    opgraph.register(op)
    return op


def test_graph_builder_rejects_a_typo(op_type: str) -> None:
    scale_op(op_type)
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, [2])
    with pytest.raises(GraphError) as raised:
        g.add_node(op_type, "n", [x], {"scael": 3.0})
    assert str(raised.value) == (
        f"node 'n': {op_type} does not declare attribute 'scael' (it declares scale, bias); "
        "did you mean 'scale'?"
    )
    assert "n" not in g


def test_unrelated_name_gets_no_suggestion(op_type: str) -> None:
    scale_op(op_type)
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, [2])
    with pytest.raises(GraphError, match=r"attribute 'axis' \(it declares scale, bias\)$"):
        g.add_node(op_type, "n", [x], {"axis": 1})


def test_opted_in_prototype_takes_extra_attributes(op_type: str) -> None:
    definition = scale_op(op_type, extra=True)
    assert opgraph.op_def(op_type).extra_attrs and definition.extra_attrs
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, [2])
    g.add_node(op_type, "n", [x], {"scael": 3.0, "_private": "kept"})
    assert g.node("n").attrs["_private"] == "kept"


def test_plugin_set_attr_rejects_a_typo(op_type: str) -> None:
    scale_op(op_type)
    dst = Operator("layer", op_type)
    dst.set_float("scale", 2.0)
    with pytest.raises(ContextError, match="did you mean 'scale'"):
        dst.set_attr("scael", 3.0)
    with pytest.raises(ContextError, match="did you mean 'scale'"):
        dst.set_float("scael", 3.0)
    assert dst.attrs == {"scale": 2.0}


def test_auto_mapping_drops_caffe_bookkeeping(op_type: str) -> None:
    scale_op(op_type)
    src = FrameworkOp(
        "layer",
        "MyScale",
        attrs={
            "scale": 2.0,
            "bottom": ["data"],
            "top": ["layer"],
            "pool": 1,
            "pool_name": "AVE",
            "shared_name": "s",
        },
    )
    dst = Operator("layer", op_type)
    auto_mapping(src, dst)
    # GE's AutoMapping copies the framework's attributes, but not a layer's
    # blob names or the name companion of an enum (pool_name names pool's
    # value; shared_name is no companion: there is no `shared`).
    assert dst.attrs == {"scale": 2.0, "pool": 1, "shared_name": "s"}


def test_private_attributes_are_always_allowed(op_type: str) -> None:
    scale_op(op_type)
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, [2])
    g.add_node(op_type, "n", [x], {"_note": "GE's private attributes annotate a node"})
    dst = Operator("layer", op_type)
    dst.set_str("_origin", "plugin")
    assert dst.attrs == {"_origin": "plugin"}


def test_loaded_caffe_nodes_carry_no_bookkeeping() -> None:
    models = Path(__file__).resolve().parents[1] / ".." / "python" / "opgraph" / "examples" / "models"
    graph = opgraph.load_caffe(models / "lenet.prototxt")
    for node in graph.nodes():
        assert not {"bottom", "top"} & set(node.attrs), node.name
