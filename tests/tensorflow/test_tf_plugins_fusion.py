"""Many-to-one: a scope-fusion pass folds the ops of scope ``softsign`` into
one op, and a ``fusion_plugin`` maps that op (with the fused ops it
receives) onto an IR op."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import unique_name
from tf_fixtures import output_of
from tf_plugin_helpers import model, tf_shapes
from tf_scope_helpers import choose_sub_type

from opgraph import ParseError
from opgraph.tensorflow import (
    FUSION_DISABLE_INDEX,
    FrameworkOp,
    FusionScopesResult,
    NodeOpTypeFeature,
    Operator,
    PatternGroups,
    Scope,
    ScopeBasePass,
    ScopeGraph,
    ScopePattern,
    ScopesResult,
    fusion_plugin,
    load_tensorflow,
    register_scope_fusion_pass,
)


def _softsign_pass(pass_name: str, fused_type: str, abs_name: str = "softsign/Abs") -> type[ScopeBasePass]:
    """A pass fusing scope ``softsign`` (one Abs, one AddV2, one RealDiv)
    into one ``fused_type`` op fed by the scope's input and feeding its output."""

    class FuseSoftsign(ScopeBasePass):
        def define_patterns(self) -> PatternGroups:
            pattern = ScopePattern().set_sub_type("softsign")
            for op_type in ("Abs", "AddV2", "RealDiv"):
                pattern.add_node_op_type_feature(NodeOpTypeFeature(op_type, 1))
            return [[[pattern]]]

        def last_match_scopes_and_ops(self, scope_graph: ScopeGraph, results: list[ScopesResult]) -> bool:
            return choose_sub_type(scope_graph, results, "softsign")

        def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
            result.set_name("softsign")
            result.set_type(fused_type)
            result.set_description("x / (1 + |x|)")
            result.insert_inputs(abs_name, [0])
            result.insert_inputs("softsign/truediv", [0, FUSION_DISABLE_INDEX])
            result.insert_outputs("softsign/truediv", [0])

    FuseSoftsign.pass_name = pass_name
    return FuseSoftsign


def test_fusion_plugin_maps_a_fused_scope_onto_one_op(tmp_path: Path) -> None:
    pass_name, fused_type = unique_name("FuseSoftsign"), unique_name("Softsign")
    register_scope_fusion_pass(_softsign_pass(pass_name, fused_type), general=False)
    received: list[list[tuple[str, str]]] = []

    @fusion_plugin("Sigmoid", origin_op_types=[fused_type])
    def parse_softsign(fused: list[FrameworkOp], dst: Operator) -> None:
        received.append([(op.name, op.op_type) for op in fused])
        dst.set_attr("_fused_from", [op.name for op in fused])

    graph = load_tensorflow(model("fusion"), enable_scope_passes=[pass_name])
    assert received == [
        [
            ("softsign/Abs", "Abs"),
            ("softsign/add/x", "Const"),
            ("softsign/add", "AddV2"),
            ("softsign/truediv", "RealDiv"),
        ]
    ]
    node = graph.node("softsign")
    assert (node.op_type, node.input_sources) == ("Sigmoid", [("relu", 0)])
    assert graph.node("out").input_sources == [("softsign", 0)]
    assert "softsign/Abs" not in graph
    # The fused op's output has the shape TensorFlow gives the scope's output.
    assert output_of(graph, "softsign:0") == tf_shapes("fusion")["softsign/truediv:0"]


def test_a_pass_that_is_not_enabled_leaves_the_scope_alone() -> None:
    graph = load_tensorflow(model("fusion"))
    assert {"softsign/Abs", "softsign/add", "softsign/truediv"} <= {n.name for n in graph.nodes()}
    assert output_of(graph, "out:0") == tf_shapes("fusion")["out:0"]


def test_insert_inputs_naming_no_op_of_the_scope_is_an_error_naming_it() -> None:
    """A typo was ignored; the fused op then lacked its input, and the error
    blamed the op's prototype."""
    pass_name, fused_type = unique_name("FuseSoftsign"), unique_name("Softsign")
    register_scope_fusion_pass(_softsign_pass(pass_name, fused_type, abs_name="softsign/Abss"), general=False)
    fusion_plugin("Sigmoid", origin_op_types=[fused_type])(lambda fused, dst: None)
    with pytest.raises(
        ParseError,
        match=r"insert_inputs of 'softsign' names 'softsign/Abss', which is not an op of the fused scope "
        r"\(its ops: softsign/Abs,",
    ):
        load_tensorflow(model("fusion"), enable_scope_passes=[pass_name])
