"""``opgraph compile --batch-sizes`` (ATC: ``--dynamic_batch_size``): the cost
model at each batch size, each equal to a compile at that fixed batch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli

from opgraph.cli.compile import CompileOptions, UsageError, batched_shapes, run
from opgraph.cli.examples import example
from opgraph.cli.model_args import parse_batch_sizes
from opgraph.cli.report import load_schema


def compile_json(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "report.json"
    done = run_cli("compile", "--example", "lenet", "--soc", "Ascend310P3", "--json", out, *args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.mark.parametrize("flag", ["--batch-sizes", "--dynamic_batch_size"])
def test_each_batch_size_is_costed_as_a_compile_at_that_batch(tmp_path: Path, flag: str) -> None:
    report = compile_json(tmp_path, flag, "8,1,4,4")
    sweep = report["cost"]["batch_sweep"]
    assert [b["batch"] for b in sweep] == [1, 4, 8]
    ex = example("lenet")
    plain = run(CompileOptions(model=ex.path, framework=ex.framework, weights=ex.weights, soc="Ascend310P3"))
    for b in sweep:
        shapes = batched_shapes(plain.graph, b["batch"])
        assert shapes == {"data": [b["batch"], 1, 28, 28]}
        options = CompileOptions(
            model=ex.path, framework=ex.framework, weights=ex.weights, input_shapes=shapes, soc="Ascend310P3"
        )
        compiled = run(options)
        alone, memory = compiled.cost, compiled.memory
        assert alone is not None and memory is not None
        assert b["total_us"] == pytest.approx(alone.total_us, rel=1e-9)
        assert b["throughput"] == pytest.approx(1e6 * b["batch"] / b["total_us"])
        # Its memory profile is that compile's plan.
        (profile,) = [p for p in report["profiles"] if p["batch"] == b["batch"]]
        assert profile["arena_bytes"] == memory.arena_bytes
        assert profile["lower_bound_bytes"] == memory.lower_bound_bytes
        assert profile["weights_bytes"] == memory.weights_bytes
        assert profile["io_bytes"] == memory.io_bytes
        assert profile["total_us"] == b["total_us"]
    # More samples per batch cost more time and give no less throughput here.
    assert sweep[0]["total_us"] < sweep[-1]["total_us"]
    assert sweep[-1]["throughput"] >= sweep[0]["throughput"]


def test_the_summary_prints_throughput_per_batch_size(tmp_path: Path) -> None:
    done = run_cli("compile", "--example", "lenet", "--soc", "Ascend310P3", "--batch-sizes", "1,16")
    assert done.returncode == 0, done.stderr
    assert "by batch size" in done.stdout
    assert "samples/s" in done.stdout


def test_without_the_flag_there_is_no_sweep(tmp_path: Path) -> None:
    assert compile_json(tmp_path)["cost"]["batch_sweep"] == []


@pytest.mark.parametrize("text", ["", "0", "-1", "1,x", "4;8", "2000000"])
def test_bad_batch_sizes_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_batch_sizes(text)
    done = run_cli("compile", "--example", "lenet", "--batch-sizes", text)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "--batch-sizes" in done.stderr


def test_the_report_validates_and_the_out_dir_has_the_profile_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    jsonschema = pytest.importorskip("jsonschema")
    out = tmp_path / "out"
    args = ("--example", "lenet", "--soc", "Ascend310P3", "--batch-sizes", "2,32", "--out", out)
    done = run_cli("compile", *args)
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    jsonschema.validate(report, load_schema())
    arenas = [p["arena_bytes"] for p in report["profiles"]]
    assert [p["batch"] for p in report["profiles"]] == [2, 32]
    assert arenas[0] < arenas[1]
    assert (out / "profiles.png").stat().st_size > 10_000


def test_a_soc_without_a_cost_preset_still_gets_memory_per_batch(tmp_path: Path) -> None:
    report = compile_json(tmp_path, "--batch-sizes", "1,4", "--soc", "Ascend910B1")
    assert report["cost"] is None
    assert [p["batch"] for p in report["profiles"]] == [1, 4]
    assert all(p["arena_bytes"] > 0 and p["total_us"] is None for p in report["profiles"])


def test_a_profile_the_model_cannot_take_is_skipped_alone(tmp_path: Path) -> None:
    """LeNet's pooling refuses a 5x5 image; the 28x28 profile was dropped with it."""
    report = compile_json(tmp_path, "--input_shape", "data:1,1,-1,-1", "--dynamic_image_size", "5,5;28,28")
    assert [p["label"] for p in report["profiles"]] == ["image 28x28"]
    assert any(w.startswith("profile image 5x5 is skipped: node 'pool1'") for w in report["warnings"])


@pytest.mark.parametrize(
    ("input_shape", "flag", "gears", "largest"),
    [
        ("data:-1,1,28,28", "--dynamic_batch_size", "1,8", "batch 8"),
        ("data:-1,1,28,28", "--dynamic_dims", "2;6", "dims 6"),
    ],
)
def test_gears_over_free_dims_are_the_plan(
    tmp_path: Path, input_shape: str, flag: str, gears: str, largest: str
) -> None:
    """ATC's gears fix the -1 dims of --input_shape one profile at a time. The
    main graph, its dims free, plans a fraction of the model; GE sizes the
    memory the gears share for the largest. So no main plan, no warning to
    fix --input-shape, and a note and a memory line naming the largest
    profile, whose arena is that of a compile at its fixed shape."""
    report = compile_json(tmp_path, "--input_shape", input_shape, flag, gears)
    assert report["memory"] is None
    assert not any("unknown dims" in w for w in report["warnings"]), report["warnings"]
    (profile,) = [p for p in report["profiles"] if p["label"] == largest]
    assert profile["arena_bytes"] == max(p["arena_bytes"] for p in report["profiles"])
    size = int(largest.split()[-1])
    ex = example("lenet")
    fixed = run(
        CompileOptions(
            model=ex.path,
            framework=ex.framework,
            weights=ex.weights,
            input_shapes={"data": [size, 1, 28, 28]},
            soc="Ascend310P3",
        )
    )
    assert fixed.memory is not None and profile["arena_bytes"] == fixed.memory.arena_bytes
    mib = f"{fixed.memory.arena_bytes / 2**20:.2f} MiB"
    notes = " ".join(report["notes"])
    assert f"GE sizes the memory the profiles share for the largest, {largest}: a {mib} arena" in notes
    done = run_cli(
        "compile", "--example", "lenet", "--soc", "Ascend310P3", "--input_shape", input_shape, flag, gears
    )
    assert done.returncode == 0, done.stderr
    assert f"memory per profile (below); the largest, {largest}: arena" in " ".join(done.stdout.split())


def test_a_main_compile_with_ranges_keeps_its_plan_beside_batch_profiles(tmp_path: Path) -> None:
    """Only free dims are the gears': a batch given as a range has a worst-case
    plan of its own, which the profiles do not replace."""
    report = compile_json(tmp_path, "--input-shape", "data:1~4,1,28,28", "--batch-sizes", "1,4")
    assert report["memory"] is not None
    assert [p["batch"] for p in report["profiles"]] == [1, 4]
    assert not any("take each profile's sizes" in n for n in report["notes"])
