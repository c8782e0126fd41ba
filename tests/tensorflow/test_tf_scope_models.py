"""Scope fusion on real frozen TensorFlow graphs (tests/tensorflow/data, made
by generators/make_scope_models.py): the built-in passes fuse, the fused
graph infers to TensorFlow's own static shapes, and a Python pass takes part
in ``opgraph.load_tensorflow``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tf_fixtures import DATA, output_of, tf_tensor
from tf_scope_helpers import choose_sub_type

from opgraph import DataType, Graph
from opgraph.errors import ParseError
from opgraph.tensorflow import ScopeFusionDeclined, load_tensorflow, load_tensorflow_reported
from opgraph.tensorflow.scope import (
    FUSION_DISABLE_INDEX,
    INPUT_FROM_FUSION_SCOPE,
    OUTPUT_TO_FUSION_SCOPE,
    SCOPE_TO_MULTI_NODES,
    FusionScopesResult,
    NodeOpTypeFeature,
    PatternGroups,
    Scope,
    ScopeBasePass,
    ScopeFeature,
    ScopeGraph,
    ScopePattern,
    ScopesResult,
    register_scope_fusion_pass,
)

SHAPES: dict[str, Any] = json.loads((DATA / "scope_shapes.json").read_text())


def load(fixture: str, *enabled: str) -> Graph:
    return load_tensorflow(DATA / fixture, enable_scope_passes=list(enabled))


def assert_tensorflow_shapes(graph: Graph, fixture: str) -> int:
    """Every tensor TensorFlow recorded whose op survived fusion has TF's
    static shape and dtype; returns how many were compared."""
    compared = 0
    for tensor, expected in SHAPES[fixture]["tensors"].items():
        if tensor.rsplit(":", 1)[0] not in graph:
            continue
        assert output_of(graph, tensor) == tf_tensor(expected), tensor
        compared += 1
    for output in SHAPES[fixture]["outputs"]:
        assert output.rsplit(":", 1)[0] in graph, f"graph output {output} survives fusion"
    return compared


def nodes_of_type(graph: Graph, op_type: str) -> dict[str, dict[str, Any]]:
    return {n.name: n.attrs for n in graph.nodes() if n.op_type == op_type}


def test_contrib_layer_norms_fuse_by_default_and_keep_tensorflow_shapes() -> None:
    graph = load("scope_layer_norm.pbtxt")
    norms = nodes_of_type(graph, "LayerNorm")
    assert sorted(norms) == ["LayerNorm", "encoder/LayerNorm"]
    assert norms["LayerNorm"]["begin_norm_axis"] == 1, "contrib default: normalise dims 1.."
    assert norms["encoder/LayerNorm"]["begin_norm_axis"] == 2, "begin_norm_axis=-1 on rank 3"
    for attrs in norms.values():
        assert attrs["begin_params_axis"] == -1
        assert attrs["epsilon"] == pytest.approx(1e-12, rel=1e-6)
    assert "LayerNorm/batchnorm/add_1" not in graph
    assert "LayerNorm/moments/mean/reduction_indices" not in graph, "unread Consts of the scope go"
    assert assert_tensorflow_shapes(graph, "scope_layer_norm.pbtxt") >= 6


def test_hand_written_layer_norms_fuse_over_trailing_axes_and_the_rest_stay_unfused() -> None:
    # axes [-1] fuses (trailing whatever the rank); [1, -1] on a rank-3 x
    # is [1, 2] once normalised, trailing too; [0, 2] is not trailing: its
    # ops stay, with a warning, and the model still loads.
    fixture = "scope_layer_norm_axes.pbtxt"
    with pytest.warns(ScopeFusionDeclined) as caught:
        graph, runs = load_tensorflow_reported(DATA / fixture)
    norms = nodes_of_type(graph, "LayerNorm")
    assert sorted(norms) == ["last/LayerNorm", "mixed/LayerNorm"]
    assert norms["last/LayerNorm"]["begin_norm_axis"] == -1
    assert norms["mixed/LayerNorm"]["begin_norm_axis"] == 1
    layer_norm = next(r for r in runs if r.name == "ScopeLayerNormPass")
    assert layer_norm.status == "ran"
    assert [f.name for f in layer_norm.fused] == ["last/LayerNorm", "mixed/LayerNorm"]
    declined = {d.name: d for d in layer_norm.declined}
    assert sorted(declined) == ["outer/LayerNorm"]
    assert "reduces axes [0, 2] of a rank-3 x" in declined["outer/LayerNorm"].reason
    assert "outer/LayerNorm/moments/" in declined["outer/LayerNorm"].scopes
    messages = [str(w.message) for w in caught if issubclass(w.category, ScopeFusionDeclined)]
    assert len(messages) == 1
    assert messages[0].startswith("scope fusion pass 'ScopeLayerNormPass' left ")
    # The unfused ops infer to TensorFlow's shapes, every one of them.
    assert "outer/LayerNorm/batchnorm/Rsqrt" in graph
    assert assert_tensorflow_shapes(graph, fixture) >= 20


# Every hand-written spelling of make_scope_models.py that is a layer norm,
# with the attributes the fused op must get: (begin_norm_axis,
# begin_params_axis) — gamma over [5, 8] for axes [1, 2].
SPELLED = {
    "bert": (-1, -1),
    "axis_2": (2, -1),
    "axes_1_2": (1, -2),
    "sqrt_div": (-1, -1),
    "eps_after": (-1, -1),
    "no_keepdims": (-1, -1),
}
# The spellings that are not a layer norm a fused LayerNorm can stand for.
NOT_SPELLED = {
    "over_time": "reduces axes [1] of a rank-3 x",
    "no_beta": "no op after the moments computes",
    "centred_read": "'centred_read/centred' reads 'centred_read/sub'",
}


def test_every_spelling_of_a_layer_norm_fuses_and_the_others_are_declined_with_why() -> None:
    fixture = "scope_layer_norm_spellings.pbtxt"
    with pytest.warns(ScopeFusionDeclined) as caught:
        graph, runs = load_tensorflow_reported(DATA / fixture)
    norms = nodes_of_type(graph, "LayerNorm")
    assert {name: (a["begin_norm_axis"], a["begin_params_axis"]) for name, a in norms.items()} == SPELLED
    for attrs in norms.values():
        assert attrs["epsilon"] == pytest.approx(1e-5, rel=1e-6)
    layer_norm = next(r for r in runs if r.name == "ScopeLayerNormPass")
    assert [f.name for f in layer_norm.fused] == list(SPELLED)
    reasons = {d.name: d.reason for d in layer_norm.declined}
    assert sorted(reasons) == sorted(NOT_SPELLED)
    for name, why in NOT_SPELLED.items():
        assert why in reasons[name], reasons[name]
    assert len([w for w in caught if issubclass(w.category, ScopeFusionDeclined)]) == len(NOT_SPELLED)
    # Of a fused spelling only its parameters and the Relu after it are
    # left; the declined ones keep every op.
    kept = {"gamma", "gamma/read", "beta", "beta/read", "Relu"}
    for node in graph.nodes():
        scope, _, rest = node.name.partition("/")
        if scope in SPELLED and node.name != scope:
            assert rest in kept, node.name
    assert "over_time/moments/mean" in graph and "no_beta/mul_1" in graph
    # Every tensor that survives (the declined spellings' and each Relu
    # reading a fused op's y) has TensorFlow's shape.
    assert assert_tensorflow_shapes(graph, fixture) >= 40
    for name in SPELLED:
        assert output_of(graph, f"{name}/Relu:0") == tf_tensor(SHAPES[fixture]["tensors"][f"{name}/Relu:0"])


def test_keras_layer_normalization_fuses_over_one_axis_and_over_two() -> None:
    fixture = "scope_keras_layer_norm.pbtxt"
    graph, runs = load_tensorflow_reported(DATA / fixture)
    norms = nodes_of_type(graph, "LayerNorm")
    attrs = {n.rsplit("/", 1)[-1]: (a["begin_norm_axis"], a["begin_params_axis"]) for n, a in norms.items()}
    assert attrs == {"last_1": (-1, -1), "both_1": (1, -2)}, "gamma [5, 8] over axes [1, 2]"
    assert all(a["epsilon"] == pytest.approx(1e-3, rel=1e-6) for a in norms.values())
    assert not next(r for r in runs if r.name == "ScopeLayerNormPass").declined
    assert assert_tensorflow_shapes(graph, fixture) >= 5


@pytest.mark.parametrize("fixture", ["scope_layer_norm_spellings.pbtxt", "scope_keras_layer_norm.pbtxt"])
def test_with_the_pass_disabled_every_tensor_has_tensorflows_shape(fixture: str) -> None:
    graph = load_tensorflow(DATA / fixture, disable_scope_passes=["ScopeLayerNormPass"])
    assert nodes_of_type(graph, "LayerNorm") == {}
    assert assert_tensorflow_shapes(graph, fixture) == len(SHAPES[fixture]["tensors"])


def test_disable_scope_passes_turns_off_a_general_pass() -> None:
    graph, runs = load_tensorflow_reported(
        DATA / "scope_layer_norm.pbtxt", disable_scope_passes=["ScopeLayerNormPass"]
    )
    assert nodes_of_type(graph, "LayerNorm") == {}
    statuses = {r.name: r.status for r in runs}
    assert statuses["ScopeLayerNormPass"] == "disabled"
    assert statuses["ScopeBatchNormInferencePass"] == "not enabled"
    assert assert_tensorflow_shapes(graph, "scope_layer_norm.pbtxt") == len(
        SHAPES["scope_layer_norm.pbtxt"]["tensors"]
    )
    with pytest.raises(ParseError, match="both enabled and disabled"):
        load_tensorflow(
            DATA / "scope_layer_norm.pbtxt",
            enable_scope_passes=["ScopeBatchNormInferencePass"],
            disable_scope_passes=["ScopeBatchNormInferencePass"],
        )


@pytest.mark.parametrize(
    ("fixture", "fused"),
    [
        ("scope_keras_bn.pbtxt", "functional_1/conv1_bn_1/batchnorm"),
        ("scope_tf1_bn.pbtxt", "batch_normalization/batchnorm"),
    ],
)
def test_unfused_batch_norm_fuses_into_fused_batch_norm_v3_when_enabled(fixture: str, fused: str) -> None:
    plain = load(fixture)
    assert nodes_of_type(plain, "FusedBatchNormV3") == {}, "the pass is not general"
    assert assert_tensorflow_shapes(plain, fixture) > 0

    graph = load(fixture, "ScopeBatchNormInferencePass")
    norms = nodes_of_type(graph, "FusedBatchNormV3")
    assert list(norms) == [fused]
    assert norms[fused]["is_training"] is False
    assert norms[fused]["epsilon"] == pytest.approx(1e-3, rel=1e-6)
    assert f"{fused}/Rsqrt" not in graph
    assert assert_tensorflow_shapes(graph, fixture) > 0


class BatchNormToFusedOp(ScopeBasePass):
    """A user pass turning each unfused ``batchnorm/`` scope into
    TensorFlow's own FusedBatchNormV3, as one inner node of a many-to-many
    result (the built-in TensorFlow plugin then maps it)."""

    pass_name = "TestBatchNormToFusedOp"

    def define_patterns(self) -> PatternGroups:
        pattern = ScopePattern("bn").add_node_op_type_feature(NodeOpTypeFeature("Rsqrt", 1))
        return [[[pattern.add_scope_feature(ScopeFeature("", -1, suffix="batchnorm"))]]]

    def last_match_scopes_and_ops(self, scope_graph: ScopeGraph, results: list[ScopesResult]) -> bool:
        return choose_sub_type(scope_graph, results, "bn")

    def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
        off = FUSION_DISABLE_INDEX
        mul_1 = scopes[0].all_nodes_map()[scopes[0].name + "mul_1"]
        x_first = not mul_1.inputs[0][0].startswith(scopes[0].name)
        result.insert_inputs("batchnorm/mul_1", [0, off] if x_first else [off, 0])
        result.insert_inputs("batchnorm/mul", [off, 1])
        result.insert_inputs("batchnorm/sub", [2, off])
        result.insert_inputs("batchnorm/mul_2", [3, off])
        result.insert_inputs("batchnorm/add", [4, off])
        result.insert_outputs("batchnorm/add_1", [0])
        result.set_type(SCOPE_TO_MULTI_NODES)
        result.set_name(scopes[0].name.rstrip("/"))
        node = result.add_inner_node("fused", "FusedBatchNormV3")
        for i in range(5):
            node.insert_input(INPUT_FROM_FUSION_SCOPE, i)
        node.insert_output(OUTPUT_TO_FUSION_SCOPE, 0)
        node.set_attr("T", DataType.FLOAT).set_attr("U", DataType.FLOAT)
        node.set_attr("epsilon", 0.001).set_attr("is_training", False).set_attr("data_format", "NHWC")


def test_a_python_many_to_many_pass_takes_part_in_loading() -> None:
    register_scope_fusion_pass(BatchNormToFusedOp, override=True)
    graph = load("scope_tf1_bn.pbtxt", BatchNormToFusedOp.pass_name)
    assert list(nodes_of_type(graph, "FusedBatchNormV3")) == ["batch_normalization/batchnorm/fused"]
    assert assert_tensorflow_shapes(graph, "scope_tf1_bn.pbtxt") > 0


def test_an_exception_in_a_pass_comes_out_of_loading_as_a_parse_error() -> None:
    class Broken(BatchNormToFusedOp):
        pass_name = "TestBrokenDuringLoad"

        def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
            raise ValueError(f"cannot fuse {scopes[0].name}")

    register_scope_fusion_pass(Broken, override=True)
    with pytest.raises(ParseError, match="cannot fuse batch_normalization/batchnorm/") as info:
        load("scope_tf1_bn.pbtxt", Broken.pass_name)
    assert info.value.scope_pass == Broken.pass_name
    assert isinstance(info.value.__cause__, ValueError)
