"""The cost model's rules for ONNX's own convolution forms (1-D ``Conv`` and
``ConvTranspose``, which keep ONNX's form in the IR) on real exports of the
corpus: every such node is costed on the Cube, with the arithmetic of its
ONNX definition at the sizes onnxruntime ran it with (the corpus record's
run A shapes) and the filter shapes the exporter wrote."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from onnx_model_records import fixed_input_shapes, load_record, model_file

import opgraph
from opgraph.onnx import load_onnx

onnx = pytest.importorskip("onnx")

# wav2vec2's feature extractor and positional convolution are 1-D (one of
# them grouped); U-Net's up steps are ConvTranspose (both exporters).
MODELS = ["wav2vec2_ts14", "unet_ts13", "unet_dynamo"]


def expected_flops(name: str, directory: Path) -> dict[str, float]:
    """Per 1-D Conv and ConvTranspose node: 2 x the multiply-adds its ONNX
    definition does at run A's sizes (a 1-D conv: each output element sums
    C_in / group x k taps; a transposed one: each input element meets
    C_out / group filters at every tap)."""
    record = load_record(name)
    model = onnx.load(model_file(name, directory), load_external_data=False)
    dims = {t.name: list(t.dims) for t in model.graph.initializer}
    dims.update({n: list(t["shape"]) for n, t in record["tensors"].items()})
    dims.update(record["run_a_inputs"])
    flops = {}
    for node in model.graph.node:
        if node.op_type not in ("Conv", "ConvTranspose"):
            continue
        weight = dims[node.input[1]]
        if node.op_type == "Conv" and len(weight) == 3:
            out = record["tensors"][node.output[0]]["shape"]
            flops[node.name] = 2.0 * math.prod(out) * weight[1] * weight[2]
        elif node.op_type == "ConvTranspose":
            x = dims[node.input[0]]
            flops[node.name] = 2.0 * math.prod(x) * weight[1] * math.prod(weight[2:])
    return flops


@pytest.mark.parametrize("name", MODELS)
def test_onnx_convolution_forms_are_costed_with_their_definitions_arithmetic(
    name: str, tmp_path: Path
) -> None:
    expected = expected_flops(name, tmp_path)
    assert expected, f"{name} has no 1-D Conv or ConvTranspose"
    graph = load_onnx(model_file(name, tmp_path), fixed_input_shapes(load_record(name)))
    # Unfused: a fused activation's arithmetic would join its convolution's row.
    report = opgraph.estimate_cost(graph, "Ascend310P3", fuse=False)
    uncosted = [f for f in report.flags if "no cost rule" in f]
    assert not any("Conv1D" in f or "ConvTranspose" in f for f in uncosted), uncosted
    rows = {row.name: row for row in report.nodes}
    for node, flops in expected.items():
        row = rows[node]
        assert row.flops == pytest.approx(flops, rel=1e-12), node
        assert row.padded_flops >= row.flops, node
        assert row.note is None, (node, row.note)
