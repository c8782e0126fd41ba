"""The SSD custom-layer example (python/opgraph/examples/ssd_layers, issue
18's "done means"): its layers' shapes agree with an independent Caffe
implementation (OpenCV's importer: data/ssd_tiny.shapes.tsv, written by
generators/make_ssd_shapes.py), and it is typed without a single Any
(``mypy --strict --disallow-any-expr``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from caffe_helpers import DATA, output_shapes, read_reference_shapes
from mypy import api as mypy_api

import opgraph
from opgraph.examples import ssd_layers

ROOT = Path(__file__).resolve().parents[2]


def test_every_layer_matches_opencv() -> None:
    graph = opgraph.load_caffe(ssd_layers.NET, custom_protos=[ssd_layers.CUSTOM_PROTO])
    expected = read_reference_shapes(DATA / "ssd_tiny.shapes.tsv")
    assert {"conv1_norm", "conv2_mbox_priorbox", "conv2_mbox_loc_perm", "detection_out"} <= set(expected)
    mismatches = {
        layer: (output_shapes(graph, layer), shapes)
        for layer, shapes in expected.items()
        if output_shapes(graph, layer) != shapes
    }
    assert not mismatches


def test_custom_layers_map_onto_the_example_ops() -> None:
    graph = opgraph.load_caffe(ssd_layers.NET, custom_protos=[ssd_layers.CUSTOM_PROTO])
    detection = graph.node("detection_out")
    assert detection.op_type == "SSDDetectionOutput"
    assert detection.attrs["top_k"] == 100 and detection.attrs["code_type"] == "CENTER_SIZE"
    assert abs(detection.attrs["nms_threshold"] - 0.45) < 1e-6
    norm = graph.node("conv1_norm").attrs
    assert norm["across_spatial"] is False and norm["channel_shared"] is False
    assert norm["eps"] == pytest.approx(1e-10)  # a proto float
    assert graph.node("conv2_mbox_loc_perm").attrs == {"order": [0, 2, 3, 1]}


def test_example_passes_mypy_strict_without_any(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # mypy_path = "python" is relative to the repository root
    package = ROOT / "python" / "opgraph" / "examples" / "ssd_layers"
    stdout, stderr, status = mypy_api.run(
        [
            "--strict",
            "--disallow-any-expr",
            # opgraph's own modules are checked by CI's mypy --strict; here
            # only the example's own expressions must be free of Any.
            "--follow-imports=silent",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            str(package),
        ]
    )
    assert status == 0, stdout + stderr


def test_example_runs_as_a_module(capsys: pytest.CaptureFixture[str]) -> None:
    from opgraph.examples.ssd_layers.__main__ import main

    main()
    out = capsys.readouterr().out
    assert "detection_out" in out and "[1, 1, 50, 7]" in out
