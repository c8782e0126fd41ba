"""A Caffe deploy prototxt compiled without its .caffemodel gets a memory plan
and a cost estimate: the weights' shapes follow from the layers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "caffe"))
from caffe_helpers import MODELS

NETWORKS = ["lenet", "alexnet", "googlenet", "squeezenet_v1_1", "mobilenet_v1"]


@pytest.mark.parametrize("network", NETWORKS)
def test_a_prototxt_alone_gets_a_cost_estimate(tmp_path: Path, network: str) -> None:
    prototxt = MODELS / "caffe" / f"{network}.prototxt"
    if not prototxt.exists():
        pytest.skip(f"needs the shared Caffe models at {prototxt.parent} (the shared reference data)")
    out = tmp_path / "report.json"
    done = run_cli("compile", prototxt, "--soc", "Ascend310P3", "--json", out, "-q")
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["cost"] is not None and report["cost"]["total_us"] > 0
    assert report["memory"]["weights_bytes"] > 0
    assert not [w for w in report["warnings"] if "skipped" in w]
