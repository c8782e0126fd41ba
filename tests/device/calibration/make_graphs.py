"""Builds the networks of ``../shared/calibration/ascend_published.tsv`` that
the test data does not already hold, with their own tools (torchvision, timm,
transformers; random weights, no downloads), exported to ONNX by PyTorch's
TorchScript exporter with a free batch, and stores them compactly next to
this file::

    /work/venv_onnx/bin/python tests/device/calibration/make_graphs.py [--only MODEL ...]

(the venv of ``tests/onnx/generators/README.md``). Each model is written as
``<model>.onnx.gz`` with every large float initializer moved to an all-zero
external weights file that is not committed (``weights_bytes`` in
``graphs.json`` says how long to recreate it): the cost model reads shapes,
never weight values. The input names are the ATC ``--input_shape`` names of
the published rows, so a row's input string applies as it is.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import onnx
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "onnx" / "generators"))
from onnx_record import zero_weights  # noqa: E402

INDEX = HERE / "graphs.json"
OPSET = 13


@dataclass
class Network:
    """How to build one published model and an example input at batch 2."""

    build: Callable[[], torch.nn.Module]
    source: str
    example: Callable[[], tuple[torch.Tensor, ...]]
    input_names: list[str]
    note: str | None = None
    output_names: tuple[str, ...] = ("output",)
    #: The outputs' batch axis (CRNN's output is [time, batch, classes]).
    output_batch_axis: int = 0


def torchvision_model(name: str, **kwargs: Any) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import torchvision

        return getattr(torchvision.models, name)(weights=None, **kwargs)

    return build


def timm_model(name: str) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import timm

        return timm.create_model(name, pretrained=False)

    return build


def images(size: int) -> Callable[[], tuple[torch.Tensor, ...]]:
    return lambda: (torch.randn(2, 3, size, size),)


def bert_base_squad() -> torch.nn.Module:
    import transformers

    # bert-base-uncased: 12 layers, 768 wide, 12 heads, vocab 30522
    config = transformers.BertConfig(return_dict=False)
    config._attn_implementation = "eager"  # as the model zoo's opset-11 exports: MatMul + Softmax
    return transformers.BertForQuestionAnswering(config)


def gpt2_chinese() -> torch.nn.Module:
    import transformers

    config = transformers.GPT2Config(
        vocab_size=21128, n_positions=1024, n_embd=768, n_layer=12, n_head=12, use_cache=False
    )
    config._attn_implementation = "eager"
    return LogitsOnly(transformers.GPT2LMHeadModel(config))


class LogitsOnly(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """A Hugging Face language model returning its logits tensor."""

    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, ids: torch.Tensor) -> Any:
        # An all-ones mask, as the published model's single input implies: with
        # none, transformers 5 traces a packed-sequence check (aten::diff) that
        # the TorchScript exporter cannot export.
        return self.inner(ids, attention_mask=torch.ones_like(ids)).logits


class OneWayLstms(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """The model zoo CRNN's bidirectional layer: two one-way LSTMs, the
    second over the time-reversed sequence, then a linear map of both."""

    def __init__(self, inputs: int, hidden: int, outputs: int) -> None:
        super().__init__()
        self.forward_lstm = torch.nn.LSTM(inputs, hidden)
        self.backward_lstm = torch.nn.LSTM(inputs, hidden)
        self.linear = torch.nn.Linear(2 * hidden, outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ahead, _ = self.forward_lstm(x)
        behind, _ = self.backward_lstm(torch.flip(x, [0]))
        both = torch.cat((ahead, torch.flip(behind, [0])), 2)
        steps, batch, width = both.shape
        out: torch.Tensor = self.linear(both.reshape(steps * batch, width))
        return out.reshape(steps, batch, -1)


class Crnn(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
    """CRNN as the model zoo's CRNN_BuiltIn_for_Pytorch builds it
    (``CRNN(32, 1, 37, 256)``): seven 3x3 convolutions (the last 2x2,
    unpadded) with ReLU, batch norm after the 3rd, 5th and 7th, max pools
    2x2, 2x2, (2,2)/(2,1) padded (0,1) twice; a 1 x 32 x 100 image becomes
    26 steps of 512 features, then two one-way-LSTM pairs of 256 and a log
    softmax over 37 classes."""

    def __init__(self) -> None:
        super().__init__()
        layers: list[torch.nn.Module] = []
        widths = [1, 64, 128, 256, 256, 512, 512, 512]
        pools = {
            0: ((2, 2), (2, 2), (0, 0)),
            1: ((2, 2), (2, 2), (0, 0)),
            3: ((2, 2), (2, 1), (0, 1)),
            5: ((2, 2), (2, 1), (0, 1)),
        }
        for i in range(7):
            kernel, pad = (2, 0) if i == 6 else (3, 1)
            layers.append(torch.nn.Conv2d(widths[i], widths[i + 1], kernel, 1, pad))
            if i in (2, 4, 6):
                layers.append(torch.nn.BatchNorm2d(widths[i + 1]))
            layers.append(torch.nn.ReLU())
            if i in pools:
                layers.append(torch.nn.MaxPool2d(*pools[i]))
        self.cnn = torch.nn.Sequential(*layers)
        self.rnn = torch.nn.Sequential(OneWayLstms(512, 256, 256), OneWayLstms(256, 256, 37))

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        features = self.cnn(image).squeeze(2).permute(2, 0, 1)  # [width, batch, channels]
        return torch.nn.functional.log_softmax(self.rnn(features), dim=2)


def tokens(count: int, seq: int = 512) -> Callable[[], tuple[torch.Tensor, ...]]:
    return lambda: tuple(torch.ones(2, seq, dtype=torch.long) for _ in range(count))


NETWORKS: dict[str, Network] = {
    "resnet101": Network(
        torchvision_model("resnet101"), "torchvision.models.resnet101", images(224), ["image"]
    ),
    "resnet18": Network(torchvision_model("resnet18"), "torchvision.models.resnet18", images(224), ["image"]),
    "resnet50": Network(
        torchvision_model("resnet50"), "torchvision.models.resnet50", images(224), ["actual_input_1"]
    ),
    "mobilenet_v2": Network(
        torchvision_model("mobilenet_v2"), "torchvision.models.mobilenet_v2", images(224), ["actual_input_1"]
    ),
    "mobilenetv3_small": Network(
        torchvision_model("mobilenet_v3_small"),
        "torchvision.models.mobilenet_v3_small",
        images(224),
        ["image"],
        note="the published model is xiaolai-sqlai/mobilenetv3 MobileNetV3_Small; torchvision's is closest",
    ),
    "googlenet": Network(
        torchvision_model("googlenet", aux_logits=False, init_weights=True),
        "torchvision.models.googlenet",
        images(224),
        ["image"],
    ),
    "shufflenet_v2_x1_0": Network(
        torchvision_model("shufflenet_v2_x1_0"),
        "torchvision.models.shufflenet_v2_x1_0",
        images(224),
        ["image"],
    ),
    "inception_v4": Network(timm_model("inception_v4"), "timm inception_v4", images(299), ["image"]),
    "efficientnetv2": Network(
        timm_model("efficientnetv2_rw_t"),
        "timm efficientnetv2_rw_t",
        images(288),
        ["image"],
        note="the README's top-1 (82.26 at 288 x 288) matches timm's efficientnetv2_rw_t at its test size",
    ),
    "efficientnet_b7": Network(timm_model("efficientnet_b7"), "timm efficientnet_b7", images(600), ["image"]),
    "dpn131": Network(timm_model("dpn131"), "timm dpn131", images(224), ["image"]),
    "se_resnet50": Network(
        timm_model("legacy_seresnet50"), "timm legacy_seresnet50 (Cadene se_resnet50)", images(224), ["image"]
    ),
    "bert_base_uncased_squad": Network(
        bert_base_squad,
        "transformers.BertForQuestionAnswering(BertConfig()) (bert-base-uncased sizes), seq 512",
        tokens(3),
        ["input_ids", "token_type_ids", "attention_mask"],
        output_names=("start_logits", "end_logits"),
    ),
    "crnn": Network(
        Crnn,
        "CRNN(32, 1, 37, 256) of the model zoo (its crnn.py: one-way LSTM pairs), written here",
        lambda: (torch.randn(2, 1, 32, 100),),
        ["actual_input_1"],
        output_names=("output1",),
        output_batch_axis=1,
    ),
    "gpt2_chinese": Network(
        gpt2_chinese,
        "transformers.GPT2LMHeadModel(GPT2Config(vocab 21128, 12 layers, 768 wide, 12 heads)), seq 512",
        tokens(1),
        ["input_ids"],
        note="12 layers assumed (GPT-2 small, as GPT2-Chinese's general model); the README gives the vocab",
    ),
}


def forward_order(name: str, net: Network) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    """The module and example inputs in the order ``input_names`` lists them
    (BertForQuestionAnswering takes input_ids, attention_mask, token_type_ids)."""
    torch.manual_seed(0)
    model = net.build().eval()
    inputs = net.example()
    if name == "bert_base_uncased_squad":
        ids, types, mask = inputs

        class Reordered(torch.nn.Module):  # type: ignore[misc, unused-ignore]  # Module is Any without torch (the test extra)
            def __init__(self, inner: torch.nn.Module) -> None:
                super().__init__()
                self.inner = inner

            def forward(self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor) -> Any:
                return self.inner(ids, mask, types)

        return Reordered(model), (ids, types, mask)
    return model, inputs


def export(name: str, net: Network) -> dict[str, Any]:
    model, inputs = forward_order(name, net)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.onnx"
        torch.onnx.export(
            model,
            inputs,
            str(path),
            input_names=net.input_names,
            output_names=list(net.output_names),
            dynamic_axes={
                **{n: {0: "batch"} for n in net.input_names},
                **{n: {net.output_batch_axis: "batch"} for n in net.output_names},
            },
            opset_version=OPSET,
            dynamo=False,
        )
        graph = onnx.load(str(path), load_external_data=False)
        weights_bytes = zero_weights(graph, f"{name}.weights", Path(tmp))
    file = f"{name}.onnx.gz"
    (HERE / file).write_bytes(gzip.compress(graph.SerializeToString(), 9, mtime=0))
    return {
        "file": file,
        "weights_file": f"{name}.weights",
        "weights_bytes": weights_bytes,
        "source": net.source,
        "note": net.note,
        "nodes": len(graph.graph.node),
        "opset": OPSET,
        "torch": torch.__version__,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    index: dict[str, Any] = json.loads(INDEX.read_text()) if INDEX.exists() else {}
    for name, net in NETWORKS.items():
        if args.only and name not in args.only:
            continue
        print(f"{name} ...", flush=True)
        index[name] = export(name, net)
        print(f"  {index[name]['nodes']} nodes, {index[name]['weights_bytes'] / 1e6:.1f} MB of weights")
        INDEX.write_text(json.dumps(dict(sorted(index.items())), indent=1) + "\n")


if __name__ == "__main__":
    main()
