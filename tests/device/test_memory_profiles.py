"""``plan_memory(graph, profiles=...)``: one static plan per profile, as ATC
builds one per ``--dynamic_batch_size`` entry.

The reference for each profile is the model loaded again with that input
shape (the loader's own path: the shape given before inference) and planned
the same way; planning the profile on a copy of one loaded graph must agree
with it tensor by tensor, and leave the graph it was given unchanged."""

from __future__ import annotations

from pathlib import Path

import memory_models  # noqa: F401  (puts the corpus helpers on sys.path)
import numpy as np
import pytest
from onnx_model_records import model_file as onnx_model_file

import opgraph
from opgraph import Graph, MemoryPlan, ProfilePlan
from opgraph.errors import DeviceError, GraphError, ShapeArgumentError, ShapeTypeError
from opgraph.memory import OFFSET_ALIGNMENT

MODEL = "resnet18_ts11"  # its input is ["batch", 3, 224, 224]
BATCHES = (1, 2, 4)


def profile(batch: int) -> dict[str, list[int]]:
    return {"input": [batch, 3, 224, 224]}


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return onnx_model_file(MODEL, tmp_path_factory.mktemp("profiles"))


def reference_plan(path: Path, batch: int, *, prepared: bool = False) -> MemoryPlan:
    graph = opgraph.load_onnx(path, profile(batch))
    if prepared:
        opgraph.prepare(graph, "Ascend310")
    return opgraph.plan_memory(graph)


def same_plan(ours: MemoryPlan, reference: MemoryPlan) -> None:
    assert list(ours.names) == list(reference.names)
    np.testing.assert_array_equal(ours.sizes, reference.sizes)
    np.testing.assert_array_equal(ours.first_steps, reference.first_steps)
    assert (ours.arena_bytes, ours.lower_bound_bytes) == (reference.arena_bytes, reference.lower_bound_bytes)
    assert (ours.input_bytes, ours.output_bytes, ours.weights_bytes) == (
        reference.input_bytes,
        reference.output_bytes,
        reference.weights_bytes,
    )
    assert ours.check() == []


def test_each_profile_plans_as_the_model_loaded_at_that_shape(model_path: Path) -> None:
    graph = opgraph.load_onnx(model_path)  # batch unknown
    plans = opgraph.plan_memory(graph, profiles=[profile(b) for b in BATCHES])
    assert [p.input_shapes for p in plans] == [{"input": (b, 3, 224, 224)} for b in BATCHES]
    for batch, planned in zip(BATCHES, plans, strict=True):
        assert isinstance(planned, ProfilePlan)
        same_plan(planned.plan, reference_plan(model_path, batch, prepared=False))
    # One float32 image per batch element in the input region (GE's rule:
    # the bytes rounded up to 32, plus 32; regions hold 512-aligned buffers).
    image = 3 * 224 * 224 * 4
    ge_size = [(b * image + 31) // 32 * 32 + 32 for b in BATCHES]
    assert [p.plan.input_bytes for p in plans] == [
        -(-size // OFFSET_ALIGNMENT) * OFFSET_ALIGNMENT for size in ge_size
    ]
    arenas = [p.plan.arena_bytes for p in plans]
    assert arenas == sorted(arenas) and arenas[0] < arenas[-1]


def test_profiles_of_a_prepared_graph_are_refused(model_path: Path) -> None:
    """Which storage formats prepare picks depends on the shapes, so a
    profile is planned on the inferred graph (and prepared per profile), as
    ATC compiles each profile: re-inferring a prepared graph would silently
    drop its formats (the input's NC1HWC0 copy would be sized as NCHW)."""
    graph = opgraph.load_onnx(model_path, profile(1))
    opgraph.prepare(graph, "Ascend310")
    before = opgraph.plan_memory(graph)
    with pytest.raises(
        DeviceError, match=r"is prepared for a device .*stored as NC1HWC0.*infer before prepare"
    ):
        opgraph.plan_memory(graph, profiles=[profile(2)])
    with pytest.raises(DeviceError, match="is prepared for a device"):
        opgraph.infer(graph)
    same_plan(opgraph.plan_memory(graph), before)


def test_the_given_graph_is_left_as_it_was(model_path: Path) -> None:
    graph = opgraph.load_onnx(model_path)
    before = graph.node("input").outputs[0].shape
    opgraph.plan_memory(graph, profiles=[profile(8)])
    assert graph.node("input").outputs[0].shape == before == (-1, 3, 224, 224)


def input_graph() -> Graph:
    graph = Graph("g")
    x = graph.add_input(
        "x", opgraph.DataType.FLOAT, [-1, 3, 8, 8], shape_range=[(1, 4), (3, 3), (8, 8), (8, 8)]
    )
    graph.add_node("Relu", "relu", [x])
    graph.set_outputs([graph.tensor("relu")])
    opgraph.infer(graph)
    return graph


def test_set_input_shape_checks_what_it_is_given() -> None:
    graph = input_graph()
    with pytest.raises(ShapeArgumentError, match="'relu' is a Relu node, not a graph input"):
        graph.set_input_shape("relu", [1, 3, 8, 8])
    with pytest.raises(ShapeArgumentError, match="has rank 4"):
        graph.set_input_shape("x", [1, 3, 8])
    with pytest.raises(ShapeArgumentError, match=r"input 'x' \[1, -5, 8, 8\]: dim 1 is -5"):
        graph.set_input_shape("x", [1, -5, 8, 8])
    # Checked as the loaders' input_shapes are, not by a conversion's words.
    with pytest.raises(ShapeArgumentError, match=r"input 'x': dim 0 is \d+, which does not fit int64"):
        graph.set_input_shape("x", [2**70, 3, 8, 8])
    with pytest.raises(ShapeTypeError, match="input 'x': expected a sequence of ints, got str"):
        graph.set_input_shape("x", "1,3,8,8")  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error
    with pytest.raises(ShapeArgumentError, match="outside the input's shape range \\(1, 4\\)"):
        graph.set_input_shape("x", [5, 3, 8, 8])
    with pytest.raises(GraphError, match="nope"):
        graph.set_input_shape("nope", [1, 3, 8, 8])
    graph.set_input_shape("x", [4, 3, 8, 8])
    opgraph.infer(graph)
    assert graph.node("relu").outputs[0].shape == (4, 3, 8, 8)


def test_profile_errors_name_what_was_expected() -> None:
    graph = input_graph()
    with pytest.raises(TypeError, match="a profile maps input names to shapes"):
        opgraph.plan_memory(graph, profiles=[[1, 3, 8, 8]])  # type: ignore[list-item]  # deliberately wrong
    with pytest.raises(ShapeArgumentError, match="outside the input's shape range"):
        opgraph.plan_memory(graph, profiles=[{"x": [2, 3, 8, 8]}, {"x": [16, 3, 8, 8]}])
    assert opgraph.plan_memory(graph, profiles=[]) == []
