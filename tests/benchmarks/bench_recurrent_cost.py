"""The recurrent cost rule (ONNX LSTM / GRU / RNN) against the published
throughput of the model zoo's CRNN on the Ascend 310P3, batch 1 to 64.

    python tests/benchmarks/bench_recurrent_cost.py

Reads ``tests/device/calibration/recurrent_published.tsv``, builds each row's
network as ``opgraph compile`` prepares it and prints the published latency,
the estimate with the shipped preset, their ratio, and the share of the
estimate spent in the recurrent layers. These rows are a check, not a
validation: the rule's per-step barrier (one task boundary per step) was
chosen after seeing them, and nothing else in the cost model is fitted to
them. Not part of the test suite.
"""

from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "device" / "calibration"))

import published

import opgraph

ROWS = Path(__file__).resolve().parents[1] / "device" / "calibration" / "recurrent_published.tsv"
RECURRENT = ("CommonLSTM", "CommonGRU", "CommonRNN")


def main() -> None:
    rows = published.rows(ROWS)
    print("| model | SoC | batch | published | estimate | ratio | recurrent layers |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            graph = published.load(row, Path(tmp))
            report = opgraph.estimate_cost(graph, row.soc, precision=published.PRECISION)
            measured_ms = row.batch / row.images_per_s * 1e3
            ratio = report.total_ms / measured_ms
            ratios.append(ratio)
            by_type = report.time_by_op_type()
            recurrent_us = sum(by_type.get(op, 0.0) for op in RECURRENT)
            print(
                f"| {row.model} | {row.soc} | {row.batch} | {measured_ms:.3f} ms | {report.total_ms:.3f} ms "
                f"| {ratio:.2f} | {recurrent_us / (10 * report.total_ms):.0f}% |"
            )
    worst = max(ratios, key=lambda r: abs(math.log(r)))
    within = sum(abs(r - 1) <= 0.25 for r in ratios)
    print(f"\n{within} of {len(ratios)} rows within +-25%; worst ratio {worst:.2f}")


if __name__ == "__main__":
    main()
