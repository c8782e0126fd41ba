"""A value opgraph cannot fold (an integer division by zero) on code that
may not run, judged by TensorFlow running the same graph.

TensorFlow computes a node only when data reaches it, and GE's constant
folding leaves a node its kernel cannot compute unfolded: a ``cond`` branch
or a ``while_loop`` body that divides by zero is a valid program as long as
it does not run. TensorFlow runs each program below with its predicate
steering away from the division (or its loop running no iteration); opgraph
must load it, leave the quotient unknown, and still give the output's
shape. The same division where it surely runs is an error naming the
node, in TensorFlow 1's form (Switch / Merge) and in TensorFlow 2's
(If / While bodies) alike."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

# tests/ holds the shared helpers: pytest puts it on the path, a script run directly does not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import import_tensorflow

tf = import_tensorflow("TensorFlow runs the programs opgraph is judged against")

from tf_op_cases import OUT, control_flow  # noqa: E402

import opgraph  # noqa: E402
from opgraph.tensorflow import load_tensorflow  # noqa: E402


def _quotient() -> Any:
    """``7 // 0`` as int32, built where it is called (inside a branch or a
    loop body, TensorFlow makes it wait on that code's pivot)."""
    return tf.math.floordiv(tf.constant(7), tf.constant(0))


def _cond(x: Any, p: Any) -> Any:
    return tf.compat.v1.cond(p, lambda: x, lambda: x + _quotient())


def _loop(x: Any, n: Any) -> Any:
    _, result = tf.compat.v1.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v + _quotient()), (0, x))
    return result


def _unguarded(x: Any, p: Any) -> Any:
    del p
    return x + _quotient()


PROGRAMS: dict[str, Callable[[Any, Any], Any]] = {"cond": _cond, "while_loop": _loop, "unguarded": _unguarded}


def _build(program: str, v2: bool) -> tuple[bytes, dict[str, np.ndarray]]:
    """The program and the feeds that keep TensorFlow off the division: a
    true predicate (the division is on the false side) or a loop bound of 0."""
    graph = tf.Graph()
    with graph.as_default(), control_flow(v2=v2):
        x = tf.compat.v1.placeholder(tf.int32, [4], name="x")
        if program == "while_loop":
            guard = tf.compat.v1.placeholder(tf.int32, [], name="n")
            feed = np.asarray(0, np.int32)
        else:
            guard = tf.compat.v1.placeholder(tf.bool, [], name="p")
            feed = np.asarray(True)
        tf.identity(PROGRAMS[program](x, guard), name=OUT)
    feeds = {"x:0": np.arange(4, dtype=np.int32), f"{guard.op.name}:0": feed}
    return graph.as_graph_def().SerializeToString(), feeds


def _run_tensorflow(graph_def: bytes, feeds: dict[str, np.ndarray]) -> np.ndarray:
    parsed = tf.compat.v1.GraphDef.FromString(graph_def)
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(parsed, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        return np.asarray(session.run(f"{OUT}:0", feeds))


@pytest.mark.parametrize("v2", [False, True], ids=["TF1", "TF2"])
@pytest.mark.parametrize("program", ["cond", "while_loop"])
def test_a_division_by_zero_that_may_not_run_loads(program: str, v2: bool, tmp_path: Path) -> None:
    graph_def, feeds = _build(program, v2)
    ran = _run_tensorflow(graph_def, feeds)
    path = tmp_path / "program.pb"
    path.write_bytes(graph_def)
    graph = load_tensorflow(path)
    out = graph.desc(graph.tensor(OUT, 0))
    assert (out.dtype.name, tuple(out.shape)) == ("INT32", ran.shape)
    if not v2:
        # TensorFlow 1's division is a node of the graph (TensorFlow 2's is
        # in a body): it is there, its value left for run time.
        divisions = [node.name for node in graph.nodes() if node.op_type == "FloorDiv"]
        assert divisions, "the division is not in the graph"
        assert all(graph.desc(graph.tensor(name, 0)).value is None for name in divisions)


@pytest.mark.parametrize("v2", [False, True], ids=["TF1", "TF2"])
def test_a_division_by_zero_that_surely_runs_is_an_error(v2: bool, tmp_path: Path) -> None:
    graph_def, feeds = _build("unguarded", v2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
        _run_tensorflow(graph_def, feeds)
    path = tmp_path / "program.pb"
    path.write_bytes(graph_def)
    with pytest.raises(opgraph.InferShapeError, match=r"'floordiv' \(FloorDiv\).*integer division by zero"):
        load_tensorflow(path)
