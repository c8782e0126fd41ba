"""Scope fusion from Python: passes written as ScopeBasePass subclasses,
registered, and run by the Rust matcher and splicer over framework ops given
as plain data (``_core._run_scope_passes``; the model-file path is in
test_tf_scope_models.py, errors and registration in test_tf_scope_errors.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import unique_name
from tf_scope_helpers import Op, blk_pattern, block, fuse_block, make_pass, op, run

from opgraph import _core
from opgraph.tensorflow.scope import (
    FUSION_DISABLE_INDEX,
    INPUT_FROM_FUSION_SCOPE,
    OUTPUT_TO_FUSION_SCOPE,
    SCOPE_INVALID_TYPE,
    SCOPE_TO_MULTI_NODES,
    FusionScopesResult,
    NodeAttrFeature,
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


def test_features_and_patterns_are_plain_values() -> None:
    pattern = ScopePattern()
    same = pattern.set_sub_type("cell").add_node_op_type_feature(NodeOpTypeFeature("Mul", 3, step=2))
    assert same is pattern
    pattern.add_node_attr_feature(NodeAttrFeature("Conv2D", "padding", "SAME"))
    pattern.add_scope_feature(ScopeFeature("gate", 2, "cell", "rnn", 0))
    assert pattern.sub_type == "cell"
    (count,) = pattern.node_op_type_features
    assert (count.op_type, count.num, count.step) == ("Mul", 3, 2)
    (attr,) = pattern.node_attr_features
    assert (attr.op_type, attr.attr, attr.value) == ("Conv2D", "padding", "SAME")
    (scope,) = pattern.scope_features
    assert (scope.sub_type, scope.num, scope.suffix, scope.sub_scope_mask, scope.step) == (
        "gate",
        2,
        "cell",
        "rnn",
        0,
    )
    assert NodeAttrFeature("A", "b", True).value is True
    assert NodeAttrFeature("A", "b", 1).value == 1
    assert NodeAttrFeature("A", "b", 0.5).value == 0.5
    with pytest.raises(TypeError, match="bool, int, float or str, got list"):
        NodeAttrFeature("A", "b", [1])  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error
    assert repr(NodeOpTypeFeature("Mul", -1)) == 'NodeOpTypeFeature("Mul", -1, step=0)'


def test_a_python_pass_fuses_a_scope_many_to_one() -> None:
    name = unique_name("MulRelu")
    make_pass(name, blk_pattern, fuse_block)
    ops, records = run(block(), name)
    assert ops == {
        "x": ("Placeholder", [], []),
        "w": ("Const", [], []),
        "blk": ("MulRelu", ["x:0", "w:0"], ["blk/mul", "blk/k", "blk/relu"]),
        "y": ("Identity", ["blk:0"], []),
        "peek": ("Neg", ["blk:1"], []),
    }
    assert records == [(name, "blk", "MulRelu", ["blk/mul", "blk/k", "blk/relu"], "x * w, then relu", [])]


def test_a_pass_sees_the_scope_tree_with_ge_names_counts_and_nodes() -> None:
    seen: dict[str, Any] = {}

    def inspect(scopes: list[Scope], result: FusionScopesResult) -> None:
        (scope,) = scopes
        father = scope.father_scope
        assert father is not None
        seen.update(
            name=scope.name,
            last_name=scope.last_name,
            father=father.name,
            grandfather=father.father_scope.name if father.father_scope else None,
            nodes=list(scope.all_nodes_map()),
            consts=[n.name for n in scope.nodes_by_type("Const")],
            counts=(scope.op_type_count("Mul"), scope.op_type_count("Conv2D")),
            sub=scope.get_sub_scope("inner") == scope.get_sub_scope("net/blk_2/inner/"),
            subs=[s.name for s in scope.all_sub_scopes()],
            consumers=scope.all_nodes_map()["net/blk_2/mul"].consumers,
            inputs=scope.all_nodes_map()["net/blk_2/mul"].inputs,
            value=scope.all_nodes_map()["net/blk_2/inner/k"].attrs["value"],
        )
        result.set_type(SCOPE_INVALID_TYPE)

    def pattern() -> PatternGroups:
        found = ScopePattern("blk").add_scope_feature(ScopeFeature("", -1, suffix="blk"))
        return [[[found.add_node_op_type_feature(NodeOpTypeFeature("Mul", 1))]]]

    name = unique_name("Inspect")
    make_pass(name, pattern, inspect)
    graph = [
        op("x", "Placeholder"),
        op("net/blk_2/mul", "Mul", "x", "net/blk_2/inner/k"),
        op("net/blk_2/inner/k", "Const", value=np.arange(3, dtype=np.int32)),
        op("out", "Relu", "net/blk_2/mul", "^net/blk_2/mul"),
    ]
    ops, records = run(graph, name)
    assert records == [], "SCOPE_INVALID_TYPE abandons the result"
    assert list(ops) == ["x", "net/blk_2/mul", "net/blk_2/inner/k", "out"]
    assert seen["name"] == "net/blk_2/"
    assert seen["last_name"] == "blk", "the _2 index is trimmed"
    assert (seen["father"], seen["grandfather"]) == ("net/", "root")
    assert seen["nodes"] == ["net/blk_2/mul", "net/blk_2/inner/k"]
    assert seen["consts"] == ["net/blk_2/inner/k"]
    assert seen["counts"] == (1, -1), "GE counts an absent type as -1"
    assert seen["sub"] is True
    assert seen["subs"] == ["net/blk_2/inner/"]
    assert seen["consumers"] == [(0, "out", 0), (0, "out", -1)]
    assert seen["inputs"] == [("x", 0), ("net/blk_2/inner/k", 0)]
    np.testing.assert_array_equal(seen["value"], np.arange(3, dtype=np.int32))


def matched(patterns: PatternGroups, graph: list[Op]) -> list[tuple[str, str]]:
    """Scopes with a sub-type after matching, as the pass's last match sees them."""
    seen: list[tuple[str, str]] = []
    probe = make_pass(unique_name("Probe"), lambda: patterns, fuse_block, sub_type="never", seen=seen)
    run(graph, probe.pass_name)
    return [(scope, sub) for scope, sub in seen if sub]


COUNTS = [
    op("x", "Placeholder"),
    op("a/m1", "Mul", "x", "x"),
    op("a/m2", "Mul", "x", "x"),
    op("a/m3", "Mul", "x", "x"),
    op("b/m1", "Mul", "x", "x"),
    op("c/r", "Relu", "x"),
]


@pytest.mark.parametrize(
    ("feature", "expected"),
    [
        (NodeOpTypeFeature("Mul", 3), ["a/"]),
        (NodeOpTypeFeature("Mul", 1), ["b/"]),
        (NodeOpTypeFeature("Mul", -1), ["c/"]),
        (NodeOpTypeFeature("Mul", 0), []),
        (NodeOpTypeFeature("Mul", 1, step=2), ["a/", "b/"]),
        (NodeOpTypeFeature("Mul", 0, step=3), ["a/"]),
        (NodeOpTypeFeature("Relu", 1, step=1), []),
    ],
)
def test_node_op_type_feature_follows_ge_counting(feature: NodeOpTypeFeature, expected: list[str]) -> None:
    pattern = ScopePattern("hit").add_node_op_type_feature(feature)
    assert [scope for scope, _ in matched([[[pattern]]], COUNTS)] == expected


def test_node_attr_feature_looks_at_direct_nodes() -> None:
    graph = [
        op("x", "Placeholder"),
        op("s/conv", "Conv2D", "x", "x", padding="VALID"),
        op("s/conv_1", "Conv2D", "x", "x", padding="SAME"),
        op("t/inner/conv", "Conv2D", "x", "x", padding="SAME"),
    ]
    same = ScopePattern("hit").add_node_attr_feature(NodeAttrFeature("Conv2D", "padding", "SAME"))
    assert matched([[[same]]], graph) == [("s/", "hit"), ("t/inner/", "hit")]


def test_batches_see_earlier_sub_types_and_roll_back_unused_matches() -> None:
    graph = [
        op("x", "Placeholder"),
        op("net/cell_1/gate/m", "Mul", "x", "x"),
        op("net/cell_2/gate/m", "Mul", "x", "x"),
        op("net/cell_2/extra", "Relu", "x"),
        op("net/other/gate/m", "Mul", "x", "x"),
    ]
    gate = ScopePattern("gate").add_scope_feature(ScopeFeature("", -1, "gate"))
    gate.add_node_op_type_feature(NodeOpTypeFeature("Mul", 1))
    cell = ScopePattern("cell").add_scope_feature(ScopeFeature("gate", 1, "cell"))
    cell.add_node_op_type_feature(NodeOpTypeFeature("Relu", -1))
    assert matched([[[gate], [cell]]], graph) == [
        ("net/cell_1/", "cell"),
        ("net/cell_1/gate/", "gate"),
    ], "cell_2 has a Relu; other/gate is not inside a final match and rolls back"


def decode_graph() -> list[Op]:
    """``y = transpose(transpose(a) - b)`` as scope ``decode/``."""
    return [
        op("a", "Placeholder"),
        op("b", "Placeholder"),
        op("decode/perm", "Const", value=np.array([1, 0], np.int32)),
        op("decode/transpose", "Transpose", "a", "decode/perm"),
        op("decode/sub", "Sub", "decode/transpose", "b"),
        op("decode/transpose_1", "Transpose", "decode/sub", "decode/perm"),
        op("y", "Identity", "decode/transpose_1"),
    ]


def decode_pattern() -> PatternGroups:
    return [[[ScopePattern("decode").add_scope_feature(ScopeFeature("", -1, "decode"))]]]


def decode_to_inner_nodes(scopes: list[Scope], result: FusionScopesResult) -> None:
    """The issue's many-to-many example (GE's DecodeBbox style): the scope
    becomes identities around one core node."""
    result.insert_inputs("transpose", [0, FUSION_DISABLE_INDEX])
    result.insert_inputs("sub", [FUSION_DISABLE_INDEX, 1])
    result.insert_outputs("transpose_1", [0])
    result.set_type(SCOPE_TO_MULTI_NODES)
    result.set_name(scopes[0].name[:-1])
    in_0 = result.add_inner_node("input_identity_0", "Identity")
    assert in_0.insert_input(INPUT_FROM_FUSION_SCOPE, 0).insert_output("core", 0) is in_0
    in_1 = result.add_inner_node("input_identity_1", "Identity")
    in_1.insert_input(INPUT_FROM_FUSION_SCOPE, 1).insert_output("core", 1)
    core = result.add_inner_node("core", "DecodeCore")
    core.insert_input("input_identity_0", 0).insert_input("input_identity_1", 0)
    core.insert_output("output_identity", 0).set_attr("scales", [1.0, 2.0]).set_attr("flag", True)
    assert (core.name, core.type) == ("core", "DecodeCore")
    assert core.inputs == [("input_identity_0", 0), ("input_identity_1", 0)]
    assert core.attrs == {"scales": [1.0, 2.0], "flag": True}
    out = result.add_inner_node("output_identity", "Identity")
    out.insert_input("core", 0).insert_output(OUTPUT_TO_FUSION_SCOPE, 0)


def test_many_to_many_inner_nodes_replace_the_scope() -> None:
    name = unique_name("Decode")
    make_pass(name, decode_pattern, decode_to_inner_nodes, sub_type="decode")
    fused, records = _core._run_scope_passes(decode_graph(), [name])
    ops = {n: (t, i) for n, t, i, _a, _f in fused}
    assert ops == {
        "a": ("Placeholder", []),
        "b": ("Placeholder", []),
        "decode/input_identity_0": ("Identity", ["a:0"]),
        "decode/input_identity_1": ("Identity", ["b:0"]),
        "decode/core": ("DecodeCore", ["decode/input_identity_0:0", "decode/input_identity_1:0"]),
        "decode/output_identity": ("Identity", ["decode/core:0"]),
        "y": ("Identity", ["decode/output_identity:0"]),
    }
    core_attrs = next(a for n, _t, _i, a, _f in fused if n == "decode/core")
    assert core_attrs == {"scales": [1.0, 2.0], "flag": True}
    ((pass_name, fused_name, op_type, replaced, _desc, inner),) = records
    assert (pass_name, fused_name, op_type) == (name, "decode", SCOPE_TO_MULTI_NODES)
    assert replaced == ["decode/perm", "decode/transpose", "decode/sub", "decode/transpose_1"]
    assert inner == [
        "decode/input_identity_0",
        "decode/input_identity_1",
        "decode/core",
        "decode/output_identity",
    ]


def test_set_nodes_takes_nodes_or_names_and_fuses_ops_outside_scopes() -> None:
    class Loose(ScopeBasePass):
        pass_name = unique_name("Loose")

        def define_patterns(self) -> PatternGroups:
            return blk_pattern()

        def last_match_scopes_and_ops(self, scope_graph: ScopeGraph, results: list[ScopesResult]) -> bool:
            chosen = ScopesResult()
            mul = scope_graph.node("blk/mul")
            assert mul is not None and scope_graph.node("nope") is None
            chosen.set_nodes([mul, "blk/relu"])
            assert chosen.nodes == ["blk/mul", "blk/relu"]
            with pytest.raises(TypeError, match="ScopeNodes or op names"):
                chosen.set_nodes([1])  # type: ignore[list-item]  # deliberately wrong: checks the runtime error
            results.append(chosen)
            return True

        def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
            assert scopes == [] and result.nodes == ["blk/mul", "blk/relu"]
            result.set_name("loose")
            result.set_type("MulRelu")
            result.insert_inputs("mul", [0, 1])
            result.insert_outputs("relu", [0])
            result.insert_outputs("mul", [1])

    register_scope_fusion_pass(Loose)
    ops, _ = run(block(), Loose.pass_name)
    assert ops["loose"] == ("MulRelu", ["x:0", "w:0"], ["blk/mul", "blk/relu"])
    assert "blk/k" in ops, "not chosen: stays"
