"""Writes the Caffe decoder's fixtures (run by hand, not by the tests).

Nets are written as prototxt text and checked with the Python ``protobuf``
package's own text parser against opgraph's schema; weights are built as
NetParameter messages with seeded random blobs and serialized by it (packed
floats, as Caffe writes them, and one file with unpacked floats). The schema
comes from opgraph itself, as a FileDescriptorSet written by

    cargo run -p opgraph-core --example caffe_descriptor_set -- OUT [CUSTOM.proto ...]

(no protoc needed). Besides the nets and weights, ``decode_weights.json``
lists every blob's expected shape and float32 values for the Rust tests
(``frontend::caffe::tests``).

    /tmp/venv-caffe-decode/bin/python tests/caffe/generators/make_decode_models.py
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "caffe" / "data"

V1_NET = """\
# Legacy (V1) layers: enum types, blobs_lr/weight_decay, input + input_dim.
name: "V1Net"
input: "data"
input_dim: 2
input_dim: 3
input_dim: 8
input_dim: 8
layers {
  name: "conv1"
  type: CONVOLUTION
  bottom: "data"
  top: "conv1"
  blobs_lr: 1
  blobs_lr: 2
  weight_decay: 1
  weight_decay: 0
  convolution_param {
    num_output: 4
    pad: 1
    kernel_size: 3
    weight_filler { type: "gaussian" std: 0.01 }
  }
}
layers { name: "relu1" type: RELU bottom: "conv1" top: "conv1" }
layers {
  name: "pool1"
  type: POOLING
  bottom: "conv1"
  top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 }
}
layers {
  name: "drop1"
  type: DROPOUT
  bottom: "pool1"
  top: "pool1"
  dropout_param { dropout_ratio: 0.3 }
  include { phase: TRAIN }
}
layers { name: "fc" type: INNER_PRODUCT bottom: "pool1" top: "fc" inner_product_param { num_output: 5 } }
layers { name: "prob" type: SOFTMAX bottom: "fc" top: "prob" }
"""

PHASES_NET = """\
# include/exclude rules against the state (stage "deploy", level 2) in phase TEST.
name: "Phases"
state { phase: TRAIN level: 2 stage: "deploy" }
input: "data"
input_shape { dim: 1 dim: 3 dim: 4 dim: 4 }
layer { name: "train_only" type: "ReLU" bottom: "data" top: "t" include { phase: TRAIN } }
layer { name: "test_only" type: "ReLU" bottom: "data" top: "a" include { phase: TEST } }
layer { name: "not_in_test" type: "ReLU" bottom: "data" top: "b" exclude { phase: TEST } }
layer { name: "not_in_train" type: "Sigmoid" bottom: "a" top: "c" exclude { phase: TRAIN } }
layer { name: "deploy_stage" type: "TanH" bottom: "c" top: "d" include { stage: "deploy" } }
layer {
  name: "needs_two_stages"
  type: "TanH"
  bottom: "c"
  top: "e"
  include { stage: "deploy" stage: "other" }
}
layer { name: "not_deploy" type: "AbsVal" bottom: "c" top: "f" include { not_stage: "deploy" } }
layer { name: "level_ok" type: "BNLL" bottom: "d" top: "g" include { min_level: 1 max_level: 2 } }
layer { name: "level_too_low" type: "BNLL" bottom: "d" top: "h" include { min_level: 3 } }
layer {
  name: "either_rule"
  type: "Power"
  bottom: "g"
  top: "i"
  include { phase: TRAIN }
  include { stage: "deploy" }
}
layer {
  name: "excluded_by_one"
  type: "Power"
  bottom: "g"
  top: "j"
  exclude { phase: TRAIN }
  exclude { min_level: 2 }
}
"""

INPLACE_NET = """\
# An in-place chain (conv -> relu -> dropout, all on blob "x") and a Scale
# whose weights are double_data in the caffemodel.
name: "InPlace"
layer {
  name: "data"
  type: "Input"
  top: "data"
  input_param { shape { dim: 1 dim: 2 dim: 5 dim: 5 } }
}
layer {
  name: "conv"
  type: "Convolution"
  bottom: "data"
  top: "x"
  convolution_param { num_output: 3 kernel_size: 3 }
}
layer { name: "relu" type: "ReLU" bottom: "x" top: "x" relu_param { negative_slope: 0.1 } }
layer { name: "drop" type: "Dropout" bottom: "x" top: "x" }
layer { name: "scale" type: "Scale" bottom: "x" top: "y" scale_param { bias_term: true } }
layer {
  name: "sum"
  type: "Eltwise"
  bottom: "x"
  bottom: "y"
  top: "sum"
  eltwise_param { operation: SUM coeff: 1 coeff: -1 }
}
"""

SLICE_NET = """\
# Several tops: an Input layer with two tops sharing one shape, a Slice with three.
name: "Slices"
layer {
  name: "inputs"
  type: "Input"
  top: "a"
  top: "b"
  input_param { shape { dim: 2 dim: 6 dim: 3 } }
}
layer {
  name: "split"
  type: "Slice"
  bottom: "a"
  top: "s0"
  top: "s1"
  top: "s2"
  slice_param { axis: 1 slice_point: 1 slice_point: 4 }
}
layer { name: "cat" type: "Concat" bottom: "s2" bottom: "s0" bottom: "b" top: "cat" concat_param { axis: 1 } }
"""

INPUT_DIM_NET = """\
name: "InputDim"
input: "a"
input: "b"
input_dim: 1
input_dim: 3
input_dim: 8
input_dim: 8
input_dim: 2
input_dim: 1
input_dim: 4
input_dim: 4
layer { name: "sum" type: "Eltwise" bottom: "a" bottom: "b" top: "sum" }
"""

INPUT_SHAPE_NET = """\
# input + input_shape, and an Input layer with one shape per top.
name: "InputShape"
input: "img"
input_shape { dim: 1 dim: 3 dim: 6 dim: 6 }
layer {
  name: "extra"
  type: "Input"
  top: "p"
  top: "q"
  input_param { shape { dim: 2 } shape { dim: 3 dim: 4 } }
}
layer { name: "relu" type: "ReLU" bottom: "img" top: "r" }
"""

CUSTOM_NET = """\
# Layers of custom_a.proto and custom_b.proto, merged in that order.
name: "Custom"
input: "data"
input_shape { dim: 1 dim: 4 }
layer {
  name: "mine"
  type: "MyLayer"
  bottom: "data"
  top: "mine"
  my_layer_param {
    boxes { x: 1 y: 2 mode: FAST }
    boxes { x: 3.5 y: -1 }
    window { corner { x: 9 mode: FAST } }
    ratio: 0.1
    big: 9223372036854775807
    bigs: 1
    bigs: 18
    tags: "a"
    tags: "b"
    payload: "\\377ok"
    filler { type: "gaussian" std: 0.5 }
    modes: FAST
    modes: EXACT
  }
}
layer { name: "clash" type: "Clash" bottom: "mine" top: "clash" clash_param { level: 7 } }
layer { name: "pool" type: "CustomPool" bottom: "clash" top: "pool" pooling_param { window: 2 } }
layer { name: "drop" type: "Dropout" bottom: "pool" top: "pool" dropout_param { } }
layer { name: "second" type: "Second" bottom: "pool" top: "second" second_param { clash { note: "hi" } } }
"""

CUSTOM_A = """\
// A custom proto in GE's style, merged first.
syntax = "proto2";
package caffe;

message LayerParameter {
  optional MyLayerParameter my_layer_param = 1000;
  // Its own number: taking a caffe.proto number (106 is convolution_param)
  // is an error, not a silent replacement.
  optional ClashParameter clash_param = 1003;
  // caffe.proto's pooling_param (121) goes: the name clashes.
  optional CustomPoolingParameter pooling_param = 1001;
}

message MyLayerParameter {
  enum Mode {
    FAST = 0;
    EXACT = 1;
  }
  message Box {
    optional float x = 1;
    optional float y = 2;
    optional Mode mode = 3;
  }
  message Window {
    optional uint32 size = 1 [default = 3];
    optional Box corner = 2;
  }
  repeated Box boxes = 1;
  optional Window window = 2;
  optional double ratio = 3 [default = 0.5];
  optional uint64 big = 4;
  repeated uint64 bigs = 5;
  optional Mode mode = 6 [default = EXACT];
  repeated string tags = 7;
  optional bytes payload = 8;
  // A caffe.proto type, visible without an import.
  optional FillerParameter filler = 9;
  repeated Mode modes = 10;
  optional int64 offset = 11 [default = -7];
}

message ClashParameter {
  optional int32 level = 1 [default = 2];
}

message CustomPoolingParameter {
  optional string method = 1 [default = "max"];
  optional uint32 window = 2;
}

// Replaces caffe.proto's DropoutParameter: another default, a new field.
message DropoutParameter {
  optional float dropout_ratio = 1 [default = 0.25];
  optional bool scale_train = 2 [default = true];
}
"""

CUSTOM_B = """\
// Merged after custom_a.proto; declared in GE's package, which is ignored.
syntax = "proto2";
package domi.caffe;

message LayerParameter {
  optional SecondParameter second_param = 1002;
}

// Replaces custom_a.proto's ClashParameter: the later proto wins.
message ClashParameter {
  optional int32 level = 1 [default = 5];
  optional string note = 2;
}

message SecondParameter {
  optional .domi.caffe.ClashParameter clash = 1;
  optional double gain = 2 [default = 1.5];
}
"""


def descriptor_set(customs: list[Path]) -> descriptor_pb2.FileDescriptorSet:
    """opgraph's compiled schema, with `customs` merged in."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "caffe.pb"
        subprocess.run(
            [
                "cargo",
                "run",
                "-q",
                "-p",
                "opgraph-core",
                "--example",
                "caffe_descriptor_set",
                "--",
                str(out),
                *map(str, customs),
            ],
            cwd=ROOT,
            check=True,
        )
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def net_class(fds: descriptor_pb2.FileDescriptorSet, *, packed: bool = True) -> Any:
    """The NetParameter class of `fds`; with `packed=False`, blob values are
    written unpacked (one tagged float each), as very old writers did."""
    fds = descriptor_pb2.FileDescriptorSet.FromString(fds.SerializeToString())
    if not packed:
        for file in fds.file:
            for message in file.message_type:
                if message.name == "BlobProto":
                    for field in message.field:
                        if field.name in ("data", "double_data"):
                            field.options.packed = False
    pool = descriptor_pool.DescriptorPool()
    for file in fds.file:
        pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("caffe.NetParameter"))


def parse(net_cls: Any, text: str) -> Any:
    net = net_cls()
    text_format.Parse(text, net)
    return net


class Weights:
    """Seeded blobs, recorded for the expectations file."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.expected: dict[str, list[dict[str, Any]]] = {}

    def blob(
        self, layer: Any, name: str, shape: tuple[int, ...], *, legacy: bool = False, double: bool = False
    ) -> None:
        values = self.rng.standard_normal(shape)
        blob = layer.blobs.add()
        if legacy:
            padded = (1,) * (4 - len(shape)) + shape
            blob.num, blob.channels, blob.height, blob.width = padded
        else:
            blob.shape.dim.extend(shape)
        if double:
            blob.double_data.extend(values.ravel().tolist())
        else:
            values = values.astype(np.float32)
            blob.data.extend(values.ravel().tolist())
        expected = [float(v) for v in values.astype(np.float32).ravel()]
        self.expected.setdefault(name, []).append({"shape": list(shape), "values": expected})


def write(name: str, content: bytes | str) -> None:
    path = DATA / name
    if isinstance(content, str):
        path.write_text(content)
    else:
        path.write_bytes(content)
    print(path.relative_to(ROOT), path.stat().st_size, "bytes")


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    builtin = descriptor_set([])
    net_cls = net_class(builtin)
    expectations: dict[str, dict[str, list[dict[str, Any]]]] = {}

    for name, text in [
        ("decode_v1.prototxt", V1_NET),
        ("decode_phases.prototxt", PHASES_NET),
        ("decode_inplace.prototxt", INPLACE_NET),
        ("decode_slice.prototxt", SLICE_NET),
        ("decode_input_dim.prototxt", INPUT_DIM_NET),
        ("decode_input_shape.prototxt", INPUT_SHAPE_NET),
    ]:
        parse(net_cls, text)  # protobuf's own text parser agrees it is valid
        write(name, text)

    # V1 weights: in the legacy `layers` field with legacy 4-D shapes
    # ([1, 1, N, K] for InnerProduct, as old Caffe wrote them), plus a layer
    # the net does not have.
    weights = Weights(seed=1)
    net = parse(net_cls, V1_NET)
    by_name = {layer.name: layer for layer in net.layers}
    weights.blob(by_name["conv1"], "conv1", (4, 3, 3, 3), legacy=True)
    weights.blob(by_name["conv1"], "conv1", (4,), legacy=True)
    weights.blob(by_name["fc"], "fc", (5, 64), legacy=True)
    weights.blob(by_name["fc"], "fc", (5,), legacy=True)
    stale = net.layers.add(name="old_loss")
    stale.blobs.add().data.extend([1.0, 2.0])
    write("decode_v1.caffemodel", net.SerializeToString())
    expectations["decode_v1.caffemodel"] = weights.expected

    # In-place net: packed floats, then the same blobs unpacked.
    for packed, file in [(True, "decode_inplace.caffemodel"), (False, "decode_inplace_unpacked.caffemodel")]:
        weights = Weights(seed=2)
        net = parse(net_class(builtin, packed=packed), INPLACE_NET)
        by_name = {layer.name: layer for layer in net.layer}
        weights.blob(by_name["conv"], "conv", (3, 2, 3, 3))
        weights.blob(by_name["conv"], "conv", (3,))
        weights.blob(by_name["scale"], "scale", (3,), double=True)
        weights.blob(by_name["scale"], "scale", (3,))
        write(file, net.SerializeToString())
        expectations[file] = weights.expected

    # Malformed weights for the error tests: conv's weight blob declares
    # [3, 2, 3, 3] (54 values) but holds 53.
    net = parse(net_cls, INPLACE_NET)
    conv = next(layer for layer in net.layer if layer.name == "conv")
    blob = conv.blobs.add()
    blob.shape.dim.extend([3, 2, 3, 3])
    blob.data.extend([0.5] * 53)
    write("decode_bad_blob.caffemodel", net.SerializeToString())

    # Custom protos: the schema merged from both, the net, weights for the
    # custom layer (no table of blob shapes knows it).
    write("decode_custom_a.proto", CUSTOM_A)
    write("decode_custom_b.proto", CUSTOM_B)
    custom_cls = net_class(descriptor_set([DATA / "decode_custom_a.proto", DATA / "decode_custom_b.proto"]))
    net = parse(custom_cls, CUSTOM_NET)
    write("decode_custom.prototxt", CUSTOM_NET)
    weights = Weights(seed=3)
    mine = next(layer for layer in net.layer if layer.name == "mine")
    weights.blob(mine, "mine", (4, 4))
    weights.blob(mine, "mine", (2, 2, 2))
    write("decode_custom.caffemodel", net.SerializeToString())
    expectations["decode_custom.caffemodel"] = weights.expected

    write("decode_weights.json", json.dumps(expectations, indent=1) + "\n")


if __name__ == "__main__":
    main()
