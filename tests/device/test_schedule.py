"""Memory-aware scheduling in ``plan_memory`` (issue 16): each order is a
valid schedule (its plan passes the checker), its peak is what a sweep over
the planned lifetimes finds, and ``auto`` keeps the lowest peak. Real
models: a torchvision ResNet-18 and SqueezeNet of the ONNX corpus at fixed
input shapes, after ``prepare``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "onnx"))
import onnx_model_records as records

import opgraph
from opgraph.memory import MemoryPlan, Schedule

ORDERS: tuple[Schedule, ...] = ("topological", "depth_first", "frees_most")


def swept_peak(plan: MemoryPlan) -> int:
    """The peak of live activation bytes, from the plan's own columns."""
    owners = [
        i
        for i, region in enumerate(plan.regions)
        if region == "activation" and plan.view_of[i] < 0 and plan.sizes[i] > 0
    ]
    if not owners:
        return 0
    steps = int(max(plan.last_steps[i] for i in owners)) + 2
    live = np.zeros(steps, dtype=np.int64)
    align = plan.alignment
    for i in owners:
        size = -(-int(plan.sizes[i]) // align) * align
        live[plan.first_steps[i]] += size
        live[plan.last_steps[i] + 1] -= size
    return int(np.cumsum(live).max())


@pytest.fixture(scope="module", params=["resnet18_ts11", "squeezenet1_1_ts11"])
def graph(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> opgraph.Graph:
    name = request.param
    record = records.load_record(name)
    path = records.model_file(name, tmp_path_factory.mktemp(name))
    loaded = opgraph.load_onnx(path, records.fixed_input_shapes(record))
    opgraph.prepare(loaded, "Ascend310")
    return loaded


@pytest.mark.parametrize("order", ORDERS)
def test_every_order_is_a_valid_schedule_with_its_swept_peak(graph: opgraph.Graph, order: Schedule) -> None:
    plan = opgraph.plan_memory(graph, schedule=order)
    assert plan.schedule == order
    assert plan.check() == []
    assert plan.lower_bound_bytes == swept_peak(plan) == plan.schedule_peaks[order]


def test_auto_keeps_the_lowest_peak(graph: opgraph.Graph) -> None:
    plan = opgraph.plan_memory(graph)
    assert set(plan.schedule_peaks) == set(ORDERS)
    assert plan.lower_bound_bytes == min(plan.schedule_peaks.values())
    assert plan.schedule_peaks[plan.schedule] == plan.lower_bound_bytes
    assert plan.lower_bound_bytes <= plan.schedule_peaks["topological"]
    assert plan.check() == []


def test_an_unknown_schedule_names_the_known_ones(graph: opgraph.Graph) -> None:
    with pytest.raises(ValueError, match="unknown schedule 'fastest'; the schedules are auto, topological"):
        opgraph.plan_memory(graph, schedule="fastest")  # type: ignore[call-overload]  # deliberately wrong: checks the runtime error
