"""The inference engine seen from Python: function / Follow precedence, dtype
combinations, value-depend inputs, index rules, error collection, Python
exceptions, expired contexts, bodies, and robustness."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import Feed, desc, identity_like, infer_output, one_node_graph

import opgraph
from opgraph import (
    DYNAMIC,
    OPTIONAL,
    ContextError,
    DataType,
    FollowType,
    Graph,
    InferDataTypeContext,
    InferDataTypeError,
    InferShapeContext,
    InferShapeError,
    NamedAttrs,
    OpContext,
    OpDef,
    OpgraphError,
    ValueDepend,
    VerifyContext,
    VerifyError,
)

F, F16, I8, I32, I64 = DataType.FLOAT, DataType.FLOAT16, DataType.INT8, DataType.INT32, DataType.INT64


# ---- functions and Follow -------------------------------------------------------


def test_infer_shape_function_wins_over_follow(op_type: str) -> None:
    op = identity_like(op_type)

    @op.infer_shape
    def fixed(ctx: InferShapeContext) -> None:
        ctx.set_output_shape(0, (7, 1))

    opgraph.register(op)
    out = infer_output(op_type, [desc([2, 3], I8)])
    assert out.shape == (7, 1)
    assert out.dtype is I8  # dtype still follows x


def test_infer_dtype_function_wins_over_follow(op_type: str) -> None:
    op = identity_like(op_type)

    @op.infer_dtype
    def to_int64(ctx: InferDataTypeContext) -> None:
        ctx.set_output_dtype(0, I64)

    opgraph.register(op)
    out = infer_output(op_type, [desc([2, 3], F16)])
    assert (out.dtype, out.shape) == (I64, (2, 3))


def test_functions_run_once_per_node_in_topological_order(op_type: str) -> None:
    calls: list[str] = []
    op = identity_like(op_type)

    @op.infer_shape
    def record(ctx: InferShapeContext) -> None:
        calls.append(ctx.node_name)
        ctx.set_output_shape(0, ctx.input_shape(0))

    opgraph.register(op)
    graph = Graph()
    x = graph.add_input("x", F, [1])
    graph.add_node(op_type, "late", [x])
    early = graph.add_node(op_type, "early", [x])
    graph.set_input("late", 0, early)  # now "early" must run before "late"
    opgraph.infer(graph)
    assert calls == ["early", "late"]


# ---- dtypes ------------------------------------------------------------------


def _combination_op(op_type: str) -> None:
    """GE-style parallel lists: (a, b) -> y combinations
    (FLOAT, FLOAT) -> DOUBLE, (FLOAT16, FLOAT16) -> FLOAT, (INT32, INT8) -> INT64."""
    op = OpDef(op_type)
    op.input("a", dtypes=[F, F16, I32])
    op.input("b", dtypes=[F, F16, I8])
    op.output("y", dtypes=[DataType.DOUBLE, F, I64], follow=("a", FollowType.SHAPE))
    opgraph.register(op)


@pytest.mark.parametrize(
    ("a", "b", "y"),
    [(F, F, DataType.DOUBLE), (F16, F16, F), (I32, I8, I64)],
)
def test_dtype_combination_picks_output_dtype(op_type: str, a: DataType, b: DataType, y: DataType) -> None:
    _combination_op(op_type)
    out = infer_output(op_type, [desc([2], a), desc([3], b)])
    assert (out.dtype, out.shape) == (y, (2,))


@pytest.mark.parametrize(("a", "b"), [(F, F16), (I32, I32), (I8, I8), (F16, I8)])
def test_dtype_outside_every_combination_is_a_verify_error(op_type: str, a: DataType, b: DataType) -> None:
    _combination_op(op_type)
    with pytest.raises(VerifyError, match="combinations") as info:
        infer_output(op_type, [desc([2], a), desc([3], b)])
    assert f"a={a.name}" in str(info.value)
    assert f"b={b.name}" in str(info.value)


def test_builtin_add_dtype_mismatch_names_both_dtypes() -> None:
    with pytest.raises(VerifyError) as info:
        infer_output("Add", [desc([2], F), desc([2], I32)])
    message = str(info.value)
    assert "FLOAT" in message and "INT32" in message
    assert info.value.node == "node"
    assert info.value.op_type == "Add"


@pytest.mark.parametrize(
    ("a", "b", "accepted"),
    [(F, I64, True), (I32, I64, True), (I8, I64, False), (F, I32, False)],
)
def test_dtype_lists_are_independent_sets(op_type: str, a: DataType, b: DataType, accepted: bool) -> None:
    op = OpDef(op_type)
    op.input("a", dtype_list=[F, I32])
    op.input("b", dtype_list=[I64])
    op.output("y", dtype_list=[DataType.BOOL], follow=("a", FollowType.SHAPE))
    opgraph.register(op)
    if accepted:
        assert infer_output(op_type, [desc([4], a), desc([1], b)]).dtype is DataType.BOOL
    else:
        with pytest.raises(VerifyError, match="takes one of"):
            infer_output(op_type, [desc([4], a), desc([1], b)])


def test_inferred_dtype_outside_the_output_list_is_an_infer_dtype_error(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x")
    op.output("y", dtype_list=[F, F16], follow=("x", FollowType.SHAPE))

    @op.infer_dtype
    def wrong(ctx: InferDataTypeContext) -> None:
        ctx.set_output_dtype(0, I8)

    opgraph.register(op)
    with pytest.raises(InferDataTypeError, match="INT8"):
        infer_output(op_type, [desc([1])])


# ---- value-depend, optional and dynamic inputs ------------------------------------


def _input_recorder(op_type: str) -> dict[str, Any]:
    """x, v (value-depend), o (optional), dyn (dynamic) -> y following x;
    the infer function records what the context reports."""
    seen: dict[str, Any] = {}
    op = OpDef(op_type)
    op.input("x")
    op.input("v", value_depend=ValueDepend.REQUIRED)
    op.input("o", param_type=OPTIONAL)
    op.input("dyn", param_type=DYNAMIC)
    op.output("y", follow="x")

    @op.infer_shape
    def record(ctx: InferShapeContext) -> None:
        count = ctx.dynamic_input_count(3)
        seen.update(
            x_value=ctx.input_tensor(0),
            v_value=ctx.input_tensor(1),
            optional=ctx.optional_input_shape(2),
            dynamic=[ctx.dynamic_input_shape(3, k) for k in range(count)],
            dynamic_dtypes=[ctx.dynamic_input_dtype(3, k) for k in range(count)],
            instances=ctx.input_count(),
        )

    opgraph.register(op)
    return seen


def test_value_depend_input_gets_the_const_value(op_type: str) -> None:
    seen = _input_recorder(op_type)
    value = np.array([[4, 5, 6]], dtype=np.int32)
    infer_output(op_type, [np.ones(2, np.float32), value])
    np.testing.assert_array_equal(seen["v_value"], value)
    assert seen["v_value"].dtype == np.int32
    assert seen["x_value"] is None  # x is a Const too, but not value-depend


def test_value_depend_input_without_a_const_producer_gets_none(op_type: str) -> None:
    seen = _input_recorder(op_type)
    infer_output(op_type, [desc([2]), desc([3], I32)])
    assert seen["v_value"] is None


def test_optional_input_shape_by_prototype_index(op_type: str) -> None:
    seen = _input_recorder(op_type)
    infer_output(op_type, [desc([2]), desc([3], I32)])
    assert seen["optional"] is None
    infer_output(op_type, [desc([2]), desc([3], I32), desc([5, 6], I8)])
    assert seen["optional"] == (5, 6)


def test_dynamic_input_by_ir_and_relative_index(op_type: str) -> None:
    seen = _input_recorder(op_type)
    dynamic = [desc([1], I8), desc([2, 2], F16), desc([], I64)]
    infer_output(op_type, [desc([2]), desc([3], I32), None, dynamic])
    assert seen["dynamic"] == [(1,), (2, 2), ()]
    assert seen["dynamic_dtypes"] == [I8, F16, I64]
    assert seen["instances"] == 6  # x, v, absent o, three dynamic instances


def test_dynamic_input_with_no_instances(op_type: str) -> None:
    seen = _input_recorder(op_type)
    infer_output(op_type, [desc([2]), desc([3], I32), desc([1]), []])
    assert seen["dynamic"] == []
    assert seen["optional"] == (1,)
    assert seen["instances"] == 3


def test_inputs_by_name_reach_the_same_ports(op_type: str) -> None:
    seen = _input_recorder(op_type)
    graph = Graph()
    x = graph.add_input("x", F, [2])
    v = graph.add_const("v", np.array([9], np.int64))
    d = graph.add_input("d", I8, [4])
    graph.add_node(op_type, "n", {"dyn": [d, d], "v": v, "x": x})
    opgraph.infer(graph)
    assert seen["optional"] is None
    assert seen["dynamic"] == [(4,), (4,)]
    assert seen["v_value"].tolist() == [9]


# ---- failures -------------------------------------------------------------------


def _failing_graph() -> Graph:
    """bad1 fails (shape), down/down2 are fed by it, bad2 fails (dtype), ok is fine."""
    graph = Graph()
    a = graph.add_input("a", F, [2])
    b = graph.add_input("b", F, [3])
    c = graph.add_input("c", I32, [3])
    bad1 = graph.add_node("Add", "bad1", [a, b])
    down = graph.add_node("Identity", "down", [bad1])
    graph.add_node("Add", "down2", [down, a])
    graph.add_node("Add", "bad2", [b, c])
    graph.add_node("Add", "ok", [b, b])
    return graph


def test_collect_errors_reports_every_failing_node_once() -> None:
    graph = _failing_graph()
    errors = opgraph.infer(graph, collect_errors=True)
    assert [e.node for e in errors if isinstance(e, opgraph.NodeError)] == ["bad1", "bad2"]
    assert len(errors) == 2
    assert isinstance(errors[0], InferShapeError)
    assert isinstance(errors[1], VerifyError)
    assert graph.node("ok").outputs[0].shape == (3,)  # independent nodes are still inferred


def test_default_infer_raises_the_first_failure() -> None:
    graph = _failing_graph()
    with pytest.raises(InferShapeError) as info:
        opgraph.infer(graph)
    assert info.value.node == "bad1"
    assert info.value.op_type == "Add"
    assert info.value.inputs == ["x1=float[2]", "x2=float[3]"]


def test_collect_errors_returns_empty_list_on_success() -> None:
    graph, _out = one_node_graph("Add", [desc([2]), desc([2])])
    assert opgraph.infer(graph, collect_errors=True) == []
    assert opgraph.infer(graph) == []


class _OwnError(Exception):
    pass


def test_exception_in_infer_shape_is_chained(op_type: str) -> None:
    op = identity_like(op_type)

    @op.infer_shape
    def explode(ctx: InferShapeContext) -> None:
        raise _OwnError("kaboom")

    opgraph.register(op)
    with pytest.raises(InferShapeError) as info:
        infer_output(op_type, [desc([2, 3], I8)])
    error = info.value
    assert isinstance(error.__cause__, _OwnError)
    assert str(error.__cause__) == "kaboom"
    assert (error.node, error.op_type) == ("node", op_type)
    assert error.inputs == ["x=int8[2, 3]"]
    assert "kaboom" in str(error)
    assert not isinstance(error, InferDataTypeError)


def test_exception_in_infer_dtype_is_an_infer_dtype_error(op_type: str) -> None:
    op = identity_like(op_type)

    @op.infer_dtype
    def explode(ctx: InferDataTypeContext) -> None:
        raise KeyError("no dtype")

    opgraph.register(op)
    with pytest.raises(InferDataTypeError) as info:
        infer_output(op_type, [desc([1])])
    assert isinstance(info.value.__cause__, KeyError)
    assert info.value.node == "node"


@pytest.mark.parametrize("verdict", [True, None])
def test_verify_returning_true_or_none_passes(op_type: str, verdict: bool | None) -> None:
    op = identity_like(op_type)

    @op.verify
    def check(ctx: VerifyContext) -> bool | None:
        return verdict

    opgraph.register(op)
    assert infer_output(op_type, [desc([3])]).shape == (3,)


def test_verify_returning_false_is_a_verify_error(op_type: str) -> None:
    op = identity_like(op_type)

    @op.verify
    def reject(ctx: VerifyContext) -> bool:
        return ctx.input_shape(0) != (3,)

    opgraph.register(op)
    assert infer_output(op_type, [desc([4])]).shape == (4,)
    with pytest.raises(VerifyError, match="returned False") as info:
        infer_output(op_type, [desc([3])])
    assert info.value.__cause__ is None


def test_exception_in_verify_is_a_chained_verify_error(op_type: str) -> None:
    op = identity_like(op_type)

    @op.verify
    def reject(ctx: VerifyContext) -> bool:
        raise ValueError("x must be 2-D")

    opgraph.register(op)
    with pytest.raises(VerifyError, match="x must be 2-D") as info:
        infer_output(op_type, [desc([3])])
    assert isinstance(info.value.__cause__, ValueError)


def test_functions_run_verify_then_dtype_then_shape(op_type: str) -> None:
    order: list[str] = []
    op = identity_like(op_type)

    @op.verify
    def v(ctx: VerifyContext) -> None:
        order.append("verify")

    @op.infer_dtype
    def d(ctx: InferDataTypeContext) -> None:
        order.append("dtype")
        ctx.set_output_dtype(0, ctx.input_dtype(0))

    @op.infer_shape
    def s(ctx: InferShapeContext) -> None:
        order.append("shape")
        ctx.set_output_shape(0, ctx.input_shape(0))

    opgraph.register(op)
    infer_output(op_type, [desc([1])])
    assert order == ["verify", "dtype", "shape"]


def test_contexts_expire_when_their_function_returns(op_type: str) -> None:
    stash: list[OpContext] = []
    op = identity_like(op_type)

    @op.verify
    def v(ctx: VerifyContext) -> None:
        stash.append(ctx)

    @op.infer_dtype
    def d(ctx: InferDataTypeContext) -> None:
        stash.append(ctx)
        ctx.set_output_dtype(0, ctx.input_dtype(0))

    @op.infer_shape
    def s(ctx: InferShapeContext) -> None:
        stash.append(ctx)
        assert ctx.node_name == "node"  # valid while the call runs
        ctx.set_output_shape(0, ctx.input_shape(0))

    opgraph.register(op)
    assert infer_output(op_type, [desc([5])]).shape == (5,)
    assert [type(c) for c in stash] == [VerifyContext, InferDataTypeContext, InferShapeContext]
    for ctx in stash:
        with pytest.raises(ContextError, match="no longer valid"):
            _ = ctx.node_name
        with pytest.raises(ContextError):
            ctx.input_shape(0)
        with pytest.raises(ContextError):
            ctx.attr(0)
    dtype_ctx, shape_ctx = stash[1], stash[2]
    assert isinstance(dtype_ctx, InferDataTypeContext)
    assert isinstance(shape_ctx, InferShapeContext)
    with pytest.raises(ContextError):
        dtype_ctx.set_output_dtype(0, F)
    with pytest.raises(ContextError):
        shape_ctx.set_output_shape(0, [1])


def test_context_misuse_inside_a_function_is_reported_with_the_node(op_type: str) -> None:
    op = identity_like(op_type)

    @op.infer_shape
    def out_of_range(ctx: InferShapeContext) -> None:
        ctx.input_shape(3)

    opgraph.register(op)
    with pytest.raises(InferShapeError) as info:
        infer_output(op_type, [desc([5])])
    assert isinstance(info.value.__cause__, ContextError)
    assert info.value.node == "node"


def test_registering_from_inside_an_infer_function_does_not_deadlock(op_type: str) -> None:
    op = identity_like(op_type)
    inner = f"{op_type}_inner"

    @op.infer_shape
    def register_more(ctx: InferShapeContext) -> None:
        opgraph.register(identity_like(inner), override=True)
        ctx.set_output_shape(0, ctx.input_shape(0))

    opgraph.register(op)
    assert infer_output(op_type, [desc([2])]).shape == (2,)
    assert inner in opgraph.registered_op_types()


def test_inferring_the_same_graph_from_its_own_function_fails_cleanly(op_type: str) -> None:
    graphs: list[Graph] = []
    op = identity_like(op_type)

    @op.infer_shape
    def recurse(ctx: InferShapeContext) -> None:
        opgraph.infer(graphs[0])

    opgraph.register(op)
    graph, _out = one_node_graph(op_type, [desc([1])])
    graphs.append(graph)
    with pytest.raises(InferShapeError) as info:
        opgraph.infer(graph)
    assert isinstance(info.value.__cause__, RuntimeError)


# ---- bodies ---------------------------------------------------------------------


def _body() -> Graph:
    """``(p0, p1) -> (p0 + p1, p0)`` with p0/p1 bound to caller inputs 0/1."""
    body = Graph("body")
    p0 = body.add_node("Data", "p0", [], {"index": 0})
    p1 = body.add_node("Data", "p1", [], {"index": 1})
    total = body.add_node("Add", "sum", [p0, p1])
    body.set_outputs([total, p0])
    return body


def _call(x: list[int], y: list[int]) -> tuple[Graph, opgraph.TensorRef]:
    graph = Graph()
    a = graph.add_input("a", F, x)
    b = graph.add_input("b", F, y)
    call = graph.add_node(
        "PartitionedCall",
        "call",
        [[a, b]],
        {"f": NamedAttrs("body")},
        dynamic_outputs=[("output", 2)],
        subgraphs={"f": _body()},
    )
    return graph, call


def test_partitioned_call_outputs_come_from_its_body() -> None:
    graph, call = _call([4, 1], [3])
    opgraph.infer(graph)
    assert graph.desc(call) == desc([4, 3])
    assert graph.desc(call.output(1)) == desc([4, 1])
    assert graph.node("call").subgraph_names == ["f"]
    body = graph.subgraph("call", "f")
    assert body.node("sum").outputs[0].shape == (4, 3)
    assert body.node("p1").outputs[0].shape == (3,)
    assert isinstance(graph.node("call").attrs["f"], NamedAttrs)


def test_partitioned_call_body_failure_names_the_body_node() -> None:
    graph, _call_ref = _call([4, 2], [3])
    errors = opgraph.infer(graph, collect_errors=True)
    nodes = [e.node for e in errors if isinstance(e, opgraph.NodeError)]
    assert nodes == ["call/f/sum", "call"]
    with pytest.raises(InferShapeError) as info:
        opgraph.infer(graph)
    assert info.value.node == "call/f/sum"


def test_partitioned_call_output_count_must_match_the_body() -> None:
    graph = Graph()
    a = graph.add_input("a", F, [1])
    graph.add_node("PartitionedCall", "call", [[a, a]], subgraphs={"f": _body()})
    with pytest.raises(InferShapeError, match="2 outputs but the call has 1"):
        opgraph.infer(graph)


def test_body_data_index_out_of_range_is_an_error() -> None:
    graph = Graph()
    a = graph.add_input("a", F, [1])
    graph.add_node(
        "PartitionedCall", "call", [[a]], dynamic_outputs=[("output", 2)], subgraphs={"f": _body()}
    )
    with pytest.raises(InferShapeError, match="caller input 1"):
        opgraph.infer(graph)


def test_unbound_data_node_without_dtype_is_an_error() -> None:
    graph = Graph()
    graph.add_node("Data", "d", [], {"index": 0})
    with pytest.raises(OpgraphError, match="no dtype"):
        opgraph.infer(graph)


# ---- robustness: no panic reaches Python ---------------------------------------------

BIG = 2**63 - 1


@pytest.mark.parametrize(
    ("x", "target", "expected"),
    [
        ([BIG, 2], [-1], None),  # element count overflows int64
        ([2**62, 4], [-1], None),
        ([4], [2**62, 2**62], None),
        ([2**62], [-1], (2**62,)),
        ([2**62, 1], [1, 2**62], (1, 2**62)),
        ([BIG, 0], [-1], (0,)),
        ([BIG], [BIG], (BIG,)),
        ([3], [-(2**63)], None),
    ],
)
def test_reshape_with_huge_dims_gives_an_answer_or_a_typed_error(
    x: list[int], target: list[int], expected: tuple[int, ...] | None
) -> None:
    feed: list[Feed] = [desc(x), np.array(target, dtype=np.int64)]
    if expected is None:
        with pytest.raises(InferShapeError):
            infer_output("Reshape", feed)
    else:
        assert infer_output("Reshape", feed).shape == expected


def _conv_nhwc(x: list[int], f_hwcn: list[int], **attrs: Any) -> tuple[int, ...]:
    base: dict[str, Any] = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "data_format": "NHWC"}
    return infer_output("Conv2D", [desc(x), desc(f_hwcn)], {**base, **attrs}).shape


def test_conv2d_huge_pads_overflow_is_a_typed_error() -> None:
    with pytest.raises(InferShapeError, match="overflows"):
        _conv_nhwc([1, BIG, BIG, 3], [3, 3, 3, 8], pads=[BIG, BIG, 0, 0])


def test_conv2d_huge_dilation_is_a_typed_error() -> None:
    with pytest.raises(InferShapeError):
        _conv_nhwc([1, BIG, BIG, 3], [BIG, 3, 3, 8], dilations=[1, BIG, BIG, 1])


def test_conv2d_huge_dims_give_exact_answers() -> None:
    assert _conv_nhwc([1, BIG, BIG, 3], [3, 3, 3, 8], strides=[1, BIG, BIG, 1], padding="SAME") == (
        1,
        1,
        1,
        8,
    )
    # depthwise-like: groups == channels, one input channel per group
    assert _conv_nhwc([1, BIG, BIG, BIG], [3, 3, 1, BIG], groups=BIG) == (1, BIG - 2, BIG - 2, BIG)
    assert _conv_nhwc([2, BIG, 5, 4], [1, 1, 4, 2], strides=[1, 2, 1, 1]) == (2, 2**62, 5, 2)


def test_conv2d_huge_groups_channel_mismatch_is_rejected() -> None:
    # x has 2**63-1 channels, the filter takes 3 per group x (2**63-1) groups;
    # 3 * (2**63-1) != 2**63-1, so the channels do not match.
    with pytest.raises(OpgraphError):
        _conv_nhwc([1, 8, 8, BIG], [3, 3, 3, BIG], groups=BIG)


@pytest.mark.parametrize("attr", ["strides", "pads", "dilations"])
@pytest.mark.parametrize("value", [BIG, -(2**63), 2**62])
def test_conv2d_extreme_attribute_values_are_typed_errors(attr: str, value: int) -> None:
    # each value is invalid: N/C strides and dilations must be 1, pads must
    # be >= 0, and 8 + 2 * 2**62 overflows int64
    with pytest.raises(InferShapeError):
        _conv_nhwc([1, 8, 8, 3], [3, 3, 3, 4], **{attr: [value] * 4})
