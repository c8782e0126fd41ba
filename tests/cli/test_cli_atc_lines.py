"""Real ``atc`` command lines (tests/cli/data/atc_lines.json: each with its
source, the line as published and the line pasted here with corpus models)
pasted after ``opgraph atc``: each runs, and its flags have their effect
(the --output file, AIPP's uint8 input, --out_nodes, --output_type, the
profiles, --log's verbosity, the notes of options without effect)."""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_helpers import MODELS, run_cli

from opgraph.cli.report import load_schema

TESTS = Path(__file__).resolve().parents[1]
DATA = Path(__file__).with_name("data")
SHARED_CAFFE = Path("/work/shared/models/caffe")
PLACES = {
    "onnx": TESTS / "onnx" / "data",
    "tf": TESTS / "tensorflow" / "data",
    "caffe": SHARED_CAFFE,
    "examples": MODELS,
    "data": DATA,
}
ROWS: list[dict[str, Any]] = json.loads((DATA / "atc_lines.json").read_text())["lines"]
sys.path.insert(0, str(TESTS / "onnx"))
from onnx_model_records import model_file  # noqa: E402


def _tokens(line: str, directory: Path | None = None) -> list[str]:
    """The line's arguments after ``atc``; with ``directory``, each corpus
    ONNX model made loadable there (its weights file recreated beside it)."""
    text = line
    if directory is not None:
        directory.mkdir(exist_ok=True)
        for name in re.findall(r"\{onnx\}/([\w.]+)\.onnx", text):
            text = text.replace("{onnx}/" + name + ".onnx", str(model_file(name, directory)))
    for key, place in PLACES.items():
        text = text.replace("{" + key + "}", str(place))
    tokens = shlex.split(text)
    assert tokens[0] == "atc"
    return tokens[1:]


def test_the_table_holds_twenty_lines_of_different_shapes() -> None:
    runnable = [row for row in ROWS if row["expect"].get("exit", 0) == 0]
    assert len(runnable) >= 20
    flags = {
        t.split("=")[0].lstrip("-") for row in runnable for t in _tokens(row["line"]) if t.startswith("-")
    }
    for flag in ("framework", "model", "output", "input_format", "input_shape", "log", "soc_version",
                 "out_nodes", "insert_op_conf", "dynamic_batch_size", "dynamic_image_size",
                 "dynamic_dims", "output_type", "enable_small_channel", "precision_mode"):  # fmt: skip
        assert flag in flags, flag
    assert all(row["source"] and row["original"].startswith("atc ") for row in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_a_pasted_atc_line_runs_and_its_flags_take_effect(tmp_path: Path, row: dict[str, Any]) -> None:
    if row.get("needs_shared") and not SHARED_CAFFE.is_dir():
        pytest.skip(f"{SHARED_CAFFE} is absent (the shared Caffe nets this line is pasted with)")
    expect = row["expect"]
    done = run_cli("atc", *_tokens(row["line"], tmp_path / "models"), cwd=tmp_path)
    assert "Traceback" not in done.stderr
    if expect.get("exit", 0) != 0:
        assert done.returncode == expect["exit"], done.stderr
        assert expect["stderr"] in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        return
    assert done.returncode == 0, done.stderr
    written = tmp_path / expect["output_file"]
    assert written.is_file(), sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    report = json.loads(written.read_text())
    jsonschema.validate(report, load_schema())
    assert report["output_file"] == expect["output_file"].removeprefix("./")
    assert "no .om" in done.stdout
    _check(report, expect, done.stdout, done.stderr)


def _check(report: dict[str, Any], expect: dict[str, Any], stdout: str, stderr: str) -> None:
    model = report["model"]
    if "input_shape" in expect:
        assert model["inputs"][0]["shape"] == expect["input_shape"]
    if "outputs" in expect:
        assert [t["name"] for t in model["outputs"]] == expect["outputs"]
    if "outputs_prefix" in expect:
        assert all(t["name"].startswith(expect["outputs_prefix"]) for t in model["outputs"])
    if "output_dtype" in expect:
        assert {t["dtype"] for t in model["outputs"]} == {expect["output_dtype"]}
    if "aipp_before" in expect:
        (stage,) = report["aipp"]
        assert stage["before"]["dtype"] == "UINT8"
        assert stage["before"]["shape"] == expect["aipp_before"]
        # The model's input is now the uint8 image; the Aipp node makes what the model read.
        (image,) = [t for t in model["inputs"] if t["name"] == f"{stage['input']}:0"]
        assert (image["dtype"], image["shape"]) == ("UINT8", expect["aipp_before"])
        (aipp,) = [n for n in report["nodes"] if n["op_type"] == "Aipp"]
        assert aipp["outputs"][0]["shape"] == stage["after"]["shape"]
        assert aipp["outputs"][0]["dtype"] == stage["after"]["dtype"]
        assert "AIPP" in stdout
        if "aipp_bytes" in expect:
            assert stage["before"]["bytes"] == expect["aipp_bytes"]
    if "profiles" in expect:
        assert [p["label"] for p in report["profiles"]] == expect["profiles"]
        assert all(p["arena_bytes"] for p in report["profiles"])
    if "precision_mode" in expect:
        assert model["precision_mode"] == expect["precision_mode"]
    if "note" in expect:
        assert any(expect["note"] in note for note in report["notes"])
        assert f"note: {expect['note']}" in stdout.replace("\n", " ") or expect["note"] in stdout
    if expect.get("log") == "debug":
        assert "debug: parse took" in stderr
    if expect.get("log") in ("error", "null"):
        assert "note:" not in stdout and "warning:" not in stdout
