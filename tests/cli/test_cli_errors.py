"""Every error of ``opgraph`` is one line on stderr with a non-zero exit
code, never a Python traceback (issue 12, item 5)."""

from __future__ import annotations

import pytest
from cli_helpers import MODELS, run_cli

BAD_SHAPES = [
    ("cnn.pbtxt", "x:-5,8,8,3", "dim 0 is -5"),
    ("cnn.pbtxt", "x:" + "9" * 23 + ",8,8,3", "does not fit int64"),
    ("cnn.pbtxt", "x:-2,3", "unknown rank"),
    ("cnn.pbtxt", "x:1,,3", "dim 1 is empty"),
    ("cnn.pbtxt", "x:4~1,28,28,1", "range"),
    ("cnn.pbtxt", "x:a~4,28,28,1", "dim 0"),
    ("cnn.pbtxt", "x:1,2;x:3,4", "twice"),
    ("lenet.prototxt", "data:1,-5,28,28", "dim 1 is -5"),
    ("lenet.prototxt", "data:1," + "1" * 23 + ",28,28", "does not fit int64"),
    (
        "cnn.pbtxt",
        "x:1,28,28",
        "gives input 'x' the shape [1, 28, 28]; the model declares [?, 28, 28, 1] (rank 4)",
    ),
    ("lenet.prototxt", "data:1,28,28", "gives input 'data' the shape [1, 28, 28]; the model declares"),
    ("cnn.pbtxt", "nosuch:1,8,8,3", "input 'nosuch', which the model does not have (its inputs: x)"),
    ("lenet.prototxt", "nosuch:1,1,28,28", "'nosuch', which the model does not have (its inputs: data)"),
]


@pytest.mark.parametrize(("model", "shape", "words"), BAD_SHAPES)
def test_bad_input_shape_is_one_usage_line(model: str, shape: str, words: str) -> None:
    done = run_cli("compile", MODELS / model, "--input-shape", shape, "-q")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("opgraph: error: ") and words in lines[0], lines[0]


@pytest.mark.parametrize(
    "args",
    [["compile", "--bogus"], ["compile", "--precision-mode", "fp8"], ["nope"], ["ops", "describe"]],
)
def test_argument_mistakes_are_one_line(args: list[str]) -> None:
    done = run_cli(*args)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
