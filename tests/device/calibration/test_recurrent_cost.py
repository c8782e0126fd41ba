"""The recurrent cost rule on the model zoo's CRNN (four ONNX LSTM layers),
its arithmetic checked against ONNX's own shape inference of the model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import published
import pytest
from onnx import TensorProto, helper

import opgraph

ROWS = Path(__file__).resolve().parent / "recurrent_published.tsv"


def crnn_row(batch: int) -> published.Row:
    (row,) = [r for r in published.rows(ROWS) if r.model == "crnn" and r.batch == batch]
    return row


def test_every_lstm_is_costed_as_onnx_lstm_arithmetic(tmp_path: Path) -> None:
    """Per LSTM node, 2 * steps * batch * (input + hidden) * 4 * hidden FLOPs,
    with the steps and widths onnxruntime runs it at (its input's shape,
    read by running the model), and no layer left to the "no cost rule"
    fallback."""
    ort = pytest.importorskip("onnxruntime")
    row = crnn_row(4)
    path = published.onnx_file("crnn", tmp_path)
    model = onnx.load(path, load_external_data=False)
    lstms = [n for n in model.graph.node if n.op_type == "LSTM"]
    assert len(lstms) == 4
    model.graph.output.extend(
        helper.make_tensor_value_info(n.input[0], TensorProto.FLOAT, None) for n in lstms
    )
    probed = tmp_path / "probed.onnx"  # beside the weights file its initializers name
    onnx.save(model, probed)
    image = np.zeros(row.input_shapes()["actual_input_1"], np.float32)
    session = ort.InferenceSession(str(probed), providers=["CPUExecutionProvider"])
    values = session.run([n.input[0] for n in lstms], {"actual_input_1": image})
    weights = {t.name: list(t.dims) for t in model.graph.initializer}
    expected = {}
    for node, x in zip(lstms, values, strict=True):
        steps, batch, inputs = x.shape
        _, gate_rows, hidden = weights[node.input[2]]
        expected[node.name] = 2.0 * steps * batch * (inputs + hidden) * gate_rows

    graph = published.load(row, tmp_path)
    report = opgraph.estimate_cost(graph, row.soc, precision=published.PRECISION)
    assert not report.flags, report.flags
    costed = {n.name: n.flops for n in report.nodes if n.op_type == "CommonLSTM"}
    assert costed == expected


def test_the_crnn_sweep_stays_where_it_was_checked(tmp_path: Path) -> None:
    """Against the published latency at every batch: the level of
    ``bench_recurrent_cost.py`` (0.69-0.86x) as a floor. A regression check,
    not evidence: the per-step barrier was chosen after seeing these rows."""
    for row in published.rows(ROWS):
        graph = published.load(row, tmp_path)
        report = opgraph.estimate_cost(graph, row.soc, precision=published.PRECISION)
        ratio = report.total_ms / (row.batch / row.images_per_s * 1e3)
        assert 0.65 <= ratio <= 1.25, (row.batch, ratio)
