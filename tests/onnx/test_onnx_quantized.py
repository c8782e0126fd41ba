"""Models onnxruntime's quantizer wrote (QDQ: QuantizeLinear /
DequantizeLinear pairs) through ``opgraph compile``'s stages: the INT8
weights only a folded DequantizeLinear reads take no device memory, and the
command says that ATC does not convert such models as they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from onnx_model_records import fixed_input_shapes, load_record, model_file

import opgraph
from opgraph.cli.main import main
from opgraph.onnx import load_onnx

onnx = pytest.importorskip("onnx")

QDQ = "resnet18_qdq_ts13"


def dequantized_weights(path: Path) -> set[str]:
    """INT8 / UINT8 initializers whose every reader is a DequantizeLinear
    (which constant folding turns into a float weight), from the file."""
    model = onnx.load(path, load_external_data=False)
    eight_bit = {
        t.name
        for t in model.graph.initializer
        if t.data_type in (onnx.TensorProto.INT8, onnx.TensorProto.UINT8)
    }
    readers: dict[str, set[str]] = {}
    for node in model.graph.node:
        for name in node.input:
            readers.setdefault(name, set()).add(node.op_type)
    return {n for n in eight_bit if n in readers and readers[n] == {"DequantizeLinear"}}


def test_int8_weights_of_folded_dequantize_nodes_take_no_memory(tmp_path: Path) -> None:
    path = model_file(QDQ, tmp_path)
    folded = dequantized_weights(path)
    assert len(folded) == 42  # every Conv's and the Gemm's weight and its zero point
    graph = load_onnx(path, fixed_input_shapes(load_record(QDQ)))
    opgraph.prepare(graph, "Ascend310P3")
    plan = opgraph.plan_memory(graph)
    assert plan.check() == []
    regions = {t.name: t.region for t in plan.tensors}
    assert {regions[f"{name}:0"] for name in folded} == {"folded"}
    weights = [t for t in plan.tensors if t.region == "weight" and t.view_of is None]
    # What stays: the float weights the folded DequantizeLinear nodes made,
    # besides the biases and the quantization parameters of activations.
    align = plan.alignment
    assert sum(-(-(t.size or 0) // align) * align for t in weights) == plan.weights_bytes
    assert not any(t.name.removesuffix(":0") in folded for t in weights)


def test_compile_says_atc_needs_amct_for_a_qdq_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = model_file(QDQ, tmp_path)
    report = tmp_path / "report.json"
    code = main(
        [
            "compile",
            str(path),
            "--input-shape",
            "input:1,3,224,224",
            "--soc",
            "Ascend310P3",
            "--json",
            str(report),
        ]
    )
    assert code == 0
    warnings = json.loads(report.read_text())["warnings"]
    qdq = [w for w in warnings if "QuantizeLinear/DequantizeLinear pairs" in w]
    assert len(qdq) == 1 and "convert_qat_model" in qdq[0], warnings
    # One line per op type without a cost rule, however many nodes.
    uncosted = [w for w in warnings if w.startswith("no cost rule")]
    assert sorted(w.split(" (")[0] for w in uncosted) == [
        "no cost rule for op type DequantizeLinear",
        "no cost rule for op type QuantizeLinear",
    ]
    capsys.readouterr()
