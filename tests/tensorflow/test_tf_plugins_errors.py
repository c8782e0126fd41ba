"""Plugin failures and registry order on real models: a user plugin's
exception chained under a ParseError naming the node, misused Operators,
every unsupported op type listed at once, and user plugins replacing
built-in ones (in a subprocess: that replacement is process-wide)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import assert_lists_unsupported
from tf_plugin_helpers import model, with_unique_types

from opgraph import ContextError, Graph, ParseError
from opgraph.tensorflow import FrameworkOp, Operator, auto_mapping, load_tensorflow, plugin, register_plugin


def test_an_exception_in_a_plugin_is_a_parse_error_chained_from_it(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "topk", "TopKV2")
    origin = types["TopKV2"]
    raised = ValueError("k must be a Const")

    @plugin("TopK", origin_op_types=[origin])
    def parse_topk(src: FrameworkOp, dst: Operator) -> None:
        raise raised

    with pytest.raises(ParseError) as info:
        load_tensorflow(path)
    error = info.value
    assert (error.node, error.origin_op_type) == ("topk", origin)
    assert error.__cause__ is raised
    assert str(error) == (
        f"plugin for '{origin}' failed on node 'topk': "
        "test_an_exception_in_a_plugin_is_a_parse_error_chained_from_it.<locals>.parse_topk "
        "raised ValueError: k must be a Const"
    )


def test_a_missing_attribute_in_a_plugin_names_the_node(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "topk", "TopKV2")

    @plugin("TopK", origin_op_types=[types["TopKV2"]])
    def parse_topk(src: FrameworkOp, dst: Operator) -> None:
        dst.set_attr("largest", src.get_attr("largest"))

    with pytest.raises(ParseError, match="raised ContextError: framework op 'topk'") as info:
        load_tensorflow(path)
    assert isinstance(info.value.__cause__, ContextError)


def test_a_parse_function_returns_none(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "topk", "TopKV2")

    @plugin("TopK", origin_op_types=[types["TopKV2"]])
    def parse_topk(src: FrameworkOp, dst: Operator) -> None:
        return True  # type: ignore[return-value]  # deliberately wrong: checks the runtime error

    with pytest.raises(
        ParseError, match="returned bool; a parse function fills its Operator and returns None"
    ):
        load_tensorflow(path)


def test_an_operator_is_only_valid_during_its_call(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "topk", "TopKV2")
    kept: list[Operator] = []

    @plugin("TopK", origin_op_types=[types["TopKV2"]])
    def parse_topk(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping(src, dst)
        kept.append(dst)

    graph = load_tensorflow(path)
    with pytest.raises(ContextError, match="no longer valid"):
        kept[0].set_attr("sorted", False)
    assert graph.node("topk").attrs["sorted"] is True


def test_parse_op_to_graph_reads_but_cannot_change_the_op(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "squared_difference", "SquaredDifference")

    def body(op: Operator) -> Graph:
        op.set_attr("T", 0)
        return Graph()

    register_plugin(
        "SquaredDifference",
        [types["SquaredDifference"]],
        parse_params=auto_mapping,
        parse_op_to_graph=body,
    )
    with pytest.raises(ParseError, match=r"node 'sqdiff'.* operator 'sqdiff' is read-only") as info:
        load_tensorflow(path)
    assert isinstance(info.value.__cause__, ContextError)


def test_parse_op_to_graph_returns_a_graph(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "squared_difference", "SquaredDifference")
    register_plugin(
        "SquaredDifference",
        [types["SquaredDifference"]],
        parse_params=auto_mapping,
        parse_op_to_graph=lambda op: None,  # type: ignore[arg-type,return-value]  # deliberately wrong: checks the runtime error
    )
    with pytest.raises(
        ParseError, match=r"returned NoneType; parse_op_to_graph must return an opgraph\.Graph$"
    ):
        load_tensorflow(path)


def test_every_unsupported_op_type_is_listed_with_counts(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "chain", "Relu", "Sigmoid")
    relu, sigmoid = types["Relu"], types["Sigmoid"]
    with pytest.raises(ParseError) as info:
        load_tensorflow(path)
    assert_lists_unsupported(info.value, relu, {"relu1", "relu2"}, sigmoid, "sigmoid")


OVERRIDE_SCRIPT = """
import json, sys
import warnings
from opgraph import BuiltinShadowedWarning, RegistrationError
from opgraph.tensorflow import auto_mapping, load_tensorflow, plugin, registered_plugins

def builtin(origin):
    return {p.origin_op_type: p.builtin for p in registered_plugins()}.get(origin)

report = {"relu_builtin_before": builtin("Relu")}

# Replacing the built-in Relu plugin is what this script does on purpose.
warnings.simplefilter("ignore", BuiltinShadowedWarning)

@plugin("Relu", origin_op_types=["Relu"], override=True)
def first(src, dst):
    auto_mapping(src, dst)
    dst.set_attr("_parsed_by", "first")

try:
    @plugin("Relu", origin_op_types=["Relu"])
    def clash(src, dst):
        pass
    report["clash"] = None
except RegistrationError as error:
    report["clash"] = str(error)

@plugin("Relu", origin_op_types=["Relu"], override=True)
def second(src, dst):
    auto_mapping(src, dst)
    dst.set_attr("_parsed_by", "second")

graph = load_tensorflow(sys.argv[1])
report["relu_builtin_after"] = builtin("Relu")
report["parsed_by"] = {n.name: n.attrs.get("_parsed_by") for n in graph.nodes()}
report["shapes"] = {n.name: list(n.outputs[0].shape) for n in graph.nodes()}
print(json.dumps(report))
"""


def test_user_plugins_replace_builtin_ones_and_each_other_with_override() -> None:
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(OVERRIDE_SCRIPT), str(model("chain"))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert (report["relu_builtin_before"], report["relu_builtin_after"]) == (True, False)
    assert "'Relu': a user plugin (to 'Relu') is already registered; pass override=True" in report["clash"]
    # The Sigmoid between the two Relus still goes through its built-in plugin.
    assert report["parsed_by"] == {"x": None, "relu1": "second", "sigmoid": None, "relu2": "second"}
    assert report["shapes"] == {"x": [4, 8], "relu1": [4, 8], "sigmoid": [4, 8], "relu2": [4, 8]}
