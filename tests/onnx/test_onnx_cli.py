"""``opgraph compile`` on ONNX models, spelled as ATC would be
(``--framework=5 --model=... --input_shape=...``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "OPGRAPH_NO_PLUGINS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "opgraph", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def conv_model(path: Path) -> Path:
    x = helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, 16, 16])
    w = numpy_helper.from_array(np.zeros((8, 3, 3, 3), np.float32), "w")
    nodes = [
        helper.make_node("Conv", ["images", "w"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "net", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, path)
    return path


def test_an_atc_command_line_compiles_an_onnx_model(tmp_path: Path) -> None:
    conv_model(tmp_path / "net.onnx")
    done = run_cli(
        "compile",
        "--model=net.onnx",
        "--framework=5",
        "--input_shape=images:2,3,16,16",
        "--soc_version=Ascend310P3",
        "--out",
        "build",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "build" / "report.json").read_text())
    assert report["model"]["framework"] == "onnx"
    assert report["model"]["inputs"][0]["shape"] == [2, 3, 16, 16]
    assert report["model"]["inputs"][0]["symbols"] == ["batch", "", "", ""]
    assert report["model"]["outputs"][0]["shape"] == [2, 8, 16, 16]


def test_an_unfixed_symbol_is_shown_by_name(tmp_path: Path) -> None:
    conv_model(tmp_path / "net.onnx")
    done = run_cli("compile", "net.onnx", "--out", "build", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[batch, 3, 16, 16]" in done.stdout
    assert "Traceback" not in done.stderr
