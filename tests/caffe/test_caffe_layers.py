"""Every built-in Caffe layer through ``opgraph.load_caffe``: the hand-written
net ``data/layers_zoo.prototxt`` uses each layer type opgraph maps, in the
spellings and modes Caffe accepts, and each top's shape below is worked out
by hand from Caffe's layer rules (the arithmetic is in the comments). Also
the weight blobs a layer has without a weights file, and the legacy V1 form
with its weights."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from caffe_helpers import DATA, net, output_shapes

from opgraph import Graph, load_caffe
from opgraph.caffe import registered_plugins

ZOO = net("layers_zoo")

IN = (2, 6, 9, 11)
"""The zoo's input: N 2, C 6, H 9, W 11."""

# Convolution: out = (in + 2 pad - (dilation (k - 1) + 1)) // stride + 1.
# Deconvolution: out = stride (in - 1) + dilation (k - 1) + 1 - 2 pad.
# Pooling: out = ceil((in + 2 pad - k) / stride) + 1 (floor with round_mode
# FLOOR), one less when the last window would start in the padding:
# (out - 1) stride >= in + pad.
EXPECTED: dict[str, tuple[str, list[tuple[int, ...]]]] = {
    # Input layer tops: one graph input per top, shaped by input_param.
    "data": ("Data", [IN]),
    "ref": ("Data", [(1, 1, 5, 7)]),
    "chan": ("Data", [(6, 9)]),
    # H (9 + 2 - 3) // 2 + 1 = 5, W (11 + 2 - 3) // 2 + 1 = 6.
    "conv_pad": ("Conv2D", [(2, 4, 5, 6)]),
    # H (9 - 3) // 2 + 1 = 4, W (11 + 4 - 1) // 1 + 1 = 15.
    "conv_hw": ("Conv2D", [(2, 3, 4, 15)]),
    # kernel (3, 5), stride (1, 2): H 9 - 3 + 1 = 7, W (11 - 5) // 2 + 1 = 4.
    "conv_pairs": ("Conv2D", [(2, 2, 7, 4)]),
    # extent 2 (3 - 1) + 1 = 5: H 9 + 4 - 5 + 1 = 9, W 11 + 4 - 5 + 1 = 11.
    "conv_group_dilated": ("Conv2D", [(2, 6, 9, 11)]),
    # H 2 (9 - 1) + 4 - 2 = 18, W 2 (11 - 1) + 4 - 2 = 22.
    "deconv": ("Deconvolution", [(2, 4, 18, 22)]),
    # H ceil(6 / 2) + 1 = 4, W ceil(8 / 2) + 1 = 5.
    "pool_max": ("Pooling", [(2, 6, 4, 5)]),
    # H ceil(8 / 2) + 1 = 5 (4 * 2 < 10), W ceil(10 / 2) + 1 = 6 (5 * 2 < 12).
    "pool_ave": ("Pooling", [(2, 6, 5, 6)]),
    # H ceil(9 / 2) + 1 = 6, clipped (5 * 2 >= 10) to 5; W ceil(11 / 2) + 1 = 7,
    # clipped (6 * 2 >= 12) to 6.
    "pool_clip": ("Pooling", [(2, 6, 5, 6)]),
    # H ceil(7 / 1) + 1 = 8, W ceil(8 / 3) + 1 = 4.
    "pool_hw": ("Pooling", [(2, 6, 8, 4)]),
    # H ceil(6 / 3) + 1 = 3, W ceil(8 / 3) + 1 = 4.
    "pool_stochastic": ("Pooling", [(2, 6, 3, 4)]),
    # H floor(7 / 2) + 1 = 4, W floor(9 / 2) + 1 = 5 (ceil would give 5, 6).
    "pool_floor": ("Pooling", [(2, 6, 4, 5)]),
    "pool_global": ("Pooling", [(2, 6, 1, 1)]),
    # InnerProduct flattens from `axis`: [N, num_output], [N, C, num_output].
    "ip": ("FullyConnection", [(2, 7)]),
    "ip_axis": ("FullyConnection", [(2, 6, 5)]),
    "ip_transposed": ("FullyConnection", [(2, 3)]),
    # Element-wise, in place on "act": each layer is its own node.
    "abs": ("Abs", [IN]),
    "relu": ("LeakyRelu", [IN]),
    "prelu": ("PRelu", [IN]),
    "sigmoid": ("Sigmoid", [IN]),
    "tanh": ("Tanh", [IN]),
    "elu": ("Elu", [IN]),
    "power": ("Power", [IN]),
    "exp": ("Exp", [IN]),
    "log": ("Log", [IN]),
    "bnll": ("BNLL", [IN]),
    "threshold": ("Threshold", [IN]),
    "drop": ("Identity", [IN]),
    "bn": ("BNInference", [IN]),
    "scale": ("Scale", [IN]),
    # A second bottom [6, 9] scales (or shifts) dims 1 and 2.
    "scale_by": ("Scale", [IN]),
    "bias": ("Bias", [IN]),
    "bias_by": ("Bias", [IN]),
    "lrn": ("LRN", [IN]),
    "lrn_within": ("LRN", [IN]),
    "mvn": ("MVN", [IN]),
    "softmax": ("SoftmaxV2", [IN]),
    "softmax_w": ("SoftmaxV2", [IN]),
    # Channels 4 + 6 = 10; W 6 + 6 = 12 (legacy concat_dim 3).
    "concat": ("ConcatD", [(2, 10, 5, 6)]),
    "concat_w": ("ConcatD", [(2, 6, 5, 12)]),
    "prod": ("Eltwise", [IN]),
    "sum": ("Eltwise", [IN]),
    "max": ("Eltwise", [IN]),
    # Points 2, 5 on 6 channels: 2, 3, 1; no points: 9 rows in 3 equal parts.
    "slice": ("SplitVD", [(2, 2, 9, 11), (2, 3, 9, 11), (2, 1, 9, 11)]),
    "slice_h": ("SplitD", [(2, 6, 3, 11)] * 3),
    "split": ("PartitionedCall", [IN, IN]),
    # 6 * 9 * 11 = 594; 9 * 11 = 99.
    "flatten": ("FlattenV2", [(2, 594)]),
    "flatten_hw": ("FlattenV2", [(2, 6, 99)]),
    # dim 0 copies N; -1 is 594 / 11 = 54.
    "reshape": ("PartitionedCall", [(2, 54, 11)]),
    # axis 1, num_axes 1: C 6 becomes 3 x 2.
    "reshape_part": ("PartitionedCall", [(2, 3, 2, 9, 11)]),
    # Dims from axis 2 take ref's 5 x 7 (offsets 1, 2 fit in 9, 11).
    "crop": ("Crop", [(2, 6, 5, 7)]),
    "tile": ("TileWithAxis", [(2, 18, 9, 11)]),
    # No axis: [N, 1 (2 with out_max_val), top_k], padded with 1s to the
    # bottom's rank; with an axis, that axis becomes top_k.
    "argmax": ("ArgMaxWithK", [(2, 1, 2)] * 2),
    "argmax_val": ("ArgMaxWithK", [(2, 2, 2)] * 2),
    "argmax_4d": ("ArgMaxWithK", [(2, 1, 3, 1)] * 2),
    "argmax_axis": ("ArgMaxWithK", [(2, 1, 9, 11)] * 2),
    # Reduction keeps the dims before `axis`.
    "reduce_all": ("Reduction", [()]),
    "reduce_mean": ("Reduction", [(2, 6)]),
}

# Without a weights file, the blobs keep what the parameters say (-1 where
# only the bottoms would tell): filters [num_output, C_in / group, kh, kw],
# Deconvolution's [C_in, num_output / group, kh, kw], InnerProduct's
# [num_output, K] ([K, num_output] transposed), per-channel vectors.
BLOBS: dict[str, list[tuple[int, ...]]] = {
    "conv_pad": [(4, -1, 3, 3), (4,)],
    "conv_hw": [(3, -1, 3, 1)],
    "conv_pairs": [(2, -1, 3, 5), (2,)],
    "deconv": [(-1, 2, 4, 4), (4,)],
    "ip_axis": [(5, -1), (5,)],
    "ip_transposed": [(-1, 3), (3,)],
    "prelu": [(-1,)],
    "bn": [(-1,), (-1,), (1,)],
    "scale": [(-1,), (-1,)],
    "bias": [(-1,)],
    "scale_by": [],
    "bias_by": [],
}

#: The same blobs once inference has seen each layer's input (IN: 6
#: channels, 9 x 11), as Caffe's LayerSetUp sizes them: the -1 dims filled.
COMPLETED_BLOBS: dict[str, list[tuple[int, ...]]] = {
    "conv_pad": [(4, 6, 3, 3), (4,)],
    "conv_hw": [(3, 6, 3, 1)],
    "conv_pairs": [(2, 6, 3, 5), (2,)],
    # Deconvolution: [C_in, num_output / group, kh, kw].
    "deconv": [(6, 2, 4, 4), (4,)],
    # InnerProduct: K is the product of the input dims from axis (2: 9 * 11; 1: 6 * 9 * 11).
    "ip_axis": [(5, 99), (5,)],
    "ip_transposed": [(594, 3), (3,)],
    "prelu": [(6,)],
    "bn": [(6,), (6,), (1,)],
    "scale": [(6,), (6,)],
    "bias": [(6,)],
    "scale_by": [],
    "bias_by": [],
}


def load_zoo() -> Graph:
    return load_caffe(ZOO)


def test_every_layer_has_the_shapes_caffe_gives_it() -> None:
    graph = load_zoo()
    layers = {n.name for n in graph.nodes() if n.op_type != "Const"}
    assert layers == set(EXPECTED)
    got = {name: (graph.node(name).op_type, output_shapes(graph, name)) for name in EXPECTED}
    wrong = {name: (got[name], want) for name, want in EXPECTED.items() if got[name] != want}
    assert not wrong, f"(ours, Caffe's): {wrong}"


def test_the_zoo_uses_every_built_in_layer_type() -> None:
    used = set(re.findall(r'type: "(\w+)"', ZOO.read_text()))
    builtin = {p.origin_op_type for p in registered_plugins() if p.builtin}
    # Placeholder and Const are the decoder's net inputs and weight blobs.
    assert builtin - used == {"Placeholder", "Const"}


@pytest.mark.parametrize(("infer", "expected"), [(False, BLOBS), (True, COMPLETED_BLOBS)])
def test_weight_blobs_without_a_weights_file_have_their_parameter_shapes(
    infer: bool, expected: dict[str, list[tuple[int, ...]]]
) -> None:
    """Loaded, the blobs have the shapes the parameters give; inferred, also
    what the layer's input gives."""
    graph = load_caffe(ZOO, infer=infer)
    for layer, shapes in expected.items():
        sources = graph.node(layer).input_sources
        blobs = [s[0] for s in sources if s is not None and s[0].startswith(f"{layer}/blobs/")]
        assert blobs == [f"{layer}/blobs/{i}" for i in range(len(shapes))], layer
        assert [output_shapes(graph, blob)[0] for blob in blobs] == shapes, layer
        assert all(graph.node(blob).outputs[0].value is None for blob in blobs), layer


def test_layer_parameters_reach_the_ir_ops() -> None:
    graph = load_zoo()
    attrs = {name: graph.node(name).attrs for name in EXPECTED}
    assert attrs["relu"]["alpha"] == np.float32(0.1)
    assert (attrs["power"]["power"], attrs["power"]["scale"], attrs["power"]["shift"]) == (2.0, 0.5, 1.0)
    assert attrs["exp"]["base"] == 2.0 and attrs["log"]["base"] == -1.0
    assert attrs["elu"]["alpha"] == 0.5 and attrs["threshold"]["threshold"] == 0.5
    assert attrs["conv_group_dilated"]["groups"] == 3
    assert attrs["conv_group_dilated"]["dilations"] == [1, 1, 2, 2]
    assert attrs["conv_hw"]["pads"] == [0, 0, 2, 2] and attrs["conv_hw"]["strides"] == [1, 1, 2, 1]
    assert attrs["pool_stochastic"]["mode"] == 2 and attrs["pool_floor"]["ceil_mode"] == 1
    assert attrs["sum"]["coeff"] == [1.0, -1.0, 0.5] and attrs["prod"]["mode"] == 0
    assert attrs["lrn_within"]["norm_region"] == "WITHIN_CHANNEL"
    # Caffe's LRN scales the sum of squares by alpha / local_size.
    assert attrs["lrn"]["alpha"] == pytest.approx(0.0001 / 5) and attrs["lrn"]["depth_radius"] == 2
    assert attrs["reduce_mean"]["operation"] == 4 and attrs["reduce_mean"]["coeff"] == 0.5
    assert attrs["bn"]["epsilon"] == np.float32(0.001)
    assert attrs["softmax_w"]["axes"] == [-1]


def test_v1_layers_load_with_their_weights() -> None:
    graph = load_caffe(net("decode_v1"), DATA / "decode_v1.caffemodel")
    shapes = {n.name: (n.op_type, output_shapes(graph, n.name)) for n in graph.nodes()}
    # conv1 pad 1, k 3: 8 -> 8; pool1 MAX 2/2: 8 -> 4; fc: 4 * 4 * 4 = 64 -> 5.
    # drop1 is TRAIN-only.
    assert shapes == {
        "data": ("Data", [(2, 3, 8, 8)]),
        "conv1/blobs/0": ("Const", [(4, 3, 3, 3)]),
        "conv1/blobs/1": ("Const", [(4,)]),
        "conv1": ("Conv2D", [(2, 4, 8, 8)]),
        "relu1": ("Relu", [(2, 4, 8, 8)]),
        "pool1": ("Pooling", [(2, 4, 4, 4)]),
        "fc/blobs/0": ("Const", [(5, 64)]),
        "fc/blobs/1": ("Const", [(5,)]),
        "fc": ("FullyConnection", [(2, 5)]),
        "prob": ("SoftmaxV2", [(2, 5)]),
    }
    # The legacy [1, 1, 5, 64] blob, read as InnerProduct's [5, 64].
    recorded = json.loads((DATA / "decode_weights.json").read_text())["decode_v1.caffemodel"]["fc"]
    value = graph.node("fc/blobs/0").outputs[0].value
    assert value is not None
    np.testing.assert_array_equal(value, np.array(recorded[0]["values"], np.float32).reshape(5, 64))
