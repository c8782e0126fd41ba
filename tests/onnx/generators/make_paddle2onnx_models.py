"""Builds the Paddle2ONNX part of the ONNX conformance corpus: PaddlePaddle
models with seeded random weights (``pretrained=False``, and PaddleOCR-style
text detection and recognition networks written here from the layers
Paddle ships), exported by ``paddle.onnx.export`` (Paddle2ONNX, with the
constant folding it runs by default), recorded and stored by
``onnx_record.write_entry``::

    /work/venv_paddle/bin/python tests/onnx/generators/make_paddle2onnx_models.py [--only NAME ...]

Paddle2ONNX names each free dim ``DynamicDimension.N`` itself; the models
keep those names, and the records size them by position. With Paddle 3.3
(its PIR programs) Paddle2ONNX 2.1 cannot export an interpolation by
``scale_factor`` (``the 0th elementwise MUST be ir::FloatAttribute``), so
the detector's FPN upsamples to the finer level's size instead.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import paddle
import paddle2onnx
from paddle import nn
from paddle.nn import functional as F
from paddle.static import InputSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from onnx_record import dims_of, graph_inputs, write_entry


class ConvBnAct(nn.Sequential):  # type: ignore[misc]  # paddle has no type information
    def __init__(self, cin: int, cout: int, kernel: int = 3, stride: int = 1) -> None:
        super().__init__(
            nn.Conv2D(cin, cout, kernel, stride, padding=kernel // 2, bias_attr=False),
            nn.BatchNorm2D(cout),
            nn.ReLU(),
        )


class TextDetector(nn.Layer):  # type: ignore[misc]  # paddle has no type information
    """A DB (differentiable binarization) text detector as PaddleOCR builds
    it: a backbone with four stride-2 stages, an FPN that upsamples each
    level by nearest neighbour to the finer one's size and adds it, every
    level brought to 1/4 and concatenated, and a head of a 3x3 conv and two
    transposed convs back to the input size with a sigmoid."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = ConvBnAct(3, 16, stride=2)
        # Taps at 1/4, 1/8, 1/16 and 1/32 of the input.
        widths = [16, 24, 40, 96, 160]
        self.stages = nn.LayerList(
            [
                nn.Sequential(
                    ConvBnAct(widths[i], widths[i + 1], stride=2), ConvBnAct(widths[i + 1], widths[i + 1])
                )
                for i in range(4)
            ]
        )
        self.lateral = nn.LayerList([nn.Conv2D(w, 64, 1, bias_attr=False) for w in widths[1:]])
        self.smooth = nn.LayerList([nn.Conv2D(64, 16, 3, padding=1, bias_attr=False) for _ in widths[1:]])
        self.head = nn.Sequential(
            ConvBnAct(64, 16),
            nn.Conv2DTranspose(16, 16, 2, stride=2),
            nn.BatchNorm2D(16),
            nn.ReLU(),
            nn.Conv2DTranspose(16, 1, 2, stride=2),
            nn.Sigmoid(),
        )

    def forward(self, x: paddle.Tensor) -> paddle.Tensor:
        x = self.stem(x)
        taps = []
        for stage in self.stages:
            x = stage(x)
            taps.append(x)
        # Indexed, not zipped: Paddle's dy2static rewrites zip() without strict=.
        laterals = [self.lateral[i](taps[i]) for i in range(len(taps))]
        for i in range(len(laterals) - 1, 0, -1):
            finer = laterals[i - 1]
            laterals[i - 1] = finer + F.interpolate(laterals[i], size=finer.shape[2:], mode="nearest")
        levels = [self.smooth[i](laterals[i]) for i in range(len(laterals))]
        quarter = levels[0].shape[2:]
        levels = [levels[0]] + [F.interpolate(level, size=quarter, mode="nearest") for level in levels[1:]]
        return self.head(paddle.concat(levels, axis=1))


class TextRecognizer(nn.Layer):  # type: ignore[misc]  # paddle has no type information
    """A CRNN text recognizer as PaddleOCR builds it: convs that bring a
    32-pixel-high line to height 1 and its width to 1/4, the width as the
    sequence, a two-layer bidirectional LSTM and a per-step classifier with
    softmax over the character set."""

    def __init__(self, classes: int = 97) -> None:
        super().__init__()
        self.convs = nn.Sequential(
            ConvBnAct(3, 32),
            nn.MaxPool2D(2, 2),
            ConvBnAct(32, 64),
            nn.MaxPool2D(2, 2),
            ConvBnAct(64, 96),
            nn.MaxPool2D((2, 1), (2, 1)),
            ConvBnAct(96, 128),
            nn.MaxPool2D((2, 1), (2, 1)),
            ConvBnAct(128, 128),
            nn.MaxPool2D((2, 1), (2, 1)),
        )
        self.lstm = nn.LSTM(128, 48, num_layers=2, direction="bidirect")
        self.classify = nn.Linear(96, classes)

    def forward(self, x: paddle.Tensor) -> paddle.Tensor:
        x = self.convs(x).squeeze(axis=2)  # [batch, channels, width]
        x = x.transpose([0, 2, 1])
        x, _ = self.lstm(x)
        return F.softmax(self.classify(x), axis=2)


class TextClassifier(nn.Layer):  # type: ignore[misc]  # paddle has no type information
    """A Transformer encoder over token ids (positions from ``arange`` of
    the sequence length, a padding mask from the ids), mean-pooled into two
    classes."""

    def __init__(self, vocab: int = 1000, width: int = 64) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, width)
        self.positions = nn.Embedding(512, width)
        layer = nn.TransformerEncoderLayer(width, 4, 128, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.classify = nn.Linear(width, 2)

    def forward(self, ids: paddle.Tensor) -> paddle.Tensor:
        positions = paddle.arange(ids.shape[1], dtype="int64").unsqueeze(0)
        x = self.tokens(ids) + self.positions(positions)
        # An additive mask over keys: -1e4 where the id is padding (0).
        mask = paddle.cast(ids == 0, "float32").unsqueeze([1, 2]) * -1e4
        x = self.encoder(x, src_mask=mask)
        return self.classify(x.mean(axis=1))


def vision(name: str, **kwargs: Any) -> Callable[[], nn.Layer]:
    return lambda: getattr(paddle.vision.models, name)(pretrained=False, **kwargs)


@dataclass
class Spec:
    """One corpus model: its builder, source, input specs, opset, and the
    sizes of each free dim by (input index, axis) for run A and run B."""

    build: Callable[[], nn.Layer]
    source: str
    inputs: list[InputSpec]
    opset: int
    sizes: dict[tuple[int, int], tuple[int, int]]


BATCH = {(0, 0): (2, 3)}
IMAGE_224 = [InputSpec([None, 3, 224, 224], "float32", "x")]


MODELS: dict[str, Spec] = {
    "paddle_resnet50_p2o11": Spec(
        vision("resnet50"),
        "paddle.vision.models.resnet50",
        [InputSpec([None, 3, None, None], "float32", "x")],
        11,
        {(0, 0): (2, 3), (0, 2): (224, 192), (0, 3): (224, 256)},
    ),
    "paddle_mobilenet_v3_large_p2o13": Spec(
        vision("mobilenet_v3_large"), "paddle.vision.models.mobilenet_v3_large", IMAGE_224, 13, BATCH
    ),
    "paddle_shufflenet_v2_p2o13": Spec(
        vision("shufflenet_v2_x1_0"), "paddle.vision.models.shufflenet_v2_x1_0", IMAGE_224, 13, BATCH
    ),
    "paddle_squeezenet1_1_p2o9": Spec(
        vision("squeezenet1_1"), "paddle.vision.models.squeezenet1_1", IMAGE_224, 9, BATCH
    ),
    "paddle_ocr_det_p2o11": Spec(
        TextDetector,
        "DB text detector (PaddleOCR's structure, written here)",
        [InputSpec([None, 3, None, None], "float32", "x")],
        11,
        {(0, 0): (1, 2), (0, 2): (320, 352), (0, 3): (320, 416)},
    ),
    "paddle_ocr_rec_p2o11": Spec(
        TextRecognizer,
        "CRNN text recognizer (PaddleOCR's structure, written here)",
        [InputSpec([None, 3, 32, None], "float32", "x")],
        11,
        {(0, 0): (2, 3), (0, 3): (100, 160)},
    ),
    "paddle_transformer_p2o13": Spec(
        TextClassifier,
        "paddle.nn.TransformerEncoder text classifier (written here)",
        [InputSpec([None, None], "int64", "input_ids")],
        13,
        {(0, 0): (2, 3), (0, 1): (7, 11)},
    ),
}


def symbol_sizes(spec: Spec, model: onnx.ModelProto) -> dict[str, tuple[int, int]]:
    """The sizes of Paddle2ONNX's own dim names, found by position."""
    dims: dict[str, tuple[int, int]] = {}
    inputs = graph_inputs(model)
    for (index, axis), sizes in spec.sizes.items():
        symbol = (dims_of(inputs[index]) or [])[axis]
        if not isinstance(symbol, str):
            raise ValueError(f"input {index} axis {axis} is not a free dim in the export: {symbol!r}")
        dims[symbol] = sizes
    return dims


def build_one(name: str, spec: Spec) -> dict[str, Any]:
    paddle.seed(0)
    np.random.seed(0)
    # Parameter names come from a process-wide counter: a fresh one per
    # model names its weights alike whichever models were built before.
    with paddle.utils.unique_name.guard():
        model = spec.build()
    model.eval()
    with tempfile.TemporaryDirectory() as tmp:
        prefix = str(Path(tmp) / name)
        paddle.onnx.export(model, prefix, input_spec=spec.inputs, opset_version=spec.opset)
        exported = onnx.load(prefix + ".onnx")
    versions = {
        "torch_version": None,
        "paddle_version": paddle.__version__,
        "paddle2onnx_version": paddle2onnx.__version__,
    }
    return write_entry(
        exported, name, "paddle2onnx", spec.source, versions, dims=symbol_sizes(spec, exported)
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    for name, spec in MODELS.items():
        if args.only and name not in args.only:
            continue
        start = time.time()
        record = build_one(name, spec)
        print(
            f"{name}: {record['nodes']} nodes, {len(record['tensors'])} tensors, {time.time() - start:.0f}s"
        )


if __name__ == "__main__":
    main()
