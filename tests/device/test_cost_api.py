"""The Python API of the cost model: DeviceSpec presets and files,
estimate_cost on graphs built with the Graph builder, errors, JSON and plots."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import opgraph
from opgraph import CostError, CostReport, DataType, DeviceSpec, DeviceSpecError, Graph, NodeCost

PRESETS = ["Ascend310", "Ascend310P3", "Ascend310B1", "Ascend910A", "Ascend910B2"]


def conv_graph(channels: int = 3, size: int = 32) -> Graph:
    g = Graph("conv")
    x = g.add_input("x", DataType.FLOAT, [1, size, size, channels], "NHWC")
    w = g.add_const("w", np.zeros((3, 3, channels, 16), "float32"), "HWCN")
    attrs = {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "data_format": "NHWC"}
    y = g.add_node("Conv2D", "conv", [x, w], attrs)
    r = g.add_node("Relu", "relu", [y])
    g.set_outputs([r])
    opgraph.infer(g)
    return g


def test_presets_are_listed_and_found_by_atc_spellings() -> None:
    assert [p.name for p in DeviceSpec.presets()] == PRESETS
    assert DeviceSpec.preset("Ascend910").name == "Ascend910A"
    assert DeviceSpec.preset("ascend 310p3").name == "Ascend310P3"
    p = DeviceSpec.preset("Ascend910A")
    assert p.peak_fp16_flops == pytest.approx(256e12, rel=0.01)
    assert "Hot Chips" in p.sources["ai_cores"]
    with pytest.raises(DeviceSpecError, match="unknown SoC 'Ascend999'; the presets are Ascend310"):
        DeviceSpec.preset("Ascend999")


def test_a_soc_without_a_preset_is_named_with_the_presets() -> None:
    with pytest.raises(DeviceSpecError) as caught:
        DeviceSpec.preset("Ascend910B1")
    message = str(caught.value)
    assert message.startswith("no cost preset describes Ascend910B1 (Ascend910B family)")
    assert all(name in message for name in PRESETS)


@pytest.mark.parametrize("name", PRESETS)
def test_reports_on_unvalidated_presets_say_so_first(name: str) -> None:
    spec = DeviceSpec.preset(name)
    assert spec.validation
    report = opgraph.estimate_cost(conv_graph(), spec)
    warning = f"no published measurement validates the {name} preset: treat its times as uncalibrated"
    if spec.validated:
        assert warning not in report.flags
    else:
        assert report.flags[0] == warning
        assert CostReport.from_json(report.to_json()).flags[0] == warning
    assert {p.name for p in DeviceSpec.presets() if not p.validated} >= {"Ascend910A", "Ascend910B2"}


def test_a_description_file_round_trips(tmp_path: Path) -> None:
    spec = DeviceSpec.preset("Ascend310")
    toml_path = tmp_path / "mine.toml"
    toml_path.write_text(spec.to_toml().replace('name = "Ascend310"', 'name = "Mine"'))
    mine = DeviceSpec.load(toml_path)
    assert mine.name == "Mine" and mine.ai_cores == 2
    json_path = tmp_path / "mine.json"
    json_path.write_text(mine.to_json())
    assert DeviceSpec.load(json_path) == mine
    bad = json.loads(mine.to_json())
    bad["clock_mhz"] = -1
    json_path.write_text(json.dumps(bad))
    with pytest.raises(DeviceSpecError, match="clock_mhz = -1, expected a positive number"):
        DeviceSpec.load(json_path)
    with pytest.raises(OSError, match="cannot read device description"):
        DeviceSpec.load(tmp_path / "missing.toml")


def test_estimate_reports_every_node_with_totals() -> None:
    report = opgraph.estimate_cost(conv_graph(), "Ascend310")
    assert isinstance(report, CostReport)
    assert report.device == "Ascend310" and report.precision == "force_fp16"
    conv = report.node("conv")
    assert isinstance(conv, NodeCost)
    assert conv.op_type == "Conv2D" and conv.time_us > 0 and conv.bound in ("cube", "memory", "overhead")
    # C=3 is padded to C0=16 on the Cube: the padded work is 16/3 of the useful work.
    assert conv.padded_flops > conv.flops * 5
    relu = report.node("relu")
    assert (relu.bound, relu.fused_into, relu.time_us) == ("fused", "conv", 0.0)
    assert report.task_count == 1
    assert report.total_us == pytest.approx(sum(n.time_us for n in report.nodes))
    # The fused kernel finishes with its last member.
    assert report.critical_path == ["relu"]
    assert report.breakdown()[0].name == "conv"
    assert list(report.time_by_op_type()) == ["Conv2D"]


def test_options_change_the_estimate() -> None:
    g = conv_graph()
    fused = opgraph.estimate_cost(g, "Ascend310")
    apart = opgraph.estimate_cost(g, "Ascend310", fuse=False)
    assert apart.task_count == 2 and apart.total_us > fused.total_us
    # Vector ops keep fp32 under allow_fp32_to_fp16: twice the bytes of force_fp16.
    fp16 = opgraph.estimate_cost(g, "Ascend310", fuse=False, l2_residency=False)
    fp32 = opgraph.estimate_cost(
        g, "Ascend310", precision="allow_fp32_to_fp16", fuse=False, l2_residency=False
    )
    assert fp32.node("relu").bytes == 2 * fp16.node("relu").bytes
    assert fp32.node("conv").padded_flops == fp16.node("conv").padded_flops
    with pytest.raises(ValueError, match="unknown precision mode 'fp8'"):
        opgraph.estimate_cost(g, "Ascend310", precision="fp8")  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error
    with pytest.raises(CostError, match="no Cube mode for float") as info:
        opgraph.estimate_cost(g, "Ascend310", precision="must_keep_origin_dtype")
    assert info.value.node == "conv"
    # The 910B2 Cube has an fp32 mode.
    assert opgraph.estimate_cost(g, "Ascend910B2", precision="must_keep_origin_dtype").total_us > 0


def test_unknown_sizes_raise_naming_the_node() -> None:
    g = Graph("dyn")
    x = g.add_input("x", DataType.FLOAT, [-1, 8])
    g.set_outputs([g.add_node("Relu", "relu", [x])])
    opgraph.infer(g)
    with pytest.raises(CostError, match=r"node 'relu' .*input_shapes=") as info:
        opgraph.estimate_cost(g)
    assert info.value.node == "relu"


def test_json_round_trip_and_plot(tmp_path: Path) -> None:
    report = opgraph.estimate_cost(conv_graph(), "Ascend310P3", fuse=False)
    assert CostReport.from_json(report.to_json()) == report
    pytest.importorskip("matplotlib")
    path = report.plot(tmp_path / "cost.png")
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


@given(channels=st.integers(1, 64), size=st.integers(4, 40))
def test_more_channels_never_cost_less_and_padding_shows(channels: int, size: int) -> None:
    small = opgraph.estimate_cost(conv_graph(channels, size), "Ascend310").node("conv")
    more = opgraph.estimate_cost(conv_graph(channels + 1, size), "Ascend310").node("conv")
    assert more.time_us >= small.time_us
    assert small.padded_flops >= small.flops
    # Within one C0 block the Cube work is the same.
    if (channels - 1) // 16 == channels // 16:
        assert more.padded_flops == small.padded_flops
