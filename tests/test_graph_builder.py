"""The Graph builder API: handles, port layouts, name lookup, copies, Const
values and the errors of bad edits."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import opgraph
from opgraph import DataType, Format, Graph, GraphError, TensorDesc, TensorRef, UnknownOpTypeError


def _two_inputs() -> tuple[Graph, TensorRef, TensorRef]:
    graph = Graph("g")
    x = graph.add_input("x", DataType.FLOAT, [2, 1], Format.NCHW)
    y = graph.add_input("y", DataType.FLOAT, [3])
    return graph, x, y


def test_add_methods_return_handles_to_first_output() -> None:
    graph, x, _y = _two_inputs()
    c = graph.add_const("c", np.zeros(3, np.float32))
    a = graph.add_node("Add", "a", [x, c])
    for handle, name in [(x, "x"), (c, "c"), (a, "a")]:
        assert isinstance(handle, TensorRef)
        assert (handle.node, handle.index) == (name, 0)
        assert graph.tensor(name) == handle
    assert hash(graph.tensor("a")) == hash(a)


def test_output_selects_another_output_of_the_same_node() -> None:
    graph, x, y = _two_inputs()
    body = Graph("body")
    p0 = body.add_node("Data", "p0", [], {"index": 0})
    p1 = body.add_node("Data", "p1", [], {"index": 1})
    body.set_outputs([p1, p0])
    call = graph.add_node(
        "PartitionedCall", "call", [[x, y]], dynamic_outputs=[("output", 2)], subgraphs={"f": body}
    )
    second = call.output(1)
    assert (second.node, second.index) == ("call", 1)
    assert second != call
    ident = graph.add_node("Identity", "id", [second])
    opgraph.infer(graph)
    assert graph.desc(ident).shape == (2, 1)
    assert graph.desc(call).shape == (3,)
    assert graph.node("id").input_sources == [("call", 1)]


def test_handle_to_missing_output_is_rejected() -> None:
    graph, x, _y = _two_inputs()
    with pytest.raises(GraphError, match="output 1 does not exist"):
        graph.add_node("Identity", "id", [x.output(1)])
    with pytest.raises(GraphError):
        graph.tensor("x", 1)


def test_a_tensorflow_style_tensor_name_gets_the_call_that_names_it() -> None:
    graph, _x, _y = _two_inputs()
    with pytest.raises(GraphError, match=r"no node named 'x:0'; .*: graph\.tensor\('x', 0\)$"):
        graph.tensor("x:0")
    with pytest.raises(GraphError, match=r"^there is no node named 'z:0' in this graph$"):
        graph.tensor("z:0")


def test_dynamic_input_takes_a_list_of_handles() -> None:
    graph, x, y = _two_inputs()
    body = Graph("body")
    body.set_outputs([body.add_node("Data", "p2", [], {"index": 2})])
    graph.add_node("PartitionedCall", "call", [[x, y, x]], subgraphs={"f": body})
    node = graph.node("call")
    assert node.input_sources == [("x", 0), ("y", 0), ("x", 0)]
    opgraph.infer(graph)
    assert graph.node("call").outputs[0].shape == (2, 1)


def test_inputs_by_port_name_equal_inputs_by_position() -> None:
    graph, x, y = _two_inputs()
    graph.add_node("Add", "by_name", {"x2": y, "x1": x})
    graph.add_node("Add", "by_position", [x, y])
    assert graph.node("by_name").input_sources == [("x", 0), ("y", 0)]
    assert graph.node("by_name").input_sources == graph.node("by_position").input_sources


def test_unknown_port_name_is_a_graph_error() -> None:
    graph, x, y = _two_inputs()
    with pytest.raises(GraphError, match="no input named 'x3'"):
        graph.add_node("Add", "a", {"x1": x, "x3": y})


def test_absent_optional_input_is_given_as_none() -> None:
    graph = Graph()
    x = graph.add_input("x", DataType.FLOAT, [1, 3, 5, 5], Format.NCHW)
    f = graph.add_input("f", DataType.FLOAT, [2, 3, 3, 3], Format.NCHW)
    b = graph.add_input("b", DataType.FLOAT, [2])
    attrs = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "data_format": "NCHW"}
    graph.add_node("Conv2D", "no_bias", [x, f, None, None], attrs)
    graph.add_node("Conv2D", "bias", [x, f, b], attrs)
    assert graph.node("no_bias").input_sources == [("x", 0), ("f", 0), None, None]
    assert graph.node("no_bias").inputs[2] is None
    assert graph.node("bias").input_sources == [("x", 0), ("f", 0), ("b", 0), None]


def test_missing_required_input_is_a_graph_error() -> None:
    graph, x, _y = _two_inputs()
    with pytest.raises(GraphError, match="required input 'x2'"):
        graph.add_node("Add", "a", [x])
    with pytest.raises(GraphError, match="required input 'x1'"):
        graph.add_node("Add", "a", [None, x])


def test_list_for_a_non_dynamic_port_is_a_graph_error() -> None:
    graph, x, y = _two_inputs()
    with pytest.raises(GraphError, match="not dynamic"):
        graph.add_node("Add", "a", [x, [y]])


def test_too_many_inputs_is_a_graph_error() -> None:
    graph, x, y = _two_inputs()
    with pytest.raises(GraphError, match="takes 2 inputs"):
        graph.add_node("Add", "a", [x, y, y])


@pytest.mark.parametrize("kind", ["input", "const", "node"])
def test_duplicate_node_names_are_rejected(kind: str) -> None:
    graph, x, _y = _two_inputs()
    with pytest.raises(GraphError, match="'x' already exists"):
        if kind == "input":
            graph.add_input("x", DataType.INT8, [1])
        elif kind == "const":
            graph.add_const("x", np.zeros(1, np.int8))
        else:
            graph.add_node("Identity", "x", [x])
    assert len(graph) == 2


def test_handle_from_another_graph_is_rejected() -> None:
    graph, _x, _y = _two_inputs()
    other = Graph("other")
    foreign = other.add_input("z", DataType.FLOAT, [1])
    with pytest.raises(GraphError, match="another graph"):
        graph.add_node("Identity", "id", [foreign])
    with pytest.raises(GraphError, match="another graph"):
        graph.set_outputs([foreign])
    with pytest.raises(GraphError, match="another graph"):
        graph.desc(foreign)
    assert "id" not in graph


def test_unknown_op_type_is_an_unknown_op_type_error() -> None:
    graph, x, _y = _two_inputs()
    with pytest.raises(UnknownOpTypeError, match="NoSuchOpType"):
        graph.add_node("NoSuchOpType", "n", [x])
    assert "n" not in graph


def test_nodes_node_len_contains() -> None:
    graph, x, y = _two_inputs()
    graph.add_node("Add", "a", [x, y], {"_note": "hello"})  # private: Add declares no attributes
    assert len(graph) == 3
    assert [n.name for n in graph.nodes()] == ["x", "y", "a"]
    assert "a" in graph
    assert "b" not in graph
    node = graph.node("a")
    assert (node.name, node.op_type) == ("a", "Add")
    assert node.attrs == {"_note": "hello"}
    assert node.inputs == [TensorDesc(DataType.FLOAT, [2, 1], Format.NCHW), TensorDesc(DataType.FLOAT, [3])]
    assert node.control_inputs == []
    assert node.subgraph_names == []
    with pytest.raises(GraphError, match="no node named 'b'"):
        graph.node("b")


def test_graph_inputs_and_outputs() -> None:
    graph, x, y = _two_inputs()
    a = graph.add_node("Add", "a", [x, y])
    graph.set_outputs([a, x])
    assert graph.name == "g"
    assert graph.inputs == [x, y]
    assert graph.outputs == [a, x]


def test_desc_reads_an_input_descriptor() -> None:
    graph, x, _y = _two_inputs()
    d = graph.desc(x)
    assert d.dtype is DataType.FLOAT
    assert d.shape == (2, 1)
    assert d.format is Format.NCHW
    assert d.storage_format is Format.NCHW
    assert d.storage_shape == (2, 1)
    assert d.shape_range is None
    assert d.value is None


def test_format_given_by_name_equals_format_given_by_enum() -> None:
    graph = Graph()
    a = graph.add_input("a", DataType.INT8, [3], "NHWC")
    b = graph.add_input("b", DataType.INT8, [3], Format.NHWC)
    assert graph.desc(a) == graph.desc(b)
    assert graph.desc(a).format is Format.NHWC


@pytest.mark.parametrize(
    ("shape", "error"),
    [([-3], ValueError), ([-2, 3], ValueError), ("abc", TypeError), ([1.5], TypeError)],
)
def test_invalid_input_shapes_are_rejected(shape: object, error: type[Exception]) -> None:
    graph = Graph()
    with pytest.raises(error):
        graph.add_input("x", DataType.FLOAT, shape)  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error


def test_unknown_rank_input_is_accepted() -> None:
    graph = Graph()
    x = graph.add_input("x", DataType.FLOAT, opgraph.UNKNOWN_RANK)
    assert graph.desc(x).shape == (-2,)


def test_copy_is_independent_of_the_original() -> None:
    graph, x, y = _two_inputs()
    a = graph.add_node("Add", "a", [x, y])
    copy = graph.copy()
    assert len(copy) == len(graph)
    assert [n.name for n in copy.nodes()] == ["x", "y", "a"]
    opgraph.infer(copy)
    assert copy.desc(copy.tensor("a")).shape == (2, 3)
    assert graph.desc(a).dtype is DataType.UNDEFINED
    copy.add_input("z", DataType.INT8, [1])
    assert "z" in copy
    assert "z" not in graph


def test_node_snapshot_does_not_change_after_infer() -> None:
    graph, x, y = _two_inputs()
    graph.add_node("Add", "a", [x, y])
    before = graph.node("a")
    opgraph.infer(graph)
    assert before.outputs[0].dtype is DataType.UNDEFINED
    assert graph.node("a").outputs[0].shape == (2, 3)


def test_set_attr_changes_a_node_attribute() -> None:
    graph, x, _y = _two_inputs()
    graph.add_node("LeakyRelu", "leaky", [x], {"alpha": 0.1})
    graph.set_attr("leaky", "alpha", 0.25)
    graph.set_attr("leaky", "_tag", [1, 2])  # private names are always allowed, as in GE
    assert graph.node("leaky").attrs == {"alpha": 0.25, "_tag": [1, 2]}
    with pytest.raises(GraphError):
        graph.set_attr("missing", "alpha", 1.0)


def test_set_attr_rejects_a_name_the_prototype_does_not_declare() -> None:
    graph, x, _y = _two_inputs()
    graph.add_node("LeakyRelu", "leaky", [x])
    expected = r"node 'leaky': LeakyRelu does not declare attribute 'alpah'.*did you mean 'alpha'"
    with pytest.raises(GraphError, match=expected):
        graph.set_attr("leaky", "alpah", 0.25)
    assert "alpah" not in graph.node("leaky").attrs


def test_control_inputs_are_recorded() -> None:
    graph, x, y = _two_inputs()
    graph.add_node("Identity", "id", [x], control_inputs=[y])
    assert graph.node("id").control_inputs == ["y"]


@pytest.mark.parametrize(
    "value",
    [
        np.array([[True, False, True]]),
        np.array([-128, 0, 127], dtype=np.int8),
        np.array([[0.5, -1.25], [65504.0, 0.0]], dtype=np.float16),
        np.arange(24, dtype=np.int64).reshape(2, 3, 4),
        np.array([1, 2**64 - 1], dtype=np.uint64),
        np.array([1 + 2j, -3.5j], dtype=np.complex128),
        np.linspace(0, 1, 6, dtype=np.float32).reshape(3, 2),
        np.zeros((0, 3), dtype=np.int32),
    ],
    ids=lambda v: f"{v.dtype}{list(v.shape)}",
)
def test_const_value_round_trips_as_numpy(value: np.ndarray) -> None:
    graph = Graph()
    c = graph.add_const("c", value)
    d = graph.desc(c)
    assert d.dtype is DataType.from_numpy(value.dtype)
    assert d.shape == value.shape
    assert d.value is not None
    assert d.value.dtype == value.dtype
    np.testing.assert_array_equal(d.value, value)
    opgraph.infer(graph)
    after = graph.desc(c)
    assert after.shape == value.shape
    assert after.value is not None
    np.testing.assert_array_equal(after.value, value)


def test_const_value_is_copied_not_aliased() -> None:
    value = np.arange(4, dtype=np.int32)
    graph = Graph()
    c = graph.add_const("c", value)
    value[0] = 99
    stored = graph.desc(c).value
    assert stored is not None
    assert stored.tolist() == [0, 1, 2, 3]


def test_const_of_non_contiguous_and_big_endian_arrays() -> None:
    graph = Graph()
    strided = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    big_endian = np.arange(4, dtype=">i4")
    s = graph.desc(graph.add_const("s", strided)).value
    b = graph.desc(graph.add_const("b", big_endian)).value
    assert s is not None and b is not None
    np.testing.assert_array_equal(s, strided)
    np.testing.assert_array_equal(b, big_endian)


@pytest.mark.parametrize(
    "value",
    [np.array(3.5, dtype=np.float32), np.array(7, dtype=np.int64), np.array(True)],
    ids=lambda v: str(v.dtype),
)
def test_const_scalar_keeps_rank_zero(value: np.ndarray) -> None:
    graph = Graph()
    c = graph.add_const("c", value)
    d = graph.desc(c)
    assert d.shape == ()
    assert d.value is not None
    assert d.value.shape == ()
    assert d.value.item() == value.item()


def test_const_of_unsupported_numpy_dtype_is_a_type_error() -> None:
    graph = Graph()
    with pytest.raises(TypeError, match="no opgraph DataType"):
        graph.add_const("c", np.array(["a", "b"]))


def test_set_input_rewires_and_none_disconnects() -> None:
    graph, x, y = _two_inputs()
    graph.add_node("Add", "a", [x, x])
    graph.set_input("a", 1, y)
    assert graph.node("a").input_sources == [("x", 0), ("y", 0)]
    graph.set_input("a", 1, None)
    assert graph.node("a").input_sources == [("x", 0), None]
    with pytest.raises(GraphError, match="out of range"):
        graph.set_input("a", 5, x)


def test_cycle_built_with_set_input_is_reported_with_its_nodes() -> None:
    graph, x, _y = _two_inputs()
    a = graph.add_node("Add", "a", [x, x])
    b = graph.add_node("Identity", "b", [a])
    graph.add_node("Add", "c", [b, x])
    graph.add_node("Identity", "off_cycle", [x])
    graph.set_input("a", 1, graph.tensor("c"))
    with pytest.raises(opgraph.CycleError) as info:
        opgraph.infer(graph)
    nodes = info.value.nodes
    assert nodes[0] == nodes[-1]
    assert sorted(nodes[:-1]) == ["a", "b", "c"]
    # consecutive names are real edges of the cycle
    edges = {("a", "b"), ("b", "c"), ("c", "a")}
    assert set(itertools.pairwise(nodes)) == edges
    assert isinstance(info.value, GraphError)
    assert "cycle" in str(info.value)
    assert info.value.path == ""


def test_self_loop_is_a_cycle() -> None:
    graph, x, _y = _two_inputs()
    graph.add_node("Add", "a", [x, x])
    graph.set_input("a", 0, graph.tensor("a"))
    errors = opgraph.infer(graph, collect_errors=True)
    assert len(errors) == 1
    assert isinstance(errors[0], opgraph.CycleError)
    assert errors[0].nodes == ["a", "a"]
