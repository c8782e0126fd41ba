"""The roofline and memory plots tell the truth about the model they draw:
a memory-bound op sits left of the ridge of the memory link that times it
(the cost model takes the slower of off-chip and L2), every op under its
link's ceiling; the log axes' labels are plain text (mathtext is off while
opgraph draws); the memory plot names its largest tensors in a legend."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.append(str(Path(__file__).resolve().parent.parent / "onnx"))
from onnx_model_records import fixed_input_shapes, model_file
from onnx_model_records import load_record as load_onnx_record

import opgraph
from opgraph._roofline import LINKS, ceilings, roofline_points
from opgraph.cost import BOUNDS, CostReport, DeviceSpec, estimate_cost
from opgraph.device import prepare

pytest.importorskip("matplotlib")

#: Corpus models with L2-bound ops on these SoCs (checked below, so the test
#: cannot pass without the case the off-chip-only roofline got wrong).
MODELS = ("mobilenet_v2_ts11", "resnet50_ts13", "efficientnet_b0_ts13")
SOCS = ("Ascend310P3", "Ascend310")


def compiled(name: str, soc: str, workdir: Path) -> tuple[opgraph.Graph, CostReport]:
    graph = opgraph.load_onnx(
        model_file(name, workdir), input_shapes=fixed_input_shapes(load_onnx_record(name))
    )
    prepare(graph, soc)
    return graph, estimate_cost(graph, soc)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("plots")


@pytest.mark.parametrize("soc", SOCS)
@pytest.mark.parametrize("name", MODELS)
def test_memory_bound_ops_sit_left_of_their_links_ridge(name: str, soc: str, workdir: Path) -> None:
    _, report = compiled(name, soc, workdir)
    limits = ceilings(DeviceSpec.preset(soc))
    points = roofline_points(report, limits)
    bounds = report.columns.bound_codes[points.rows]
    memory = bounds == BOUNDS.index("memory")
    ridges = np.array([limits.ridge(link) for link in LINKS])[points.links]
    wrong = memory & (points.intensity > ridges * (1 + 1e-9))
    names = [report.columns.names[int(r)] for r in points.rows[wrong]]
    assert not wrong.any(), f"memory-bound ops right of their ridge: {names[:5]}"
    # Every op is under its link's ceiling (the time includes launch overhead).
    bandwidth = np.array([limits.bytes_per_s[link] for link in LINKS])[points.links]
    roof = np.minimum(limits.peak_flops, points.intensity * bandwidth)
    assert (points.achieved <= roof * (1 + 1e-9)).all()
    # No rule for the compute-bound side: a vector op's ceiling is below the
    # Cube peak, so it may be compute-bound left of the ridge.


def test_the_models_have_l2_bound_memory_ops(workdir: Path) -> None:
    """Off-chip intensity alone put these right of the off-chip ridge.
    (ResNet-50: its 1x1 convolutions re-read operands shared between cores
    from L2; MobileNetV2's convolutions split without L2 re-reads.)"""
    _, report = compiled("resnet50_ts13", "Ascend310P3", workdir)
    limits = ceilings(DeviceSpec.preset("Ascend310P3"))
    points = roofline_points(report, limits)
    c = report.columns
    memory = c.bound_codes[points.rows] == BOUNDS.index("memory")
    via_l2 = memory & (points.links == LINKS.index("L2"))
    assert via_l2.any()
    off_chip_intensity = c.flops[points.rows] / c.bytes[points.rows]
    assert (off_chip_intensity[via_l2] > limits.ridge("off-chip")).any()


def drawn(figure: Any) -> Any:
    from matplotlib import rc_context

    with rc_context({"text.parse_math": False}):
        figure.canvas.draw()
    return figure


def tick_texts(axes: Any) -> list[str]:
    return [t.get_text() for t in [*axes.get_xticklabels(), *axes.get_yticklabels()] if t.get_text()]


def test_the_roofline_figure_draws_those_points_with_plain_labels(workdir: Path) -> None:
    from opgraph._cost_plot import cost_figure

    _, report = compiled("mobilenet_v2_ts11", "Ascend310P3", workdir)
    spec = DeviceSpec.preset("Ascend310P3")
    figure = drawn(cost_figure(report, spec, top=10))
    roof = figure.axes[0]
    plotted = np.concatenate([c.get_offsets()[:, 0] for c in roof.collections])
    expected = roofline_points(report, ceilings(spec)).intensity
    assert sorted(plotted.tolist()) == pytest.approx(sorted(expected.tolist()))
    labels = tick_texts(roof)
    assert labels and not any("$" in t or "mathdefault" in t for t in labels), labels


def test_the_memory_plot_names_its_largest_tensors(workdir: Path) -> None:
    from opgraph._memory_plot import LABELLED_BUFFERS, plan_figure, short_name

    graph, _ = compiled("mobilenet_v2_ts11", "Ascend310P3", workdir)
    plan = opgraph.plan_memory(graph)
    owners = np.flatnonzero(
        np.array([r == "activation" for r in plan.regions]) & (plan.view_of < 0) & (plan.sizes >= 0)
    )
    names = [plan.names[int(i)] for i in owners]
    figure = drawn(
        plan_figure(
            plan.sizes[owners],
            plan.offsets[owners],
            plan.first_steps[owners],
            plan.last_steps[owners],
            plan,
            "mobilenet",
            names,
        )
    )
    legends = [t.get_text() for legend in figure.legends for t in legend.get_texts()]
    largest = names[int(np.argmax(plan.sizes[owners]))]
    assert any(text.startswith("1. ") and short_name(largest) in text for text in legends), legends
    numbered = [t for t in legends if t.split(". ", 1)[0].isdigit()]
    assert len(numbered) == LABELLED_BUFFERS
    assert any(t.startswith("arena ") for t in legends) and "live bytes" in legends
    colour_bar = figure.axes[-1]
    assert not any("$" in t for t in tick_texts(colour_bar))
