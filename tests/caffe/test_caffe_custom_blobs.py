"""Weight blobs of custom Caffe layers declared by their plugins (issue 16,
item 4): a deploy prototxt whose custom layers have weights loads, infers,
plans and costs without a .caffemodel, the plugin's ``blob_shapes`` giving
each blob's shape from the layer's parameters and the op's
``weight_shapes`` completing what only the input tells; blobs a weights
file gives must agree with what the plugin declares.

The layer is Caffe-SSD's Normalize (the ``opgraph.examples.ssd_layers``
extension): its scale blob is one value per input channel, or a scalar when
``channel_shared`` (Caffe-SSD's ``NormalizeLayer::LayerSetUp``). The
channel count expected here is the input's, as OpenCV's Caffe importer
computes it (``data/ssd_tiny.shapes.tsv``), not opgraph's own inference."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from caffe_helpers import DATA, read_reference_shapes
from helpers import unique_name

import opgraph
from opgraph import OpDef, VerifyContext, caffe, load_caffe
from opgraph.caffe import FrameworkOp, Operator
from opgraph.errors import InternalError, ParseError, VerifyError
from opgraph.examples import ssd_layers
from opgraph.parser_plugin import Framework, register_parser_plugin

pytest.importorskip("grpc_tools", reason="the .caffemodel files are written with protoc-built classes")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from schema_messages import message_classes

OPENCV_SHAPES = read_reference_shapes(DATA / "ssd_tiny.shapes.tsv")
CONV1_CHANNELS = OPENCV_SHAPES["conv1"][0][1]


def load_ssd(weights: Path | None = None) -> opgraph.Graph:
    return load_caffe(ssd_layers.NET, weights, custom_protos=[ssd_layers.CUSTOM_PROTO])


def write_caffemodel(path: Path, blobs: dict[str, list[tuple[int, ...]]]) -> Path:
    """A .caffemodel holding zero-filled blobs of these shapes per layer."""
    net_class = message_classes("caffe/caffe.proto", ["caffe.NetParameter"])["caffe.NetParameter"]
    net = net_class()
    for name, shapes in blobs.items():
        layer = net.layer.add()
        layer.name = name
        for shape in shapes:
            blob = layer.blobs.add()
            blob.shape.dim.extend(shape)
            blob.data.extend(np.zeros(int(np.prod(shape)), np.float32).tolist())
    path.write_bytes(net.SerializeToString())
    return path


def conv1_blobs() -> list[tuple[int, ...]]:
    # num_output 16, kernel 3 over the 3-channel input, with a bias.
    return [(CONV1_CHANNELS, 3, 3, 3), (CONV1_CHANNELS,)]


def test_the_normalize_scale_has_one_value_per_input_channel_without_weights() -> None:
    graph = load_ssd()
    norm = graph.node("conv1_norm")
    assert norm.input_sources[1] == ("conv1_norm/blobs/0", 0)
    scale = norm.inputs[1]
    assert scale is not None and scale.shape == (CONV1_CHANNELS,)
    assert graph.node("conv1_norm/blobs/0").outputs[0].value is None


def test_a_net_with_a_weighted_custom_layer_plans_and_costs_without_weights() -> None:
    graph = load_ssd()
    opgraph.prepare(graph, soc="Ascend310")
    plan = opgraph.plan_memory(graph)
    scale = plan.tensor("conv1_norm/blobs/0:0")
    assert scale.size is not None and scale.size >= 4 * CONV1_CHANNELS
    assert opgraph.estimate_cost(graph, soc="Ascend310").total_us > 0


def test_given_blobs_that_agree_with_the_plugin_load(tmp_path: Path) -> None:
    weights = write_caffemodel(
        tmp_path / "ok.caffemodel", {"conv1": conv1_blobs(), "conv1_norm": [(CONV1_CHANNELS,)]}
    )
    graph = load_ssd(weights)
    value = graph.node("conv1_norm/blobs/0").outputs[0].value
    assert value is not None and value.shape == (CONV1_CHANNELS,)


@pytest.mark.parametrize(
    ("norm_blobs", "expected"),
    [
        ([(CONV1_CHANNELS, 1)], r"blob 0 has shape \[16, 1\] but its plugin declares \[-1\]"),
        ([(CONV1_CHANNELS,), (CONV1_CHANNELS,)], "the weights give 2 blobs but its plugin declares 1"),
    ],
)
def test_given_blobs_that_disagree_with_the_plugin_are_a_parse_error(
    tmp_path: Path, norm_blobs: list[tuple[int, ...]], expected: str
) -> None:
    blobs = {"conv1": conv1_blobs(), "conv1_norm": norm_blobs}
    weights = write_caffemodel(tmp_path / "bad.caffemodel", blobs)
    with pytest.raises(ParseError, match=rf"layer 'conv1_norm' \(type Normalize\): {expected}"):
        load_ssd(weights)


def test_a_completed_scale_that_contradicts_a_given_dim_names_the_weight(tmp_path: Path) -> None:
    # The plugin declares [5, ?]; the op's weight_shapes needs [16, 1] (16: the channels).
    def scale_shape(ctx: VerifyContext) -> dict[int, list[int]]:
        return {1: [ctx.input_shape(0)[1], 1]}

    prototxt = tmp_path / "net.prototxt"
    prototxt.write_text(net_with(register_scaled(lambda src: [[5, -1]], scale_shape)))
    with pytest.raises(VerifyError, match="weight 's/blobs/0' does not have the shape the layer needs"):
        load_caffe(prototxt)


def noop(src: FrameworkOp, dst: Operator) -> None:
    del src, dst


def net_with(layer_type: str) -> str:
    return f"""
name: "n"
input: "data"
input_shape {{ dim: 1 dim: 16 dim: 4 dim: 4 }}
layer {{ name: "s" type: "{layer_type}" bottom: "data" top: "s" }}
"""


def register_scaled(blob_shapes: Any, weight_shapes: Any = None) -> str:
    """A custom layer type ``Scaled_*`` (a data input and a scale blob) onto a
    fresh op declaring ``weight_shapes``; returns the layer type."""
    layer, op_type = unique_name("Scaled"), unique_name("ScaledOp")
    op = OpDef(op_type)
    op.input("x")
    op.input("scale", param_type=opgraph.OPTIONAL)
    op.output("y", follow="x")
    if weight_shapes is not None:
        op.weight_shapes(weight_shapes)
    opgraph.register(op)
    caffe.register_plugin(op_type, [layer], parse_params=noop, blob_shapes=blob_shapes)
    return layer


def failing_blob_shapes(src: FrameworkOp) -> list[list[int]]:
    raise RuntimeError(f"no scale for {src.name}")


@pytest.mark.parametrize(
    ("blob_shapes", "expected"),
    [
        (failing_blob_shapes, "no scale for s"),
        (lambda src: "16", "returns a list of blob shapes"),
        (lambda src: [[-3]], r"declares blob 0 with shape \[-3\]"),
    ],
)
def test_a_bad_blob_shapes_function_is_a_parse_error_naming_the_layer(
    tmp_path: Path, blob_shapes: Any, expected: str
) -> None:
    prototxt = tmp_path / "net.prototxt"
    prototxt.write_text(net_with(register_scaled(blob_shapes)))
    with pytest.raises(ParseError, match=expected) as raised:
        load_caffe(prototxt)
    assert "'s'" in str(raised.value)
    assert not isinstance(raised.value, InternalError)


@pytest.mark.parametrize(
    ("weight_shapes", "expected"),
    [
        (lambda ctx: [16], r"returned \[16\]: a list, not a dict; a weight_shapes function returns a dict"),
        (lambda ctx: {1: [-4]}, r"returned \{1: \[-4\]\}: input 1's shape \[-4\] has dim -4"),
        (lambda ctx: {"scale": [16]}, r"key scale is not an input index"),
        (lambda ctx: {9: [16]}, r"weight_shapes names input 9, but the node has 2 inputs"),
    ],
)
def test_a_bad_weight_shapes_result_is_a_node_error(
    tmp_path: Path, weight_shapes: Any, expected: str
) -> None:
    """Not ignored: a weight left unsized would be planned as unknown."""
    prototxt = tmp_path / "net.prototxt"
    prototxt.write_text(net_with(register_scaled(lambda src: [[-1]], weight_shapes)))
    with pytest.raises(VerifyError, match=expected) as raised:
        load_caffe(prototxt)
    assert "'s'" in str(raised.value)


def test_blob_shapes_is_refused_for_other_frameworks() -> None:
    with pytest.raises(ValueError, match="blob_shapes declares a Caffe layer's weight blobs"):
        register_parser_plugin(
            Framework.TENSORFLOW, "Relu", [unique_name("T")], parse_params=noop, blob_shapes=lambda src: [[1]]
        )
