"""``opgraph compile`` on ONNX models, spelled as ATC would be
(``--framework=5 --model=... --input_shape=...``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def nonzero_model(path: Path, rows: int | str) -> Path:
    """``x[rows, 4] -> NonZero -> Cast(float) -> Relu``: NonZero's count is
    known only from x's values."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [rows, 4])
    nodes = [
        helper.make_node("NonZero", ["x"], ["idx"], name="nz"),
        helper.make_node("Cast", ["idx"], ["f"], to=TensorProto.FLOAT, name="cast"),
        helper.make_node("Relu", ["f"], ["y"], name="relu"),
    ]
    graph = helper.make_graph(
        nodes, "net", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def compile_warnings(tmp_path: Path, *args: str) -> list[str]:
    done = run_cli("compile", *args, "--soc", "Ascend310P3", "--json", "report.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    warnings: list[str] = json.loads((tmp_path / "report.json").read_text())["warnings"]
    return warnings


def compile_report(tmp_path: Path, model: str, shapes: str) -> dict[str, Any]:
    """The JSON report of compiling ``model`` with ``--input-shape shapes`` for the 310P3."""
    done = run_cli(
        "compile", model, "--input-shape", shapes, "--soc", "Ascend310P3", "--json", "r.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads((tmp_path / "r.json").read_text())
    return report


def test_the_unknown_dims_warning_says_where_they_come_from(tmp_path: Path) -> None:
    """Free input dims: fix them. Fixed inputs but a data-dependent op: the
    warning names it and does not send the user to --input-shape."""
    nonzero_model(tmp_path / "free.onnx", "rows")
    (free,) = [w for w in compile_warnings(tmp_path, "free.onnx") if "unknown dims" in w]
    assert "the input x:0 has free dims; fix them with --input-shape" in free
    nonzero_model(tmp_path / "fixed.onnx", 3)
    (data,) = [w for w in compile_warnings(tmp_path, "fixed.onnx") if "run time" in w]
    assert data.startswith(
        "3 tensors have sizes known only at run time, from values computed at NonZero (nz)"
    )
    assert "no --input-shape fixes them" in data and "fix them with" not in data


def test_a_detection_model_names_its_data_dependent_ops_and_what_the_plan_leaves_out(tmp_path: Path) -> None:
    """torchvision's Faster R-CNN (from the corpus) at a fixed image size:
    NonZero in the region proposals is where sizes start to depend on data,
    and the memory line says the arena does not hold the tensors with no
    upper bound."""
    from onnx_model_records import model_file

    model = model_file("fasterrcnn_mobilenet_v3_large_320_fpn_ts11", tmp_path)
    done = run_cli(
        "compile", model.name, "--input-shape", "image:3,320,320", "--soc", "Ascend310P3", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())  # rich wraps lines
    assert "from values computed at NonZero (/model/rpn/NonZero)" in text
    assert "no --input-shape fixes them" in text
    assert "tensors of run-time size not planned" in text
    assert "the plan leaves out" in text


def test_a_detector_at_free_image_sizes_is_still_planned(tmp_path: Path) -> None:
    """Faster R-CNN with no --input-shape: torchvision exports NMS with
    ``max_output_boxes_per_class = 2^63 - 1``, so over a free box count the
    selection's bound is past any byte count. That tensor is left to run
    time like an unbounded one; the rest of the graph is still planned."""
    from onnx_model_records import model_file

    model = model_file("fasterrcnn_mobilenet_v3_large_320_fpn_ts11", tmp_path)
    warnings = compile_warnings(tmp_path, model.name)
    assert not [w for w in warnings if "memory plan skipped" in w], warnings
    report = json.loads((tmp_path / "report.json").read_text())
    regions = {t["region"] for t in report["memory"]["tensors"]}
    assert {"dynamic", "activation"} <= regions
    assert report["memory"]["arena_bytes"] > 0


def test_a_bounded_detector_gets_a_worst_case_latency(tmp_path: Path) -> None:
    """SSDlite at a fixed image size: every run-time size is bounded, so
    memory and latency are estimated at the upper bounds, and said to be."""
    from onnx_model_records import model_file

    model = model_file("ssdlite320_mobilenet_v3_large_ts11", tmp_path)
    warnings = compile_warnings(tmp_path, model.name, "--input-shape", "image:3,320,320")
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["cost"] is not None and report["cost"]["total_us"] > 0
    assert all(t["region"] != "dynamic" for t in report["memory"]["tensors"])
    (unknown,) = [w for w in warnings if "run time" in w]
    assert unknown.endswith(
        "Memory and latency are estimated at the shape ranges' upper bounds: a worst case"
    )
    # Said once: the cost model's own upper-bounds flag would repeat it.
    assert [w for w in warnings if "worst case" in w] == [unknown]


def test_free_and_ranged_inputs_are_both_named(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["cols", 4])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["rx"]), helper.make_node("Relu", ["y"], ["ry"])],
        "net",
        [x, y],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("rx", "ry")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), tmp_path / "two.onnx")
    (warning,) = [
        w for w in compile_warnings(tmp_path, "two.onnx", "--input-shape", "y:1~8,4") if "unknown" in w
    ]
    assert "the input x:0 has free dims and the input y:0 has dims given as ranges" in warning
    assert "fix them with --input-shape" in warning


def test_a_transformer_given_input_ranges_is_planned_whole_with_a_worst_case_latency(tmp_path: Path) -> None:
    """BERT with ATC-style ranges for batch and sequence: interval ranges
    leave every attention reshape unbounded; probing the sizes bounds them,
    so the plan holds every tensor, in an arena no smaller than the largest
    fixed shape's and within 1% of it (the fixed graph folds a few more
    constants), and the latency is estimated at the upper bounds."""
    from onnx_model_records import model_file

    model = model_file("bert_ts14", tmp_path)
    ranged = ";".join(f"{name}:1~4,1~128" for name in ("input_ids", "attention_mask", "token_type_ids"))
    report = compile_report(tmp_path, model.name, ranged)
    assert all(t["region"] != "dynamic" for t in report["memory"]["tensors"])
    assert report["cost"] is not None and report["cost"]["total_us"] > 0
    assert any("are products of the input sizes (batch 1~4, seq 1~128)" in n for n in report["notes"]), (
        report["notes"]
    )
    (unknown,) = [w for w in report["warnings"] if "unknown dims" in w]
    assert "a worst case" in unknown and "for a cost estimate" not in unknown

    largest = ";".join(f"{name}:4,128" for name in ("input_ids", "attention_mask", "token_type_ids"))
    at_largest = compile_report(tmp_path, model.name, largest)
    ranged_arena, largest_arena = report["memory"]["arena_bytes"], at_largest["memory"]["arena_bytes"]
    assert largest_arena <= ranged_arena <= 1.01 * largest_arena


def test_a_detector_that_takes_only_multiples_of_32_is_probed_on_that_grid(tmp_path: Path) -> None:
    """Ultralytics' YOLOv8n with ranges for batch and image size: sizes off
    the 32-grid do not infer (its feature maps are concatenated across
    strides), so the probe says so and probes on the grid. Its head's
    anchor count, ``H·W·21/1024``, which intervals bound only loosely
    (the flatten's ``-1`` divides by a batch that is also in the count),
    then gets the bound of the largest image: the worst case is the
    compile at the largest fixed size, in memory and in latency."""
    from onnx_model_records import model_file

    model = model_file("yolov8n_ultralytics17", tmp_path)
    report = compile_report(tmp_path, model.name, "images:1~4,3,160~640,160~640")
    grid = "probed on a grid (height in steps of 32, width in steps of 32)"
    assert any(grid in n for n in report["notes"]), report["notes"]
    assert all(t["region"] != "dynamic" for t in report["memory"]["tensors"])
    largest = compile_report(tmp_path, model.name, "images:4,3,640,640")
    assert report["memory"]["arena_bytes"] == largest["memory"]["arena_bytes"]
    assert largest["cost"]["total_us"] <= report["cost"]["total_us"] <= 1.05 * largest["cost"]["total_us"]


def test_sizes_in_a_range_the_model_cannot_take_are_named(tmp_path: Path) -> None:
    """op_mix reflect-pads its sequence by 1 on each side: a sequence of 1
    has nothing to mirror (onnxruntime refuses it too), so probing the range
    1~48 fails there, and the note says at which sizes and which node."""
    from onnx_model_records import model_file

    model = model_file("op_mix_ts17", tmp_path)
    done = run_cli("compile", model.name, "--input-shape", "x:1~4,1~48,16", "--json", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    notes = json.loads((tmp_path / "r.json").read_text())["notes"]
    (note,) = [n for n in notes if "not probed" in n]
    assert "at batch=4, seq=1: node '/Pad' (PadV3)" in note, note
    assert "reflect mode" in note
    done = run_cli("compile", model.name, "--input-shape", "x:1~4,4~48,16", "--json", "r.json", cwd=tmp_path)
    notes = json.loads((tmp_path / "r.json").read_text())["notes"]
    assert any("are products of the input sizes" in n for n in notes), notes


def test_a_range_carries_over_to_the_inputs_sharing_its_symbols(tmp_path: Path) -> None:
    """BERT's three inputs all name `batch` and `seq`. Ranges given for two
    of them bound the third as a fixed size would: the compile is the same
    as with all three given (same plan, same latency), and a note says which
    input took which ranges."""
    from onnx_model_records import model_file

    model = model_file("bert_ts14", tmp_path)

    def compiled(*names: str) -> dict[str, Any]:
        return compile_report(tmp_path, model.name, ";".join(f"{name}:1~4,1~128" for name in names))

    every = compiled("input_ids", "attention_mask", "token_type_ids")
    two = compiled("input_ids", "attention_mask")
    assert "input 'token_type_ids' (batch 1~4, seq 1~128) takes the ranges --input-shape gives" in " ".join(
        two["notes"]
    )
    assert two["cost"] is not None
    assert two["cost"]["total_us"] == every["cost"]["total_us"]
    assert two["memory"]["arena_bytes"] == every["memory"]["arena_bytes"]
    assert [t["region"] for t in two["memory"]["tensors"]] == [
        t["region"] for t in every["memory"]["tensors"]
    ]
    assert not any("free dims" in w for w in two["warnings"]), two["warnings"]


def shared_symbol_model(path: Path) -> Path:
    """x and y both [n, 4]; z [m, 4] shares nothing with them."""
    inputs = [
        helper.make_tensor_value_info(name, TensorProto.FLOAT, [symbol, 4])
        for name, symbol in (("x", "n"), ("y", "n"), ("z", "m"))
    ]
    graph = helper.make_graph(
        [helper.make_node("Relu", [name], [f"r{name}"]) for name in ("x", "y", "z")],
        "net",
        inputs,
        [helper.make_tensor_value_info(f"r{name}", TensorProto.FLOAT, None) for name in ("x", "y", "z")],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def test_a_symbol_given_two_sizes_is_a_usage_error_naming_both(tmp_path: Path) -> None:
    shared_symbol_model(tmp_path / "s.onnx")
    for shapes, first, second in [
        ("x:1~8,4;y:1~4,4", "the range 1~8 (input 'x' dim 0)", "the range 1~4 (input 'y' dim 0)"),
        ("x:8,4;y:1~8,4", "size 8 (input 'x' dim 0)", "the range 1~8 (input 'y' dim 0)"),
    ]:
        done = run_cli("compile", "s.onnx", "--input-shape", shapes, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        assert f"symbol 'n' {first} and {second}; inputs sharing a symbol share its size" in done.stderr


def test_a_range_binds_only_the_inputs_naming_its_symbol(tmp_path: Path) -> None:
    shared_symbol_model(tmp_path / "s.onnx")
    report = compile_report(tmp_path, "s.onnx", "x:2~6,4")
    assert "input 'y' (n 2~6) takes the ranges" in " ".join(report["notes"])
    (unknown,) = [w for w in report["warnings"] if "unknown dims" in w]
    assert "the input z:0 has free dims" in unknown
    assert "y:0" not in unknown.split("has free dims")[0]


def test_a_one_size_range_carries_over_too(tmp_path: Path) -> None:
    """``3~3`` is a range of one size: y, sharing x's symbol, takes it."""
    shared_symbol_model(tmp_path / "s.onnx")
    report = compile_report(tmp_path, "s.onnx", "x:3~3,4;z:2,4")
    assert "input 'y' (n 3) takes the ranges" in " ".join(report["notes"])
    assert report["cost"] is not None
    assert not any("free dims" in w for w in report["warnings"]), report["warnings"]
