"""A TensorFlow 1 ``cond`` whose predicate is known compiles as the branch
it takes, alone: GE deletes the other branch (``SwitchDeadBranchElimination``)
and reduces the Switches and Merges left to edges (``MergePass``) before it
picks storage formats and assigns memory.

TensorFlow builds both models from the same drawn layers: the cond (its
predicate a constant or a ``placeholder_with_default``, weights captured
from outside or created inside the branches, as frozen TF1 Keras models
have them) and the taken branch by itself. ``opgraph compile``'s pipeline
(``opgraph.cli.compile.run``, what the command runs) must give the two the
same activation arena and lower bound and the same estimated time, and
weights that differ by the predicate's own constant at most; and
TensorFlow's executor must run no node the plan leaves out as dead."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import dead_nodes, import_tensorflow

tf = import_tensorflow("TensorFlow builds the models these tests compile")

from tf_op_cases import OUT, run_traced  # noqa: E402

from opgraph.cli.compile import CompileOptions, CompileResult, run  # noqa: E402
from opgraph.memory import OFFSET_ALIGNMENT  # noqa: E402

#: The input: one 8x8 NHWC image of 4 channels.
X_SHAPE = (1, 8, 8, 4)
LAYERS = ["conv", "relu", "bias", "pool", "batch norm", "scale", "dense"]
#: A TensorFlow tensor (TensorFlow ships no type information).
Tensor: TypeAlias = Any
Layer = Callable[[Tensor], Tensor]


def _weight(rng: np.random.Generator, shape: tuple[int, ...], outside: dict[str, Tensor], key: str) -> Tensor:
    """A weight: created where the cond is built when ``outside`` holds it
    (then the branch reads it through a Switch), else inside the branch."""
    if key in outside:
        return outside[key]
    return tf.constant(rng.standard_normal(shape).astype(np.float32))


def _layer(name: str, rng: np.random.Generator, outside: dict[str, Tensor], key: str) -> Layer:
    def apply(t: Tensor) -> Tensor:
        channels = int(t.shape[-1])
        if name == "conv":
            return tf.nn.conv2d(t, _weight(rng, (3, 3, channels, 8), outside, key), 1, "SAME")
        if name == "relu":
            return tf.nn.relu(t)
        if name == "bias":
            return tf.nn.bias_add(t, _weight(rng, (channels,), outside, key))
        if name == "pool":
            # Down to 1x1, then a pool would have no window left.
            return tf.nn.max_pool2d(t, 2, 2, "VALID") if int(t.shape[1]) >= 2 else t
        if name == "batch norm":
            scale = _weight(rng, (channels,), outside, key)
            y, _, _ = tf.compat.v1.nn.fused_batch_norm(
                t, scale, scale, mean=scale, variance=tf.abs(scale) + 1.0, is_training=False
            )
            return y
        if name == "scale":
            return t * 0.5
        flat = tf.reshape(t, [1, -1])
        return tf.matmul(flat, _weight(rng, (int(flat.shape[-1]), 10), outside, key))

    return apply


def _chain(layers: list[str], rng: np.random.Generator, outside: dict[str, Tensor], branch: str) -> Layer:
    """The layers in order; ``dense`` ends a chain (its output is 2-D)."""
    if "dense" in layers:
        layers = [*layers[: layers.index("dense")], "dense"]
    steps = [_layer(name, rng, outside, f"{branch}{i}") for i, name in enumerate(layers)]

    def apply(t: Tensor) -> Tensor:
        for step in steps:
            t = step(t)
        return t

    return apply


def _outside_weights(
    layers: list[str], rng: np.random.Generator, x_channels: int, branch: str
) -> dict[str, Tensor]:
    """Weights created before the cond, one per layer that has one, shaped
    for the channels the chain gives it."""
    weights: dict[str, Tensor] = {}
    channels, size = x_channels, X_SHAPE[1]
    for i, name in enumerate(layers):
        key = f"{branch}{i}"
        if name == "conv":
            weights[key] = tf.constant(rng.standard_normal((3, 3, channels, 8)).astype(np.float32))
            channels = 8
        elif name in ("bias", "batch norm"):
            weights[key] = tf.constant(rng.standard_normal(channels).astype(np.float32))
        elif name == "pool":
            size = size // 2 if size >= 2 else size
        elif name == "dense":
            weights[key] = tf.constant(rng.standard_normal((size * size * channels, 10)).astype(np.float32))
            break
    return weights


def build(
    path: Path,
    taken: list[str],
    other: list[str],
    *,
    condition: bool | None,
    predicate: str,
    captured: bool,
    seed: int,
) -> None:
    """Writes a frozen GraphDef: with ``condition`` set, ``cond(predicate,
    ...)`` whose branch ``condition`` picks is ``taken``; with None, ``taken``
    alone."""
    tf.compat.v1.disable_control_flow_v2()
    graph = tf.Graph()
    try:
        with graph.as_default():
            rng = np.random.default_rng(seed)
            x = tf.compat.v1.placeholder(tf.float32, X_SHAPE, name="x")
            outside: dict[str, Tensor] = {}
            if captured:
                outside |= _outside_weights(taken, rng, X_SHAPE[-1], "taken")
                outside |= _outside_weights(other, rng, X_SHAPE[-1], "other")
            taken_branch = _chain(taken, rng, outside, "taken")
            if condition is None:
                result = taken_branch(x)
            else:
                other_branch = _chain(other, rng, outside, "other")
                if predicate == "constant":
                    pred = tf.constant(condition)
                else:
                    pred = tf.compat.v1.placeholder_with_default(condition, [], name="learning_phase")
                on_true, on_false = (
                    (taken_branch, other_branch) if condition else (other_branch, taken_branch)
                )
                result = tf.compat.v1.cond(pred, lambda: on_true(x), lambda: on_false(x))
            tf.identity(result, name=OUT)
    finally:
        tf.compat.v1.enable_control_flow_v2()
    path.write_bytes(graph.as_graph_def().SerializeToString())


def compile_model(path: Path) -> CompileResult:
    result = run(CompileOptions(model=path, framework="tensorflow", soc="Ascend310"))
    assert not result.errors, result.errors
    assert result.memory is not None and result.cost is not None, result.warnings
    return result


def check_compiles_as_its_branch(
    tmp_path: Path,
    taken: list[str],
    other: list[str],
    condition: bool,
    predicate: str,
    captured: bool,
    seed: int,
) -> None:
    cond_path, alone_path = tmp_path / "cond.pb", tmp_path / "taken.pb"
    kwargs = {"predicate": predicate, "captured": captured, "seed": seed}
    build(cond_path, taken, other, condition=condition, **kwargs)  # type: ignore[arg-type]
    build(alone_path, taken, other, condition=None, **kwargs)  # type: ignore[arg-type]
    cond, alone = compile_model(cond_path), compile_model(alone_path)
    assert cond.memory is not None and alone.memory is not None
    assert cond.cost is not None and alone.cost is not None
    where = (
        f"cond({predicate}={condition}, {taken} / {other}, weights {'captured' if captured else 'inside'})"
    )
    assert cond.memory.arena_bytes == alone.memory.arena_bytes, where
    assert cond.memory.lower_bound_bytes == alone.memory.lower_bound_bytes, where
    extra_weights = cond.memory.weights_bytes - alone.memory.weights_bytes
    assert 0 <= extra_weights <= OFFSET_ALIGNMENT, f"{where}: {extra_weights} more bytes of weights"
    assert cond.cost.total_us == pytest.approx(alone.cost.total_us, rel=1e-3), where
    dead = dead_nodes(cond.memory)
    assert dead, f"{where}: no dead code planned"
    assert any("branches that cannot run" in note for note in cond.notes), cond.notes
    graph_def = tf.compat.v1.GraphDef.FromString(cond_path.read_bytes())
    _, executed = run_traced(graph_def, f"{OUT}:0", {"x:0": np.zeros(X_SHAPE, np.float32)})
    ran = sorted(dead & executed)
    assert not ran, f"{where}: TensorFlow ran {ran}, which the plan leaves out as dead"


def test_a_dropout_cond_on_the_learning_phase(tmp_path: Path) -> None:
    # Keras 2's Dropout in a frozen TF1 graph: cond(learning_phase, scale,
    # identity) after a convolution, the phase defaulting to inference.
    check_compiles_as_its_branch(
        tmp_path, ["conv", "relu"], ["conv", "relu", "scale"], False, "placeholder_with_default", True, 0
    )


chains = st.lists(st.sampled_from(LAYERS), min_size=1, max_size=4)


@pytest.mark.timeout(600)
@settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    taken=chains,
    other=chains,
    condition=st.booleans(),
    predicate=st.sampled_from(["constant", "placeholder_with_default"]),
    captured=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_a_cond_on_a_known_predicate_compiles_as_its_branch(
    tmp_path: Path,
    taken: list[str],
    other: list[str],
    condition: bool,
    predicate: str,
    captured: bool,
    seed: int,
) -> None:
    check_compiles_as_its_branch(tmp_path, taken, other, condition, predicate, captured, seed)
