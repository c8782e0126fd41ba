"""Caffe plugin failures and registry order on fixture networks: a user
plugin's exception chained under a ParseError naming the layer, every
unsupported layer type listed at once, and user plugins replacing built-in
ones (in a subprocess: that replacement is process-wide)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from caffe_helpers import net, with_unique_types
from helpers import assert_lists_unsupported

from opgraph import ParseError
from opgraph.caffe import FrameworkOp, Operator, load_caffe, plugin


def test_an_exception_in_a_plugin_is_a_parse_error_chained_from_it(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "plugin_chain", "Sigmoid")
    origin = types["Sigmoid"]
    raised = ValueError("this layer needs a threshold")

    @plugin("Sigmoid", origin_op_types=[origin])
    def parse_act(src: FrameworkOp, dst: Operator) -> None:
        raise raised

    with pytest.raises(ParseError) as info:
        load_caffe(path)
    error = info.value
    assert (error.node, error.origin_op_type) == ("act", origin)
    assert error.__cause__ is raised
    assert str(error) == (
        f"plugin for '{origin}' failed on node 'act': "
        "test_an_exception_in_a_plugin_is_a_parse_error_chained_from_it.<locals>.parse_act "
        "raised ValueError: this layer needs a threshold"
    )


def test_a_built_in_plugin_failure_names_the_layer(tmp_path: Path) -> None:
    text = net("plugin_chain").read_text().replace("kernel_size: 2 stride: 2", "stride: 2")
    path = tmp_path / "no_kernel.prototxt"
    path.write_text(text)
    with pytest.raises(ParseError, match="layer 'pool' needs a kernel size") as info:
        load_caffe(path)
    assert (info.value.node, info.value.origin_op_type) == ("pool", "Pooling")


def test_every_unsupported_layer_type_is_listed_with_counts(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "plugin_chain", "ReLU", "Sigmoid")
    relu, sigmoid = types["ReLU"], types["Sigmoid"]
    with pytest.raises(ParseError) as info:
        load_caffe(path)
    assert_lists_unsupported(info.value, relu, {"relu1", "relu2"}, sigmoid, "act")


OVERRIDE_SCRIPT = """
import json, sys
import warnings
from opgraph import BuiltinShadowedWarning, RegistrationError
from opgraph.caffe import load_caffe, plugin, registered_plugins

def builtin(origin):
    return {p.origin_op_type: p.builtin for p in registered_plugins()}.get(origin)

report = {"relu_builtin_before": builtin("ReLU")}

# Replacing the built-in ReLU plugin is what this script does on purpose.
warnings.simplefilter("ignore", BuiltinShadowedWarning)

@plugin("Relu", origin_op_types=["ReLU"], override=True)
def first(src, dst):
    dst.set_attr("_parsed_by", "first")

try:
    @plugin("Relu", origin_op_types=["ReLU"])
    def clash(src, dst):
        pass
    report["clash"] = None
except RegistrationError as error:
    report["clash"] = str(error)

@plugin("Relu", origin_op_types=["ReLU"], override=True)
def second(src, dst):
    dst.set_attr("_parsed_by", "second")

graph = load_caffe(sys.argv[1])
report["relu_builtin_after"] = builtin("ReLU")
report["parsed_by"] = {n.name: n.attrs.get("_parsed_by") for n in graph.nodes() if "/" not in n.name}
report["shapes"] = {n.name: list(n.outputs[0].shape) for n in graph.nodes() if "/" not in n.name}
print(json.dumps(report))
"""


def test_user_plugins_replace_builtin_ones_and_each_other_with_override() -> None:
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(OVERRIDE_SCRIPT), str(net("plugin_chain"))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert (report["relu_builtin_before"], report["relu_builtin_after"]) == (True, False)
    assert "Caffe plugin for 'ReLU': a user plugin (to 'Relu') is already registered" in report["clash"]
    # The layers between the two ReLUs still go through their built-in plugins.
    assert report["parsed_by"] == {
        "data": None,
        "conv1": None,
        "relu1": "second",
        "act": None,
        "relu2": "second",
        "pool": None,
    }
    assert report["shapes"] == {
        "data": [2, 3, 8, 8],
        "conv1": [2, 4, 8, 8],
        "relu1": [2, 4, 8, 8],
        "act": [2, 4, 8, 8],
        "relu2": [2, 4, 8, 8],
        "pool": [2, 4, 4, 4],
    }
