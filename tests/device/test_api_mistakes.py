"""Mistaken arguments to the device-side API (memory profiles, the cost
model, its report and plots, the placement checker) are said in one
sentence naming the argument, not met by a conversion deep inside, and
never silently turned into something else (a float dim cut to an int, a
plot written under another name than the one returned)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import opgraph
from opgraph import CostReport, DataType, Format, ShapeArgumentError, ShapeTypeError


def conv_graph(batch: int = -1) -> opgraph.Graph:
    g = opgraph.Graph("conv")
    x = g.add_input("x", DataType.FLOAT16, (batch, 16, 8, 8), Format.NCHW)
    w = g.add_const("w", np.zeros((32, 16, 3, 3), np.float16), Format.NCHW)
    c = g.add_node(
        "Conv2D", "conv", [x, w], {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "data_format": "NCHW"}
    )
    g.set_outputs([g.add_node("Relu", "relu", [c])])
    opgraph.infer(g)
    return g


@pytest.mark.parametrize(
    ("shape", "error", "expected"),
    [
        ([1.5, 16, 8, 8], ShapeTypeError, r"dim 0 is float 1.5"),
        ("1,16,8,8", ShapeTypeError, r"expected a sequence of ints, got str"),
        (None, ShapeTypeError, r"got NoneType"),
        ([2**70, 16, 8, 8], ShapeArgumentError, r"does not fit int64"),
    ],
)
def test_a_profile_shape_is_checked_as_an_input_shape_is(
    shape: Any, error: type[Exception], expected: str
) -> None:
    """A float batch was cut to an int and the plan made for it."""
    with pytest.raises(error, match=expected):
        opgraph.plan_memory(conv_graph(), profiles=[{"x": shape}])


def test_a_profile_plan_reports_the_shape_it_planned() -> None:
    (planned,) = opgraph.plan_memory(conv_graph(), profiles=[{"x": (4, 16, 8, 8)}])
    assert planned.input_shapes == {"x": (4, 16, 8, 8)}


@pytest.mark.parametrize(
    ("count", "error", "expected"),
    [
        ("3", TypeError, r"loop_trip_count is a whole number of iterations, got '3'"),
        (2.5, TypeError, r"got 2.5"),
        (-1, ValueError, r"loop_trip_count is -1, expected >= 0"),
        (2**70, ValueError, r"below 2\*\*64"),
    ],
)
def test_a_loop_trip_count_that_is_no_count_is_named(
    count: Any, error: type[Exception], expected: str
) -> None:
    with pytest.raises(error, match=expected):
        opgraph.estimate_cost(conv_graph(1), "Ascend310", loop_trip_count=count)


def test_a_soc_that_is_neither_name_nor_spec_is_named() -> None:
    with pytest.raises(TypeError, match=r"soc is a SoC name or a DeviceSpec, got dict"):
        opgraph.estimate_cost(conv_graph(1), {"name": "Ascend310"})  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def report() -> CostReport:
    return opgraph.estimate_cost(conv_graph(1), "Ascend310")


@pytest.mark.parametrize("top", [0, -1, 1.5, True])
def test_a_plot_of_no_op_types_is_refused(report: CostReport, top: Any, tmp_path: Path) -> None:
    """-1 dropped the smallest op type; 0 drew an empty chart."""
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match=r"top is how many op types the chart shows, at least 1"):
        report.plot(tmp_path / "c.png", top=top)


def test_a_plot_returns_the_file_it_wrote(report: CostReport, tmp_path: Path) -> None:
    """matplotlib adds .png to a name without a suffix; the returned path said otherwise."""
    pytest.importorskip("matplotlib")
    written = report.plot(tmp_path / "cost", spec="Ascend310")
    assert written == tmp_path / "cost.png" and written.is_file()
    plan_png = opgraph.plan_memory(conv_graph(1)).plot(tmp_path / "memory")
    assert plan_png == tmp_path / "memory.png" and plan_png.is_file()


def test_a_plot_to_a_directory_or_to_nothing_is_refused(report: CostReport, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match=r"is a directory; give the image's file name"):
        report.plot(tmp_path)
    with pytest.raises(
        TypeError, match=r"a plot is written to a file path \(str or PathLike\), got NoneType"
    ):
        opgraph.plan_memory(conv_graph(1)).plot(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"spec is a DeviceSpec or a SoC name, got int"):
        report.plot(tmp_path / "c.png", spec=3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda data: "not json", r"not a cost report: the text is not JSON"),
        (lambda data: [], r"not a cost report: the JSON is a list, not an object"),
        (lambda data: {k: v for k, v in data.items() if k != "device"}, r"no 'device' field"),
        (
            lambda data: {**data, "nodes": [{**data["nodes"][0], "extra": 1}]},
            r"unexpected keyword argument 'extra'",
        ),
    ],
)
def test_a_report_from_other_json_is_a_value_error(report: CostReport, edit: Any, expected: str) -> None:
    data = json.loads(report.to_json())
    edited = edit(data)
    text = edited if isinstance(edited, str) else json.dumps(edited)
    with pytest.raises(ValueError, match=expected):
        CostReport.from_json(text)


def test_an_unsigned_size_beyond_int64_is_said_as_given() -> None:
    """It wrapped to a negative number, which the message then showed."""
    with pytest.raises(ValueError, match=r"sizes\[0\] is 9223372036854775808, which exceeds int64"):
        opgraph.plan_lifetimes(np.array([2**63], dtype=np.uint64), [0], [1])


@pytest.mark.parametrize("arena", [-1, 2**64, 1.5])
def test_an_arena_size_that_is_no_size_is_named(arena: Any) -> None:
    with pytest.raises(ValueError, match=r"arena_bytes is a size in bytes"):
        opgraph.check_placement([512], [0], [1], [0], arena)


def test_a_range_the_plan_was_told_not_to_use_is_named_as_such() -> None:
    """The message asked for the shape range the input has."""
    g = opgraph.Graph("ranged")
    x = g.add_input("x", DataType.FLOAT16, (-1, 8), Format.ND, shape_range=[(1, 64), (8, 8)])
    g.set_outputs([g.add_node("Relu", "relu", [x])])
    opgraph.infer(g)
    assert opgraph.plan_memory(g).io_bytes > 0
    with pytest.raises(
        opgraph.MemoryPlanError, match=r"its shape range would bound them, but this plan does not use"
    ):
        opgraph.plan_memory(g, use_shape_ranges=False)
