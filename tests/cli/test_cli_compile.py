"""``opgraph compile``: options, ATC aliases, exit codes, report, --out files."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cli_helpers import MODELS, run_cli

from opgraph.cli.report import SCHEMA_VERSION, load_schema


def compile_json(tmp_path: Path, *args: str | Path) -> dict[str, Any]:
    out = tmp_path / "report.json"
    done = run_cli("compile", *args, "--json", out, "-q")
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    jsonschema.validate(report, load_schema())
    return report


def test_console_script_is_installed_next_to_the_interpreter() -> None:
    names = ("opgraph", "opgraph.exe")
    assert any((Path(sys.executable).parent / n).exists() for n in names) or shutil.which("opgraph")


@pytest.mark.parametrize("example", ["lenet", "cnn", "layernorm"])
def test_examples_compile_and_print_the_summary(example: str) -> None:
    done = run_cli("compile", "--example", example)
    assert done.returncode == 0, done.stderr
    for part in ("nodes by op type", "inputs and outputs", "memory", "estimated latency", "top-10"):
        assert part in done.stdout
    assert "\x1b[" not in done.stdout, "no colour codes / progress when stdout is not a TTY"


@pytest.mark.parametrize("example", ["lenet", "cnn", "layernorm"])
def test_report_validates_against_the_shipped_schema(tmp_path: Path, example: str) -> None:
    report = compile_json(tmp_path, "--example", example)
    assert report["schema_version"] == SCHEMA_VERSION
    assert set(report) == {
        "schema_version",
        "model",
        "nodes",
        "scope_passes",
        "memory",
        "cost",
        "profiles",
        "aipp",
        "output_file",
        "notes",
        "warnings",
        "errors",
    }
    assert report["profiles"] == report["aipp"] == report["notes"] == []
    jsonschema.validate(report, load_schema())
    assert report["model"]["node_count"] == len(report["nodes"])
    assert report["memory"]["arena_bytes"] >= report["memory"]["lower_bound_bytes"] > 0
    assert report["cost"]["total_us"] > 0
    assert report["errors"] == []


def test_layernorm_scope_is_fused(tmp_path: Path) -> None:
    report = compile_json(tmp_path, "--example", "layernorm")
    assert report["model"]["op_types"].get("LayerNorm") == 1
    passes = {run["name"]: run for run in report["scope_passes"]}
    layer_norm = passes["ScopeLayerNormPass"]
    assert layer_norm["status"] == "ran"
    assert [f["op_type"] for f in layer_norm["fused"]] == ["LayerNorm"]
    assert layer_norm["declined"] == []


def test_disabling_a_general_scope_pass_keeps_the_original_ops(tmp_path: Path) -> None:
    report = compile_json(
        tmp_path, "--example", "layernorm", "--disable-scope-fusion-passes", "ScopeLayerNormPass"
    )
    assert "LayerNorm" not in report["model"]["op_types"]
    assert report["model"]["op_types"].get("Rsqrt") == 1
    passes = {run["name"]: run for run in report["scope_passes"]}
    assert passes["ScopeLayerNormPass"] == {
        "name": "ScopeLayerNormPass",
        "status": "disabled",
        "fused": [],
        "declined": [],
    }
    assert report["errors"] == []


def test_disabling_an_unknown_scope_pass_is_an_error() -> None:
    done = run_cli("compile", "--example", "layernorm", "--disable_scope_fusion_passes=NoSuchPass")
    assert done.returncode != 0
    assert "no scope fusion pass named 'NoSuchPass'" in done.stderr
    assert "Traceback" not in done.stderr


def test_out_writes_report_dot_and_plots(tmp_path: Path) -> None:
    out = tmp_path / "build"
    done = run_cli("compile", "--example", "lenet", "--out", out)
    assert done.returncode == 0, done.stderr
    for name in ("report.json", "report.html", "graph.dot", "memory.png", "cost.png"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "memory.png").read_bytes()[:4] == b"\x89PNG"
    assert "conv1" in (out / "graph.dot").read_text()
    # report.html is the graph view: no unreadable whole-graph SVG any more.
    assert not (out / "graph.svg").exists()
    assert "report.html" in done.stdout
    jsonschema.validate(json.loads((out / "report.json").read_text()), load_schema())


def test_framework_from_extension_and_explicit(tmp_path: Path) -> None:
    report = compile_json(tmp_path, MODELS / "cnn.pbtxt", "--input-shape", "x:2,28,28,1")
    assert report["model"]["framework"] == "tensorflow"
    assert report["model"]["inputs"][0]["shape"] == [2, 28, 28, 1]
    copy = tmp_path / "net.txt"
    shutil.copy(MODELS / "lenet.prototxt", copy)
    report = compile_json(tmp_path, copy, "--framework", "caffe", "--weights", MODELS / "lenet.caffemodel")
    assert report["model"]["framework"] == "caffe"


def test_atc_aliases(tmp_path: Path) -> None:
    report = compile_json(
        tmp_path,
        f"--model={MODELS / 'lenet.prototxt'}",
        f"--weight={MODELS / 'lenet.caffemodel'}",
        "--framework=0",
        "--input_shape=data:2,1,28,28",
        "--soc_version=Ascend310P3",
        "--precision_mode=must_keep_origin_dtype",
        "--out_nodes=ip2:0",
    )
    model = report["model"]
    assert model["framework"] == "caffe"
    assert model["soc"] == "Ascend310P3"
    assert model["precision_mode"] == "must_keep_origin_dtype"
    assert model["inputs"][0]["shape"] == [2, 1, 28, 28]
    assert model["outputs"][0]["name"].startswith("ip2")
    assert "prob" not in {n["name"] for n in report["nodes"]}


def test_atc_framework_3_and_scope_passes(tmp_path: Path) -> None:
    report = compile_json(
        tmp_path,
        f"--model={MODELS / 'cnn.pbtxt'}",
        "--framework=3",
        "--input_shape=x:1,28,28,1",
        "--enable_scope_fusion_passes=ScopeBatchNormInferencePass",
        "--soc",
        "Ascend910B2",
    )
    assert report["model"]["framework"] == "tensorflow"


def test_outputs_prune(tmp_path: Path) -> None:
    report = compile_json(tmp_path, "--example", "cnn", "--outputs", "MaxPool2d")
    assert "MatMul" not in {n["name"] for n in report["nodes"]}


def test_unknown_dims_warn_and_skip_cost(tmp_path: Path) -> None:
    report = compile_json(tmp_path, MODELS / "cnn.pbtxt")
    assert report["cost"] is None
    assert any("unknown dims" in w for w in report["warnings"])


def test_plugins_option_imports_the_module(tmp_path: Path) -> None:
    plugin = tmp_path / "my_plugin.py"
    marker = tmp_path / "imported"
    plugin.write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('yes')\n")
    compile_json(tmp_path, "--example", "cnn", "--plugins", plugin)
    assert marker.read_text() == "yes"


def test_custom_proto_option(tmp_path: Path) -> None:
    data = Path(__file__).parents[1] / "caffe" / "data"
    protos = [data / "decode_custom_a.proto", data / "decode_custom_b.proto"]
    done = run_cli("compile", data / "decode_custom.prototxt", "--custom-proto", *protos, "-q")
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr


def test_model_error_is_one_paragraph_exit_1() -> None:
    done = run_cli("compile", MODELS / "cnn.pbtxt", "--input-shape", "x:1,28,28,3")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "'Conv2D'" in done.stderr and "Conv2D" in done.stderr and "[1, 28, 28, 3]" in done.stderr
    assert "Hint:" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_missing_plugin_hint(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pbtxt"
    bad.write_text((MODELS / "cnn.pbtxt").read_text().replace('op: "Softmax"', 'op: "MySoftmax"'))
    done = run_cli("compile", bad, "--input-shape", "x:1,28,28,1")
    assert done.returncode == 1
    assert "MySoftmax" in done.stderr
    assert "@opgraph.tensorflow.plugin" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_failing_user_infer_function_gets_a_hint_about_the_function(tmp_path: Path) -> None:
    """Not the input-shape hint a built-in op's failure gets: the bug is in
    the plugin's code, and its exception is quoted."""
    bad = tmp_path / "bad.pbtxt"
    bad.write_text((MODELS / "cnn.pbtxt").read_text().replace('op: "Softmax"', 'op: "MySoftmax"'))
    plugin = tmp_path / "my_softmax.py"
    plugin.write_text(
        "import opgraph\n"
        "from opgraph.tensorflow import auto_mapping, plugin\n"
        "op = opgraph.OpDef('MySoftmaxOp')\n"
        "op.input('x')\n"
        "op.output('y', follow='x')\n"
        "op.infer_shape(lambda ctx: [][0])\n"
        "opgraph.register(op)\n"
        "plugin('MySoftmaxOp', origin_op_types=['MySoftmax'])(auto_mapping)\n"
    )
    done = run_cli("compile", bad, "--input-shape", "x:1,28,28,1", "--plugins", plugin)
    assert done.returncode == 1
    assert "IndexError" in done.stderr
    assert "MySoftmaxOp is a plugin's op type: fix its function" in done.stderr
    assert "--input-shape" not in done.stderr.split("Hint:")[-1]
    assert "Traceback" not in done.stderr


def test_collect_errors_reports_every_failing_node(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    done = run_cli(
        "compile", "--example", "cnn", "--input-shape", "x:1,28,28,3", "--collect-errors", "--json", out
    )
    assert done.returncode == 1
    report = json.loads(out.read_text())
    jsonschema.validate(report, load_schema())
    assert report["errors"] and report["errors"][0]["node"] == "Conv2D"
    assert report["errors"][0]["kind"].endswith("Error")
    assert "node(s) failed" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["compile"],
        ["compile", "missing.pb"],
        ["compile", "model.tflite"],
        ["compile", "--example", "nope"],
        ["compile", "--example", "cnn", "--input-shape", "x:a,b"],
        ["compile", "--example", "cnn", "--precision-mode", "fp8"],
        ["compile", "--bogus"],
        ["compile", "--example", "cnn", "--weights", "w.caffemodel"],
    ],
)
def test_usage_errors_exit_2(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "model.tflite").write_text("")
    done = run_cli(*args, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert "error" in done.stderr
