"""Writes ``tests/caffe/data/ssd_tiny.shapes.tsv``: the blob shapes an
independent Caffe implementation (OpenCV's Caffe importer, which implements
Caffe-SSD's Normalize, Permute, PriorBox and DetectionOutput layers) computes
for the SSD example ``python/opgraph/examples/ssd_layers/net.prototxt``. Run
by hand, with ``opencv-python-headless`` (4.12) installed::

    python tests/caffe/generators/make_ssd_shapes.py

OpenCV needs weights to size a convolution, so zero-filled blobs of the
right shapes are written to a temporary ``.caffemodel`` first (with the
Python ``protobuf`` package on opgraph's own Caffe schema, as
make_example_lenet.py does). Format as in the shared reference models: one
line per layer, ``name<TAB>list of its output shapes``."""

from __future__ import annotations

import tempfile
from pathlib import Path

import cv2
import numpy as np
from make_decode_models import ROOT, descriptor_set, net_class

NET = ROOT / "python" / "opgraph" / "examples" / "ssd_layers" / "net.prototxt"
OUT = ROOT / "tests" / "caffe" / "data" / "ssd_tiny.shapes.tsv"
INPUT_SHAPE = [1, 3, 64, 64]

# name, blob shapes (Caffe's: convolution weights [out, in, kh, kw] and bias
# [out]; Normalize's scale [channels] when not channel_shared)
BLOBS: list[tuple[str, list[tuple[int, ...]]]] = [
    ("conv1", [(16, 3, 3, 3), (16,)]),
    ("conv1_norm", [(16,)]),
    ("conv2", [(32, 16, 3, 3), (32,)]),
    ("conv1_norm_mbox_loc", [(16, 16, 3, 3), (16,)]),
    ("conv1_norm_mbox_conf", [(12, 16, 3, 3), (12,)]),
    ("conv2_mbox_loc", [(24, 32, 3, 3), (24,)]),
    ("conv2_mbox_conf", [(18, 32, 3, 3), (18,)]),
]


def zero_weights() -> bytes:
    net = net_class(descriptor_set([]))()
    for name, shapes in BLOBS:
        layer = net.layer.add()
        layer.name = name
        for shape in shapes:
            blob = layer.blobs.add()
            blob.shape.dim.extend(shape)
            blob.data.extend(np.zeros(int(np.prod(shape)), np.float32).tolist())
    data: bytes = net.SerializeToString()
    return data


def shapes() -> list[tuple[str, list[list[int]]]]:
    with tempfile.TemporaryDirectory() as tmp:
        weights = Path(tmp) / "ssd_tiny.caffemodel"
        weights.write_bytes(zero_weights())
        net = cv2.dnn.readNetFromCaffe(str(NET), str(weights))
        ids, _, outputs = net.getLayersShapes(INPUT_SHAPE)
        names = net.getLayerNames()
        return [
            (names[int(i) - 1], [[int(d) for d in np.asarray(o).ravel()] for o in outs])
            for i, outs in zip(np.asarray(ids).ravel(), outputs, strict=True)
            if int(i) > 0
        ]


def main() -> None:
    lines = [f"{name}\t{dims}" for name, dims in shapes()]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT} ({len(lines)} layers)")


if __name__ == "__main__":
    main()
