"""Whole Caffe networks built from the nn ops (Conv2D, Pooling,
FullyConnection, LRN, ConcatD, BNInference, Scale, SoftmaxV2) and inferred
layer by layer; every layer's output shape must equal the blob shape OpenCV's
Caffe importer computed (``../shared/models/caffe/*.shapes.tsv``).

The prototxt is read with a few regular expressions — enough for these
files (one ``layer { … }`` block per layer, its type first, square kernels)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from nn_helpers import MODELS

import opgraph
from opgraph import DataType, Format, Graph, TensorRef

CAFFE = MODELS / "caffe"
NETWORKS = ["lenet", "alexnet", "googlenet", "squeezenet_v1_1", "mobilenet_v1"]


@dataclass
class Layer:
    name: str
    type: str
    bottoms: list[str]
    tops: list[str]
    text: str = field(repr=False)

    def int(self, key: str, default: int) -> int:
        m = re.search(rf"\b{key}:\s*(\d+)", self.text)
        return int(m.group(1)) if m else default

    def word(self, key: str) -> str | None:
        m = re.search(rf"\b{key}:\s*(\w+)", self.text)
        return m.group(1) if m else None


def _blocks(text: str) -> list[str]:
    """The bodies of the top-level ``layer { … }`` blocks."""
    out, depth, start = [], 0, 0
    for m in re.finditer(r"\blayer\s*\{|\{|\}", text):
        token = m.group(0)
        if token != "}":
            if depth == 0 and token.startswith("layer"):
                start = m.end()
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                out.append(text[start : m.start()])
    return out


def read_prototxt(path: Path) -> tuple[list[int], list[Layer]]:
    text = re.sub(r"#[^\n]*", "", path.read_text())
    input_dims = [int(d) for d in re.findall(r"^input_dim:\s*(\d+)", text, re.M)]
    layers = []
    for body in _blocks(text):
        name = re.search(r'name:\s*"([^"]+)"', body)
        kind = re.search(r'type:\s*"([^"]+)"', body)
        assert name and kind
        layer = Layer(
            name.group(1),
            kind.group(1),
            re.findall(r'bottom:\s*"([^"]+)"', body),
            re.findall(r'top:\s*"([^"]+)"', body),
            body,
        )
        if layer.type == "Input":
            input_dims = [int(d) for d in re.findall(r"dim:\s*(\d+)", body)]
        layers.append(layer)
    return input_dims, layers


def read_shapes(path: Path) -> dict[str, tuple[int, ...]]:
    rows = {}
    for line in path.read_text().splitlines():
        name, shapes = line.split("\t")
        rows[name] = tuple(ast.literal_eval(shapes)[0])
    return rows


class NetworkBuilder:
    """Adds one opgraph node per Caffe layer, inferring as it goes so the
    weight shapes can use the inferred input channels."""

    def __init__(self, input_dims: list[int]) -> None:
        self.graph = Graph("caffe")
        self.blobs: dict[str, TensorRef] = {
            "data": self.graph.add_input("data", DataType.FLOAT, input_dims, Format.NCHW)
        }

    def shape(self, blob: str) -> tuple[int, ...]:
        return self.graph.desc(self.blobs[blob]).shape

    def weight(self, name: str, shape: tuple[int, ...], fmt: Format = Format.NCHW) -> TensorRef:
        return self.graph.add_input(name, DataType.FLOAT, list(shape), fmt)

    def add(self, layer: Layer) -> TensorRef | None:
        x = self.blobs[layer.bottoms[0]] if layer.bottoms else None
        c = self.shape(layer.bottoms[0])[1] if layer.bottoms else 0
        kind, n = layer.type, layer.name
        if kind == "Input":
            return None
        if kind in ("ReLU", "Dropout"):
            out = self.graph.add_node("Identity", n, [x])
        elif kind == "Convolution":
            k, s, p, g = (
                layer.int("kernel_size", 1),
                layer.int("stride", 1),
                layer.int("pad", 0),
                layer.int("group", 1),
            )
            cout = layer.int("num_output", 0)
            w = self.weight(n + "/w", (cout, c // g, k, k))
            attrs = {"strides": [1, 1, s, s], "pads": [p] * 4, "groups": g, "data_format": "NCHW"}
            out = self.graph.add_node("Conv2D", n, [x, w], attrs)
        elif kind == "Pooling":
            k, s, p = layer.int("kernel_size", 1), layer.int("stride", 1), layer.int("pad", 0)
            attrs = {
                "mode": 1 if layer.word("pool") == "AVE" else 0,
                "global_pooling": layer.word("global_pooling") == "true",
                "window": [k, k],
                "stride": [s, s],
                "pad": [p] * 4,
            }
            out = self.graph.add_node("Pooling", n, [x], attrs)
        elif kind == "InnerProduct":
            cout = layer.int("num_output", 0)
            k = 1
            for d in self.shape(layer.bottoms[0])[1:]:
                k *= d
            w, b = self.weight(n + "/w", (cout, k), Format.ND), self.weight(n + "/b", (cout,), Format.ND)
            out = self.graph.add_node("FullyConnection", n, [x, w, b], {"num_output": cout})
        elif kind == "LRN":
            out = self.graph.add_node("LRN", n, [x], {"depth_radius": (layer.int("local_size", 5) - 1) // 2})
        elif kind == "Concat":
            ins = [self.blobs[b] for b in layer.bottoms]
            out = self.graph.add_node("ConcatD", n, [ins], {"concat_dim": 1, "N": len(ins)})
        elif kind == "Softmax":
            out = self.graph.add_node("SoftmaxV2", n, [x], {"axes": [1]})
        elif kind == "BatchNorm":
            mean, var = self.weight(n + "/mean", (c,)), self.weight(n + "/var", (c,))
            factor = self.weight(n + "/factor", (1,))
            out = self.graph.add_node("BNInference", n, [x, mean, var, factor])
        elif kind == "Scale":
            scale, bias = self.weight(n + "/s", (c,)), self.weight(n + "/b", (c,))
            out = self.graph.add_node("Scale", n, [x, scale, bias])
        else:
            raise AssertionError(f"layer type {kind} is not covered by this test")
        for top in layer.tops:
            self.blobs[top] = out
        opgraph.infer(self.graph)
        return out


@pytest.mark.parametrize("network", NETWORKS)
def test_caffe_network_blob_shapes_match_opencv(network: str) -> None:
    prototxt, tsv = CAFFE / f"{network}.prototxt", CAFFE / f"{network}.shapes.tsv"
    if not (prototxt.exists() and tsv.exists()):
        pytest.skip(f"reference models not found at {CAFFE} (../shared/models from the repo root)")
    input_dims, layers = read_prototxt(prototxt)
    expected = read_shapes(tsv)
    builder = NetworkBuilder(input_dims)
    checked = 0
    for layer in layers:
        out = builder.add(layer)
        if out is None or layer.name not in expected:
            continue
        assert builder.graph.desc(out).shape == expected[layer.name], layer.name
        checked += 1
    # Every non-input layer of the network has a reference row.
    assert checked == len([la for la in layers if la.type != "Input"]) == len(expected)
