"""``load_tensorflow``'s arguments: plugin modules named by path, input
shapes, outputs, and its errors for files it cannot read."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tf_fixtures import output_of
from tf_plugin_helpers import model, with_unique_types

import opgraph
from opgraph import DataType, ParseError
from opgraph.tensorflow import load_tensorflow


def test_plugins_argument_imports_plugin_modules_first(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "chain", "Sigmoid")
    plugin_file = tmp_path / "sigmoid_plugin.py"
    plugin_file.write_text(
        textwrap.dedent(
            f"""
            from opgraph.tensorflow import FrameworkOp, Operator, auto_mapping, plugin

            @plugin("Sigmoid", origin_op_types=[{types["Sigmoid"]!r}])
            def parse(src: FrameworkOp, dst: Operator) -> None:
                auto_mapping(src, dst)
                dst.set_attr("_from_plugin_file", True)
            """
        )
    )
    graph = load_tensorflow(path, plugins=[plugin_file])
    assert graph.node("sigmoid").attrs["_from_plugin_file"] is True
    # Loading again with the same plugin file does not register it twice.
    load_tensorflow(path, plugins=[str(plugin_file)])


def test_input_shapes_replace_placeholder_shapes() -> None:
    graph = load_tensorflow(model("topk"), input_shapes={"x": [5, 10]})
    assert output_of(graph, "topk:0") == (DataType.FLOAT, (5, 3))
    assert output_of(graph, "topk:1") == (DataType.INT32, (5, 3))


def test_outputs_name_the_graph_outputs() -> None:
    graph = load_tensorflow(model("topk"), outputs=["topk:1"])
    assert [(t.node, t.index) for t in graph.outputs] == [("topk", 1)]


def test_load_without_infer_leaves_shapes_to_opgraph_infer() -> None:
    graph = load_tensorflow(model("chain"), infer=False)
    opgraph.infer(graph)
    assert output_of(graph, "relu2:0") == (DataType.FLOAT, (4, 8))


def test_a_missing_file_is_a_parse_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.pb"
    with pytest.raises(ParseError, match=r"missing\.pb"):
        load_tensorflow(missing)


def test_list_arguments_reject_a_bare_string() -> None:
    with pytest.raises(TypeError, match=r"wrap it: \['topk:0'\]"):
        load_tensorflow(model("topk"), outputs="topk:0")
    with pytest.raises(TypeError, match=r"wrap it: \['LayerNorm'\]"):
        load_tensorflow(model("topk"), enable_scope_passes="LayerNorm")


def test_input_shapes_are_checked() -> None:
    with pytest.raises(ValueError, match="invalid shape"):
        load_tensorflow(model("topk"), input_shapes={"x": [2, -5]})
