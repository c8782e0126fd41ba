"""Shapes given as arguments (``input_shapes``, ``Graph.add_input``) are
checked into ShapeArgumentError naming the input and the dim (issue 12,
item 5). The rules are GE's: dims >= 0 or -1 (unknown), [-2] alone (unknown
rank), each dim fits int64, rank <= 254."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import assert_typed_error

from opgraph import DataType, Graph, ShapeArgumentError, ShapeTypeError
from opgraph.caffe import load_caffe
from opgraph.tensorflow import load_tensorflow

EXAMPLES = Path(__file__).resolve().parents[1] / "python" / "opgraph" / "examples" / "models"
TF_MODEL = EXAMPLES / "cnn.pbtxt"
CAFFE_MODEL = EXAMPLES / "lenet.prototxt"

# (shape, the bad dim's index or None, words the message must hold)
BAD_VALUES: list[tuple[list[Any], int | None, str]] = [
    ([-7, 8, 8, 3], 0, "dim 0 is -7"),
    ([1, 8, -3, 3], 2, "dim 2 is -3"),
    ([2**70, 8, 8, 3], 0, "does not fit int64"),
    ([1, 2**63, 8, 3], 1, "does not fit int64"),
    ([-2, 3], None, "-2 (unknown rank) must be the only dim"),
    ([1] * 300, None, "rank 300 exceeds the maximum rank 254"),
]
BAD_TYPES: list[tuple[Any, int | None]] = [
    ("abc", None),
    (7, None),
    ([1, 2.5], 1),
    ([1, "2"], 1),
    ([None], 0),
]


def _first_input(framework: str) -> str:
    return "x" if framework == "tensorflow" else "data"


def _load(framework: str, shapes: Any) -> Graph:
    if framework == "tensorflow":
        return load_tensorflow(TF_MODEL, shapes, infer=False)
    return load_caffe(CAFFE_MODEL, input_shapes=shapes, infer=False)


@pytest.mark.parametrize("framework", ["tensorflow", "caffe"])
@pytest.mark.parametrize(("shape", "dim", "words"), BAD_VALUES)
def test_bad_input_shape_values_name_the_input_and_dim(
    framework: str, shape: list[Any], dim: int | None, words: str
) -> None:
    name = _first_input(framework)
    with pytest.raises(ShapeArgumentError) as info:
        _load(framework, {name: shape})
    assert_typed_error(info.value, ShapeArgumentError)
    assert isinstance(info.value, ValueError)
    assert (info.value.input, info.value.dim) == (name, dim)
    assert f"input '{name}'" in str(info.value) and words in str(info.value)


@pytest.mark.parametrize("framework", ["tensorflow", "caffe"])
@pytest.mark.parametrize(("shape", "dim"), BAD_TYPES)
def test_input_shapes_that_are_not_int_sequences_are_typed(
    framework: str, shape: Any, dim: int | None
) -> None:
    name = _first_input(framework)
    with pytest.raises(ShapeTypeError) as info:
        _load(framework, {name: shape})
    assert_typed_error(info.value, ShapeArgumentError)
    assert isinstance(info.value, TypeError)
    assert (info.value.input, info.value.dim) == (name, dim)


def test_input_shapes_must_be_a_mapping() -> None:
    with pytest.raises(ShapeTypeError, match="maps input names to shapes"):
        load_tensorflow(TF_MODEL, [("x", [1, 2])], infer=False)  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error


@pytest.mark.parametrize("shape", [[-1, 28, 28, 1], [1, 28, 28, 1], [-2], [0, 28, 28, 1], [2**62, 28, 28, 1]])
def test_valid_shapes_are_accepted(shape: list[int]) -> None:
    graph = load_tensorflow(TF_MODEL, {"x": shape}, infer=False)
    x = graph.tensor("x")
    assert graph.desc(x).shape == tuple(shape)


@pytest.mark.parametrize(("shape", "dim", "words"), BAD_VALUES)
def test_graph_builder_shapes_are_checked_the_same_way(shape: list[Any], dim: int | None, words: str) -> None:
    with pytest.raises(ShapeArgumentError) as info:
        Graph().add_input("images", DataType.FLOAT, shape)
    assert (info.value.input, info.value.dim) == ("images", dim)
    assert words in str(info.value)
