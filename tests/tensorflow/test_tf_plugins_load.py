"""``load_tensorflow``'s arguments: plugin modules named by path, input
shapes, outputs, and its errors for files it cannot read."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import unique_name
from tf_fixtures import output_of
from tf_plugin_helpers import model, with_unique_types

import opgraph
from opgraph import DataType, ParseError
from opgraph.tensorflow import Operator, load_tensorflow, plugin


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


def _model_of(tmp_path: Path, origin: str, inputs: int) -> Path:
    """Placeholder x [2, 10] read ``inputs`` times by node n of type ``origin``."""
    reads = "".join(' input: "x"' for _ in range(inputs))
    path = tmp_path / "m.pbtxt"
    path.write_text(
        'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } '
        'attr { key: "shape" value { shape { dim { size: 2 } dim { size: 10 } } } } }\n'
        f'node {{ name: "n" op: "{origin}"{reads} }}\n'
    )
    return path


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda dst: dst.set_dynamic_input("xs", 2),
            r"the plugin sizes dynamic input 'xs', which \w+ does not have \(x\*\)",
        ),
        (
            lambda dst: dst.set_dynamic_output("ys", 2),
            r"the plugin sizes dynamic output 'ys', which \w+ does not have \(its dynamic outputs: none\)",
        ),
        (
            lambda dst: dst.set_input_format(5, "NCHW"),
            r"the plugin sets the format of input 5, but it has 2 inputs",
        ),
        (
            lambda dst: dst.set_output_format(1, "NCHW"),
            r"the plugin sets the format of output 1, but it has 1 output$",
        ),
    ],
)
def test_a_plugin_naming_a_port_the_op_does_not_have_is_a_parse_error(
    tmp_path: Path, edit: Callable[[Operator], None], expected: str
) -> None:
    """A typo in a port name or an index past the ports was ignored before."""
    op = opgraph.OpDef(unique_name("Concatish"))
    op.input("x", param_type=opgraph.ParamType.DYNAMIC)
    op.output("y", dtypes=[DataType.FLOAT])
    op.infer_shape(lambda ctx: ctx.set_output_shape(0, ctx.dynamic_input_shape(0, 0)))
    opgraph.register(op)
    origin = unique_name("TfConcatish")
    plugin(op.op_type, origin_op_types=[origin])(lambda src, dst: edit(dst))
    with pytest.raises(ParseError, match=expected) as raised:
        load_tensorflow(_model_of(tmp_path, origin, 2))
    assert "node 'n'" in str(raised.value)
