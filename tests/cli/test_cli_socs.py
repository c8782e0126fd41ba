"""``opgraph compile --soc``: every target of the soc table compiles the bundled
example (exit 0), with a cost estimate where a preset describes the target and
otherwise with every other stage and one warning; presets that no published
measurement validates say so; an unknown SoC is a usage error (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli

import opgraph
from opgraph import DeviceSpec, DeviceSpecError

PRESET_NAMES = [p.name for p in DeviceSpec.presets()]
NOT_VALIDATED = "no published measurement validates the {} preset: treat its times as uncalibrated"


def preset_of(soc: str) -> DeviceSpec | None:
    try:
        return DeviceSpec.preset(soc)
    except DeviceSpecError:
        return None


def compile_lenet(tmp_path: Path, soc: str) -> dict[str, Any]:
    out = tmp_path / "report.json"
    done = run_cli("compile", "--example", "lenet", "--soc", soc, "--json", out, "-q")
    assert done.returncode == 0, f"--soc {soc}: exit {done.returncode}: {done.stderr}"
    assert "Traceback" not in done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def cost_warnings(report: dict[str, Any]) -> list[str]:
    return [w for w in report["warnings"] if w.startswith("cost model skipped")]


def test_the_soc_table_has_the_310b_family() -> None:
    assert {"Ascend310B", "Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4"} <= set(
        opgraph.SOC_VERSIONS
    )
    assert "Ascend310B1" in PRESET_NAMES


@pytest.mark.parametrize("soc", opgraph.SOC_VERSIONS)
def test_every_soc_compiles_with_a_cost_estimate_or_one_warning(tmp_path: Path, soc: str) -> None:
    report = compile_lenet(tmp_path, soc)
    # Every stage before the cost model ran for the target asked for.
    assert report["model"]["soc"] == soc
    assert report["memory"] is not None and report["memory"]["arena_bytes"] > 0
    assert any(n["op_type"] == "TransData" for n in report["nodes"])
    assert report["errors"] == []
    skipped = cost_warnings(report)
    preset = preset_of(soc)
    if preset is not None:
        assert report["cost"] is not None, report["warnings"]
        assert report["cost"]["device"] == preset.name
        assert report["cost"]["total_us"] > 0
        assert skipped == []
    else:
        assert report["cost"] is None
        assert len(skipped) == 1, report["warnings"]
        (warning,) = skipped
        assert soc in warning
        assert all(name in warning for name in PRESET_NAMES), warning
        assert len(report["warnings"]) == 1, report["warnings"]


def test_ascend310b1_has_a_cost_estimate(tmp_path: Path) -> None:
    report = compile_lenet(tmp_path, "Ascend310B1")
    cost = report["cost"]
    assert cost is not None and cost["device"] == "Ascend310B1"
    assert cost["total_us"] > 0 and cost["task_count"] > 0
    spec = DeviceSpec.preset("Ascend310B1")
    assert spec.peak_int8_ops == pytest.approx(20e12, rel=0.001)
    assert spec.ai_cores == 1
    # Not fitted yet: the report says so.
    assert NOT_VALIDATED.format("Ascend310B1") in report["warnings"]


@pytest.mark.parametrize("soc", ["Ascend910A", "Ascend910", "Ascend910B2"])
def test_the_910_presets_carry_the_not_validated_warning(tmp_path: Path, soc: str) -> None:
    spec = DeviceSpec.preset(soc)
    assert spec.validated is False and "not validated" in spec.validation
    warning = NOT_VALIDATED.format(spec.name)
    report = compile_lenet(tmp_path, soc)
    assert report["cost"] is not None
    assert report["cost"]["flags"][0] == warning
    assert report["warnings"].count(warning) == 1
    done = run_cli("compile", "--example", "lenet", "--soc", soc)
    assert done.returncode == 0, done.stderr
    assert f"warning: {warning}" in " ".join(done.stdout.split())


@pytest.mark.parametrize("soc", ["Ascend310", "Ascend310P3"])
def test_validated_presets_carry_no_such_warning(tmp_path: Path, soc: str) -> None:
    assert DeviceSpec.preset(soc).validated is True
    report = compile_lenet(tmp_path, soc)
    assert report["cost"] is not None
    assert not any("no published measurement validates" in w for w in report["warnings"])


@pytest.mark.parametrize("soc", ["Ascend920", "Ascend310B9", ""])
def test_an_unknown_soc_is_a_usage_error(soc: str) -> None:
    done = run_cli("compile", "--example", "lenet", "--soc", soc, "-q")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("opgraph: error: --soc: unknown SoC"), lines[0]
    assert repr(soc) in lines[0] and "Ascend310B1" in lines[0]
