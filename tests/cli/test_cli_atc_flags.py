"""ATC options one at a time on the bundled LeNet: per-op precision files
change the cost (and, with allow_fp32_to_fp16, the memory), fusion
switches turn the cost model's UB fusion off, --log sets what is printed,
--mode other than 0 and bad config files are one-line usage errors, and
every documented option is accepted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import MODELS, run_cli

import opgraph
from opgraph.cli.atc_options import ATC_OPTIONS, flag_table

DATA = Path(__file__).with_name("data")
README = Path(__file__).resolve().parents[2] / "README.md"


def compile_lenet(tmp_path: Path, *args: str) -> tuple[dict[str, Any], str]:
    out = tmp_path / "r.json"
    done = run_cli(
        "compile", "--example", "lenet", "--soc", "Ascend910B2", "--json", out, *args, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(out.read_text())
    return report, done.stdout


def node_bytes(report: dict[str, Any], name: str) -> float:
    (row,) = [n for n in report["cost"]["nodes"] if n["name"] == name]
    value: float = row["bytes"]
    return value


def test_keep_dtype_keeps_the_named_ops_in_fp32(tmp_path: Path) -> None:
    (tmp_path / "keep.cfg").write_text("OpType::Conv2D\nip1\nno_such_node\n")
    plain, _ = compile_lenet(tmp_path)
    kept, stdout = compile_lenet(tmp_path, "--keep_dtype=keep.cfg")
    for name in ("conv1", "conv2", "ip1"):
        assert node_bytes(kept, name) > node_bytes(plain, name)
    assert node_bytes(kept, "ip2") == node_bytes(plain, "ip2")
    assert kept["cost"]["total_us"] > plain["cost"]["total_us"]
    assert "no_such_node" in stdout


def test_customize_dtypes_and_op_precision_mode_pick_ops(tmp_path: Path) -> None:
    (tmp_path / "dtypes.cfg").write_text("ip2::InputDtype:float,float,OutputDtype:float\n")
    (tmp_path / "modes.ini").write_text(
        "[ByOpType]\nPooling=high_precision\n[ByNodeName]\nconv2=enable_float_32_execution\n"
    )
    plain, _ = compile_lenet(tmp_path)
    custom, _ = compile_lenet(tmp_path, "--customize_dtypes=dtypes.cfg", "--op_precision_mode=modes.ini")
    assert node_bytes(custom, "ip2") > node_bytes(plain, "ip2")
    assert node_bytes(custom, "conv2") > node_bytes(plain, "conv2")
    assert node_bytes(custom, "conv1") == node_bytes(plain, "conv1")
    assert any("implementation" in note for note in custom["notes"])


def test_keep_dtype_changes_memory_under_allow_fp32_to_fp16(tmp_path: Path) -> None:
    (tmp_path / "keep.cfg").write_text("OpType::FullyConnection\n")
    mode = "--precision_mode=allow_fp32_to_fp16"
    cast, _ = compile_lenet(tmp_path, mode)
    kept, _ = compile_lenet(tmp_path, mode, "--keep_dtype=keep.cfg")
    # The fully connected weights stay fp32: twice the bytes.
    assert kept["memory"]["weights_bytes"] > cast["memory"]["weights_bytes"]


def test_fusion_switch_file_turns_ub_fusion_off(tmp_path: Path) -> None:
    (tmp_path / "fs.json").write_text(
        '{"Switch": {"UBFusion": {"ALL": "off"}, "GraphFusion": {"XPass": "on"}}}'
    )
    (tmp_path / "fs.txt").write_text("XPass:off\n")
    plain, _ = compile_lenet(tmp_path)
    switched, _ = compile_lenet(tmp_path, "--fusion_switch_file=fs.json")
    assert switched["cost"]["total_us"] > plain["cost"]["total_us"]
    assert any("GraphFusion.XPass" in note for note in switched["notes"])
    lines, _ = compile_lenet(tmp_path, "--fusion_switch_file", "fs.txt")
    assert lines["cost"]["total_us"] == plain["cost"]["total_us"]


@pytest.mark.parametrize(
    ("level", "note", "warning", "debug"),
    [("debug", True, True, True), ("info", True, True, False), ("warning", False, True, False),
     ("error", False, False, False), ("null", False, False, False)],
)  # fmt: skip
def test_log_sets_what_is_printed(tmp_path: Path, level: str, note: bool, warning: bool, debug: bool) -> None:
    done = run_cli(
        "compile", "--example", "lenet", "--soc", "Ascend910B2", "--op_debug_level=0", f"--log={level}",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ("note: --op_debug_level" in done.stdout) == note
    assert ("warning:" in done.stdout) == warning  # Ascend910B2's preset is not validated
    assert ("debug: infer took" in done.stderr) == debug


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode=1"], "--mode 1"),
        (["--mode", "3"], "--mode 3"),
        (["--insert_op_conf=bad.cfg"], "line 2, column 3"),
        (["--insert_op_conf=wrong_size.cfg"], "src_image_size_w"),
        (["--insert_op_conf=crop.cfg"], "load_start_pos_w"),
        (["--fusion_switch_file=fs.json"], "UBFusion"),
        (["--customize_dtypes=dtypes.cfg"], "line 1"),
        (["--customize_dtypes=bad_dtype.cfg"], "line 2: 'warp9' is not a dtype"),
        (["--output_type=FP64"], "FP64"),
        (["--dynamic_image_size=28,28"], "--dynamic_image_size"),
        (["--input_format=NHWD"], "--input_format"),
    ],
)
def test_bad_atc_options_are_one_line_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "bad.cfg").write_text("aipp_op {\n  src_w: 3\n}\n")
    (tmp_path / "wrong_size.cfg").write_text(
        "aipp_op { aipp_mode: static input_format: YUV400_U8 src_image_size_w: 30 }"
    )
    (tmp_path / "crop.cfg").write_text(
        "aipp_op { aipp_mode: static input_format: YUV400_U8 src_image_size_w: 28 src_image_size_h: 28\n"
        "crop: true load_start_pos_w: 4 crop_size_w: 28 crop_size_h: 28 }"
    )
    (tmp_path / "fs.json").write_text('{"Switch": {"UBFusion": {"ALL": "maybe"}}}')
    (tmp_path / "dtypes.cfg").write_text("conv1 float16\n")
    (tmp_path / "bad_dtype.cfg").write_text(
        "conv1::InputDtype:float16,OutputDtype:float16\nconv2::InputDtype:warp9,OutputDtype:float16\n"
    )
    done = run_cli("compile", "--example", "lenet", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_every_documented_atc_option_is_accepted(tmp_path: Path) -> None:
    no_effect = [f"--{o.name}=1" for o in ATC_OPTIONS if not o.implemented]
    done = run_cli("atc", "--framework=0", "--model=x", *no_effect, cwd=tmp_path)
    # Only the missing model stops it: every option parsed.
    assert done.returncode == 2
    assert "MODEL 'x' does not exist" in done.stderr
    report, _ = compile_lenet(tmp_path, *no_effect)
    assert len(report["notes"]) == len(no_effect)


def test_the_readme_table_is_the_option_table() -> None:
    assert flag_table() in README.read_text()


def test_atc_spellings_single_dash_and_hyphens(tmp_path: Path) -> None:
    line = (
        f"atc -framework=0 -model={MODELS / 'lenet.prototxt'} --weight {MODELS / 'lenet.caffemodel'} "
        "--input-shape=data:2,1,28,28 --soc-version=Ascend310P3 --output=out/lenet --out-nodes=ip1:0"
    )
    done = run_cli("atc", line, cwd=tmp_path)  # the whole line as one argument
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "lenet.json").read_text())
    # ip1's output (brought back to its origin format for the graph output).
    assert [t["name"].split("/")[0].split(":")[0] for t in report["model"]["outputs"]] == ["ip1"]
    assert report["model"]["inputs"][0]["shape"] == [2, 1, 28, 28]


@pytest.mark.parametrize(
    ("output", "written"),
    [
        ("out/lenet", "out/lenet.json"),
        ("out/lenet.om", "out/lenet.json"),
        ("out/lenet.json", "out/lenet.json"),
    ],
)
def test_output_names_the_report_file(tmp_path: Path, output: str, written: str) -> None:
    """ATC's --output is the .om's path, with or without its suffix; a
    user who names the report itself (x.json) gets that file, not x.json.json."""
    done = run_cli("compile", "--example", "lenet", f"--output={output}", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.json"))
    assert files == [written]
    assert json.loads((tmp_path / written).read_text())["output_file"] == written


@pytest.mark.parametrize("soc", opgraph.SOC_VERSIONS)
def test_every_soc_takes_a_pasted_line_with_aipp(tmp_path: Path, soc: str) -> None:
    """Every SoC the command accepts, through `opgraph atc` with an AIPP
    stage (the Aipp op through each target's formats, memory and cost)."""
    line = (
        f"--framework=0 --model={MODELS / 'lenet.prototxt'} --weight={MODELS / 'lenet.caffemodel'} "
        f"--input_shape=data:1,1,28,28 --soc_version={soc} --output=out/lenet "
        f"--insert_op_conf={DATA / 'aipp_gray_pad.cfg'} --log=error"
    )
    done = run_cli("atc", *line.split(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out" / "lenet.json").read_text())
    assert report["model"]["soc"] == soc
    (image,) = report["model"]["inputs"]
    assert (image["dtype"], image["shape"]) == ("UINT8", [1, 24, 24, 1])
    assert report["memory"]["input_bytes"] < 1 * 1 * 28 * 28 * 4
    if report["cost"] is not None:
        (aipp,) = [n for n in report["cost"]["nodes"] if n["op_type"] == "Aipp"]
        assert aipp["time_us"] > 0
