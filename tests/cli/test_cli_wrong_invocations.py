"""Wrong invocations a new user tries (issue 17, part 2): each prints one
paragraph naming the offending argument, file or node, never a traceback,
and exits with the README's code (0 compiled, 1 the model has errors, 2
usage error). Names with rich markup (``[/bold]``, ``[red]``) print as
they are."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import onnx
import pytest
from cli_helpers import MODELS, run_cli
from onnx import TensorProto, helper

MARKUP_PROTOTXT = """\
name: "Net[/bold] :thumbs_up:"
input: "da[red]ta"
input_shape { dim: 1 dim: 1 dim: 28 dim: 28 }
layer { name: "conv[/bold]" type: "Convolution" bottom: "da[red]ta" top: "conv[/bold]"
  convolution_param { num_output: 4 kernel_size: 5 } }
layer { name: "relu[red]" type: "ReLU" bottom: "conv[/bold]" top: "relu[red]" }
"""

# A Caffe plugin whose exception has a blank line and markup in its text.
BAD_PARSE_PLUGIN = """\
from opgraph.caffe import plugin

@plugin("Relu", origin_op_types=["ReLU"], override=True)
def parse_relu(src, dst):
    raise ValueError("line one\\n\\nline [red]three")
"""

# Bytes no protobuf decoder or text parser accepts (a wire type 7, not UTF-8).
GARBAGE = bytes([0xFF, 0x07, 0xFE, 0x00]) * 256


def _markup_onnx(path: Path) -> None:
    """An Add whose inputs cannot broadcast, on names that are rich markup."""
    a = helper.make_tensor_value_info("a[/red]", TensorProto.FLOAT, [2, 3])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [4, 5])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, None)
    add = helper.make_node("Add", ["a[/red]", "b"], ["c"], name="add[/bold]")
    graph = helper.make_graph([add], "bad[bold]", [a, b], [c])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bad models, plugins and paths the table names, in one directory."""
    d = tmp_path_factory.mktemp("wrong")
    for name in ("empty.onnx", "empty.pb"):
        (d / name).write_bytes(b"")
    for name in ("garbage.onnx", "garbage.pb", "garbage.prototxt"):
        (d / name).write_bytes(GARBAGE)
    # A text GraphDef named .pb: the TensorFlow loader reads it (binary or text).
    shutil.copy(MODELS / "cnn.pbtxt", d / "cnn.pb")
    (d / "markup.prototxt").write_text(MARKUP_PROTOTXT)
    _markup_onnx(d / "markup_bad.onnx")
    (d / "boom.py").write_text("raise RuntimeError('plugin exploded')\n")
    (d / "bad_parse.py").write_text(BAD_PARSE_PLUGIN)
    (d / "ops_mod.py").write_text(
        "NOT_AN_OP = 3\nADD = 'Add'\nUNKNOWN = 'NoSuchOpXyz'\n\ndef ref(x):\n    return x\n"
    )
    (d / "a_file").write_text("not a directory\n")
    (d / "a_dir").mkdir()
    (d / "saved.pb").mkdir()
    return d


class Case(NamedTuple):
    args: tuple[str, ...]  # "{w}" is the work directory, "{m}" the bundled models
    code: int
    words: tuple[str, ...]  # each must be in the message


LENET, CNN = "{m}/lenet.prototxt", "{m}/cnn.pbtxt"
CASES = {
    # --input-shape
    "negative dim": Case(("compile", LENET, "--input-shape", "data:-5,1,28,28"), 2, ("--input-shape", "-5")),
    "huge dim": Case(
        ("compile", LENET, "--input-shape", "data:99999999999999999999,1,28,28"),
        2,
        ("--input-shape", "99999999999999999999", "int64"),
    ),
    "input the model lacks": Case(
        ("compile", CNN, "--input-shape", "nosuch:1,2"), 2, ("--input-shape", "'nosuch'", "its inputs: x")
    ),
    "caffe input the model lacks": Case(
        ("compile", LENET, "--input-shape", "image:1,1,28,28"), 2, ("--input-shape", "'image'", "data")
    ),
    # one option under both its spellings: the second would silently win
    "--batch-sizes twice": Case(
        ("compile", "--example", "lenet", "--batch-sizes", "1,4", "--dynamic_batch_size", "8"),
        2,
        ("--batch-sizes and --dynamic_batch_size are the same option",),
    ),
    "--soc twice": Case(
        ("compile", "--example", "lenet", "--soc", "Ascend310", "--soc_version", "Ascend310P3"),
        2,
        ("--soc and --soc_version are the same option",),
    ),
    "two kinds of profile": Case(
        (
            "compile",
            LENET,
            "--input_shape",
            "data:-1,1,28,28",
            "--dynamic_batch_size",
            "4",
            "--dynamic_dims",
            "4",
        ),
        2,
        ("--dynamic_batch_size and --dynamic_dims", "one kind per model"),
    ),
    # an opgraph-only option in an ATC line: named as the user spelled it
    "opgraph option in an atc line": Case(
        ("atc", "--framework=0", f"--model={LENET}", "--batch-sizes", "1,4", "-not-an-atc-flag=1"),
        2,
        ("unrecognized arguments: --batch-sizes", "-not-an-atc-flag=1", "(see opgraph atc --help)"),
    ),
    # outputs: --out, --json
    "--report html without --output": Case(
        ("compile", "--example", "lenet", "--report", "html", "--json", "{w}/r.json"),
        2,
        ("--report html", "--output"),
    ),
    "--out is a file": Case(("compile", "--example", "lenet", "--out", "{w}/a_file"), 2, ("--out", "a_file")),
    "--out under a file": Case(
        ("compile", "--example", "lenet", "--out", "{w}/a_file/sub"), 2, ("--out", "a_file")
    ),
    "--json is a directory": Case(
        ("compile", "--example", "lenet", "--json", "{w}/a_dir"), 2, ("--json", "a_dir", "directory")
    ),
    "--json under a file": Case(
        ("compile", "--example", "lenet", "--json", "{w}/a_file/r.json"), 2, ("--json", "a_file")
    ),
    # MODEL and the other input files
    "MODEL is a directory": Case(
        ("compile", "{w}/a_dir"), 2, ("MODEL", "a_dir", "is a directory", "model file")
    ),
    "MODEL is a directory named .pb": Case(("compile", "{w}/saved.pb"), 2, ("saved.pb", "is a directory")),
    "MODEL does not exist": Case(
        ("compile", "{w}/nosuch.onnx"), 2, ("MODEL", "nosuch.onnx", "does not exist")
    ),
    "MODEL is a .caffemodel": Case(("compile", "{m}/lenet.caffemodel"), 2, ("lenet.caffemodel", "--weights")),
    "--weights is a .prototxt": Case(
        ("compile", LENET, "--weights", LENET), 2, ("--weights", "lenet.prototxt")
    ),
    "--weights is a directory": Case(("compile", LENET, "--weights", "{w}/a_dir"), 2, ("--weights", "a_dir")),
    "--weights with TensorFlow": Case(
        ("compile", CNN, "--weights", "{m}/lenet.caffemodel"), 2, ("--weights", "Caffe")
    ),
    "--custom-proto missing": Case(
        ("compile", LENET, "--custom-proto", "{w}/nosuch.proto"), 2, ("--custom-proto", "nosuch.proto")
    ),
    "MODEL and --model disagree": Case(("compile", LENET, f"--model={CNN}"), 2, ("MODEL", "--model")),
    # --framework against the file
    "ATC --framework=5 with a .pb": Case(
        ("compile", "{w}/cnn.pb", "--framework=5"), 2, ("--framework onnx", "cnn.pb", "tensorflow")
    ),
    "--framework caffe with a .pbtxt": Case(
        ("compile", CNN, "--framework", "caffe"), 2, ("--framework caffe", "cnn.pbtxt")
    ),
    "--framework tensorflow with a .prototxt": Case(
        ("compile", LENET, "--framework", "tensorflow"), 2, ("--framework tensorflow", "lenet.prototxt")
    ),
    # files that are not models (the model has errors: exit 1)
    "empty .onnx": Case(("compile", "{w}/empty.onnx"), 1, ("empty.onnx", "empty")),
    "empty .pb": Case(("compile", "{w}/empty.pb"), 1, ("empty.pb", "empty")),
    "garbage .onnx": Case(("compile", "{w}/garbage.onnx"), 1, ("garbage.onnx", "ONNX")),
    "garbage .pb": Case(("compile", "{w}/garbage.pb"), 1, ("garbage.pb", "GraphDef")),
    "garbage .prototxt": Case(("compile", "{w}/garbage.prototxt"), 1, ("garbage.prototxt",)),
    # other options
    "unknown --soc": Case(("compile", LENET, "--soc", "Ascend999"), 2, ("--soc", "Ascend999")),
    "--precision-mode typo": Case(
        ("compile", LENET, "--precision-mode", "fp16"), 2, ("--precision-mode", "'fp16'")
    ),
    "--batch-sizes garbage": Case(("compile", LENET, "--batch-sizes", "1,x"), 2, ("--batch-sizes", "'x'")),
    "--batch-sizes zero": Case(("compile", LENET, "--batch-sizes", "0"), 2, ("--batch-sizes", "0")),
    "--outputs names no node": Case(("compile", CNN, "--outputs", "nosuch"), 2, ("--outputs", "'nosuch'")),
    "--outputs names no port": Case(("compile", CNN, "--outputs", "Relu:7"), 2, ("--outputs", "'Relu'")),
    "unknown scope pass": Case(
        ("compile", CNN, "--enable-scope-fusion-passes", "NoSuchPass"),
        2,
        ("--enable-scope-fusion-passes", "'NoSuchPass'"),
    ),
    "--plugins module missing": Case(
        ("compile", LENET, "--plugins", "no_such_plugin_xyz"), 2, ("--plugins", "no_such_plugin_xyz")
    ),
    "--plugins .py missing": Case(
        ("compile", LENET, "--plugins", "{w}/nosuch.py"), 2, ("--plugins", "nosuch.py")
    ),
    "--plugins .py raises": Case(
        ("compile", LENET, "--plugins", "{w}/boom.py"),
        2,
        ("--plugins", "boom.py", "RuntimeError: plugin exploded", "line 1"),
    ),
    "plugin fails on a layer": Case(
        ("compile", LENET, "--plugins", "{w}/bad_parse.py"), 1, ("'relu1'", "ValueError", "line [red]three")
    ),
    "unknown option": Case(("compile", LENET, "--outptu", "x"), 2, ("--outptu", "opgraph compile --help")),
    "two models": Case(("compile", LENET, CNN), 2, ("cnn.pbtxt", "opgraph compile --help")),
    "no model": Case(("compile",), 2, ("MODEL", "--example")),
    # check-op
    "--examples 0": Case(
        ("check-op", "{w}/ops_mod.py:UNKNOWN", "--reference", "{w}/ops_mod.py:ref", "--examples", "0"),
        2,
        ("--examples", "0"),
    ),
    "--examples negative": Case(
        ("check-op", "{w}/ops_mod.py:UNKNOWN", "--reference", "{w}/ops_mod.py:ref", "--examples", "-3"),
        2,
        ("--examples", "-3"),
    ),
    "--seed negative": Case(
        ("check-op", "{w}/ops_mod.py:UNKNOWN", "--reference", "{w}/ops_mod.py:ref", "--seed", "-1"),
        2,
        ("--seed", "-1 is not at least 0"),
    ),
    "--seed not a number": Case(
        ("check-op", "{w}/ops_mod.py:UNKNOWN", "--reference", "{w}/ops_mod.py:ref", "--seed", "x1"),
        2,
        ("--seed", "'x1' is not a whole number"),
    ),
    "check-op module raises": Case(
        ("check-op", "{w}/boom.py:OP", "--reference", "{w}/ops_mod.py:ref"), 2, ("boom.py", "RuntimeError")
    ),
    "check-op op type not registered": Case(
        ("check-op", "{w}/ops_mod.py:UNKNOWN", "--reference", "{w}/ops_mod.py:ref"), 2, ("NoSuchOpXyz",)
    ),
    "check-op not an op": Case(
        ("check-op", "{w}/ops_mod.py:NOT_AN_OP", "--reference", "{w}/ops_mod.py:ref"), 2, ("NOT_AN_OP", "int")
    ),
    "check-op reference not callable": Case(
        ("check-op", "{w}/ops_mod.py:ADD", "--reference", "{w}/ops_mod.py:NOT_AN_OP"),
        2,
        ("--reference", "NOT_AN_OP"),
    ),
    # model errors on names that are rich markup
    "failing ONNX node named [/bold]": Case(("compile", "{w}/markup_bad.onnx"), 1, ("'add[/bold]'",)),
    "failing Caffe layer named [/bold]": Case(
        ("compile", "{w}/markup.prototxt", "--input-shape", "da[red]ta:1,1,3,3"), 1, ("'conv[/bold]'",)
    ),
}


def _fill(text: str, work: Path) -> str:
    return text.replace("{w}", str(work)).replace("{m}", str(MODELS))


def _assert_one_paragraph(done: subprocess.CompletedProcess[str], code: int, words: tuple[str, ...]) -> str:
    output = done.stdout + done.stderr
    assert done.returncode == code, output
    assert "Traceback" not in output
    message = done.stderr.strip()
    assert message, done.stdout
    assert "\n\n" not in message, message
    assert len(message.splitlines()) == 1, message
    if code == 2:
        assert message.startswith("opgraph: error: "), message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


@pytest.mark.parametrize("case", CASES.values(), ids=list(CASES))
def test_wrong_invocation_is_one_paragraph_with_the_right_exit_code(case: Case, work: Path) -> None:
    quiet = ("-q",) if case.args[0] == "compile" else ()
    done = run_cli(*(_fill(arg, work) for arg in case.args), *quiet)
    _assert_one_paragraph(done, case.code, tuple(_fill(word, work) for word in case.words))


def test_the_table_is_large() -> None:
    assert len(CASES) >= 25


def test_check_op_without_hypothesis_is_a_usage_error(work: Path) -> None:
    args = ("check-op", f"{work}/ops_mod.py:UNKNOWN", "--reference", "numpy:add")
    done = run_cli(*args, without="hypothesis")
    _assert_one_paragraph(done, 2, ("hypothesis", "pip install 'opgraph[testing]'"))


def test_missing_matplotlib_hint_prints_the_extra_literally(tmp_path: Path) -> None:
    done = run_cli("compile", "--example", "lenet", "--out", tmp_path / "out", "-q", without="matplotlib")
    assert done.returncode == 0, done.stderr
    assert "pip install 'opgraph[plot]'" in done.stdout, done.stdout
    assert (tmp_path / "out" / "report.json").is_file()


def test_names_with_markup_print_as_they_are(work: Path, tmp_path: Path) -> None:
    out = tmp_path / "o[red]dir"
    done = run_cli("compile", work / "markup.prototxt", "--out", out)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("Net[/bold] :thumbs_up:", "da[red]ta:0", "conv[/bold]", f"to {out}"):
        assert name in done.stdout, name
    assert (out / "memory.png").is_file()


def test_names_with_dollar_signs_plot(work: Path, tmp_path: Path) -> None:
    """A name matplotlib would read as TeX (``$x^$``) is drawn as it is."""
    model = tmp_path / "dollar.prototxt"
    model.write_text(MARKUP_PROTOTXT.replace("conv[/bold]", "conv$x^$y"))
    done = run_cli("compile", model, "--out", tmp_path / "out", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    assert (tmp_path / "out" / "memory.png").is_file()


def test_json_parent_directories_are_created(tmp_path: Path) -> None:
    target = tmp_path / "new" / "nested" / "report.json"
    done = run_cli("compile", "--example", "lenet", "--json", target, "-q")
    assert done.returncode == 0, done.stderr
    assert target.is_file()


def _unwritable_directory(tmp_path: Path) -> Path:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    if not os.access(locked, os.W_OK):
        return locked
    if Path("/sys").is_dir():  # root ignores modes; nothing can be created in sysfs
        return Path("/sys")
    pytest.skip("no unwritable directory on this machine")


@pytest.mark.parametrize("option", ["--out", "--json"])
def test_unwritable_output_is_a_usage_error(tmp_path: Path, option: str) -> None:
    target = _unwritable_directory(tmp_path) / "opgraph_out"
    try:
        done = run_cli("compile", "--example", "lenet", option, target, "-q")
        _assert_one_paragraph(done, 2, (option, str(target)))
    finally:
        (tmp_path / "locked").chmod(0o700)
