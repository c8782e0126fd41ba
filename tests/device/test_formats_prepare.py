"""``opgraph.prepare`` on real models (the TensorFlow fixtures and the
shared Caffe networks): every prepared graph passes the validity check,
convolutions read NC1HWC0 activations and FRACTAL_Z weights, TransData
only goes where a plain op meets a device format, and the precision
policy computes cube ops in fp16 without changing the graph's outputs."""

from __future__ import annotations

from pathlib import Path

import pytest
from formats_models import CAFFE_NETS, TF_MODELS, assert_valid_storage, caffe_net, dtypes, graphs, tf_model

import opgraph
from opgraph import DataType, DeviceError, Format, Graph

# Ops whose storage follows or asks for a device format (concatenations
# only do when channel blocks stay whole, so they are not listed).
FORMAT_AWARE = {
    "Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool", "Pooling", "BNInference", "Scale", "LRN",
    "Relu", "Relu6", "Mul", "AddV2", "Add", "Sub", "BiasAdd", "Eltwise", "MatMul", "FullyConnection",
    "Identity", "Cast",
}  # fmt: skip


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("formats_models")


def trans_data_nodes(graph: Graph) -> list[tuple[str, opgraph.Node]]:
    return [(prefix, n) for prefix, g in graphs(graph) for n in g.nodes() if n.op_type == "TransData"]


def neighbours(graph: Graph, node: opgraph.Node) -> tuple[str, list[str]]:
    """The op type feeding TransData ``node`` and the op types it feeds
    (``<output>`` for a graph output)."""
    source = node.input_sources[0]
    assert source is not None
    readers = [
        n.op_type for n in graph.nodes() if any(s is not None and s[0] == node.name for s in n.input_sources)
    ]
    readers += ["<output>" for out in graph.outputs if out.node == node.name]
    return graph.node(source[0]).op_type, readers


def check_report(graph: Graph, report: opgraph.PrepareReport) -> None:
    assert report.trans_data_inserted == len(trans_data_nodes(graph))
    outputs = sum(len(n.outputs) for _, g in graphs(graph) for n in g.nodes())
    assert sum(report.tensors_by_format.values()) == outputs
    assert report.graphs == sum(1 for _ in graphs(graph))


@pytest.mark.parametrize("name", TF_MODELS)
def test_tensorflow_models_are_prepared_consistently(name: str, workdir: Path) -> None:
    graph = tf_model(name, workdir)
    report = opgraph.prepare(graph, "Ascend910B1")
    assert report.soc == "Ascend910B1" and report.family == "Ascend910B"
    assert_valid_storage(graph, "Ascend910B1")
    check_report(graph, report)
    # Between two ops that can both work on device formats, no conversion.
    for prefix, g in graphs(graph):
        for td in (n for n in g.nodes() if n.op_type == "TransData"):
            source, readers = neighbours(g, td)
            assert source not in FORMAT_AWARE or any(r not in FORMAT_AWARE for r in readers), (
                f"{prefix}{td.name}: a TransData between {source} and {readers}"
            )


@pytest.mark.parametrize("network", CAFFE_NETS)
def test_caffe_networks_convert_only_at_their_ends(network: str) -> None:
    graph = caffe_net(network)
    report = opgraph.prepare(graph, "Ascend310")
    assert_valid_storage(graph, "Ascend310")
    check_report(graph, report)
    # The image into NC1HWC0 and the classifier's result out of its device
    # format: nothing in between.
    assert report.trans_data_inserted == 2
    ends = sorted(neighbours(graph, td)[0] for _, td in trans_data_nodes(graph))
    assert "Data" in ends
    weights = [n for n in graph.nodes() if n.op_type == "Const" and len(n.outputs[0].shape) == 4]
    assert weights and all(w.outputs[0].storage_format == Format.FRACTAL_Z for w in weights)
    assert report.weights_converted >= len(weights)


def test_resnet50_converts_six_times(workdir: Path) -> None:
    graph = tf_model("resnet50", workdir)
    report = opgraph.prepare(graph)
    # Pad → Conv2D and Pad → MaxPool (Pad works on ND), Relu → Pad, Relu →
    # Mean (global pooling as ReduceMean), Mean → MatMul (FRACTAL_NZ), and
    # the probabilities back to ND for the graph output (the Softmax over
    # the logits' last axis stays FRACTAL_NZ): every other tensor stays in
    # its device format.
    pairs = sorted(
        (src, tuple(dst)) for src, dst in (neighbours(graph, td) for _, td in trans_data_nodes(graph))
    )
    assert pairs == [
        ("Identity", ("<output>",)),
        ("Mean", ("MatMul",)),
        ("Pad", ("Conv2D",)),
        ("Pad", ("MaxPool",)),
        ("Relu", ("Mean",)),
        ("Relu", ("Pad",)),
    ]
    assert report.tensors_in(Format.FRACTAL_Z) == 53 * 2, "53 filters, each behind its Identity"
    # Batch norm folds into per-channel constants stored NC1HWC0 in place.
    bn = [n for n in graph.nodes() if n.name.endswith("batchnorm/sub")]
    assert len(bn) == 53
    assert all(n.outputs[0].storage_format == Format.NC1HWC0 for n in bn)


@pytest.mark.parametrize(("name", "caffe"), [("resnet50", False), ("googlenet", True), ("lstm", False)])
def test_fp32_to_fp16_computes_cube_ops_in_fp16(name: str, caffe: bool, workdir: Path) -> None:
    graph = caffe_net(name) if caffe else tf_model(name, workdir)
    before = dtypes(graph)
    outputs_before = [graph.desc(t).dtype for t in graph.outputs]
    report = opgraph.prepare(graph, allow_fp32_to_fp16=True)
    assert_valid_storage(graph)
    assert report.casts_inserted > 0 and report.weights_cast_to_fp16 > 0
    cube = ("Conv2D", "MatMul", "FullyConnection")
    for prefix, g in graphs(graph):
        for node in g.nodes():
            if node.op_type in cube:
                where = f"{prefix}{node.name}"
                assert node.outputs[0].dtype == DataType.FLOAT16, where
                for port in node.inputs[:2]:
                    assert port is not None and port.dtype == DataType.FLOAT16, where
    # Other nodes keep their dtypes, except weights (and their Identity
    # reads) that only cube ops read, now stored in fp16.
    changed = {
        n.name
        for n in graph.nodes()
        if n.name in before
        and n.op_type not in cube
        and [DataType(d.dtype) for d in n.outputs] != before[n.name]
    }
    for node in graph.nodes():
        for source in node.input_sources:
            if source is not None and source[0] in changed:
                assert node.op_type in cube or node.name in changed, (
                    f"{source[0]} is read in fp16 by {node.name}"
                )
    assert [graph.desc(t).dtype for t in graph.outputs] == outputs_before
    assert sum(1 for _, g in graphs(graph) for n in g.nodes() if n.op_type == "Cast") == report.casts_inserted


def test_fp16_weights_take_half_the_bytes(workdir: Path) -> None:
    plain, halved = tf_model("convnet", workdir), tf_model("convnet", workdir)
    opgraph.prepare(plain)
    opgraph.prepare(halved, allow_fp32_to_fp16=True)
    for node in plain.nodes():
        if node.op_type == "Const" and node.outputs[0].storage_format == Format.FRACTAL_Z:
            a, b = node.outputs[0], halved.node(node.name).outputs[0]
            assert b.dtype == DataType.FLOAT16 and a.dtype == DataType.FLOAT
            assert b.storage_shape == a.storage_shape, "fp32 and fp16 share C0 = 16"
            assert b.value is not None and a.value is not None
            assert b.value.nbytes * 2 == a.value.nbytes


def test_bodies_are_prepared(workdir: Path) -> None:
    graph = tf_model("lstm", workdir)
    report = opgraph.prepare(graph)
    assert report.graphs > 1
    in_bodies = [prefix for prefix, td in trans_data_nodes(graph) if prefix]
    assert in_bodies, "the While bodies' MatMuls convert to FRACTAL_NZ"
    assert_valid_storage(graph)


def test_errors_name_the_problem(workdir: Path) -> None:
    graph = opgraph.Graph("g")
    x = graph.add_input("x", DataType.FLOAT, [1, 3, 8, 8], Format.NCHW)
    graph.add_node("Relu", "relu", [x])
    with pytest.raises(DeviceError, match="'relu' output 0 has no dtype") as info:
        opgraph.prepare(graph)
    assert info.value.node == "relu"
    opgraph.infer(graph)
    with pytest.raises(DeviceError, match="known socs: Ascend310, "):
        opgraph.prepare(graph, "Ascend999")
    prepared = tf_model("convnet", workdir)
    opgraph.prepare(prepared)
    with pytest.raises(DeviceError, match="freshly inferred"):
        opgraph.prepare(prepared)


def test_a_graph_prepare_stopped_partway_on_is_unusable() -> None:
    # prepare works in place, so after an error past its up-front checks
    # (here a cycle made after inference) the graph may be partly prepared:
    # every later use says so instead of working on a half-stored graph.
    graph = opgraph.Graph("g")
    x = graph.add_input("x", DataType.FLOAT, [1, 16, 8, 8], Format.NCHW)
    add = graph.add_node("Add", "add", [x, x])
    relu = graph.add_node("Relu", "relu", [add])
    opgraph.infer(graph)
    graph.set_input("add", 1, relu)
    with pytest.raises(DeviceError, match="cycle through add -> relu -> add"):
        opgraph.prepare(graph)
    assert "may be partly prepared" in repr(graph)
    for later in (opgraph.prepare, opgraph.plan_memory, opgraph.estimate_cost):
        with pytest.raises(DeviceError, match="'g' is unusable: prepare stopped partway"):
            later(graph)


def test_a_broken_graph_fails_the_check(workdir: Path) -> None:
    graph = tf_model("convnet", workdir)
    opgraph.prepare(graph)
    assert opgraph.check_formats(graph) == []
    # Skip the TransData in front of the first convolution.
    conv = next(n for n in graph.nodes() if n.op_type == "Conv2D")
    source = conv.input_sources[0]
    assert source is not None
    td = graph.node(source[0])
    assert td.op_type == "TransData"
    plain = td.input_sources[0]
    assert plain is not None
    graph.set_input(conv.name, 0, graph.tensor(plain[0], plain[1]))
    problems = opgraph.check_formats(graph)
    assert len(problems) == 1
    assert conv.name in problems[0] and "needs NC1HWC0" in problems[0]
