"""Input ranges on the TensorFlow corpus, against TensorFlow's own run.

Each model's free placeholder dims get a range holding the size TensorFlow
ran them at (the records' ``runtime``), the graph is inferred and its ranges
narrowed by probing (:func:`opgraph.narrow_ranges`); every tensor TensorFlow
produced, in function bodies too, must lie in its range. The TF2 encoder,
whose attention reshapes and ``tf.cond`` bodies interval ranges cannot
bound, must end up bounded whole and compile with a memory plan holding
every tensor and a worst-case latency."""

from __future__ import annotations

from pathlib import Path

import pytest
from tf_model_records import load_record, model_file, model_names, opgraph_tensors

import opgraph
from opgraph.tensorflow import load_tensorflow_reported

#: The upper bound of every free dim: at least this, and twice the run's size.
UPPER = 8


def _ranged(name: str, directory: Path) -> tuple[opgraph.Graph, dict[str, list[int]]]:
    record = load_record(name)
    runtime: dict[str, list[int]] = record["runtime"]["shapes"]
    graph, _ = load_tensorflow_reported(str(model_file(name, "pb", directory)), infer=False)
    for placeholder, spec in record["placeholders"].items():
        real = runtime[f"{placeholder}:0"]
        ranges = [
            (d, d) if d >= 0 else (1, max(UPPER, 2 * r)) for d, r in zip(spec["shape"], real, strict=True)
        ]
        if any(d < 0 for d in spec["shape"]):
            graph.set_input_shape_range(placeholder, ranges)
    opgraph.infer(graph)
    return graph, runtime


def _unbounded(graph: opgraph.Graph, record: dict[str, object]) -> list[str]:
    return [
        key
        for key, desc in opgraph_tensors(graph, record).items()
        if min(desc.shape, default=0) < 0
        and (
            desc.shape_range is None
            or any(hi < 0 for d, (_, hi) in zip(desc.shape, desc.shape_range, strict=True) if d < 0)
        )
    ]


def _dynamic_models() -> list[str]:
    return [
        name
        for name in model_names()
        if any(min(p["shape"], default=0) < 0 for p in load_record(name)["placeholders"].values())
    ]


@pytest.mark.parametrize("name", _dynamic_models())
def test_every_probed_range_holds_the_size_tensorflow_ran(name: str, tmp_path: Path) -> None:
    graph, runtime = _ranged(name, tmp_path)
    record = load_record(name)
    probe = opgraph.narrow_ranges(graph)
    assert probe.skipped is None, probe.skipped
    outside, checked = [], 0
    for key, desc in opgraph_tensors(graph, record).items():
        real = runtime.get(key)
        if real is None or desc.shape_range is None or len(real) != len(desc.shape):
            continue
        checked += 1
        for size, dim, (lo, hi) in zip(real, desc.shape, desc.shape_range, strict=True):
            if dim < 0 and not (lo <= size and (hi < 0 or size <= hi)):
                outside.append(f"{key}: TensorFlow {real}, opgraph {desc.shape} in {desc.shape_range}")
                break
    assert checked > 0
    assert not outside, f"{len(outside)} of {checked} tensors outside their range: {outside[:5]}"


def test_the_encoder_with_input_ranges_is_bounded_whole(tmp_path: Path) -> None:
    record = load_record("tf2_encoder")
    graph, _ = _ranged("tf2_encoder", tmp_path)
    # Interval ranges alone bound it whole since value bounds pass through
    # size arithmetic, comparisons and Range (2026-11-30); probing must still
    # fit every dim.
    assert _unbounded(graph, record) == []
    probe = opgraph.narrow_ranges(graph)
    assert probe.fitted == probe.unknown_dims > 0
    assert _unbounded(graph, record) == []
    opgraph.prepare(graph, "Ascend310P3")
    plan = opgraph.plan_memory(graph)
    assert "dynamic" not in plan.regions
    assert opgraph.estimate_cost(graph, "Ascend310P3", at_upper_bounds=True).total_us > 0
