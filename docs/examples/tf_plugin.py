"""TensorFlow parser plugins: one op to one op, one op to a subgraph, and a
scope-fusion pass with the plugin of the op it produces (the "Parser
plugins" guide includes this file). Reads models from tests/tensorflow/data.

    python docs/examples/tf_plugin.py
"""

from __future__ import annotations

from pathlib import Path

import opgraph
from opgraph import DataType, Graph
from opgraph.tensorflow import (
    FUSION_DISABLE_INDEX,
    FrameworkOp,
    FusionScopesResult,
    ImplyType,
    NodeOpTypeFeature,
    Operator,
    PatternGroups,
    Scope,
    ScopeBasePass,
    ScopeGraph,
    ScopePattern,
    ScopesResult,
    auto_mapping,
    fusion_plugin,
    plugin,
    register_plugin,
    register_scope_fusion_pass,
)

DATA = Path(__file__).resolve().parents[2] / "tests" / "tensorflow" / "data"


# --- One op to one op: TopKV2 -> TopK ----------------------------------------
# TopKV2 has a built-in plugin: `override=True` says replacing it is meant.
@plugin("TopK", origin_op_types=["TopKV2"], imply_type=ImplyType.TVM, override=True)
def parse_topk(src: FrameworkOp, dst: Operator) -> None:
    auto_mapping(src, dst)  # sorted, T, Tk, index_type, with GE's type mapping
    dst.set_attr("dim", -1)  # TopK's own attribute: sort along the last axis


# A plugin is a plain function: unit-test it with a hand-built framework op.
topk_op = Operator("topk", "TopK")
parse_topk(FrameworkOp("topk", "TopKV2", ["x", "topk/k"], {"sorted": True}), topk_op)
assert topk_op.attrs == {"sorted": True, "dim": -1}

# x[2, 10] -> TopKV2(x, k=3), written by TensorFlow; x becomes [8, 10] here.
topk_graph = opgraph.load_tensorflow(DATA / "plugin_topk.pbtxt", input_shapes={"x": [8, 10]})
topk_node = topk_graph.node("topk")
assert topk_node.op_type == "TopK" and topk_node.attrs["dim"] == -1
assert [out.shape for out in topk_node.outputs] == [(8, 3), (8, 3)]


# --- One op to a subgraph: the node becomes a PartitionedCall of the body ----
def squared_difference_body(op: Operator) -> Graph:
    body = Graph(f"{op.name}_body")
    a = body.add_input("a", DataType.FLOAT, [-2])  # shapes and dtypes come from the caller
    b = body.add_input("b", DataType.FLOAT, [-2])
    body.set_outputs([body.add_node("Square", "square", [body.add_node("Sub", "sub", [a, b])])])
    return body


register_plugin(
    "SquaredDifference",
    ["DocsSquaredDifference"],
    parse_params=auto_mapping,
    parse_op_to_graph=squared_difference_body,
)


# --- Scope fusion: softsign/{Abs, add, truediv} -> one Softsign op -----------
@register_scope_fusion_pass(general=False)
class FuseSoftsign(ScopeBasePass):
    """``softsign/{Abs, add, truediv}`` (x / (1 + |x|)) -> one Softsign op."""

    pass_name = "FuseSoftsign"

    def define_patterns(self) -> PatternGroups:
        pattern = ScopePattern().set_sub_type("softsign")
        for op_type in ("Abs", "AddV2", "RealDiv"):
            pattern.add_node_op_type_feature(NodeOpTypeFeature(op_type, 1))
        return [[[pattern]]]  # pattern groups -> batches -> patterns

    def last_match_scopes_and_ops(self, scope_graph: ScopeGraph, results: list[ScopesResult]) -> bool:
        for scope in scope_graph.scope_tree.all_scopes():
            if scope.sub_type == "softsign":
                result = ScopesResult()
                result.set_scopes([scope])
                results.append(result)
        return bool(results)

    def generate_fusion_result(self, scopes: list[Scope], result: FusionScopesResult) -> None:
        result.set_name(scopes[0].name.rstrip("/"))
        result.set_type("SoftsignScope")
        # inner op input i -> fused op input (FUSION_DISABLE_INDEX: not from outside)
        result.insert_inputs("softsign/Abs", [0])
        result.insert_inputs("softsign/truediv", [0, FUSION_DISABLE_INDEX])
        result.insert_outputs("softsign/truediv", [0])


@fusion_plugin("Softsign", origin_op_types=["SoftsignScope"])
def parse_softsign(fused: list[FrameworkOp], dst: Operator) -> None:
    pass  # Softsign has no attributes; `fused` are the scope's ops in graph order


fused = opgraph.load_tensorflow(DATA / "plugin_fusion.pbtxt", enable_scope_passes=["FuseSoftsign"])
assert fused.node("softsign").op_type == "Softsign" and "softsign/Abs" not in fused
unfused = opgraph.load_tensorflow(DATA / "plugin_fusion.pbtxt")  # the pass is not general: off
assert "softsign/Abs" in unfused
