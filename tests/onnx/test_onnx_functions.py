"""Model-local functions (``ModelProto.functions``): each call site is
expanded while decoding (fresh value names, formal inputs and outputs bound
to the call's values, ``ref_attr_name`` resolved, the function's own
opset_import). Models are built with ``onnx.helper.make_function`` and
checked against onnx's reference evaluator; hostile nesting and recursion
must fail fast with a ParseError naming the function and the limit."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import AttributeProto, TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_cases import NP_TO_OPGRAPH

from opgraph import ParseError
from opgraph.onnx import load_onnx_reported

LOCAL = "local.fns"
rng = np.random.default_rng(5)


def make(
    path: Path,
    nodes: list[onnx.NodeProto],
    inputs: dict[str, np.ndarray],
    outputs: list[str],
    functions: list[onnx.FunctionProto],
    opset: int = 17,
    initializers: dict[str, np.ndarray] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in inputs.items()
        ],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in (initializers or {}).items()],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(LOCAL, 1)],
        functions=functions,
    )
    model.ir_version = 9
    onnx.save(model, path)
    return model


def call(f: str, inputs: list[str], outputs: list[str], **attrs: Any) -> onnx.NodeProto:
    return helper.make_node(f, inputs, outputs, domain=LOCAL, **attrs)


def function(
    name: str,
    inputs: list[str],
    outputs: list[str],
    nodes: list[onnx.NodeProto],
    opset: int = 17,
    attributes: Sequence[str] = (),
) -> onnx.FunctionProto:
    return helper.make_function(
        LOCAL,
        name,
        inputs,
        outputs,
        nodes,
        [helper.make_opsetid("", opset), helper.make_opsetid(LOCAL, 1)],
        list(attributes),
    )


def check_against_reference(
    path: Path,
    model: onnx.ModelProto,
    inputs: dict[str, np.ndarray],
    outputs: list[str],
    oracle: onnx.ModelProto | None = None,
) -> dict[str, tuple[str, tuple[int, ...]]]:
    """opgraph's dtype and shape of each output of the model at ``path``
    (``model``) must be the reference evaluator's, run on ``oracle`` when
    given: an equivalent model for a form the evaluator cannot run."""
    results = ReferenceEvaluator(oracle or model).run(None, inputs)
    graph, report = load_onnx_reported(path)
    found = {}
    for name, result in zip(outputs, results, strict=True):
        producer, index = report.tensors[name].rsplit(":", 1)
        desc = graph.desc(graph.tensor(producer, int(index)))
        found[name] = (desc.dtype.name, tuple(desc.shape))
        want = np.asarray(result)
        assert found[name] == (NP_TO_OPGRAPH[want.dtype], want.shape), name
    return found


def test_a_function_called_twice_is_expanded_at_each_call(tmp_path: Path) -> None:
    # dense(x, w) = relu(x @ w); used twice with different shapes.
    dense = function(
        "dense",
        ["x", "w"],
        ["y"],
        [helper.make_node("MatMul", ["x", "w"], ["t"]), helper.make_node("Relu", ["t"], ["y"])],
    )
    inputs = {"a": rng.standard_normal((2, 3)).astype(np.float32)}
    weights = {
        "w1": rng.standard_normal((3, 5)).astype(np.float32),
        "w2": rng.standard_normal((5, 4)).astype(np.float32),
    }
    nodes = [call("dense", ["a", "w1"], ["h"]), call("dense", ["h", "w2"], ["out"])]
    path = tmp_path / "m.onnx"
    model = make(path, nodes, inputs, ["h", "out"], [dense], initializers=weights)
    check_against_reference(path, model, inputs, ["h", "out"])


def pick_function(default_keepdims: bool) -> onnx.FunctionProto:
    """pick(x, axes) = ReduceSum(Transpose(x, perm=@perm), axes, keepdims=@keepdims)."""
    transpose = helper.make_node("Transpose", ["x"], ["t"])
    transpose.attribute.append(helper.make_attribute_ref("perm", AttributeProto.INTS))
    reduce = helper.make_node("ReduceSum", ["t", "axes"], ["y"])
    reduce.attribute.append(helper.make_attribute_ref("keepdims", AttributeProto.INT))
    return helper.make_function(
        LOCAL,
        "pick",
        ["x", "axes"],
        ["y"],
        [transpose, reduce],
        [helper.make_opsetid("", 17)],
        ["perm"] if default_keepdims else ["perm", "keepdims"],
        [helper.make_attribute("keepdims", 0)] if default_keepdims else [],
    )


def test_attribute_references_take_the_calls_value_or_the_default(tmp_path: Path) -> None:
    inputs = {"x": rng.standard_normal((2, 3, 4)).astype(np.float32)}
    axes = {"ax": np.array([0], np.int64)}
    nodes = [
        call("pick", ["x", "ax"], ["default_keep"], perm=[2, 0, 1]),
        call("pick", ["x", "ax"], ["kept"], perm=[1, 2, 0], keepdims=1),
    ]
    path = tmp_path / "m.onnx"
    model = make(path, nodes, inputs, ["default_keep", "kept"], [pick_function(True)], initializers=axes)
    # onnx's reference evaluator does not apply a function's attribute
    # defaults (attribute_proto): its oracle is the same model with the
    # default written at the call.
    explicit = [
        call("pick", ["x", "ax"], ["default_keep"], perm=[2, 0, 1], keepdims=0),
        call("pick", ["x", "ax"], ["kept"], perm=[1, 2, 0], keepdims=1),
    ]
    oracle = make(
        tmp_path / "oracle.onnx",
        explicit,
        inputs,
        ["default_keep", "kept"],
        [pick_function(False)],
        initializers=axes,
    )
    found = check_against_reference(path, model, inputs, ["default_keep", "kept"], oracle)
    assert found["default_keep"][1] == (2, 3) and found["kept"][1] == (1, 4, 2)


def test_a_function_uses_its_own_opset(tmp_path: Path) -> None:
    # Squeeze with an `axes` attribute is opset 11's form; the model is at 17.
    squeeze = function(
        "squeeze_first", ["x"], ["y"], [helper.make_node("Squeeze", ["x"], ["y"], axes=[0])], opset=11
    )
    inputs = {"x": rng.standard_normal((1, 3, 4)).astype(np.float32)}
    path = tmp_path / "m.onnx"
    model = make(path, [call("squeeze_first", ["x"], ["y"])], inputs, ["y"], [squeeze])
    check_against_reference(path, model, inputs, ["y"])


def outer_function(passthrough: bool) -> onnx.FunctionProto:
    """outer(x) = (inner(inner(x)) + x, x); its second output is its input
    itself, or (``passthrough`` False) an Identity of it."""
    nodes = [
        call("inner", ["x"], ["a"]),
        call("inner", ["a"], ["b"]),
        helper.make_node("Add", ["b", "x"], ["y"]),
    ]
    if not passthrough:
        nodes.append(helper.make_node("Identity", ["x"], ["copy"]))
    return function("outer", ["x"], ["y", "x" if passthrough else "copy"], nodes)


def test_nested_calls_and_an_output_that_is_an_input(tmp_path: Path) -> None:
    inner = function("inner", ["x"], ["y"], [helper.make_node("Sigmoid", ["x"], ["y"])])
    inputs = {"x": rng.standard_normal((3, 2)).astype(np.float32)}
    nodes = [call("outer", ["x"], ["y", "same"]), helper.make_node("Concat", ["y", "same"], ["both"], axis=0)]
    outputs = ["y", "same", "both"]
    path = tmp_path / "m.onnx"
    model = make(path, nodes, inputs, outputs, [inner, outer_function(True)])
    # The reference evaluator cannot return a function input as an output;
    # its oracle copies it with Identity.
    oracle = make(tmp_path / "oracle.onnx", nodes, inputs, outputs, [inner, outer_function(False)])
    check_against_reference(path, model, inputs, outputs, oracle)


def test_exponentially_nested_calls_fail_fast_naming_the_function_and_the_budget(tmp_path: Path) -> None:
    # f_k calls f_{k+1} twice: 2^25 Relu nodes if expanded naively (within
    # the depth limit, so the node budget is what stops it).
    depth = 25
    functions = [
        function(f"f{k}", ["x"], ["y"], [call(f"f{k + 1}", ["x"], ["t"]), call(f"f{k + 1}", ["t"], ["y"])])
        for k in range(depth)
    ]
    functions.append(function(f"f{depth}", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["y"])]))
    path = tmp_path / "bomb.onnx"
    make(path, [call("f0", ["x"], ["y"])], {"x": np.zeros((2,), np.float32)}, ["y"], functions)
    started = time.monotonic()
    with pytest.raises(ParseError, match=r"function 'local\.fns::f\d+'.*100000 nodes \(MAX_INLINED_NODES\)"):
        load_onnx_reported(path)
    assert time.monotonic() - started < 10


def test_calls_nested_past_the_depth_limit_are_a_parse_error(tmp_path: Path) -> None:
    depth = 50
    functions = [function(f"g{k}", ["x"], ["y"], [call(f"g{k + 1}", ["x"], ["y"])]) for k in range(depth)]
    functions.append(function(f"g{depth}", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["y"])]))
    path = tmp_path / "deep.onnx"
    make(path, [call("g0", ["x"], ["y"])], {"x": np.zeros((2,), np.float32)}, ["y"], functions)
    with pytest.raises(ParseError, match=r"function 'local\.fns::g\d+' nested more than 32 calls deep"):
        load_onnx_reported(path)


def test_recursion_is_a_parse_error_naming_the_cycle(tmp_path: Path) -> None:
    functions = [
        function("ping", ["x"], ["y"], [call("pong", ["x"], ["y"])]),
        function("pong", ["x"], ["y"], [helper.make_node("Relu", ["x"], ["r"]), call("ping", ["r"], ["y"])]),
    ]
    path = tmp_path / "loop.onnx"
    make(path, [call("ping", ["x"], ["y"])], {"x": np.zeros((2,), np.float32)}, ["y"], functions)
    with pytest.raises(ParseError, match=r"local\.fns::ping -> local\.fns::pong -> local\.fns::ping"):
        load_onnx_reported(path)


def test_a_function_reading_an_undefined_value_names_it(tmp_path: Path) -> None:
    broken = function("broken", ["x"], ["y"], [helper.make_node("Add", ["x", "nowhere"], ["y"])])
    path = tmp_path / "broken.onnx"
    make(path, [call("broken", ["x"], ["y"])], {"x": np.zeros((2,), np.float32)}, ["y"], [broken])
    with pytest.raises(ParseError, match=r"local\.fns::broken.*'nowhere'"):
        load_onnx_reported(path)


def branch(nodes: list[onnx.NodeProto], output: str) -> onnx.GraphProto:
    return helper.make_graph(
        nodes, "branch", [], [helper.make_tensor_value_info(output, TensorProto.FLOAT, None)]
    )


def if_else_identity(then_branch: onnx.GraphProto, passed: str, output: str) -> onnx.NodeProto:
    """``output = If(c, then: then_branch, else: passed)``."""
    else_branch = branch([helper.make_node("Identity", [passed], ["o2"])], "o2")
    return helper.make_node("If", ["c"], [output], then_branch=then_branch, else_branch=else_branch)


def called_once(tmp_path: Path, f: onnx.FunctionProto) -> tuple[str, tuple[int, ...]]:
    """opgraph's dtype and shape of ``y = f(x)``, ``x`` of shape (2, 3),
    checked against the reference evaluator's."""
    inputs = {"x": rng.standard_normal((2, 3)).astype(np.float32)}
    path = tmp_path / "m.onnx"
    model = make(path, [call("f", ["x"], ["y"])], inputs, ["y"], [f])
    return check_against_reference(path, model, inputs, ["y"])["y"]


def bool_constant(value: bool) -> onnx.NodeProto:
    """``c``, a constant condition for an If."""
    return helper.make_node(
        "Constant", [], ["c"], value=helper.make_tensor("c", TensorProto.BOOL, [], [value])
    )


def loop_body(nodes: list[onnx.NodeProto], state: str, state_out: str) -> onnx.GraphProto:
    """A Loop body of one float state: inputs (i, cond_in, ``state``),
    outputs (cond_out, ``state_out``); ``nodes`` must pass cond_in on."""
    return helper.make_graph(
        nodes,
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info(state, TensorProto.FLOAT, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info(state_out, TensorProto.FLOAT, None),
        ],
    )


def test_a_functions_subgraphs_read_its_values_and_a_loop_body_calls_it(tmp_path: Path) -> None:
    # gate(x, flag) = If(flag, then: Relu(x) ++ x, else: x); the branches read
    # the function's input x. The main graph calls it directly and from a
    # Loop body.
    then_branch = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Concat", ["r", "x"], ["out_t"], axis=0)],
        "then",
        [],
        [helper.make_tensor_value_info("out_t", TensorProto.FLOAT, None)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["out_e"])],
        "else",
        [],
        [helper.make_tensor_value_info("out_e", TensorProto.FLOAT, None)],
    )
    gate = function(
        "gate",
        ["x", "flag"],
        ["y"],
        [helper.make_node("If", ["flag"], ["y"], then_branch=then_branch, else_branch=else_branch)],
    )
    body = loop_body(
        [
            call("gate", ["acc_in", "yes"], ["acc_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "acc_in",
        "acc_out",
    )
    nodes = [
        call("gate", ["x", "yes"], ["direct"]),
        helper.make_node("Loop", ["trips", "yes", "x"], ["looped"], body=body),
    ]
    inputs = {"x": rng.standard_normal((2, 3)).astype(np.float32)}
    constants = {"yes": np.array(True), "trips": np.array(2, np.int64)}
    path = tmp_path / "m.onnx"
    model = make(path, nodes, inputs, ["direct", "looped"], [gate], initializers=constants)
    results = ReferenceEvaluator(model).run(None, inputs)
    graph, report = load_onnx_reported(path)

    def got(name: str) -> tuple[str, tuple[int, ...]]:
        producer, index = report.tensors[name].rsplit(":", 1)
        desc = graph.desc(graph.tensor(producer, int(index)))
        return desc.dtype.name, tuple(desc.shape)

    direct, looped = (np.asarray(r) for r in results)
    # The condition is a known true: the If's outputs are its then branch's
    # (4 rows; joined with the else branch's 2 they would be unknown).
    assert direct.shape == (4, 3)
    assert got("direct") == ("FLOAT", (4, 3))
    # The Loop's variable grows every iteration: its first dim widens to unknown.
    assert looped.shape == (8, 3)
    assert got("looped") == ("FLOAT", (-1, 3))


def widen_function() -> onnx.FunctionProto:
    """widen(a) = Concat(Relu(a), a): twice as many rows."""
    return function(
        "widen",
        ["a"],
        ["b"],
        [helper.make_node("Relu", ["a"], ["t"]), helper.make_node("Concat", ["t", "a"], ["b"], axis=0)],
    )


def test_an_inlined_value_never_takes_a_name_the_graph_uses(tmp_path: Path) -> None:
    # The inliner names a call's values "<call>/<function>#<k>/<value>"; the
    # graph already gives Neg's output the name the first call's Relu would
    # get (legal ONNX), which was a "defined twice" error.
    nodes = [helper.make_node("Neg", ["x"], ["y/widen#1/t"]), call("widen", ["x"], ["y"])]
    inputs = {"x": rng.standard_normal((2, 3)).astype(np.float32)}
    path = tmp_path / "m.onnx"
    model = make(path, nodes, inputs, ["y", "y/widen#1/t"], [widen_function()])
    found = check_against_reference(path, model, inputs, ["y", "y/widen#1/t"])
    assert found["y"] == ("FLOAT", (4, 3))


def test_an_inlined_value_never_shadows_an_outer_value_a_branch_reads(tmp_path: Path) -> None:
    # A branch calls the function and reads the outer value whose name the
    # call's Relu would get: the inlined value shadowed it, a silently wrong
    # shape (Concat of (2, 3) and (4, 3) rows instead of (4, 3) and (4, 3)).
    cond = bool_constant(True)
    then_branch = branch(
        [call("widen", ["x"], ["o"]), helper.make_node("Concat", ["o/widen#1/t", "o"], ["out"], axis=0)],
        "out",
    )
    else_branch = branch([helper.make_node("Identity", ["x"], ["e"])], "e")
    nodes = [
        helper.make_node("Concat", ["x", "x"], ["o/widen#1/t"], axis=0),
        cond,
        helper.make_node("If", ["c"], ["z"], then_branch=then_branch, else_branch=else_branch),
    ]
    inputs = {"x": rng.standard_normal((2, 3)).astype(np.float32)}
    path = tmp_path / "m.onnx"
    model = make(path, nodes, inputs, ["z"], [widen_function()])
    found = check_against_reference(path, model, inputs, ["z"])
    assert found["z"] == ("FLOAT", (8, 3))


def test_a_branch_local_named_like_the_calls_input_does_not_capture_it(tmp_path: Path) -> None:
    # f(a) = If(c, then: Concat(a, x) where x is the branch's own constant):
    # called as f(x), the branch's read of `a` becomes a read of the
    # caller's `x`, which the branch's local `x` must not capture
    # (Concat(x, x) would have 2 rows, not 3).
    local = helper.make_node(
        "Constant", [], ["x"], value=helper.make_tensor("k", TensorProto.FLOAT, [1, 3], [1.0] * 3)
    )
    cond = bool_constant(True)
    choose = if_else_identity(
        branch([local, helper.make_node("Concat", ["a", "x"], ["o"], axis=0)], "o"), "a", "b"
    )
    f = function("f", ["a"], ["b"], [cond, choose])
    assert called_once(tmp_path, f) == ("FLOAT", (3, 3))


def test_names_with_counts_in_them_never_clash_between_calls(tmp_path: Path) -> None:
    # Function "g" names a value "a#2/t"; function "g#1/a" names one "t":
    # both copies, rooted at "y", would make "y/g#1/a#2/t" if the counts
    # ignored the names earlier calls made.
    g = function(
        "g",
        ["p"],
        ["q"],
        [helper.make_node("Neg", ["p"], ["a#2/t"]), helper.make_node("Identity", ["a#2/t"], ["q"])],
    )
    h = function(
        "g#1/a",
        ["p"],
        ["q"],
        [helper.make_node("Concat", ["p", "p"], ["t"], axis=0), helper.make_node("Identity", ["t"], ["q"])],
    )
    nodes = [
        helper.make_node("g", ["x"], ["u"], domain=LOCAL, name="y"),
        helper.make_node("g#1/a", ["u"], ["v"], domain=LOCAL, name="y"),
    ]
    inputs = {"x": rng.standard_normal((2, 3)).astype(np.float32)}
    path = tmp_path / "m.onnx"
    model = make(path, nodes, inputs, ["u", "v"], [g, h])
    found = check_against_reference(path, model, inputs, ["u", "v"])
    assert found["v"] == ("FLOAT", (4, 3))


def test_a_model_full_of_the_inliners_names_loads_in_linear_time(tmp_path: Path) -> None:
    # A call of a function with many outputs, in a model naming values the
    # way the copy's counts 1 ... M would: each count must be one lookup,
    # not a scan of the function's outputs (M x K).
    outputs = [f"o{i}" for i in range(20_000)]
    split = helper.make_node("Split", ["a"], outputs, axis=0, num_outputs=len(outputs))
    f = function("f", ["a"], ["b"], [split, helper.make_node("Identity", [outputs[-1]], ["b"])], opset=18)
    taken = [helper.make_node("Identity", ["x"], [f"y/f#{k}/{outputs[-1]}"]) for k in range(1, 20_001)]
    inputs = {"x": rng.standard_normal((20_000, 2)).astype(np.float32)}
    path = tmp_path / "m.onnx"
    make(path, [*taken, call("f", ["x"], ["y"])], inputs, ["y"], [f], opset=18)
    started = time.perf_counter()
    graph, report = load_onnx_reported(path)
    # About 0.1 s; the M x K scan took minutes.
    assert time.perf_counter() - started < 20
    producer, index = report.tensors["y"].rsplit(":", 1)
    assert tuple(graph.desc(graph.tensor(producer, int(index))).shape) == (1, 2)


def test_a_loop_body_input_shadowing_a_function_input_keeps_both_bindings(tmp_path: Path) -> None:
    # f(a) = If(c, then: Concat(Loop(2, a; body(i, cond, a): a + a), a)):
    # the body's own input `a` shadows the function's (ONNX allows it); the
    # branch's read of `a` is still the call's input.
    body = loop_body(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["a", "a"], ["a_o"]),
        ],
        "a",
        "a_o",
    )
    trips = helper.make_node("Constant", [], ["m"], value=helper.make_tensor("m", TensorProto.INT64, [], [2]))
    cond = bool_constant(True)
    then_branch = branch(
        [
            helper.make_node("Loop", ["m", "", "a"], ["l"], body=body),
            helper.make_node("Concat", ["l", "a"], ["o"], axis=0),
        ],
        "o",
    )
    choose = if_else_identity(then_branch, "a", "b")
    f = function("f", ["a"], ["b"], [trips, cond, choose])
    assert called_once(tmp_path, f) == ("FLOAT", (4, 3))


def test_the_expansion_budget_counts_the_nodes_of_a_functions_subgraphs(tmp_path: Path) -> None:
    # Each call copies the branch's 2,000 nodes: 60 calls are 120,000 nodes,
    # past the budget, although each call's top level is two nodes.
    steps = [helper.make_node("Relu", ["a" if i == 0 else f"r{i - 1}"], [f"r{i}"]) for i in range(2000)]
    cond = bool_constant(True)
    choose = if_else_identity(branch(steps, "r1999"), "a", "b")
    f = function("f", ["a"], ["b"], [cond, choose])
    nodes = [call("f", ["x" if i == 0 else f"h{i - 1}"], [f"h{i}"]) for i in range(60)]
    path = tmp_path / "m.onnx"
    make(path, nodes, {"x": np.zeros((2, 3), np.float32)}, ["h59"], [f])
    with pytest.raises(ParseError, match="MAX_INLINED_NODES"):
        load_onnx_reported(path)


def test_a_long_name_full_of_counts_costs_linear_time(tmp_path: Path) -> None:
    # A 150 KB value name of 50,000 "#1/" parts: a prefix per part, kept per
    # call, would be gigabytes; only prefixes as long as a call's count.
    long = "#1/" * 50_000 + "t"
    f = function(
        "f",
        ["a"],
        ["b"],
        [helper.make_node("Neg", ["a"], [long]), helper.make_node("Identity", [long], ["b"])],
    )
    nodes = [call("f", ["x" if i == 0 else f"h{i - 1}"], [f"h{i}"]) for i in range(20)]
    inputs = {"x": rng.standard_normal((2, 3)).astype(np.float32)}
    path = tmp_path / "m.onnx"
    model = make(path, nodes, inputs, ["h19"], [f])
    started = time.perf_counter()
    check_against_reference(path, model, inputs, ["h19"])
    assert time.perf_counter() - started < 20


def test_recursion_through_a_subgraph_names_the_cycle(tmp_path: Path) -> None:
    # f(x) = If(c, then: f(x), else: x): the call sits in a branch.
    cond = bool_constant(False)
    choose = if_else_identity(branch([call("f", ["x"], ["o"])], "o"), "x", "y")
    path = tmp_path / "r.onnx"
    make(
        path,
        [call("f", ["x"], ["y"])],
        {"x": np.zeros((2,), np.float32)},
        ["y"],
        [function("f", ["x"], ["y"], [cond, choose])],
    )
    with pytest.raises(ParseError, match=r"local\.fns::f -> local\.fns::f"):
        load_onnx_reported(path)


def test_exponential_nesting_through_subgraphs_stops_at_the_budget(tmp_path: Path) -> None:
    # g_k(x, c) = If(c, then: g_{k+1}(g_{k+1}(x, c), c), else: x).
    depth = 25
    functions = []
    for k in range(depth):
        twice = [call(f"g{k + 1}", ["x", "c"], ["a"]), call(f"g{k + 1}", ["a", "c"], ["o"])]
        choose = if_else_identity(branch(twice, "o"), "x", "y")
        functions.append(function(f"g{k}", ["x", "c"], ["y"], [choose]))
    functions.append(function(f"g{depth}", ["x", "c"], ["y"], [helper.make_node("Relu", ["x"], ["y"])]))
    path = tmp_path / "bomb.onnx"
    inputs = {"x": np.zeros((2,), np.float32), "c": np.array(True)}
    make(path, [call("g0", ["x", "c"], ["y"])], inputs, ["y"], functions)
    started = time.monotonic()
    with pytest.raises(ParseError, match=r"function 'local\.fns::g\d+'.*\(MAX_INLINED_NODES\)"):
        load_onnx_reported(path)
    assert time.monotonic() - started < 10
