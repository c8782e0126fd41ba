"""Caffe parser plugins written in Python, on fixture networks loaded with
``opgraph.load_caffe``: custom layer types mapped by user plugins (one-to-one
and one-to-many), what a plugin's FrameworkOp holds (parameters by field
name with Caffe's defaults, top names, bottoms then weight blobs), the
registry listing, override rules, and load_caffe's options."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from caffe_helpers import net, output_shapes, with_unique_types
from helpers import unique_name

import opgraph
from opgraph import DataType, Graph, RegistrationError
from opgraph.caffe import (
    FrameworkOp,
    ImplyType,
    Operator,
    PluginInfo,
    load_caffe,
    plugin,
    register_plugin,
    registered_plugins,
)


def map_scaled_tanh(origin: str) -> list[FrameworkOp]:
    """Registers ScaledTanh → Power (from its power_param); returns the
    FrameworkOps the plugin saw."""
    seen: list[FrameworkOp] = []

    @plugin("Power", origin_op_types=[origin], imply_type=ImplyType.BUILTIN)
    def parse_scaled_tanh(src: FrameworkOp, dst: Operator) -> None:
        seen.append(src)
        for name in ("power", "scale", "shift"):
            dst.set_attr(name, src.get_attr(name))

    return seen


def map_channel_scale(origin: str) -> None:
    """ChannelScale → Scale: its blob is the per-channel scale."""

    @plugin("Scale", origin_op_types=[origin])
    def parse_channel_scale(src: FrameworkOp, dst: Operator) -> None:
        dst.set_attr("axis", 1)
        dst.set_attr("num_axes", 1)


def map_squared_self(origin: str) -> None:
    """SquaredSelf → a body computing ``x * x``."""

    def body(op: Operator) -> Graph:
        graph = Graph(f"{op.name}_body")
        x = graph.add_input("x", DataType.FLOAT, [-2])
        graph.set_outputs([graph.add_node("Mul", "mul", [x, x])])
        return graph

    register_plugin("Square", [origin], parse_params=lambda src, dst: None, parse_op_to_graph=body)


def load_custom(tmp_path: Path) -> tuple[Graph, list[FrameworkOp]]:
    path, types = with_unique_types(tmp_path, "plugin_custom", "ScaledTanh", "ChannelScale", "SquaredSelf")
    seen = map_scaled_tanh(types["ScaledTanh"])
    map_channel_scale(types["ChannelScale"])
    map_squared_self(types["SquaredSelf"])
    return load_caffe(path), seen


def test_user_plugins_map_custom_layer_types(tmp_path: Path) -> None:
    graph, _seen = load_custom(tmp_path)
    scaled = graph.node("scaled")
    assert scaled.op_type == "Power"
    # power_param { scale: 2.5 }, with Caffe's defaults for power and shift.
    assert (scaled.attrs["power"], scaled.attrs["scale"], scaled.attrs["shift"]) == (1.0, 2.5, 0.0)
    assert graph.node("cs").op_type == "Scale"
    assert graph.node("cs").input_sources == [("scaled", 0), ("cs/blobs/0", 0), None]
    # The blob written in the prototxt is a constant with its values.
    blob = graph.node("cs").inputs[1]
    assert blob is not None and blob.shape == (3,)
    np.testing.assert_array_equal(graph.node("cs/blobs/0").outputs[0].value, [1.0, 2.0, 3.0])
    assert graph.node("square").op_type == "PartitionedCall"
    for layer in ("scaled", "cs", "square"):
        assert output_shapes(graph, layer) == [(2, 3, 4, 4)], layer


def test_a_plugin_sees_the_layer_as_the_contract_says(tmp_path: Path) -> None:
    _graph, seen = load_custom(tmp_path)
    [src] = seen
    assert src.name == "scaled" and src.op_type.startswith("ScaledTanh")
    assert src.inputs == ["data:0"]
    assert src.get_attr("bottom") == ["data"] and src.get_attr("top") == ["scaled"]
    assert src.get_attr("scale") == 2.5
    assert src.get_attr("power") == 1.0  # declared default, filled in
    assert not src.has_attr("blobs")


def test_registered_plugins_lists_caffe_plugins_only(tmp_path: Path) -> None:
    origin = unique_name("ScaledTanh")
    map_scaled_tanh(origin)
    caffe = registered_plugins()
    assert PluginInfo("Convolution", "Conv2D", True) in caffe
    assert PluginInfo("Pooling", "Pooling", True) in caffe
    assert PluginInfo("Split", "PartitionedCall", True) in caffe
    assert PluginInfo(origin, "Power", False) in caffe
    assert [p.origin_op_type for p in caffe] == sorted(p.origin_op_type for p in caffe)
    tensorflow = opgraph.tensorflow.registered_plugins()
    assert all(p.origin_op_type != origin for p in tensorflow)
    assert all(p.origin_op_type != "Convolution" for p in tensorflow)


def test_a_second_user_plugin_for_a_layer_type_needs_override(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "plugin_custom", "ScaledTanh", "ChannelScale", "SquaredSelf")
    origin = types["ScaledTanh"]
    map_scaled_tanh(origin)
    map_channel_scale(types["ChannelScale"])
    map_squared_self(types["SquaredSelf"])
    clash = rf"'{origin}': a user plugin \(to 'Power'\) is already registered"
    with pytest.raises(RegistrationError, match=clash):
        map_scaled_tanh(origin)

    @plugin("Tanh", origin_op_types=[origin], override=True)
    def plain_tanh(src: FrameworkOp, dst: Operator) -> None:
        pass

    graph = load_caffe(path)
    assert graph.node("scaled").op_type == "Tanh"
    assert PluginInfo(origin, "Tanh", False) in registered_plugins()


def test_load_caffe_options(tmp_path: Path) -> None:
    chain = net("plugin_chain")
    graph = load_caffe(chain)
    assert output_shapes(graph, "pool") == [(2, 4, 4, 4)]
    bigger = load_caffe(chain, input_shapes={"data": [1, 3, 16, 16]})
    assert output_shapes(bigger, "conv1") == [(1, 4, 16, 16)]
    assert output_shapes(bigger, "pool") == [(1, 4, 8, 8)]
    pruned = load_caffe(chain, outputs=["act"])
    assert {n.name for n in pruned.nodes()} >= {"data", "conv1", "relu1", "act"}
    assert "pool" not in {n.name for n in pruned.nodes()}
    uninferred = load_caffe(chain, infer=False)
    assert uninferred.node("pool").outputs[0].shape != (2, 4, 4, 4)
    with pytest.raises(TypeError, match="custom_protos is a list of paths"):
        load_caffe(chain, custom_protos="custom.proto")
    with pytest.raises(TypeError, match="outputs is a list of tensor names"):
        load_caffe(chain, outputs="act")
    assert opgraph.load_caffe is load_caffe


def test_load_caffe_imports_plugin_modules_first(tmp_path: Path) -> None:
    path, types = with_unique_types(tmp_path, "plugin_chain", "Sigmoid")
    module = tmp_path / "my_caffe_plugins.py"
    module.write_text(
        "from opgraph.caffe import plugin\n"
        f"@plugin('Sigmoid', origin_op_types=[{types['Sigmoid']!r}])\n"
        "def parse(src, dst):\n"
        "    dst.set_attr('_from_module', True)\n"
    )
    graph = load_caffe(path, plugins=[module])
    assert graph.node("act").attrs["_from_module"] is True
