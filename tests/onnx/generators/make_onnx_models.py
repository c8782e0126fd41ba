"""Builds the PyTorch part of the ONNX conformance corpus: real architectures
with seeded random weights (no downloads), exported by PyTorch's own
exporters (the TorchScript exporter at several opsets and the dynamo
exporter), recorded and stored by ``onnx_record.write_entry``::

    /work/venv_onnx/bin/python tests/onnx/generators/make_onnx_models.py [--only NAME ...]

Writes ``tests/onnx/data/<name>.onnx[.gz]`` and ``<name>.json.gz``; the
README next to this file lists the tool versions and what would not export.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import torch_modules
from onnx_record import DEFAULT_DIMS, write_entry


@dataclass
class Spec:
    """One corpus model: how to build it, its example inputs, which input
    dims are free, and how to export it."""

    build: Callable[[], torch.nn.Module]
    source: str
    inputs: Callable[[], tuple[Any, ...]]
    input_names: list[str]
    output_names: list[str]
    exporter: str  # "torchscript" | "dynamo"
    opset: int
    # input name -> {axis: symbol}
    dynamic: dict[str, dict[int, str]] = field(default_factory=dict)
    dims: dict[str, tuple[int, int]] = field(default_factory=dict)
    note: str | None = None
    make: Any = None
    # Over 2 GB: exported with external data, run and inferred from files.
    large: bool = False
    # Where the export is written (a big model needs a disk, not /tmp).
    workdir: str | None = None
    # Rewrites the exported file in place before it is recorded (a tool
    # that works on ONNX files, such as onnxruntime's quantizer).
    post: Callable[[Path], None] | None = None
    # Builds and exports the model with a tool of its own (Ultralytics'
    # exporter) into the given file, instead of ``build`` + ``export``.
    export_with: Callable[[Path], None] | None = None


def ultralytics_export(config: str, opset: int) -> Callable[[Path], None]:
    """Ultralytics' own ONNX exporter on a model built from its YAML config
    (seeded random weights, no download), with its dynamic batch and image
    size, as ``yolo export format=onnx dynamic=True`` writes it."""

    def run(path: Path) -> None:
        import os

        from ultralytics import YOLO

        here = os.getcwd()
        os.chdir(path.parent)  # the exporter writes next to the model's name
        try:
            written = YOLO(config).export(format="onnx", dynamic=True, simplify=False, opset=opset, imgsz=320)
        finally:
            os.chdir(here)
        Path(path.parent / written).rename(path)

    return run


def image(size: int, channels: int = 3) -> Callable[[], tuple[Any, ...]]:
    return lambda: (torch.randn(2, channels, size, size),)


BATCH = {"input": {0: "batch"}}


def tv(name: str, **kwargs: Any) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import torchvision

        return getattr(torchvision.models, name)(weights=None, **kwargs)

    return build


def tv_seg(name: str) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import torchvision

        model = getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, aux_loss=False
        )
        return OutOnly(model)

    return build


def tv_det(
    name: str,
    threshold: str,
    head: str,
    activation: str,
    shape_a: tuple[int, ...],
    rank: int = 40,
    reinit: bool = False,
    **kwargs: Any,
) -> Callable[[], torch.nn.Module]:
    """A torchvision detector whose score threshold is calibrated on the
    oracle's run A image: with random weights every class score is close to
    uniform, so a default threshold keeps no box (or all, up to the cap) for
    any image; between the ``rank``-th and the next best class score of run
    A, the number of boxes depends on the image (printed for runs A and C)."""

    def build() -> torch.nn.Module:
        import torchvision

        model = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None, **kwargs)
        # torchvision's detection inits (small normal weights) make the
        # features of a randomly initialised network vanish (~1e-14 at
        # SSDlite's first head level), so that no score depends on the image:
        # a variance-preserving init keeps the image in the scores.
        for module in model.modules() if reinit else ():
            if isinstance(module, torch.nn.Conv2d | torch.nn.Linear):
                torch.nn.init.kaiming_normal_(module.weight, mode="fan_in", nonlinearity="relu")
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
        wrapped = Detections(model)
        wrapped.eval()
        owner_path, attr = threshold.rsplit(".", 1) if "." in threshold else ("", threshold)
        owner = attrgetter(owner_path)(model) if owner_path else model
        captured: list[torch.Tensor] = []
        hook = attrgetter(head)(model).register_forward_hook(lambda _m, _i, out: captured.append(out))
        image = torch.from_numpy(detection_input("image", shape_a, 1, np.random.default_rng(1), "A"))
        with torch.no_grad():
            wrapped(image)
        hook.remove()
        logits = captured[0].reshape(-1, captured[0].shape[-1])
        scores = logits.softmax(-1)[:, 1:] if activation == "softmax" else logits.sigmoid()
        top = scores.flatten().topk(rank + 1).values
        setattr(owner, attr, float((top[rank - 1] + top[rank]) / 2))
        counts = []
        for seed, run in ((1, "A"), (2, "C")):
            x = torch.from_numpy(detection_input("image", shape_a, 1, np.random.default_rng(seed), run))
            with torch.no_grad():
                counts.append(int(wrapped(x)[0].shape[0]))
        print(f"{name}: {threshold} = {getattr(owner, attr):.6f}, boxes in runs A and C: {counts}")
        return wrapped

    return build


def timm_model(name: str) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import timm

        return timm.create_model(name, pretrained=False)

    return build


class OutOnly(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """torchvision's segmentation models return a dict; the export keeps ``out``."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.model(x)["out"]
        return out


class Detections(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """torchvision's detectors take a list of images and return a list of
    dicts; the export takes one image and returns boxes, scores, labels."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        out = self.model([x])[0]
        return out["boxes"], out["scores"], out["labels"]


class HFOutput(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """A Hugging Face model returning its last hidden state as a tensor; the
    positional inputs are passed by name (GPT-2's second parameter is
    ``past_key_values``, not the mask)."""

    def __init__(self, model: torch.nn.Module, names: list[str]) -> None:
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        out = self.model(**dict(zip(self.names, args, strict=True)))
        hidden: torch.Tensor = out.last_hidden_state
        return hidden


def hf(config_name: str, model_name: str, names: list[str], **config: Any) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import transformers

        cfg = getattr(transformers, config_name)(**config)
        model = getattr(transformers, model_name)(cfg)
        return HFOutput(model, names)

    return build


TEXT_INPUTS = ["input_ids", "attention_mask"]
BERT_INPUTS = ["input_ids", "attention_mask", "token_type_ids"]
SMALL_BERT = {
    "vocab_size": 1000,
    "hidden_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 256,
}


class RecurrentTagger(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """An embedding, a two-layer bidirectional LSTM and a GRU over a free
    batch and sequence (ONNX LSTM and GRU ops)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(100, 32)
        self.lstm = torch.nn.LSTM(32, 48, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = torch.nn.GRU(96, 40, batch_first=True)
        self.head = torch.nn.Linear(40, 9)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x, _ = self.lstm(self.embed(ids))
        y, _ = self.gru(x)
        logits: torch.Tensor = self.head(y)
        return logits


class ScriptedLoop(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """A recurrence written as a Python loop over the free sequence length
    and a branch on the data, scripted, so that the TorchScript exporter
    writes ONNX Loop and If nodes."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = torch.nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.zeros(x.size(0), 16)
        for i in range(x.size(1)):
            h = torch.tanh(self.cell(x[:, i]) + h)
        if bool(h.sum() > 0):  # noqa: SIM108 - a statement, so that scripting writes an If
            out = torch.cat([h, h], dim=1)
        else:
            out = torch.cat([h, -h], dim=1)
        return out


class OpMix(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """Ops the real models above use little or not at all, on a free batch
    and length: Einsum, ConvTranspose with output padding, GroupNorm,
    PixelShuffle (DepthToSpace), reflect padding, nearest, align-corners
    bilinear and bicubic Resize, CumSum,
    TopK with k from a shape, ArgMax, NonZero, masked fill, GatherElements."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Parameter(torch.randn(8, 16, 16) * 0.1)
        self.up = torch.nn.ConvTranspose2d(16, 16, 3, stride=2, padding=1, output_padding=1)
        self.norm = torch.nn.GroupNorm(4, 16)
        self.shuffle = torch.nn.PixelShuffle(2)
        self.ln = torch.nn.LayerNorm(16)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # x: [batch, seq, 16]
        h = self.ln(torch.einsum("bsd,hde->bhse", x, self.proj).mean(1))  # [b, s, 16]
        img = h.transpose(1, 2).unsqueeze(-1).expand(-1, -1, -1, 4)  # [b, 16, s, 4]
        img = self.norm(self.up(torch.nn.functional.pad(img, (1, 1, 1, 1), mode="reflect")))
        img = self.shuffle(torch.nn.functional.interpolate(img, scale_factor=2.0, mode="nearest"))
        # Resize's other coordinate modes: align_corners, and a cubic one
        # to a fixed size.
        img = torch.nn.functional.interpolate(img, scale_factor=1.5, mode="bilinear", align_corners=True)
        img = torch.nn.functional.interpolate(img, size=(20, 12), mode="bicubic", align_corners=False)
        total = h.cumsum(1)
        k = max(1, x.shape[1] // 2)
        top, idx = h.topk(k, dim=1)
        picked = torch.gather(h, 1, idx)
        best = h.argmax(-1)
        masked = h.masked_fill(h < 0, 0.0)
        positive = torch.nonzero((masked.sum(-1) > 0.1) & (x[..., 0] > 0.5))
        return img, total, top + picked, best, positive


class ScriptedSequences(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """A list grown in a loop over the free sequence length, stacked, and a
    split into a data-shaped number of chunks, scripted: ONNX sequence ops
    (SequenceEmpty/SequenceInsert/ConcatFromSequence, SplitToSequence,
    SequenceAt) around a Loop."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        outs: list[torch.Tensor] = []
        for i in range(x.size(1)):
            outs.append(torch.relu(self.cell(x[:, i])))
        y = torch.stack(outs, 1)
        parts = torch.split(y, 2, dim=1)
        first = parts[0].sum(1)
        return y, first


def half(build: Callable[[], torch.nn.Module]) -> Callable[[], torch.nn.Module]:
    """The model in float16 (FLOAT16 weights and values)."""
    return lambda: build().half()


def scripted(cls: type[torch.nn.Module]) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        module: torch.nn.Module = torch.jit.script(cls())
        return module

    return build


def tokens(with_mask: bool = True, with_types: bool = False) -> Callable[[], tuple[Any, ...]]:
    def make() -> tuple[Any, ...]:
        ids = torch.randint(0, 100, (2, 7))
        out: list[torch.Tensor] = [ids]
        if with_mask:
            out.append(torch.ones(2, 7, dtype=torch.int64))
        if with_types:
            out.append(torch.zeros(2, 7, dtype=torch.int64))
        return tuple(out)

    return make


def text_dyn(names: list[str]) -> dict[str, dict[int, str]]:
    return {n: {0: "batch", 1: "seq"} for n in names}


def detection_input(name: str, shape: tuple[int, ...], elem: int, rng: np.random.Generator, run: str) -> Any:
    """Image content differs between runs so that score thresholds and NMS
    keep different numbers of boxes: run B is a brighter, smoother image."""
    base = rng.random(shape).astype(np.float32)
    return base if run == "A" else (0.5 + 0.5 * base**4).astype(np.float32)


def tv_video(name: str) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import torchvision

        return getattr(torchvision.models.video, name)(weights=None)

    return build


SMALL_LLAMA = {
    "vocab_size": 1000,
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 512,
}
SMALL_WAV2VEC2 = {
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 128,
    "conv_dim": (32,) * 7,
    "num_conv_pos_embeddings": 16,
    "num_conv_pos_embedding_groups": 4,
}
SMALL_BART = {
    "vocab_size": 1000,
    "d_model": 64,
    "encoder_layers": 2,
    "decoder_layers": 2,
    "encoder_attention_heads": 4,
    "decoder_attention_heads": 4,
    "encoder_ffn_dim": 128,
    "decoder_ffn_dim": 128,
}
BART_INPUTS = ["input_ids", "attention_mask", "decoder_input_ids"]


def encoder_decoder_tokens() -> tuple[Any, ...]:
    return torch.randint(0, 100, (2, 7)), torch.ones(2, 7, dtype=torch.int64), torch.randint(0, 100, (2, 5))


class RandomImages:
    """Calibration data for onnxruntime's static quantizer: a few random
    batches for the model's one input."""

    def __init__(self, name: str, shape: tuple[int, ...], count: int = 4) -> None:
        rng = np.random.default_rng(0)
        self.batches = iter([{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(count)])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.batches, None)


def quantize_static_qdq(path: Path) -> None:
    from onnxruntime import quantization

    out = path.with_suffix(".qdq.onnx")
    quantization.quantize_static(
        str(path),
        str(out),
        RandomImages("input", (1, 3, 224, 224)),
        quant_format=quantization.QuantFormat.QDQ,
    )
    out.replace(path)


def quantize_dynamic_int8(path: Path) -> None:
    from onnxruntime import quantization

    out = path.with_suffix(".int8.onnx")
    quantization.quantize_dynamic(str(path), str(out), weight_type=quantization.QuantType.QInt8)
    out.replace(path)


def classification(
    name: str, source_fn: str, exporter: str, opset: int, size: int = 224, **kwargs: Any
) -> tuple[str, Spec]:
    return name, Spec(
        tv(source_fn, **kwargs),
        f"torchvision.models.{source_fn}",
        image(size),
        ["input"],
        ["logits"],
        exporter,
        opset,
        BATCH,
    )


def timm_classification(name: str, timm_name: str, exporter: str, opset: int, size: int) -> tuple[str, Spec]:
    return name, Spec(
        timm_model(timm_name),
        f"timm.create_model('{timm_name}')",
        image(size),
        ["input"],
        ["logits"],
        exporter,
        opset,
        BATCH,
    )


BERT_TS14 = Spec(
    hf("BertConfig", "BertModel", BERT_INPUTS, **SMALL_BERT),
    "transformers.BertModel(BertConfig(2 layers))",
    tokens(with_types=True),
    BERT_INPUTS,
    ["last_hidden_state"],
    "torchscript",
    14,
    text_dyn(BERT_INPUTS),
)

SEG_DYN = {"input": {0: "batch", 2: "height", 3: "width"}}
SEG_DIMS = {"height": (160, 192), "width": (160, 224)}

SPECS: dict[str, Spec] = dict(
    [
        # torchvision classification
        classification("resnet18_ts11", "resnet18", "torchscript", 11),
        classification("resnet50_ts13", "resnet50", "torchscript", 13),
        classification("resnet50_dynamo", "resnet50", "dynamo", 18),
        classification("mobilenet_v2_ts11", "mobilenet_v2", "torchscript", 11),
        classification("mobilenet_v2_dynamo", "mobilenet_v2", "dynamo", 18),
        classification("mobilenet_v3_large_ts13", "mobilenet_v3_large", "torchscript", 13),
        classification("mobilenet_v3_small_ts17", "mobilenet_v3_small", "torchscript", 17),
        classification("efficientnet_b0_ts13", "efficientnet_b0", "torchscript", 13),
        classification("efficientnet_b0_dynamo", "efficientnet_b0", "dynamo", 18),
        classification("efficientnet_v2_s_ts17", "efficientnet_v2_s", "torchscript", 17, size=192),
        classification("convnext_tiny_ts17", "convnext_tiny", "torchscript", 17),
        classification("convnext_tiny_dynamo", "convnext_tiny", "dynamo", 18),
        classification("regnet_y_400mf_ts13", "regnet_y_400mf", "torchscript", 13),
        classification("regnet_x_400mf_dynamo", "regnet_x_400mf", "dynamo", 18),
        classification("shufflenet_v2_x1_0_ts11", "shufflenet_v2_x1_0", "torchscript", 11),
        classification("squeezenet1_1_ts11", "squeezenet1_1", "torchscript", 11),
        classification("squeezenet1_0_dynamo", "squeezenet1_0", "dynamo", 18),
        classification("googlenet_ts13", "googlenet", "torchscript", 13, aux_logits=False, init_weights=True),
        classification(
            "inception_v3_ts13",
            "inception_v3",
            "torchscript",
            13,
            size=299,
            aux_logits=False,
            init_weights=True,
        ),
        classification("densenet121_ts13", "densenet121", "torchscript", 13),
        classification("mnasnet1_0_ts11", "mnasnet1_0", "torchscript", 11),
        classification("resnext50_32x4d_ts17", "resnext50_32x4d", "torchscript", 17),
        classification("vit_b_16_ts14", "vit_b_16", "torchscript", 14),
        classification("vit_b_16_dynamo", "vit_b_16", "dynamo", 18),
        classification("swin_t_ts17", "swin_t", "torchscript", 17),
        classification("swin_t_dynamo", "swin_t", "dynamo", 18),
        classification("alexnet_ts11", "alexnet", "torchscript", 11),
        classification("vgg11_bn_dynamo", "vgg11_bn", "dynamo", 18, size=160),
        # older and newer TorchScript opsets (Upsample at 9, Resize at 10+)
        classification("resnet18_ts9", "resnet18", "torchscript", 9),
        classification("squeezenet1_1_ts20", "squeezenet1_1", "torchscript", 20),
        (
            "lraspp_mobilenet_v3_large_ts9",
            Spec(
                tv_seg("lraspp_mobilenet_v3_large"),
                "torchvision.models.segmentation.lraspp_mobilenet_v3_large",
                image(160),
                ["input"],
                ["out"],
                "torchscript",
                9,
                SEG_DYN,
                SEG_DIMS,
            ),
        ),
        classification("squeezenet1_1_ts7", "squeezenet1_1", "torchscript", 7),
        classification("mobilenet_v2_ts10", "mobilenet_v2", "torchscript", 10),
        classification("shufflenet_v2_x0_5_ts12", "shufflenet_v2_x0_5", "torchscript", 12),
        classification("mobilenet_v3_large_ts15", "mobilenet_v3_large", "torchscript", 15),
        classification("efficientnet_b1_ts19", "efficientnet_b1", "torchscript", 19, size=192),
        (
            "deeplabv3_mobilenet_v3_large_ts16",
            Spec(
                tv_seg("deeplabv3_mobilenet_v3_large"),
                "torchvision.models.segmentation.deeplabv3_mobilenet_v3_large",
                image(160),
                ["input"],
                ["out"],
                "torchscript",
                16,
                SEG_DYN,
                SEG_DIMS,
            ),
        ),
        (
            "fcn_resnet50_dynamo",
            Spec(
                tv_seg("fcn_resnet50"),
                "torchvision.models.segmentation.fcn_resnet50",
                image(160),
                ["input"],
                ["out"],
                "dynamo",
                18,
                SEG_DYN,
                SEG_DIMS,
            ),
        ),
        # recurrent layers and control flow (free batch and sequence)
        (
            "lstm_gru_tagger_ts13",
            Spec(
                RecurrentTagger,
                "torch.nn.LSTM + torch.nn.GRU",
                lambda: (torch.randint(0, 100, (2, 7)),),
                ["ids"],
                ["tags"],
                "torchscript",
                13,
                text_dyn(["ids"]),
            ),
        ),
        (
            "lstm_gru_tagger_dynamo",
            Spec(
                RecurrentTagger,
                "torch.nn.LSTM + torch.nn.GRU",
                lambda: (torch.randint(0, 100, (2, 7)),),
                ["ids"],
                ["tags"],
                "dynamo",
                18,
                text_dyn(["ids"]),
            ),
        ),
        (
            "scripted_loop_if_ts13",
            Spec(
                scripted(ScriptedLoop),
                "torch.jit.script(loop over the sequence + data-dependent branch)",
                lambda: (torch.randn(2, 7, 16),),
                ["x"],
                ["y"],
                "torchscript",
                13,
                {"x": {0: "batch", 1: "seq"}},
            ),
        ),
        (
            "op_mix_ts17",
            Spec(
                OpMix,
                "a module of less common ops (Einsum, ConvTranspose, TopK, NonZero, ...)",
                lambda: (torch.randn(2, 7, 16),),
                ["x"],
                ["img", "total", "top", "best", "positive"],
                "torchscript",
                17,
                {"x": {0: "batch", 1: "seq"}},
            ),
        ),
        (
            "op_mix_dynamo",
            Spec(
                OpMix,
                "a module of less common ops (Einsum, ConvTranspose, TopK, NonZero, ...)",
                lambda: (torch.randn(2, 7, 16),),
                ["x"],
                ["img", "total", "top", "best", "positive"],
                "dynamo",
                18,
                {"x": {0: "batch", 1: "seq"}},
            ),
        ),
        (
            "distilbert_dynamo",
            Spec(
                hf(
                    "DistilBertConfig",
                    "DistilBertModel",
                    TEXT_INPUTS,
                    vocab_size=1000,
                    dim=128,
                    n_layers=2,
                    n_heads=4,
                    hidden_dim=256,
                ),
                "transformers.DistilBertModel(DistilBertConfig(2 layers))",
                tokens(),
                TEXT_INPUTS,
                ["last_hidden_state"],
                "dynamo",
                18,
                text_dyn(TEXT_INPUTS),
            ),
        ),
        (
            "t5_encoder_dynamo",
            Spec(
                hf(
                    "T5Config",
                    "T5EncoderModel",
                    TEXT_INPUTS,
                    vocab_size=1000,
                    d_model=128,
                    d_kv=32,
                    d_ff=256,
                    num_layers=2,
                    num_heads=4,
                ),
                "transformers.T5EncoderModel(T5Config(2 layers))",
                tokens(),
                TEXT_INPUTS,
                ["last_hidden_state"],
                "dynamo",
                18,
                text_dyn(TEXT_INPUTS),
            ),
        ),
        # over 2 GB of weights (XLM-RoBERTa-large's configuration: 560 M
        # parameters, 2.24 GB as float32), so stored with external data
        (
            "xlm_roberta_large_dynamo",
            Spec(
                hf(
                    "XLMRobertaConfig",
                    "XLMRobertaModel",
                    TEXT_INPUTS,
                    vocab_size=250002,
                    hidden_size=1024,
                    num_hidden_layers=24,
                    num_attention_heads=16,
                    intermediate_size=4096,
                    max_position_embeddings=514,
                    type_vocab_size=1,
                ),
                "transformers.XLMRobertaModel(XLMRobertaConfig(xlm-roberta-large sizes))",
                tokens(),
                TEXT_INPUTS,
                ["last_hidden_state"],
                "dynamo",
                18,
                text_dyn(TEXT_INPUTS),
                large=True,
            ),
        ),
        (
            "scripted_sequences_ts13",
            Spec(
                scripted(ScriptedSequences),
                "torch.jit.script(a list built in a loop, stacked, split)",
                lambda: (torch.randn(2, 7, 8),),
                ["x"],
                ["y", "first"],
                "torchscript",
                13,
                {"x": {0: "batch", 1: "seq"}},
            ),
        ),
        (
            "bert_fp16_ts14",
            Spec(
                half(hf("BertConfig", "BertModel", BERT_INPUTS, **SMALL_BERT)),
                "transformers.BertModel(BertConfig(2 layers)).half()",
                tokens(with_types=True),
                BERT_INPUTS,
                ["last_hidden_state"],
                "torchscript",
                14,
                text_dyn(BERT_INPUTS),
            ),
        ),
        (
            "mobilenet_v2_fp16_dynamo",
            Spec(
                half(tv("mobilenet_v2")),
                "torchvision.models.mobilenet_v2().half()",
                lambda: (torch.randn(2, 3, 224, 224).half(),),
                ["input"],
                ["logits"],
                "dynamo",
                18,
                BATCH,
            ),
        ),
        # torchvision segmentation (free batch, height and width)
        (
            "deeplabv3_mobilenet_v3_large_ts13",
            Spec(
                tv_seg("deeplabv3_mobilenet_v3_large"),
                "torchvision.models.segmentation.deeplabv3_mobilenet_v3_large",
                image(160),
                ["input"],
                ["out"],
                "torchscript",
                13,
                SEG_DYN,
                SEG_DIMS,
            ),
        ),
        (
            "deeplabv3_resnet50_ts11",
            Spec(
                tv_seg("deeplabv3_resnet50"),
                "torchvision.models.segmentation.deeplabv3_resnet50",
                image(160),
                ["input"],
                ["out"],
                "torchscript",
                11,
                SEG_DYN,
                SEG_DIMS,
            ),
        ),
        (
            "fcn_resnet50_ts13",
            Spec(
                tv_seg("fcn_resnet50"),
                "torchvision.models.segmentation.fcn_resnet50",
                image(160),
                ["input"],
                ["out"],
                "torchscript",
                13,
                SEG_DYN,
                SEG_DIMS,
            ),
        ),
        (
            "lraspp_mobilenet_v3_large_ts17",
            Spec(
                tv_seg("lraspp_mobilenet_v3_large"),
                "torchvision.models.segmentation.lraspp_mobilenet_v3_large",
                image(160),
                ["input"],
                ["out"],
                "torchscript",
                17,
                SEG_DYN,
                SEG_DIMS,
            ),
        ),
        (
            "deeplabv3_mobilenet_v3_large_dynamo",
            Spec(
                tv_seg("deeplabv3_mobilenet_v3_large"),
                "torchvision.models.segmentation.deeplabv3_mobilenet_v3_large",
                image(160),
                ["input"],
                ["out"],
                "dynamo",
                18,
                {"input": {0: "batch"}},
            ),
        ),
        # torchvision detection (one image of free height and width; NMS)
        (
            "ssdlite320_mobilenet_v3_large_ts11",
            Spec(
                tv_det(
                    "ssdlite320_mobilenet_v3_large",
                    "score_thresh",
                    "head.classification_head",
                    "softmax",
                    (3, 320, 320),
                    reinit=True,
                ),
                "torchvision.models.detection.ssdlite320_mobilenet_v3_large",
                lambda: (torch.rand(3, 320, 320),),
                ["image"],
                ["boxes", "scores", "labels"],
                "torchscript",
                11,
                {"image": {1: "height", 2: "width"}},
                {"height": (320, 288), "width": (320, 352)},
                make=detection_input,
            ),
        ),
        (
            "fasterrcnn_mobilenet_v3_large_320_fpn_ts11",
            Spec(
                tv_det(
                    "fasterrcnn_mobilenet_v3_large_320_fpn",
                    "roi_heads.score_thresh",
                    "roi_heads.box_predictor.cls_score",
                    "softmax",
                    (3, 320, 320),
                    reinit=True,
                ),
                "torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn",
                lambda: (torch.rand(3, 320, 320),),
                ["image"],
                ["boxes", "scores", "labels"],
                "torchscript",
                11,
                {"image": {1: "height", 2: "width"}},
                {"height": (320, 256), "width": (320, 384)},
                make=detection_input,
            ),
        ),
        (
            "retinanet_resnet50_fpn_ts11",
            Spec(
                tv_det(
                    "retinanet_resnet50_fpn",
                    "score_thresh",
                    "head.classification_head",
                    "sigmoid",
                    (3, 256, 256),
                    min_size=256,
                    max_size=320,
                ),
                "torchvision.models.detection.retinanet_resnet50_fpn",
                lambda: (torch.rand(3, 256, 256),),
                ["image"],
                ["boxes", "scores", "labels"],
                "torchscript",
                11,
                {"image": {1: "height", 2: "width"}},
                {"height": (256, 224), "width": (256, 320)},
                make=detection_input,
            ),
        ),
        # timm models of public Ascend benchmarks
        timm_classification("inception_v4_ts13", "inception_v4", "torchscript", 13, 299),
        timm_classification("dpn68_ts11", "dpn68", "torchscript", 11, 224),
        timm_classification("seresnet50_ts13", "seresnet50", "torchscript", 13, 224),
        timm_classification("legacy_seresnet50_dynamo", "legacy_seresnet50", "dynamo", 18, 224),
        timm_classification("efficientnet_b7_ts13", "efficientnet_b7", "torchscript", 13, 160),
        timm_classification("efficientnetv2_s_ts17", "tf_efficientnetv2_s", "torchscript", 17, 192),
        timm_classification("efficientnetv2_rw_t_dynamo", "efficientnetv2_rw_t", "dynamo", 18, 192),
        # Hugging Face transformers from configs, free batch and sequence
        ("bert_ts14", BERT_TS14),
        (
            "bert_dynamo",
            Spec(
                hf("BertConfig", "BertModel", TEXT_INPUTS, **SMALL_BERT),
                "transformers.BertModel(BertConfig(2 layers))",
                tokens(),
                ["input_ids", "attention_mask"],
                ["last_hidden_state"],
                "dynamo",
                18,
                text_dyn(["input_ids", "attention_mask"]),
            ),
        ),
        (
            "gpt2_ts14",
            Spec(
                hf(
                    "GPT2Config",
                    "GPT2Model",
                    TEXT_INPUTS,
                    vocab_size=1000,
                    n_embd=128,
                    n_layer=2,
                    n_head=4,
                    n_positions=64,
                    use_cache=False,
                ),
                "transformers.GPT2Model(GPT2Config(2 layers))",
                tokens(),
                TEXT_INPUTS,
                ["last_hidden_state"],
                "torchscript",
                14,
                text_dyn(TEXT_INPUTS),
            ),
        ),
        (
            "gpt2_dynamo",
            Spec(
                hf(
                    "GPT2Config",
                    "GPT2Model",
                    TEXT_INPUTS,
                    vocab_size=1000,
                    n_embd=128,
                    n_layer=2,
                    n_head=4,
                    n_positions=64,
                    use_cache=False,
                ),
                "transformers.GPT2Model(GPT2Config(2 layers))",
                tokens(),
                ["input_ids", "attention_mask"],
                ["last_hidden_state"],
                "dynamo",
                18,
                text_dyn(["input_ids", "attention_mask"]),
            ),
        ),
        (
            "distilbert_ts13",
            Spec(
                hf(
                    "DistilBertConfig",
                    "DistilBertModel",
                    TEXT_INPUTS,
                    vocab_size=1000,
                    dim=128,
                    n_layers=2,
                    n_heads=4,
                    hidden_dim=256,
                    # SDPA exports from opset 14 on; the eager attention
                    # (MatMul, Softmax) exports at 13.
                    attn_implementation="eager",
                ),
                "transformers.DistilBertModel(DistilBertConfig(2 layers))",
                tokens(),
                ["input_ids", "attention_mask"],
                ["last_hidden_state"],
                "torchscript",
                13,
                text_dyn(["input_ids", "attention_mask"]),
            ),
        ),
        (
            "t5_encoder_ts17",
            Spec(
                hf(
                    "T5Config",
                    "T5EncoderModel",
                    TEXT_INPUTS,
                    vocab_size=1000,
                    d_model=128,
                    d_kv=32,
                    d_ff=256,
                    num_layers=2,
                    num_heads=4,
                ),
                "transformers.T5EncoderModel(T5Config(2 layers))",
                tokens(),
                ["input_ids", "attention_mask"],
                ["last_hidden_state"],
                "torchscript",
                17,
                text_dyn(["input_ids", "attention_mask"]),
            ),
        ),
        (
            "hf_vit_ts14",
            Spec(
                hf(
                    "ViTConfig",
                    "ViTModel",
                    ["pixel_values"],
                    hidden_size=192,
                    num_hidden_layers=2,
                    num_attention_heads=3,
                    intermediate_size=384,
                    image_size=224,
                    patch_size=16,
                ),
                "transformers.ViTModel(ViTConfig(2 layers))",
                lambda: (torch.randn(2, 3, 224, 224),),
                ["pixel_values"],
                ["last_hidden_state"],
                "torchscript",
                14,
                {"pixel_values": {0: "batch"}},
            ),
        ),
        (
            "hf_vit_dynamo",
            Spec(
                hf(
                    "ViTConfig",
                    "ViTModel",
                    ["pixel_values"],
                    hidden_size=192,
                    num_hidden_layers=2,
                    num_attention_heads=3,
                    intermediate_size=384,
                    image_size=224,
                    patch_size=16,
                ),
                "transformers.ViTModel(ViTConfig(2 layers))",
                lambda: (torch.randn(2, 3, 224, 224),),
                ["pixel_values"],
                ["last_hidden_state"],
                "dynamo",
                18,
                {"pixel_values": {0: "batch"}},
            ),
        ),
        # Architectures no library above ships, written after their papers
        # (generators/torch_modules.py), and newer Hugging Face families
        (
            "unet_ts13",
            Spec(
                torch_modules.UNet,
                "torch_modules.UNet (Ronneberger et al. 2015, width 16)",
                lambda: (torch.randn(2, 3, 161, 161),),
                ["input"],
                ["logits"],
                "torchscript",
                13,
                SEG_DYN,
                {"height": (161, 190), "width": (161, 223)},
            ),
        ),
        (
            "unet_dynamo",
            Spec(
                torch_modules.UNet,
                "torch_modules.UNet (Ronneberger et al. 2015, width 16)",
                lambda: (torch.randn(2, 3, 160, 160),),
                ["input"],
                ["logits"],
                "dynamo",
                18,
                BATCH,
            ),
        ),
        (
            "yolo_like_ts12",
            Spec(
                torch_modules.YoloLike,
                "torch_modules.YoloLike (YOLOv8-style, width 16)",
                lambda: (torch.randn(2, 3, 256, 256),),
                ["input"],
                ["detections"],
                "torchscript",
                12,
                SEG_DYN,
                {"height": (256, 320), "width": (256, 384)},
            ),
        ),
        (
            "yolo_like_dynamo",
            Spec(
                torch_modules.YoloLike,
                "torch_modules.YoloLike (YOLOv8-style, width 16)",
                lambda: (torch.randn(2, 3, 256, 256),),
                ["input"],
                ["detections"],
                "dynamo",
                18,
                BATCH,
            ),
        ),
        (
            "r2plus1d_18_ts13",
            Spec(
                tv_video("r2plus1d_18"),
                "torchvision.models.video.r2plus1d_18",
                lambda: (torch.randn(2, 3, 8, 112, 112),),
                ["input"],
                ["logits"],
                "torchscript",
                13,
                BATCH,
            ),
        ),
        (
            "llama_ts17",
            Spec(
                hf("LlamaConfig", "LlamaModel", TEXT_INPUTS, **SMALL_LLAMA),
                "transformers.LlamaModel(LlamaConfig(2 layers, grouped-query attention))",
                tokens(),
                TEXT_INPUTS,
                ["last_hidden_state"],
                "torchscript",
                17,
                text_dyn(TEXT_INPUTS),
            ),
        ),
        (
            "llama_dynamo",
            Spec(
                hf("LlamaConfig", "LlamaModel", TEXT_INPUTS, **SMALL_LLAMA),
                "transformers.LlamaModel(LlamaConfig(2 layers, grouped-query attention))",
                tokens(),
                TEXT_INPUTS,
                ["last_hidden_state"],
                "dynamo",
                18,
                text_dyn(TEXT_INPUTS),
            ),
        ),
        (
            "wav2vec2_ts14",
            Spec(
                hf("Wav2Vec2Config", "Wav2Vec2Model", ["input_values"], **SMALL_WAV2VEC2),
                "transformers.Wav2Vec2Model(Wav2Vec2Config(2 layers))",
                lambda: (torch.randn(2, 4000),),
                ["input_values"],
                ["last_hidden_state"],
                "torchscript",
                14,
                {"input_values": {0: "batch", 1: "samples"}},
                {"samples": (4000, 5333)},
            ),
        ),
        (
            "bart_ts14",
            Spec(
                hf("BartConfig", "BartModel", BART_INPUTS, **SMALL_BART),
                "transformers.BartModel(BartConfig(2 + 2 layers))",
                encoder_decoder_tokens,
                BART_INPUTS,
                ["last_hidden_state"],
                "torchscript",
                14,
                {
                    "input_ids": {0: "batch", 1: "seq"},
                    "attention_mask": {0: "batch", 1: "seq"},
                    "decoder_input_ids": {0: "batch", 1: "target"},
                },
                {"target": (5, 9)},
            ),
        ),
        # Ultralytics' YOLOv8n as its own exporter writes it (the detector
        # most often converted for Ascend devices): dynamic batch and size
        (
            "yolov8n_ultralytics17",
            Spec(
                lambda: torch.nn.Identity(),
                "ultralytics YOLO('yolov8n.yaml').export(format='onnx', dynamic=True, opset=17)",
                lambda: (),
                ["images"],
                ["output0"],
                "ultralytics",
                17,
                {"images": {0: "batch", 2: "height", 3: "width"}},
                {"height": (256, 320), "width": (256, 384)},
                export_with=ultralytics_export("yolov8n.yaml", 17),
            ),
        ),
        # onnxruntime's quantizer on exports above: QDQ (static) and
        # integer MatMul (dynamic), as INT8 deployments are prepared
        (
            "resnet18_qdq_ts13",
            Spec(
                tv("resnet18"),
                "torchvision.models.resnet18 + onnxruntime.quantization.quantize_static (QDQ)",
                image(224),
                ["input"],
                ["logits"],
                "torchscript",
                13,
                BATCH,
                post=quantize_static_qdq,
            ),
        ),
        (
            "bert_dynquant_ts14",
            replace(
                BERT_TS14,
                source=f"{BERT_TS14.source} + onnxruntime.quantization.quantize_dynamic",
                post=quantize_dynamic_int8,
            ),
        ),
    ]
)


def export(spec: Spec, model: torch.nn.Module, args: tuple[Any, ...], path: Path) -> None:
    if spec.exporter == "torchscript":
        torch.onnx.export(
            model,
            args,
            str(path),
            dynamo=False,
            opset_version=spec.opset,
            input_names=spec.input_names,
            output_names=spec.output_names,
            dynamic_axes=spec.dynamic,
        )
        return
    dynamic_shapes = {}
    symbols: dict[str, Any] = {}
    for name in spec.input_names:
        axes = spec.dynamic.get(name, {})
        dynamic_shapes[name] = {
            axis: symbols.setdefault(sym, torch.export.Dim(sym, min=2, max=4096))
            for axis, sym in axes.items()
        }
    # The wrapper's forward takes positional arguments: name them for export.
    forward_names = list(__import__("inspect").signature(model.forward).parameters)
    if forward_names[:1] == ["args"]:
        dynamic_shapes_arg: Any = {"args": tuple(dynamic_shapes[n] for n in spec.input_names)}
    else:
        dynamic_shapes_arg = {forward_names[i]: dynamic_shapes[n] for i, n in enumerate(spec.input_names)}
    program = torch.onnx.export(
        model,
        args,
        dynamo=True,
        opset_version=spec.opset,
        input_names=spec.input_names,
        output_names=spec.output_names,
        dynamic_shapes=dynamic_shapes_arg,
        external_data=spec.large,
    )
    assert program is not None
    program.save(str(path), external_data=spec.large)


def symbol_sizes(spec: Spec, exported: onnx.ModelProto) -> dict[str, tuple[int, int]]:
    """Run A/B sizes keyed by the symbol names the exporter wrote (the
    dynamo exporter may rename the dims it was given)."""
    wanted = {**DEFAULT_DIMS, **spec.dims}
    sizes: dict[str, tuple[int, int]] = {}
    for value in exported.graph.input:
        axes = spec.dynamic.get(value.name, {})
        for axis, dim in enumerate(value.type.tensor_type.shape.dim):
            if dim.HasField("dim_param") and axis in axes:
                sizes[dim.dim_param] = wanted[axes[axis]]
    return sizes


def build_one(name: str, spec: Spec, versions: dict[str, str]) -> dict[str, Any]:
    torch.manual_seed(0)
    np.random.seed(0)
    kwargs: dict[str, Any] = {}
    if spec.make is not None:
        kwargs["make"] = spec.make
    with tempfile.TemporaryDirectory(dir=spec.workdir) as tmp:
        path = Path(tmp) / f"{name}.onnx"
        if spec.export_with is not None:
            spec.export_with(path)
        else:
            model = spec.build().eval()
            with torch.no_grad():
                export(spec, model, spec.inputs(), path)
            del model
        if spec.post is not None:
            spec.post(path)
        # Over 2 GB the weights stay in the exporter's external files.
        exported = onnx.load(str(path), load_external_data=not spec.large)
        dims = symbol_sizes(spec, exported)
        return write_entry(
            exported,
            name,
            spec.exporter,
            spec.source,
            versions,
            dims=dims,
            note=spec.note,
            model_dir=Path(tmp) if spec.large else None,
            **kwargs,
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--skip-existing", action="store_true")
    args = parser.parse_args()
    import torchvision

    # nn.MultiheadAttention's inference fast path is one fused aten op that
    # the TorchScript exporter cannot export (torchvision's ViT); the
    # regular path exports as MatMul/Softmax.
    torch.backends.mha.set_fastpath_enabled(False)
    versions = {"torch_version": torch.__version__, "torchvision_version": torchvision.__version__}
    try:
        import ultralytics

        versions["ultralytics_version"] = ultralytics.__version__
    except ImportError:
        pass  # the Ultralytics model then fails alone, and says why
    data = Path(__file__).resolve().parent.parent / "data"
    data.mkdir(exist_ok=True)
    failed = {}
    for name, spec in SPECS.items():
        if args.only and name not in args.only:
            continue
        if args.skip_existing and (data / f"{name}.json.gz").exists():
            continue
        start = time.time()
        try:
            record = build_one(name, spec, versions)
        except Exception as e:
            traceback.print_exc()
            failed[name] = f"{type(e).__name__}: {str(e)[:300]}"
            print(f"FAILED {name}: {failed[name]}", flush=True)
            continue
        print(
            f"{name}: {record['nodes']} nodes, {len(record['tensors'])} tensors, "
            f"opset {record['opset']}, {time.time() - start:.0f}s",
            flush=True,
        )
    for name, why in failed.items():
        print(f"FAILED {name}: {why}")


if __name__ == "__main__":
    main()
