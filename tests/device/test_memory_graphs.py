"""``opgraph.plan_memory`` on graphs: GE's sizes, steps and regions computed
by hand, views (built-in and declared with ``reuses_input=``), loops, the
errors, and the plan's JSON and plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import unique_name
from memory_models import TF_DATA

import opgraph
from opgraph import DataType, Format, Graph, MemoryPlanError, OpDef, RegistrationError

IMAGE = 301_088  # fp16 [1, 3, 224, 224]: 301056 bytes, + 32 (already a multiple of 32)
IMAGE_SLOT = 301_568  # the same at 512-byte alignment


def chain() -> Graph:
    """x -> r1 = Relu -> r2 = Mul(r1, w) -> r3 = Relu (the output)."""
    g = Graph("chain")
    x = g.add_input("x", DataType.FLOAT16, (1, 3, 224, 224), Format.NCHW)
    w = g.add_const("w", np.ones((1, 3, 1, 1), np.float16))
    r1 = g.add_node("Relu", "r1", [x])
    r2 = g.add_node("Mul", "r2", [r1, w])
    g.set_outputs([g.add_node("Relu", "r3", [r2])])
    opgraph.infer(g)
    return g


def test_sizes_steps_and_regions_of_a_chain() -> None:
    plan = opgraph.plan_memory(chain())
    assert plan.check() == []
    # Steps: sources first (x 0, w 1), then r1 2, r2 3, r3 4.
    assert plan.steps == 5
    r1, r2, r3 = plan.tensor("r1:0"), plan.tensor("r2:0"), plan.tensor("r3:0")
    assert (r1.size, r1.first_step, r1.last_step, r1.region) == (IMAGE, 2, 3, "activation")
    assert (r2.first_step, r2.last_step) == (3, 4)
    assert (r3.region, r3.last_step) == ("output", 4)
    assert plan.tensor("x:0").region == "input"
    assert (plan.tensor("w:0").size, plan.tensor("w:0").region) == (64, "weight")  # 6 bytes -> 32 + 32
    assert (plan.input_bytes, plan.output_bytes, plan.io_bytes) == (IMAGE_SLOT, IMAGE_SLOT, 2 * IMAGE_SLOT)
    assert plan.weights_bytes == 512
    assert (plan.arena_bytes, plan.lower_bound_bytes, plan.ratio) == (2 * IMAGE_SLOT, 2 * IMAGE_SLOT, 1.0)
    assert {r1.offset, r2.offset} == {0, IMAGE_SLOT}
    assert plan.strategies["naive"] == 2 * IMAGE_SLOT
    assert list(plan.strategies) == list(opgraph.memory.STRATEGIES)


def test_columns_match_the_tensor_objects() -> None:
    plan = opgraph.plan_memory(chain())
    assert plan.names == [t.name for t in plan.tensors]
    assert plan.sizes.dtype == np.int64 and plan.offsets.dtype == np.int64
    assert plan.sizes.tolist() == [t.size for t in plan.tensors]
    assert plan.first_steps.tolist() == [t.first_step for t in plan.tensors]
    assert (plan.view_of == -1).all()
    with pytest.raises(KeyError, match="no tensor named 'nope:0'"):
        plan.tensor("nope:0")


def test_a_fixed_strategy() -> None:
    plan = opgraph.plan_memory(chain(), strategy="naive")
    assert plan.strategies == {"naive": 2 * IMAGE_SLOT} and plan.chosen_strategy == "naive"


@pytest.mark.parametrize("alignment", [0, -512, 2**64, 3, 2**31])
def test_an_alignment_out_of_range_is_a_plan_error(alignment: int) -> None:
    with pytest.raises(
        MemoryPlanError,
        match=f"the alignment must be a power of two from 1 byte to 2\\*\\*30 bytes, got {alignment}$",
    ):
        opgraph.plan_memory(chain(), alignment=alignment)


@pytest.mark.parametrize("profiles", [[], [{"x": [2, 3, 224, 224]}, {"nope": [1]}]])
def test_a_bad_alignment_is_said_before_any_profile_is_planned(profiles: list[dict[str, list[int]]]) -> None:
    """Even with no profiles, and before a bad profile's own error."""
    with pytest.raises(MemoryPlanError, match=r"the alignment must be a power of two .*, got 0$"):
        opgraph.plan_memory(chain(), alignment=0, profiles=profiles)


def test_views_share_memory_and_keep_it_alive() -> None:
    g = Graph("views")
    x = g.add_input("x", DataType.FLOAT, (2, 8))
    a = g.add_node("Relu", "a", [x])
    v = g.add_node("Reshape", "v", [a, g.add_const("s", np.array([16], np.int64))])
    b = g.add_node("Relu", "b", [v])
    c = g.add_node("Relu", "c", [b])
    g.set_outputs([g.add_node("Relu", "d", [c])])
    opgraph.infer(g)
    plan = opgraph.plan_memory(g)
    assert plan.check() == []
    # Steps: x 0, s 1, a 2, v 3, b 4, c 5, d 6; a's buffer lives until b reads v.
    view = plan.tensor("v:0")
    assert (view.view_of, view.first_step, view.last_step, view.offset) == (
        "a:0",
        3,
        4,
        plan.tensor("a:0").offset,
    )
    assert (plan.tensor("a:0").first_step, plan.tensor("a:0").last_step) == (2, 4)
    assert plan.tensor("c:0").offset == plan.tensor("a:0").offset
    assert (plan.arena_bytes, plan.lower_bound_bytes) == (1024, 1024)


def test_an_op_declared_in_place_shares_its_input(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x")
    op.input("y")
    op.output("z", follow="x", reuses_input="x")
    opgraph.register(op)
    assert opgraph.op_def(op_type).outputs[0].reuses_input == "x"
    assert opgraph.op_def("Reshape").outputs[0].reuses_input == "x"
    assert opgraph.op_def("Relu").outputs[0].reuses_input is None
    g = Graph("inplace")
    x = g.add_input("x", DataType.FLOAT, (4,))
    a = g.add_node("Relu", "a", [x])
    z = g.add_node(op_type, "z", [a, x])
    g.set_outputs([g.add_node("Relu", "out", [z])])
    opgraph.infer(g)
    plan = opgraph.plan_memory(g)
    assert plan.tensor("z:0").view_of == "a:0"
    assert (plan.tensor("a:0").first_step, plan.tensor("a:0").last_step) == (1, 3)


def test_reuses_input_must_name_an_input() -> None:
    op = OpDef(unique_name("BadView"))
    op.input("x")
    op.output("y", follow="x", reuses_input="w")
    with pytest.raises(RegistrationError, match="'w', which is not an input"):
        opgraph.register(op)


def test_a_v1_loop_keeps_carried_values_alive_over_the_frame() -> None:
    g = opgraph.load_tensorflow(str(TF_DATA / "model_v1_control_flow.pb"), input_shapes={"x": [1, 8]})
    opgraph.infer(g)
    plan = opgraph.plan_memory(g)
    assert plan.check() == []
    frame_start = plan.tensor("while/Enter_1:0").first_step  # a view: its own step
    frame_end = plan.tensor("while/NextIteration_1:0").first_step
    carried = plan.tensor("while/add_1:0")  # read by the next iteration's Merge
    assert (carried.first_step, carried.last_step) == (frame_start, frame_end)
    temporary = plan.tensor("while/MatMul:0")  # read by Tanh in the same iteration
    assert frame_start < temporary.first_step
    assert temporary.last_step == plan.tensor("while/Tanh:0").first_step < frame_end


def test_a_while_body_runs_at_its_caller() -> None:
    g = opgraph.load_tensorflow(str(TF_DATA / "model_control_flow.pb"), input_shapes={"x": [1, 8]})
    opgraph.infer(g)
    # The While's widened loop variable has an unknown dim: an error naming it,
    # or left out of the plan on request.
    with pytest.raises(MemoryPlanError, match=r"tensor 'while:4' has the storage shape \[\?, 8\]") as info:
        opgraph.plan_memory(g)
    assert info.value.tensor == "while:4"
    plan = opgraph.plan_memory(g, allow_dynamic=True)
    assert plan.check() == []
    assert plan.tensor("while:4").region == "dynamic" and plan.tensor("while:4").offset is None
    body = [t for t in plan.tensors if t.name.startswith("while/body/")]
    assert body, "the body's tensors are planned"
    caller = plan.tensor("while:0").first_step
    assert all(t.first_step < caller for t in body if t.view_of is None)


def test_unknown_dims_use_shape_ranges() -> None:
    g = Graph("ranged")
    x = g.add_input("x", DataType.FLOAT, (-1, 8), shape_range=[(1, 4), (8, 8)])
    g.set_outputs([g.add_node("Relu", "a", [x])])
    opgraph.infer(g)
    plan = opgraph.plan_memory(g)
    assert plan.tensor("a:0").size == 160  # 4 * 8 floats = 128 bytes -> 160
    with pytest.raises(MemoryPlanError, match="'x:0'") as info:
        opgraph.plan_memory(g, use_shape_ranges=False)
    assert "input_shapes" in str(info.value)


def test_graphs_must_be_inferred() -> None:
    g = Graph("raw")
    g.add_node("Relu", "a", [g.add_input("x", DataType.FLOAT, (4,))])
    with pytest.raises(MemoryPlanError, match=r"'a:0' has no dtype.*opgraph\.infer") as info:
        opgraph.plan_memory(g)
    assert info.value.tensor == "a:0"


def test_json_and_plot(tmp_path: Path) -> None:
    plan = opgraph.plan_memory(chain())
    data = json.loads(plan.to_json(indent=1))
    assert data["arena_bytes"] == plan.arena_bytes and data["ratio"] == 1.0
    assert data["chosen_strategy"] == plan.chosen_strategy
    assert data["tensors"][2] == {
        "name": "r1:0",
        "size": IMAGE,
        "offset": plan.tensor("r1:0").offset,
        "first_step": 2,
        "last_step": 3,
        "region": "activation",
        "view_of": None,
    }
    pytest.importorskip("matplotlib")
    out = tmp_path / "chain.png"
    plan.plot(out)
    assert out.stat().st_size > 1000
