"""Shape ranges on the corpus's real models, against onnxruntime.

A dim whose size depends on data (NonZero, NonMaxSuppression, TopK, an If
on data) is unknown, with a range when inference can bound it: NMS by its
box count, a merged If branch by both branches, a Fill or Expand to a shape
vector read from ``Shape`` by that vector's value range (GE's value range),
a Concat by its parts. A range narrower than the truth would plan too little
memory, so every range must hold the size onnxruntime really produced (the
corpus records, at the fixed input sizes). And on the single-shot
detectors, once the image size is fixed, every tensor is bounded, so the
memory plan holds every tensor at its upper bound.

Needs only the committed corpus and the ``onnx`` package."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from onnx_model_records import fixed_input_shapes, load_record, model_file, model_names

import opgraph

#: Detection models whose every tensor is bounded at a fixed image size.
BOUNDED_DETECTORS = ["ssdlite320_mobilenet_v3_large_ts11", "retinanet_resnet50_fpn_ts11"]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx_ranges")


def _load(name: str, workdir: Path) -> tuple[opgraph.Graph, Any]:
    from opgraph.onnx import load_onnx_reported

    record = load_record(name)
    return load_onnx_reported(str(model_file(name, workdir)), input_shapes=fixed_input_shapes(record))


def _outside(real: list[int], shape: tuple[int, ...], ranges: list[tuple[int, int]]) -> list[int]:
    """The axes where the real size is outside opgraph's range."""
    return [
        axis
        for axis, (size, dim, (lo, hi)) in enumerate(zip(real, shape, ranges, strict=True))
        if dim < 0 and not (lo <= size and (hi < 0 or size <= hi))
    ]


def check_ranges(name: str, workdir: Path) -> tuple[int, list[str]]:
    """How many recorded values of ``name`` (at its fixed input sizes) have
    an unknown dim with a range, and those whose range misses the size
    onnxruntime produced."""
    record = load_record(name)
    graph, report = _load(name, workdir)
    outputs = {node.name: node.outputs for node in graph.nodes()}
    checked, wrong = 0, []
    for value, key in report.tensors.items():
        want = record["tensors"].get(value)
        node, index = key.rsplit(":", 1)
        if want is None or node not in outputs:
            continue  # not recorded, or a value the report maps to no node output
        desc = outputs[node][int(index)]
        if (
            desc.shape_range is None
            or min(desc.shape, default=0) >= 0
            or len(want["shape"]) != len(desc.shape)
        ):
            continue
        checked += 1
        if _outside(want["shape"], desc.shape, desc.shape_range):
            wrong.append(f"{value}: onnxruntime {want['shape']}, opgraph {desc.shape} in {desc.shape_range}")
    return checked, wrong


def unbounded_tensors(graph: opgraph.Graph) -> tuple[list[str], list[str]]:
    """The node outputs with an unknown dim, and those of them with an
    unknown dim that has no upper bound."""
    unknown, unbounded = [], []
    for n in graph.nodes():
        for i, d in enumerate(n.outputs):
            if min(d.shape, default=0) >= 0:
                continue
            unknown.append(f"{n.name}:{i}")
            if d.shape_range is None or any(
                hi < 0 for dim, (_, hi) in zip(d.shape, d.shape_range, strict=True) if dim < 0
            ):
                unbounded.append(f"{n.name}:{i}")
    return unknown, unbounded


@pytest.mark.parametrize("name", model_names())
def test_every_range_holds_the_size_onnxruntime_produced(name: str, workdir: Path) -> None:
    _, wrong = check_ranges(name, workdir)
    assert not wrong, f"{name}: {len(wrong)} ranges miss the real size: {wrong[:10]}"


@pytest.mark.parametrize("name", BOUNDED_DETECTORS)
def test_a_detector_at_a_fixed_size_is_bounded_and_planned_whole(name: str, workdir: Path) -> None:
    graph, _ = _load(name, workdir)
    unknown, unbounded = unbounded_tensors(graph)
    assert unknown, "expected data-dependent sizes (NonZero, TopK, NMS)"
    assert not unbounded, (
        f"{len(unbounded)} of {len(unknown)} unknown tensors have no upper bound: {unbounded[:10]}"
    )
    opgraph.prepare(graph, "Ascend310P3")
    plan = opgraph.plan_memory(graph)  # no allow_dynamic: every tensor must get a size
    assert "dynamic" not in plan.regions
    assert plan.arena_bytes >= plan.lower_bound_bytes > 0
    # The latency too, at the upper bounds (a worst case, flagged); without
    # them an unknown size is an error naming its node.
    with pytest.raises(opgraph.errors.CostError, match="unknown size"):
        opgraph.estimate_cost(graph, "Ascend310P3")
    report = opgraph.estimate_cost(graph, "Ascend310P3", at_upper_bounds=True)
    assert report.total_us > 0
    costed = [
        f for f in report.flags if "tensors of run-time size are costed at their shape ranges' upper" in f
    ]
    assert costed, report.flags
    # Every unknown tensor of the model, and the device pass's conversions of them.
    assert int(costed[0].split()[0]) >= len(unknown)


def main() -> None:
    """Prints, per corpus model with data-dependent sizes, how many values
    carry a range, how many of those miss onnxruntime's size, and how many
    tensors stay unbounded (the README's figures)."""
    total = missed = 0
    print("| model | values with a range | missing the real size | unknown tensors | unbounded |")
    print("| --- | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for name in model_names():
            checked, wrong = check_ranges(name, Path(tmp))
            unknown, unbounded = unbounded_tensors(_load(name, Path(tmp))[0])
            total, missed = total + checked, missed + len(wrong)
            if checked:
                print(f"| {name} | {checked} | {len(wrong)} | {len(unknown)} | {len(unbounded)} |")
    print(f"\n{total} values with a range over {len(model_names())} models, {missed} missing the real size")


if __name__ == "__main__":
    main()
