"""A Caffe deploy prototxt without its .caffemodel: every weight blob gets
the shape Caffe's ``LayerSetUp`` gives it, from the layer's parameters and
the shape of its input, so memory planning and costing work on the bare
network. The expected shapes are computed here from the prototxt (read
with protobuf) and the input blob shapes of an independent Caffe
implementation (OpenCV's importer, ``../shared/models/caffe/*.shapes.tsv``);
opgraph's own inference is not the oracle."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import pytest
from caffe_helpers import MODELS, read_reference_shapes

import opgraph
from opgraph import Graph, load_caffe

pytest.importorskip("grpc_tools", reason="the prototxt is read with grpcio-tools' protoc-built classes")
pytest.importorskip("google.protobuf", reason="the prototxt is read with the protobuf package")

from google.protobuf import text_format

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from schema_messages import message_classes

CAFFE = MODELS / "caffe"
NETWORKS = ["lenet", "alexnet", "googlenet", "squeezenet_v1_1", "mobilenet_v1"]


def parse_net(path: Path) -> Any:
    net_class = message_classes("caffe/caffe.proto", ["caffe.NetParameter"])["caffe.NetParameter"]
    return text_format.Parse(path.read_text(), net_class())


def kernel(conv: Any) -> tuple[int, int]:
    if conv.HasField("kernel_h") or conv.HasField("kernel_w"):
        return conv.kernel_h, conv.kernel_w
    sizes = list(conv.kernel_size)
    return (sizes[0], sizes[0]) if len(sizes) == 1 else (sizes[0], sizes[1])


def caffe_blob_shapes(layer: Any, bottom: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The weight blobs Caffe's LayerSetUp makes for ``layer`` fed ``bottom``."""
    kind = layer.type
    if kind == "Convolution":
        conv = layer.convolution_param
        shapes: list[tuple[int, ...]] = [(conv.num_output, bottom[1] // conv.group, *kernel(conv))]
        return shapes + ([(conv.num_output,)] if conv.bias_term else [])
    if kind == "InnerProduct":
        ip = layer.inner_product_param
        k = math.prod(bottom[ip.axis :])
        shapes = [(k, ip.num_output) if ip.transpose else (ip.num_output, k)]
        return shapes + ([(ip.num_output,)] if ip.bias_term else [])
    if kind == "BatchNorm":
        return [(bottom[1],), (bottom[1],), (1,)]
    if kind == "Scale":
        scale = layer.scale_param
        end = len(bottom) if scale.num_axes == -1 else scale.axis + scale.num_axes
        shape = bottom[scale.axis : end]
        return [shape] + ([shape] if scale.bias_term else [])
    if kind == "PReLU":
        return [()] if layer.prelu_param.channel_shared else [(bottom[1],)]
    return []


def expected_weights(net: Any, graph: Graph, reference: dict[str, list[tuple[int, ...]]]) -> dict[str, Any]:
    """Blob name (``layer/blobs/i``) → its expected shape, walking the layers
    in order with each blob's shape from the reference (net inputs: the
    shapes the prototxt declares)."""
    blobs: dict[str, tuple[int, ...]] = {}
    for name in net.input:
        blobs[name] = graph.node(name).outputs[0].shape
    expected: dict[str, Any] = {}
    for layer in net.layer:
        if layer.type == "Input":
            blobs[layer.top[0]] = tuple(layer.input_param.shape[0].dim)
            continue
        bottom = blobs[layer.bottom[0]] if layer.bottom else ()
        for i, shape in enumerate(caffe_blob_shapes(layer, bottom)):
            expected[f"{layer.name}/blobs/{i}"] = shape
        for top, shape in zip(layer.top, reference[layer.name], strict=True):
            blobs[top] = shape
    return expected


@pytest.mark.parametrize("network", NETWORKS)
def test_weights_take_caffes_shapes_from_the_layer_and_its_input(network: str) -> None:
    prototxt, tsv = CAFFE / f"{network}.prototxt", CAFFE / f"{network}.shapes.tsv"
    if not (prototxt.exists() and tsv.exists()):
        pytest.skip(f"reference models not found at {CAFFE} (../shared/models from the repo root)")
    graph = load_caffe(prototxt)
    expected = expected_weights(parse_net(prototxt), graph, read_reference_shapes(tsv))
    got = {n.name: n.outputs[0].shape for n in graph.nodes() if n.op_type == "Const"}
    assert expected, "the network has weighted layers"
    assert {name: got.get(name) for name in expected} == expected
    # Every weight is static now: the whole device pipeline runs.
    assert all(-1 not in shape for shape in got.values()), got
    opgraph.prepare(graph, "Ascend310")
    plan = opgraph.plan_memory(graph)
    weight_bytes = sum(4 * math.prod(shape) for shape in expected.values())
    assert plan.weights_bytes >= weight_bytes
    assert opgraph.estimate_cost(graph, "Ascend310").total_us > 0


def test_a_weight_that_disagrees_with_its_layer_is_an_error_naming_it(tmp_path: Path) -> None:
    # An InnerProduct whose input has 3 * 4 * 4 = 48 features, fed after a
    # Reshape the loader cannot see through: its blob is [10, ?]; a
    # convolution whose kernel says 3 but whose bottom has 3 channels and
    # group 2 cannot be completed either.
    prototxt = tmp_path / "groups.prototxt"
    prototxt.write_text(
        'name: "g" input: "data" input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n'
        'layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"\n'
        "  convolution_param { num_output: 4 kernel_size: 3 group: 2 } }\n"
    )
    with pytest.raises(opgraph.errors.OpgraphError, match="3 channels do not divide into 2 groups"):
        load_caffe(prototxt)


def test_a_file_that_is_not_this_nets_caffemodel_is_refused() -> None:
    # A TensorFlow GraphDef decodes as a NetParameter with no layers: it used
    # to be accepted silently as "no trained layers".
    prototxt = Path(__file__).parent / "data" / "decode_v1.prototxt"
    graph_def = Path(__file__).parents[1] / "tensorflow" / "data" / "model_convnet.pb"
    with pytest.raises(opgraph.errors.ParseError, match="blobs for none of the net's 2 weighted layers"):
        load_caffe(prototxt, graph_def)


def test_a_scale_by_a_second_bottom_with_a_bias_blob_loads_without_weights(tmp_path: Path) -> None:
    """Scale's factor is a weight blob, or data when it is a second bottom;
    only the bias blob is sized then (Caffe: ``[C]``)."""
    prototxt = tmp_path / "net.prototxt"
    prototxt.write_text(
        'input: "x" input_shape { dim: 1 dim: 8 dim: 4 dim: 4 }\n'
        'input: "f" input_shape { dim: 8 }\n'
        'layer { name: "s" type: "Scale" bottom: "x" bottom: "f" top: "s" scale_param { bias_term: true } }\n'
    )
    graph = load_caffe(prototxt)
    bias = graph.node("s").inputs[2]
    assert bias is not None and bias.shape == (8,)
