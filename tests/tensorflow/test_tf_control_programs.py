"""opgraph against TensorFlow on drawn programs with control flow
(:mod:`tf_control_programs`): conds and while loops in TensorFlow 1's and
TensorFlow 2's forms, built and run by TensorFlow.

TensorFlow imports each frozen GraphDef and runs it; opgraph loads the
same bytes (at ``x``'s full shape when the draw fixes its unknown batch, as
``--input_shape`` does) and infers. The output's dtype must be
TensorFlow's, every dim opgraph gives must be the one TensorFlow computed,
opgraph must know every dim TensorFlow's static shape knows, and a value it
folds must be TensorFlow's. A program TensorFlow runs must load. A cond on
a constant or on x's batch, over an input of known shape, must leave no
dim unknown: only one branch runs (GE prunes the other).

Dead code is judged by TensorFlow's executor: in a TensorFlow 1 program,
every node opgraph's memory plan leaves out as dead (GE deletes it before
assigning memory) must be one TensorFlow does not run (its step stats
record every node it computes), and in a settled program every node the
output depends on that TensorFlow does not run must be dead in opgraph."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# tests/ holds the shared helpers: pytest puts it on the path, a script run directly does not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import check_value, dead_nodes, import_tensorflow, report_draws

tf = import_tensorflow("TensorFlow is the peer these programs run on")

from tf_control_programs import ControlProgram, draw_control_program  # noqa: E402
from tf_op_cases import NP_TO_OPGRAPH, OUT, control_flow, run_traced, static_shape  # noqa: E402

from opgraph import Graph, check_formats, plan_memory, prepare  # noqa: E402
from opgraph.tensorflow import load_tensorflow  # noqa: E402

#: opgraph's shape of unknown rank.
UNKNOWN_RANK = (-2,)
#: Drawn programs per test run; each takes about ten milliseconds.
EXAMPLES = 300


@dataclass
class TfRun:
    output: np.ndarray
    static: tuple[int, ...] | None
    #: The nodes TensorFlow's executor computed (a dead node is not).
    executed: set[str]


def run_tensorflow(program: ControlProgram) -> TfRun | None:
    """The output TensorFlow computes, its static shape and the nodes it
    ran, or None when its kernels refuse the feeds (a TensorArray stacked
    empty with no element shape)."""
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(program.graph_def, name="")
        static = static_shape(graph.get_tensor_by_name(f"{OUT}:0"))
    try:
        output, executed = run_traced(program.graph_def, f"{OUT}:0", program.feeds)
    except tf.errors.OpError:
        return None
    return TfRun(output, static, executed)


def needed_by_output(graph_def: Any) -> set[str]:
    """The nodes the output depends on (data and control inputs): the ones
    a session runs to fetch it."""
    inputs = {node.name: [i.lstrip("^").split(":")[0] for i in node.input] for node in graph_def.node}
    needed: set[str] = set()
    stack = [OUT]
    while stack:
        name = stack.pop()
        if name not in needed:
            needed.add(name)
            stack.extend(inputs.get(name, []))
    return needed


def judge_dead_code(program: ControlProgram, graph: Graph, executed: set[str], tally: Counter[str]) -> None:
    """opgraph's dead nodes (every output planned in region ``dead``)
    against the nodes TensorFlow's executor ran."""
    plan = plan_memory(graph, allow_dynamic=True)
    # A dead loop leaves the planner free to pick its order (a live one
    # keeps Kahn's): any order it picks must give a valid placement.
    assert not plan.check(), f"{program.id}: {plan.check()}"
    planned = {name.rsplit(":", 1)[0] for name in plan.names}
    dead = dead_nodes(plan)
    if len(plan.schedule_peaks) > 1 and any("NextIteration" in n.rsplit("/", 1)[-1] for n in dead):
        tally["dead loop, orders compared"] += 1
    run = sorted(dead & executed)
    assert not run, f"{program.id}: opgraph plans {run} as dead code, but TensorFlow ran them"
    if dead:
        tally["TF1 with dead code"] += 1
        tally["dead nodes, none run by TensorFlow"] += len(dead)
    if program.settled:
        # Fed x is not a node TensorFlow's step stats name.
        skipped = needed_by_output(program.graph_def) - executed - {"x"}
        live = sorted(skipped & planned - dead)
        assert not live, f"{program.id}: TensorFlow does not run {live}, yet opgraph plans them"


def judge(program: ControlProgram, workdir: Path, tally: Counter[str]) -> None:
    tally["drawn"] += 1
    ran = run_tensorflow(program)
    if ran is None:
        tally["refused by TensorFlow's kernels"] += 1
        return
    theirs, static = ran.output, ran.static
    tally["run by TensorFlow"] += 1
    if program.nested:
        tally["nested"] += 1
    path = workdir / "program.pb"
    path.write_bytes(program.graph_def.SerializeToString())
    graph = load_tensorflow(path, input_shapes=program.input_shapes or None)

    def reload() -> Graph:
        return load_tensorflow(path, input_shapes=program.input_shapes or None)

    if program.description.startswith("TF1"):
        judge_dead_code(program, graph, ran.executed, tally)
    desc = graph.desc(graph.tensor(OUT, 0))
    where = program.id
    shape = tuple(desc.shape)
    assert desc.dtype.name == NP_TO_OPGRAPH[theirs.dtype], f"{where}: {desc.dtype.name}, not {theirs.dtype}"
    assert not (program.settled and shape == UNKNOWN_RANK), (
        f"{where}: the predicate is known, yet rank unknown"
    )
    if shape == UNKNOWN_RANK:
        # A TensorArray stacked with no element shape: TensorFlow's static
        # shape has no rank either.
        assert static is None, f"{where}: rank unknown; TensorFlow's static shape is {static}"
        tally["rank unknown, as in TensorFlow"] += 1
        check_prepared_outputs(program, graph, reload, tally)
        tally["agree"] += 1
        return
    fits = len(shape) == theirs.ndim and all(o in (-1, t) for o, t in zip(shape, theirs.shape, strict=True))
    assert fits, f"{where}: opgraph infers {shape}, TensorFlow computed {theirs.shape}"
    if static is not None:
        # Fixing x's batch (input_shapes) only tells opgraph more.
        unknown = [a for a, (o, s) in enumerate(zip(shape, static, strict=True)) if o == -1 and s != -1]
        assert not unknown, f"{where}: opgraph infers {shape}; TensorFlow's static shape is {static}"
    if static is None or shape.count(-1) < static.count(-1):
        tally["opgraph knows more dims"] += 1
    if -1 not in shape:
        tally["every dim known"] += 1
    if program.settled:
        # A known predicate leaves one branch: TensorFlow 1's Switch kills
        # the other, TensorFlow 2's If runs one body.
        assert -1 not in shape, f"{where}: the predicate is known, yet opgraph infers {shape}"
        tally["cond on a known predicate, settled"] += 1
    check_value(desc, theirs, where, tally, peer="TensorFlow", rtol=1e-5)
    check_prepared_outputs(program, graph, reload, tally)
    tally["agree"] += 1


def check_prepared_outputs(
    program: ControlProgram, graph: Graph, reload: Callable[[], Graph], tally: Counter[str]
) -> None:
    """``prepare`` (which replaces an If / Case on a known predicate by the
    branch it takes), as it is and (on ``reload()``) with
    ``allow_fp32_to_fp16``: every graph output keeps the dtype and shape
    judged against TensorFlow above, and every tensor's storage is valid."""
    for fp16 in (False, True):
        if fp16:
            graph = reload()
        before = [(d.dtype, tuple(d.shape)) for d in map(graph.desc, graph.outputs)]
        replaced = prepare(graph, allow_fp32_to_fp16=fp16).conds_replaced
        if not fp16:
            tally["If / Case replaced by their branch in prepare"] += replaced
        after = [(d.dtype, tuple(d.shape)) for d in map(graph.desc, graph.outputs)]
        assert after == before, f"{program.id}: outputs {before} became {after} in prepare (fp16 {fp16})"
        problems = check_formats(graph)
        assert not problems, f"{program.id}: invalid storage after prepare (fp16 {fp16}): {problems[:3]}"


def test_a_cond_without_inputs_loads(tmp_path: Path) -> None:
    # TensorFlow 2's If whose branches read no tensor (x's shape is static,
    # so they compute from constants) has `Tin: list {}`, an empty list with
    # no element type; the first draw of one failed to load.
    tf.compat.v1.enable_control_flow_v2()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        filled = tf.compat.v1.cond(
            tf.constant(True), lambda: tf.fill(tf.shape(x)[:1] + 1, 1.5), lambda: tf.zeros([3])
        )
        tf.multiply(filled, 1.0, name=OUT)
    graph_def = graph.as_graph_def()
    assert any(node.op.endswith("If") and not node.attr["Tin"].list.type for node in graph_def.node)
    feeds = {"x:0": np.zeros((2, 3), np.float32)}
    tally: Counter[str] = Counter()
    judge(ControlProgram(graph_def, feeds, "TF2 cond without inputs"), tmp_path, tally)
    assert tally["agree"] == 1, dict(tally)


def _branches_and_a_guarded_loop(predicate: Any) -> Any:
    """Two branches on x that Kahn's order interleaves (each a large tensor
    reduced to a column), added to a column of a cond on ``predicate``
    whose true side runs a TensorFlow 1 while loop on x."""
    x = tf.compat.v1.placeholder(tf.float32, [64, 64], name="x")
    a = tf.reduce_sum(tf.nn.relu(x), 1, keepdims=True)
    b = tf.reduce_sum(tf.sigmoid(x), 1, keepdims=True)
    looped = tf.compat.v1.cond(
        predicate,
        lambda: tf.compat.v1.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, -v), (0, x))[1],
        lambda: tf.negative(x),
    )
    return tf.add(a + b, tf.reduce_sum(looped, 1, keepdims=True), name=OUT)


@pytest.mark.parametrize("fed", [False, True], ids=["dead loop", "live loop"])
def test_only_a_live_loop_keeps_kahns_order(fed: bool, tmp_path: Path) -> None:
    # GE deletes the loop behind a Switch on a constant false predicate
    # before it assigns memory: it no longer pins the schedule, and the
    # planner finishes one branch before it starts the other. A loop that
    # may iterate keeps the topological order its frames are planned in.
    graph = tf.Graph()
    with graph.as_default(), control_flow(v2=False):
        predicate = tf.compat.v1.placeholder(tf.bool, [], name="p") if fed else tf.constant(False)
        _branches_and_a_guarded_loop(predicate)
    graph_def = graph.as_graph_def()
    assert any(node.op == "NextIteration" for node in graph_def.node)
    feeds = {"x:0": np.ones((64, 64), np.float32)} | ({"p:0": np.asarray(False)} if fed else {})
    program = ControlProgram(graph_def, feeds, "TF1 cond on a loop")
    tally: Counter[str] = Counter()
    judge(program, tmp_path, tally)
    assert tally["agree"] == 1, dict(tally)
    path = tmp_path / "program.pb"
    plan = plan_memory(load_tensorflow(path))
    assert not plan.check()
    topological = plan.schedule_peaks["topological"]
    if fed:
        assert (plan.schedule, plan.lower_bound_bytes) == ("topological", topological)
    else:
        assert any("NextIteration" in name.rsplit("/", 1)[-1] for name in dead_nodes(plan))
        assert plan.schedule != "topological"
        assert plan.lower_bound_bytes < topological, plan.schedule_peaks


def _judge_drawn(group: str, data: st.DataObject, workdir: Path, tally: Counter[str]) -> None:
    judge(draw_control_program(data), workdir, tally)


@pytest.mark.timeout(300)
def test_matches_tensorflow(tmp_path: Path) -> None:
    tally: Counter[str] = Counter()

    @settings(max_examples=EXAMPLES, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        _judge_drawn("programs", data, tmp_path, tally)

    check()
    # Most programs must be ones TensorFlow runs and opgraph is judged on.
    assert tally["run by TensorFlow"] >= tally["drawn"] * 3 // 4, dict(tally)
    assert tally["nested"], dict(tally)


def report(examples: int = 2000) -> None:
    """The README's figures: how the drawn programs came out."""
    columns = [
        "drawn",
        "run by TensorFlow",
        "nested",
        "agree",
        "every dim known",
        "cond on a known predicate, settled",
        "opgraph knows more dims",
        "rank unknown, as in TensorFlow",
        "refused by TensorFlow's kernels",
        "TF1 with dead code",
        "dead nodes, none run by TensorFlow",
        "dead loop, orders compared",
        "If / Case replaced by their branch in prepare",
    ]
    report_draws(f"TensorFlow {tf.__version__}", ["programs"], _judge_drawn, columns, examples)


if __name__ == "__main__":
    report()
