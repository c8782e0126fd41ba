"""Loading ONNX files: values, external data (and its refusals), symbols,
subgraphs, opset resolution of plugins, and the errors bad files get.
Models are built with the onnx package, an encoder independent of ours."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_model_records import dead_values

import opgraph
from opgraph import ParseError, RegistrationError
from opgraph.onnx import FrameworkOp, Operator, auto_mapping, load_onnx, load_onnx_reported, plugin


def save(
    path: Path,
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[str],
    initializers: Sequence[onnx.TensorProto] = (),
    opsets: dict[str, int] | None = None,
) -> Path:
    graph = helper.make_graph(
        nodes,
        "g",
        inputs,
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs],
        list(initializers),
    )
    imports = [helper.make_opsetid(d, v) for d, v in (opsets or {"": 17}).items()]
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 8
    onnx.save(model, path)
    return path


def desc(graph: opgraph.Graph, name: str, index: int = 0) -> opgraph.TensorDesc:
    return graph.desc(graph.tensor(name, index))


X = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])


def weights_model(directory: Path, w: np.ndarray) -> Path:
    """x @ w with w stored in an external file 'w.bin'."""
    model_path = save(
        directory / "m.onnx",
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [X],
        ["y"],
        [numpy_helper.from_array(w, "w")],
    )
    model = onnx.load(model_path)
    onnx.save(model, model_path, save_as_external_data=True, location="w.bin", size_threshold=0)
    return model_path


def test_external_initializers_are_read_from_beside_the_model(tmp_path: Path) -> None:
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    graph = load_onnx(weights_model(tmp_path, w))
    value = desc(graph, "w").value
    assert value is not None and np.array_equal(value, w)
    assert desc(graph, "y").shape == (-1, 3)


def test_missing_and_short_external_files_name_the_initializer(tmp_path: Path) -> None:
    path = weights_model(tmp_path, np.zeros((4, 3), np.float32))
    (tmp_path / "w.bin").write_bytes(b"\0" * 10)
    with pytest.raises(ParseError, match=r"initializer 'w'.*bytes 0..48 of 'w.bin', which has 10 bytes"):
        load_onnx(path)
    (tmp_path / "w.bin").unlink()
    with pytest.raises(ParseError, match=r"initializer 'w'.*w.bin', which cannot be opened"):
        load_onnx(path)


@pytest.mark.parametrize("location", ["../w.bin", "/etc/passwd", "sub/../../w.bin"])
def test_external_paths_outside_the_model_directory_are_refused(tmp_path: Path, location: str) -> None:
    inner = tmp_path / "model"
    inner.mkdir()
    path = weights_model(inner, np.zeros((4, 3), np.float32))
    (tmp_path / "w.bin").write_bytes((inner / "w.bin").read_bytes())
    model = onnx.load(path, load_external_data=False)
    for entry in model.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = location
    onnx.save(model, path)
    with pytest.raises(ParseError, match=r"initializer 'w'.*refused"):
        load_onnx(path)


def test_a_symlink_out_of_the_model_directory_is_refused(tmp_path: Path) -> None:
    inner = tmp_path / "model"
    inner.mkdir()
    path = weights_model(inner, np.zeros((4, 3), np.float32))
    (inner / "w.bin").rename(tmp_path / "outside.bin")
    os.symlink(tmp_path / "outside.bin", inner / "w.bin")
    with pytest.raises(ParseError, match=r"outside the model's directory"):
        load_onnx(path)


def test_truncated_and_garbage_files_are_parse_errors(tmp_path: Path) -> None:
    path = weights_model(tmp_path, np.zeros((4, 3), np.float32))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ParseError, match=r"not an ONNX model"):
        load_onnx(path)
    path.write_bytes(b"")
    with pytest.raises(ParseError, match=r"empty"):
        load_onnx(path)


def test_symbols_are_unknown_dims_until_input_shapes_fixes_them(tmp_path: Path) -> None:
    path = save(
        tmp_path / "m.onnx",
        [helper.make_node("Add", ["x", "x"], ["y"])],
        [X],
        ["y"],
    )
    assert desc(load_onnx(path), "y").shape == (-1, 4)
    assert desc(load_onnx(path, input_shapes={"x": [3, 4]}), "y").shape == (3, 4)


def test_input_shapes_naming_no_input_lists_the_model_inputs(tmp_path: Path) -> None:
    """In ONNX's terms: a graph input, not TensorFlow's Placeholder."""
    path = save(tmp_path / "m.onnx", [helper.make_node("Add", ["x", "x"], ["y"])], [X], ["y"])
    with pytest.raises(ParseError, match=r"'z', which is not an input of the model \(its inputs: x\)$"):
        load_onnx(path, input_shapes={"z": [3, 4]})


def test_input_shapes_of_another_rank_than_the_input_is_an_error_at_the_input(tmp_path: Path) -> None:
    path = save(tmp_path / "m.onnx", [helper.make_node("Add", ["x", "x"], ["y"])], [X], ["y"])
    with pytest.raises(
        ParseError, match=r"gives input 'x' the shape \[3, 4, 5\] \(rank 3\); the model declares"
    ):
        load_onnx(path, input_shapes={"x": [3, 4, 5]})


def test_input_shapes_are_checked_for_an_input_the_outputs_prune_away(tmp_path: Path) -> None:
    """The entry is wrong for the model whether or not the input is loaded."""
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])
    nodes = [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["z"], ["w"])]
    path = save(tmp_path / "m.onnx", nodes, [X, z], ["y", "w"])
    assert desc(load_onnx(path, outputs=["y"], input_shapes={"z": [5]}), "y").shape == (-1, 4)
    with pytest.raises(
        ParseError, match=r"gives input 'z' the shape \[5, 5\] \(rank 2\); the model declares"
    ):
        load_onnx(path, outputs=["y"], input_shapes={"z": [5, 5]})


def test_an_input_that_is_also_an_initializer_is_a_constant(tmp_path: Path) -> None:
    shape = numpy_helper.from_array(np.array([2, 2], np.int64), "shape")
    path = save(
        tmp_path / "m.onnx",
        [helper.make_node("Reshape", ["x", "shape"], ["y"])],
        [X, helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        ["y"],
        [shape],
    )
    graph = load_onnx(path, input_shapes={"x": [1, 4]})
    assert graph.node("shape").op_type == "Const"
    assert desc(graph, "y").shape == (2, 2)


def test_if_branches_read_outer_values(tmp_path: Path) -> None:
    def branch(op: str, out: str) -> onnx.GraphProto:
        return helper.make_graph(
            [helper.make_node(op, ["x"], [out])],
            out,
            [],
            [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)],
        )

    node = helper.make_node(
        "If", ["c"], ["y"], then_branch=branch("Relu", "a"), else_branch=branch("Neg", "b")
    )
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    path = save(tmp_path / "m.onnx", [node], [X, cond], ["y"])
    graph = load_onnx(path, input_shapes={"x": [2, 4]})
    assert graph.node("y").op_type == "If"
    assert desc(graph, "y").shape == (2, 4)


def test_a_branch_node_named_like_the_decoders_capture_mark_is_not_a_capture(tmp_path: Path) -> None:
    # The decoder marks a branch's reads of outer values with a prefix that
    # starts with a NUL; a node whose ONNX name starts the same (legal, if
    # odd) had its output taken for the outer `x`: (4, 3), not (6, 3).
    then_branch = helper.make_graph(
        [
            helper.make_node("Concat", ["x", "x"], ["n"], axis=0, name="\0capture:x"),
            helper.make_node("Concat", ["n", "x"], ["o"], axis=0),
        ],
        "then",
        [],
        [helper.make_tensor_value_info("o", TensorProto.FLOAT, None)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)],
    )
    cond = helper.make_node(
        "Constant", [], ["c"], value=helper.make_tensor("c", TensorProto.BOOL, [], [True])
    )
    node = helper.make_node("If", ["c"], ["y"], then_branch=then_branch, else_branch=else_branch)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    path = save(tmp_path / "m.onnx", [cond, node], [x], ["y"])
    model = onnx.load(path)
    (expected,) = ReferenceEvaluator(model).run(None, {"x": np.zeros((2, 3), np.float32)})
    assert np.asarray(expected).shape == (6, 3)
    assert desc(load_onnx(path), "y").shape == (6, 3)


def test_missing_plugins_are_listed_at_once_with_counts(tmp_path: Path) -> None:
    nodes = [
        helper.make_node("FancyOp", ["x"], ["a"], domain="com.example"),
        helper.make_node("FancyOp", ["a"], ["b"], domain="com.example"),
        helper.make_node("OtherOp", ["b"], ["y"], domain="com.example"),
    ]
    path = save(tmp_path / "m.onnx", nodes, [X], ["y"], opsets={"": 17, "com.example": 2})
    with pytest.raises(ParseError) as raised:
        load_onnx(path)
    message = str(raised.value)
    assert "com.example::2::FancyOp (2 nodes" in message
    assert "com.example::2::OtherOp (1 node" in message


def test_a_custom_domain_plugin_serves_its_opset_and_later_ones(tmp_path: Path) -> None:
    @plugin("LeakyRelu", origin_op_types=["org.opgraph.test::2::Leaky"])
    def parse_leaky(src: FrameworkOp, dst: Operator) -> None:
        dst.set_attr("alpha", src.get_attr("slope"))

    nodes = [helper.make_node("Leaky", ["x"], ["y"], domain="org.opgraph.test", slope=0.3)]
    for version, served in [(1, False), (2, True), (5, True)]:
        path = save(
            tmp_path / f"m{version}.onnx", nodes, [X], ["y"], opsets={"": 17, "org.opgraph.test": version}
        )
        if served:
            graph = load_onnx(path)
            assert graph.node("y").op_type == "LeakyRelu"
            assert graph.node("y").attrs["alpha"] == pytest.approx(0.3)
        else:
            with pytest.raises(ParseError, match=r"org.opgraph.test::1::Leaky"):
                load_onnx(path)


@pytest.mark.parametrize("origin", ["Leaky", "org.opgraph.test::Leaky", "org.opgraph.test::0::Leaky"])
def test_an_origin_type_no_node_can_have_is_refused_at_registration(origin: str) -> None:
    """Nodes' origin types are domain::opset::op_type: a plugin under
    another name would load without error and never be called."""
    with pytest.raises(RegistrationError, match=r"domain::opset::op_type, such as 'ai\.onnx::11::Leaky'"):

        @plugin("LeakyRelu", origin_op_types=[origin])
        def parse_leaky(src: FrameworkOp, dst: Operator) -> None:
            auto_mapping(src, dst)


@pytest.mark.parametrize(
    ("origin", "named"),
    [
        ("ai.onnx::1::Relu", "ai.onnx::1::Relu"),
        ("ai.onnx::13::Relu", r"ai.onnx::13::Relu \(over ai.onnx::1::Relu\)"),
        ("::18::Relu", r"::18::Relu \(over ai.onnx::1::Relu\)"),
    ],
)
def test_a_plugin_taking_nodes_from_a_built_in_one_needs_override(origin: str, named: str) -> None:
    """The built-in plugin for ai.onnx::1::Relu serves every later opset, so
    one for ::13:: shadows it from opset 13 on, though no built-in is
    spelled so: the error names the one it would shadow."""
    with pytest.raises(RegistrationError, match=rf"plugin for {named}: opgraph has a built-in plugin"):
        plugin("Relu", origin_op_types=[origin])(auto_mapping)


def test_the_report_maps_every_value_to_its_tensor(tmp_path: Path) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"], name="negate")]
    path = save(tmp_path / "m.onnx", nodes, [X], ["y"])
    graph, report = load_onnx_reported(path)
    assert report.tensors == {"x": "x:0", "r": "r:0", "y": "negate:0"}
    assert report.opsets == {"ai.onnx": 17}
    assert graph.outputs == [graph.tensor("negate")]


def test_the_report_lists_values_no_output_needs_as_pruned(tmp_path: Path) -> None:
    """A dead Constant (Paddle2ONNX leaves some), an unused initializer and
    a dead chain are pruned and listed; a value read only inside an If
    branch (outer scope) is kept. The oracle is the onnx graph itself."""
    then = helper.make_graph(
        [helper.make_node("Add", ["x", "outer"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)],
    )
    other = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)],
    )
    nodes = [
        helper.make_node("Relu", ["x"], ["outer"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other),
        helper.make_node("Constant", [], ["unused_const"], value_float=1.0),
        helper.make_node("Sigmoid", ["x"], ["dead1"]),
        helper.make_node("Tanh", ["dead1"], ["dead2"]),
    ]
    unused = numpy_helper.from_array(np.zeros(3, np.float32), "unused_weight")
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    path = save(tmp_path / "m.onnx", nodes, [X, cond], ["y"], [unused])
    graph, report = load_onnx_reported(path, input_shapes={"x": [2, 4]})
    want = {"unused_const", "dead1", "dead2", "unused_weight"}
    assert set(report.pruned) == want == dead_values(path)
    assert "outer" in report.tensors and not want & set(report.tensors)
    assert desc(graph, "y").shape == (2, 4)
    # Asking for another output prunes the rest, listed the same way.
    _, only_dead = load_onnx_reported(path, outputs=["dead2"])
    assert set(only_dead.pruned) == {"c", "outer", "y", "unused_const", "unused_weight"}


def test_a_node_named_like_an_inserted_constant_keeps_its_name(tmp_path: Path) -> None:
    """ReduceSum's opset-11 axes attribute becomes a Const input named
    `r/axes`; a later node of the model called `r/axes` still loads (the
    model is valid: ONNX names are unique) and keeps its name."""
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], name="r", axes=[1], keepdims=1),
        helper.make_node("Relu", ["s"], ["y"], name="r/axes"),
    ]
    path = save(tmp_path / "m.onnx", nodes, [X], ["y"], opsets={"": 11})
    graph = load_onnx(path, input_shapes={"x": [2, 4]})
    assert graph.node("r/axes").op_type == "Relu"
    assert desc(graph, "r/axes").shape == (2, 1)
    (axes,) = [n for n in graph.nodes() if n.op_type == "Const" and n.name.startswith("r/axes")]
    assert axes.outputs[0].value is not None and axes.outputs[0].value.tolist() == [1]


def test_inputs_sharing_a_symbol_share_the_size_input_shapes_gives(tmp_path: Path) -> None:
    ids = helper.make_tensor_value_info("ids", TensorProto.FLOAT, ["batch", "seq"])
    mask = helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "seq"])
    path = save(tmp_path / "m.onnx", [helper.make_node("Mul", ["ids", "mask"], ["y"])], [ids, mask], ["y"])
    graph, report = load_onnx_reported(path, input_shapes={"ids": [2, 7]})
    assert report.symbols == {"ids": ["batch", "seq"], "mask": ["batch", "seq"]}
    assert desc(graph, "mask").shape == (2, 7)
    assert desc(graph, "y").shape == (2, 7)
    with pytest.raises(ParseError, match=r"symbol 'seq' size 7 .* and size 9"):
        load_onnx(path, input_shapes={"ids": [2, 7], "mask": [2, 9]})


def test_attributes_the_node_leaves_out_take_onnx_defaults(tmp_path: Path) -> None:
    # ONNX's LeakyRelu slope defaults to 0.01 (GE's LeakyRelu op: 0.2).
    path = save(tmp_path / "m.onnx", [helper.make_node("LeakyRelu", ["x"], ["y"])], [X], ["y"])
    assert load_onnx(path).node("y").attrs["alpha"] == pytest.approx(0.01)


def test_loop_carries_variables_and_stacks_scan_outputs_like_the_reference(tmp_path: Path) -> None:
    from onnx.reference import ReferenceEvaluator

    # body(i, cond, acc) -> (cond, acc + x, acc * 2): x is read from the outer graph.
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["acc_in", "x"], ["acc_out"]),
            helper.make_node("Mul", ["acc_in", "two"], ["scan"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("scan", TensorProto.FLOAT, None),
        ],
    )
    trips = numpy_helper.from_array(np.array(5, np.int64), "trips")
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    acc0 = numpy_helper.from_array(np.zeros((2, 4), np.float32), "acc0")
    keep_going = numpy_helper.from_array(np.array(True), "keep_going")
    loop = helper.make_node("Loop", ["trips", "keep_going", "acc0"], ["acc", "scans"], body=body)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])
    path = save(tmp_path / "m.onnx", [loop], [x], ["acc", "scans"], [trips, keep_going, two, acc0])
    results = ReferenceEvaluator(str(path)).run(None, {"x": np.ones((2, 4), np.float32)})
    assert isinstance(results, list)  # the outputs in order (not intermediate=True's dict)
    acc, scans = results
    graph = load_onnx(path)
    assert graph.node("acc").op_type == "Loop"
    assert desc(graph, "acc", 0).shape == acc.shape
    # Each iteration's scan value has acc's shape; they stack on a new axis
    # (onnxruntime gives (5, 2, 4) here; onnx's reference evaluator
    # concatenates them instead, (10, 4)). The body passes its condition
    # through, and it starts true, so every one of the 5 trips runs.
    assert scans.shape[0] == 5 * acc.shape[0]
    assert desc(graph, "acc", 1).shape == (5, *acc.shape)


@pytest.mark.parametrize("initial", [True, False, None], ids=["true", "false", "fed"])
def test_a_loop_claims_its_trip_count_only_when_it_starts(initial: bool | None, tmp_path: Path) -> None:
    # ONNX tests the condition before the first iteration: with a false
    # initial condition (or one fed at run time) the loop may run none of its
    # 3 trips, whatever its body's condition (here the constant true).
    body = helper.make_graph(
        [
            helper.make_node("Constant", [], ["keep_out"], value=numpy_helper.from_array(np.array(True))),
            helper.make_node("Identity", ["x"], ["scan"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("keep", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("keep_out", TensorProto.BOOL, []), onnx.ValueInfoProto(name="scan")],
    )
    trips = numpy_helper.from_array(np.array(3, np.int64), "trips")
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])]
    initializers = [trips]
    if initial is None:
        inputs.append(helper.make_tensor_value_info("go", TensorProto.BOOL, []))
    else:
        initializers.append(numpy_helper.from_array(np.array(initial), "go"))
    loop = helper.make_node("Loop", ["trips", "go"], ["scans"], body=body)
    graph = helper.make_graph([loop], "g", inputs, [onnx.ValueInfoProto(name="scans")], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, tmp_path / "m.onnx")
    assert desc(load_onnx(tmp_path / "m.onnx"), "scans", 0).shape == ((3, 2) if initial else (-1, 2))


def test_deeply_nested_subgraphs_read_outer_values_through_every_level(tmp_path: Path) -> None:
    # If within If within ... 25 deep (the then branches; protobuf's own
    # decoders stop near 33 levels): every level reads x from the top graph.
    out = helper.make_tensor_value_info("r0", TensorProto.FLOAT, None)
    body = helper.make_graph([helper.make_node("Relu", ["x"], ["r0"])], "b0", [], [out])
    for depth in range(1, 26):
        name = f"r{depth}"
        leaf_out = helper.make_tensor_value_info(f"n{depth}", TensorProto.FLOAT, None)
        leaf = helper.make_graph([helper.make_node("Neg", ["x"], [f"n{depth}"])], f"e{depth}", [], [leaf_out])
        node = helper.make_node("If", ["c"], [name], then_branch=body, else_branch=leaf)
        body = helper.make_graph(
            [node], f"b{depth}", [], [helper.make_tensor_value_info(name, TensorProto.FLOAT, None)]
        )
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    path = save(tmp_path / "m.onnx", list(body.node), [X, cond], ["r25"])
    graph = load_onnx(path, input_shapes={"x": [2, 4]})
    assert desc(graph, "r25").shape == (2, 4)
