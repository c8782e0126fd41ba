"""ATC's shape ranges in ``--input_shape`` (``1,3,128~2048,128~2048``, in
brackets or not): the input's dims are unknown with those bounds, inference
carries the bounds through the graph, and memory is planned and the latency
estimated at the upper bounds, as a compile at the largest shape gives them."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli

import opgraph
from opgraph import ShapeArgumentError, ShapeTypeError
from opgraph.cli.compile import UsageError
from opgraph.cli.model_args import parse_input_ranges, parse_input_shapes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "device" / "calibration"))
import published


def test_ranges_parse_as_unknown_dims_with_bounds() -> None:
    text = "image:1,3,128~2048,128~2048;im_info:[1,3]"
    assert parse_input_shapes(text) == {"image": [1, 3, -1, -1], "im_info": [1, 3]}
    assert parse_input_ranges(text) == {"image": [(1, 1), (3, 3), (128, 2048), (128, 2048)]}
    assert parse_input_ranges("x:-1,4~8") == {"x": [(0, -1), (4, 8)]}
    assert parse_input_ranges("x:1,2") == {}


@pytest.mark.parametrize("text", ["x:8~4", "x:-1~4", "x:1~", "x:~3", "x:a~b"])
def test_a_bad_range_is_a_usage_error(text: str) -> None:
    with pytest.raises(UsageError, match="dim 0"):
        parse_input_shapes(text)


def compile_json(tmp_path: Path, model: Path, shape: str, name: str) -> dict[str, Any]:
    out = tmp_path / f"{name}.json"
    done = run_cli("compile", model, "--input_shape", shape, "--soc", "Ascend310P3", "--json", out, "-q")
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    return report


@pytest.mark.parametrize("shape", ["image:1,3,128~512,128~512", "image:[1,3,128~512,128~512]"])
def test_memory_is_planned_at_the_upper_bounds(tmp_path: Path, shape: str) -> None:
    model = published.onnx_file("resnet18", tmp_path)
    ranged = compile_json(tmp_path, model, shape, "ranged")
    largest = compile_json(tmp_path, model, "image:1,3,512,512", "largest")
    smallest = compile_json(tmp_path, model, "image:1,3,128,128", "smallest")
    assert ranged["memory"]["arena_bytes"] == largest["memory"]["arena_bytes"]
    assert ranged["memory"]["arena_bytes"] > smallest["memory"]["arena_bytes"]
    # Every size is bounded, so the latency is estimated at the upper bounds
    # too (a worst case, said so): the largest shape's.
    assert ranged["cost"]["total_us"] == pytest.approx(largest["cost"]["total_us"], rel=1e-9)
    assert any("upper bounds: a worst case" in w for w in ranged["warnings"])


def test_add_input_checks_its_shape_range() -> None:
    """As set_input_shape_range does: one range per dim, holding the dim."""
    graph = opgraph.Graph("g")
    with pytest.raises(ShapeArgumentError, match="one \\(min, max\\) per dim"):
        graph.add_input("x", opgraph.DataType.FLOAT, [-1, 3], shape_range=[(1, 4)])
    with pytest.raises(
        ShapeArgumentError, match=r"dim 1 range \(4, 8\) is not a range .* holding the dim \(3\)"
    ):
        graph.add_input("x", opgraph.DataType.FLOAT, [-1, 3], shape_range=[(1, 4), (4, 8)])
    with pytest.raises(ShapeArgumentError, match=r"dim 0 has bound \d+, which does not fit int64"):
        graph.add_input("x", opgraph.DataType.FLOAT, [-1, 3], shape_range=[(1, 2**64), (3, 3)])
    x = graph.add_input("x", opgraph.DataType.FLOAT, [-1, 3], shape_range=[(1, 4), (3, 3)])
    assert graph.desc(x).shape_range == [(1, 4), (3, 3)]


def test_set_input_shape_range_checks_what_it_is_given(tmp_path: Path) -> None:
    graph = opgraph.load_onnx(
        published.onnx_file("resnet18", tmp_path), input_shapes={"image": [1, 3, -1, -1]}, infer=False
    )
    with pytest.raises(ShapeArgumentError, match="not a graph input"):
        graph.set_input_shape_range("/conv1/Conv", [(1, 1)] * 4)
    with pytest.raises(ShapeArgumentError, match="one \\(min, max\\) per dim"):
        graph.set_input_shape_range("image", [(1, 1)])
    with pytest.raises(ShapeArgumentError, match="dim 1"):
        graph.set_input_shape_range("image", [(1, 1), (4, 8), (1, 9), (1, 9)])
    # Not pairs of int64s: typed errors naming the input and dim (not a conversion's words).
    for bad, error, words in [
        ([(1, 1), (3, 3), (1, 2**70), (1, 9)], ShapeArgumentError, "dim 2 has bound 1180591620717411303424"),
        (
            [(1, 1), (3, 3, 3), (1, 9), (1, 9)],
            ShapeTypeError,
            "dim 1 is (3, 3, 3); expected a (min, max) pair",
        ),
        ([(1, 1), (3, 3), ("1", 9), (1, 9)], ShapeTypeError, "dim 2 has bound str '1'; bounds are ints"),
        ("1~4", ShapeTypeError, "expected a sequence of (min, max) pairs of ints, got str"),
    ]:
        with pytest.raises(error, match=re.escape(f"invalid shape range for input 'image': {words}")):
            graph.set_input_shape_range("image", bad)  # type: ignore[arg-type]  # deliberately wrong
    graph.set_input_shape_range("image", [(1, 1), (3, 3), (16, 64), (16, -1)])
    opgraph.infer(graph)
    conv = graph.node("/conv1/Conv").outputs[0]
    assert conv.shape_range == [(1, 1), (64, 64), (8, 32), (8, -1)]
