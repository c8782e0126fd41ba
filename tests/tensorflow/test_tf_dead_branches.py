"""A ``cond`` whose predicate is known compiles as the branch it takes,
alone: GE deletes the other branch of a TensorFlow 1 cond
(``SwitchDeadBranchElimination``) and reduces the Switches and Merges left
to edges (``MergePass``), and replaces a TensorFlow 2 ``If`` by the body it
takes (``CondRemovePass``), before it picks storage formats and assigns
memory.

TensorFlow builds both models from the same drawn layers: the cond (its
predicate a constant or a ``placeholder_with_default``, weights captured
from outside or created inside the branches, as frozen TF1 Keras models
have them) and the taken branch by itself. ``opgraph compile``'s pipeline
(``opgraph.cli.compile.run``, what the command runs) must give the two the
same activation arena and lower bound and the same estimated time, and
weights that differ by the predicate's own constant at most; and, in
TensorFlow 1's form, TensorFlow's executor must run no node the plan leaves
out as dead (a TensorFlow 2 body's nodes run under other names)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import dead_nodes, import_tensorflow

tf = import_tensorflow("TensorFlow builds the models these tests compile")

from tf_op_cases import OUT, control_flow, run_traced  # noqa: E402

from opgraph import check_formats  # noqa: E402
from opgraph.cli.compile import CompileOptions, CompileResult, run  # noqa: E402
from opgraph.cost import PrecisionMode  # noqa: E402
from opgraph.memory import OFFSET_ALIGNMENT  # noqa: E402

#: The input: one 8x8 NHWC image of 4 channels.
X_SHAPE = (1, 8, 8, 4)
LAYERS = ["conv", "relu", "bias", "pool", "batch norm", "scale", "identity", "dense"]
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
        if name == "identity":
            # A branch that hands its input on (Keras's Dropout at inference).
            return tf.identity(t)
        flat = tf.reshape(t, [1, -1])
        return tf.matmul(flat, _weight(rng, (int(flat.shape[-1]), 10), outside, key))

    return apply


def _chain(
    layers: tuple[str, ...], rng: np.random.Generator, outside: dict[str, Tensor], branch: str
) -> Layer:
    """The layers in order; ``dense`` ends a chain (its output is 2-D)."""
    if "dense" in layers:
        layers = (*layers[: layers.index("dense")], "dense")
    steps = [_layer(name, rng, outside, f"{branch}{i}") for i, name in enumerate(layers)]

    def apply(t: Tensor) -> Tensor:
        for step in steps:
            t = step(t)
        return t

    return apply


def _outside_weights(
    layers: tuple[str, ...], rng: np.random.Generator, x_channels: int, branch: str
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


@dataclass(frozen=True)
class CondCase:
    """One drawn pair of models."""

    #: The layers of the branch the condition takes, and of the other.
    taken: tuple[str, ...]
    other: tuple[str, ...]
    condition: bool
    #: ``constant`` or ``placeholder_with_default`` (a Keras learning phase).
    predicate: str
    #: Weights created before the cond (read through Switches), or inside it.
    captured: bool
    seed: int
    #: TensorFlow 2's If instead of TensorFlow 1's Switch / Merge.
    v2: bool = False
    #: A convolution before the cond, so the branches read a kernel's output.
    stem: bool = False
    #: Both arms are the taken one's layers on the same captured weights
    #: (as Keras's BatchNormalization arms share gamma and beta): TensorFlow
    #: 1 gives each arm a Switch of its own for each weight.
    shared: bool = False

    def __str__(self) -> str:
        weights = "captured" if self.captured else "inside"
        stem = "conv -> " if self.stem else ""
        flavour = "TF2" if self.v2 else "TF1"
        arms = f"{self.taken} / {'the same, sharing its weights' if self.shared else self.other}"
        return f"{flavour} {stem}cond({self.predicate}={self.condition}, {arms}, weights {weights})"


def build(path: Path, case: CondCase, *, alone: bool) -> None:
    """Writes a frozen GraphDef: ``cond(predicate, ...)`` whose branch the
    condition picks is ``case.taken``, or with ``alone`` that branch only."""
    graph = tf.Graph()
    with control_flow(case.v2), graph.as_default():
        rng = np.random.default_rng(case.seed)
        x = tf.compat.v1.placeholder(tf.float32, X_SHAPE, name="x")
        if case.stem:
            x = tf.nn.conv2d(
                x, rng.standard_normal((1, 1, X_SHAPE[-1], X_SHAPE[-1])).astype(np.float32), 1, "SAME"
            )
        outside: dict[str, Tensor] = {}
        if case.captured:
            outside |= _outside_weights(case.taken, rng, X_SHAPE[-1], "taken")
            outside |= _outside_weights(case.other, rng, X_SHAPE[-1], "other")
        taken_branch = _chain(case.taken, rng, outside, "taken")
        if alone:
            result = taken_branch(x)
        else:
            if case.shared:
                other_branch = _chain(case.taken, rng, outside, "taken")
            else:
                other_branch = _chain(case.other, rng, outside, "other")
            if case.predicate == "constant":
                pred = tf.constant(case.condition)
            else:
                pred = tf.compat.v1.placeholder_with_default(case.condition, [], name="learning_phase")
            on_true, on_false = (
                (taken_branch, other_branch) if case.condition else (other_branch, taken_branch)
            )
            result = tf.compat.v1.cond(pred, lambda: on_true(x), lambda: on_false(x))
        tf.identity(result, name=OUT)
    path.write_bytes(graph.as_graph_def().SerializeToString())


def compile_model(path: Path, precision: PrecisionMode = "force_fp16") -> CompileResult:
    options = CompileOptions(model=path, framework="tensorflow", soc="Ascend310", precision=precision)
    result = run(options)
    assert not result.errors, result.errors
    assert result.memory is not None and result.cost is not None, result.warnings
    return result


def check_compiles_as_its_branch(tmp_path: Path, case: CondCase) -> None:
    cond_path, alone_path = tmp_path / "cond.pb", tmp_path / "taken.pb"
    build(cond_path, case, alone=False)
    build(alone_path, case, alone=True)
    cond, alone = compile_model(cond_path), compile_model(alone_path)
    assert cond.memory is not None and alone.memory is not None
    assert cond.cost is not None and alone.cost is not None
    assert not check_formats(cond.graph, "Ascend310"), case
    assert cond.memory.arena_bytes == alone.memory.arena_bytes, case
    assert cond.memory.lower_bound_bytes == alone.memory.lower_bound_bytes, case
    extra_weights = cond.memory.weights_bytes - alone.memory.weights_bytes
    assert 0 <= extra_weights <= OFFSET_ALIGNMENT, f"{case}: {extra_weights} more bytes of weights"
    assert cond.cost.total_us == pytest.approx(alone.cost.total_us, rel=1e-3), case
    dead = dead_nodes(cond.memory)
    if case.v2:
        # `prepare` replaced the If by the body it takes: nothing is left
        # of the other body, nor of the If.
        assert not dead, f"{case}: {sorted(dead)} planned as dead"
        assert not [n.name for n in cond.graph.nodes() if n.op_type in ("If", "StatelessIf")], case
        assert cond.prepared is not None and cond.prepared.conds_replaced == 1, case
        assert any("CondRemovePass" in note for note in cond.notes), cond.notes
        return
    assert dead, f"{case}: no dead code planned"
    assert any("branches that cannot run" in note for note in cond.notes), cond.notes
    graph_def = tf.compat.v1.GraphDef.FromString(cond_path.read_bytes())
    _, executed = run_traced(graph_def, f"{OUT}:0", {"x:0": np.zeros(X_SHAPE, np.float32)})
    ran = sorted(dead & executed)
    assert not ran, f"{case}: TensorFlow ran {ran}, which the plan leaves out as dead"


def check_casts_as_its_branch(tmp_path: Path, case: CondCase) -> None:
    """Under ``allow_fp32_to_fp16`` too: the same Casts, the same weights
    stored in fp16 (a weight read through a Switch reduced to an edge is
    the cube op's own), the same arena."""
    cond_path, alone_path = tmp_path / "cond.pb", tmp_path / "taken.pb"
    build(cond_path, case, alone=False)
    build(alone_path, case, alone=True)
    cond = compile_model(cond_path, "allow_fp32_to_fp16")
    alone = compile_model(alone_path, "allow_fp32_to_fp16")
    assert cond.prepared is not None and alone.prepared is not None
    assert not check_formats(cond.graph, "Ascend310"), case
    assert cond.prepared.casts_inserted == alone.prepared.casts_inserted, case
    assert cond.prepared.weights_cast_to_fp16 == alone.prepared.weights_cast_to_fp16, case
    assert cond.memory is not None and alone.memory is not None
    assert cond.memory.arena_bytes == alone.memory.arena_bytes, case
    extra_weights = cond.memory.weights_bytes - alone.memory.weights_bytes
    assert 0 <= extra_weights <= OFFSET_ALIGNMENT, f"{case}: {extra_weights} more bytes of weights"


def test_a_dropout_cond_on_the_learning_phase(tmp_path: Path) -> None:
    # Keras 2's Dropout in a frozen TF1 graph: cond(learning_phase, scale,
    # identity) on a convolution's output, the phase defaulting to
    # inference, so the branch taken hands the convolution's output on.
    dropout = CondCase(("identity",), ("scale",), False, "placeholder_with_default", True, 0, stem=True)
    check_compiles_as_its_branch(tmp_path, dropout)


def test_a_batch_norm_cond_fuses_as_its_branch_alone(tmp_path: Path) -> None:
    # Keras 2's BatchNormalization in a frozen TF1 graph: the inference
    # batch norm after a convolution fuses into it; the training branch,
    # dead, must not keep it from fusing.
    batch_norm = CondCase(
        ("batch norm", "relu"), ("batch norm",), False, "placeholder_with_default", True, 1, stem=True
    )
    check_compiles_as_its_branch(tmp_path, batch_norm)


chains = st.lists(st.sampled_from(LAYERS), min_size=1, max_size=4).map(tuple)
cases = st.builds(
    CondCase,
    taken=chains,
    other=chains,
    condition=st.booleans(),
    predicate=st.sampled_from(["constant", "placeholder_with_default"]),
    captured=st.booleans(),
    seed=st.integers(0, 2**16),
    v2=st.booleans(),
    stem=st.booleans(),
    shared=st.booleans(),
)


@pytest.mark.timeout(600)
@settings(
    max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=cases)
def test_a_cond_on_a_known_predicate_compiles_as_its_branch(tmp_path: Path, case: CondCase) -> None:
    check_compiles_as_its_branch(tmp_path, case)


@pytest.mark.timeout(600)
@settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=cases)
def test_a_cond_on_a_known_predicate_casts_to_fp16_as_its_branch(tmp_path: Path, case: CondCase) -> None:
    check_casts_as_its_branch(tmp_path, case)
