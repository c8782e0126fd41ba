"""The exception hierarchy rooted at OpgraphError, the context carried by node
errors, and the classes the core raises for each kind of failure."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import desc, identity_like, infer_output

import opgraph
from opgraph import (
    ContextError,
    CycleError,
    GraphError,
    InferDataTypeError,
    InferShapeError,
    NodeError,
    OpgraphError,
    ParseError,
    RegistrationError,
    UnknownOpTypeError,
    VerifyError,
    errors,
)


@pytest.mark.parametrize(
    ("cls", "bases"),
    [
        (RegistrationError, (OpgraphError,)),
        (GraphError, (OpgraphError,)),
        (CycleError, (GraphError, OpgraphError)),
        (ParseError, (OpgraphError,)),
        (ContextError, (OpgraphError,)),
        (NodeError, (OpgraphError,)),
        (VerifyError, (NodeError, OpgraphError)),
        (UnknownOpTypeError, (VerifyError, NodeError)),
        (InferShapeError, (NodeError, OpgraphError)),
        (InferDataTypeError, (InferShapeError, NodeError)),
    ],
)
def test_hierarchy(cls: type[Exception], bases: tuple[type[Exception], ...]) -> None:
    for base in bases:
        assert issubclass(cls, base)
    assert issubclass(cls, Exception)


def test_sibling_families_are_distinct() -> None:
    assert not issubclass(VerifyError, InferShapeError)
    assert not issubclass(InferShapeError, VerifyError)
    assert not issubclass(GraphError, NodeError)
    assert not issubclass(RegistrationError, GraphError)


def test_public_names_are_the_errors_module_classes() -> None:
    for name in [
        "OpgraphError",
        "RegistrationError",
        "GraphError",
        "CycleError",
        "ParseError",
        "ContextError",
        "NodeError",
        "VerifyError",
        "UnknownOpTypeError",
        "InferShapeError",
        "InferDataTypeError",
    ]:
        assert getattr(opgraph, name) is getattr(errors, name)
        assert name in opgraph.__all__


def test_node_error_attributes_default_to_empty() -> None:
    error = VerifyError("bad")
    assert str(error) == "bad"
    assert (error.node, error.op_type, error.inputs) == (None, None, [])
    cycle = CycleError("loop")
    assert (cycle.nodes, cycle.path) == ([], "")


def test_node_error_attributes_are_kept() -> None:
    error = InferShapeError("bad", node="n", op_type="Add", inputs=("x1=float[2]",))
    assert (error.node, error.op_type, error.inputs) == ("n", "Add", ["x1=float[2]"])


def test_core_errors_are_instances_of_the_python_classes(op_type: str) -> None:
    """One failure of each kind, raised from the core."""
    graph = opgraph.Graph()
    x = graph.add_input("x", opgraph.DataType.FLOAT, [1])
    with pytest.raises(GraphError):
        graph.add_input("x", opgraph.DataType.FLOAT, [1])
    with pytest.raises(UnknownOpTypeError):
        graph.add_node("Missing", "m", [x])
    opgraph.register(identity_like(op_type))
    with pytest.raises(RegistrationError):
        opgraph.register(identity_like(op_type))
    with pytest.raises(VerifyError):
        infer_output("Add", [desc([1]), desc([1], opgraph.DataType.INT8)])
    with pytest.raises(InferShapeError):
        infer_output("Add", [desc([2]), desc([3])])
    with pytest.raises(ContextError):
        opgraph.InferShapeContext.standalone("Identity", [desc([1])]).input_shape(4)


def test_node_error_message_names_node_op_inputs_and_violation() -> None:
    with pytest.raises(InferShapeError) as info:
        infer_output("Reshape", [desc([2, 3]), np.array([4, 4], np.int64)])
    message = str(info.value)
    assert "'node'" in message
    assert "Reshape" in message
    assert "x=float[2, 3]" in message
    assert "6 elements" in message
    assert message.count("\n") == 0
    assert info.value.inputs == ["x=float[2, 3]", "shape=int64[2]"]


def test_absent_optional_inputs_are_named_in_node_errors() -> None:
    with pytest.raises(InferShapeError) as info:
        infer_output(
            "Conv2D",
            [desc([1, 3, 8, 8]), desc([4, 5, 3, 3])],
            {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "data_format": "NCHW"},
        )
    assert info.value.inputs == [
        "x=float[1, 3, 8, 8]",
        "filter=float[4, 5, 3, 3]",
        "bias=absent",
        "offset_w=absent",
    ]


def test_invalid_attributes_found_by_shape_rules_are_verify_errors() -> None:
    """Issue 3: invalid attributes and inputs are rejected with a VerifyError,
    even when the shape rule is what finds them (and it is still an
    InferShapeError for code that catches that)."""
    g = opgraph.Graph("g")
    x = g.add_input("x", opgraph.DataType.FLOAT, (1, 3, 8, 8), opgraph.Format.NCHW)
    w = g.add_input("w", opgraph.DataType.FLOAT, (4, 3, 3, 3), opgraph.Format.NCHW)
    g.add_node(
        "Conv2D", "conv", [x, w], {"strides": [1, 1, 0, 1], "pads": [0, 0, 0, 0], "data_format": "NCHW"}
    )
    with pytest.raises(opgraph.VerifyError, match="strides") as caught:
        opgraph.infer(g)
    assert isinstance(caught.value, opgraph.InvalidShapeError)
    assert isinstance(caught.value, opgraph.InferShapeError)
    assert caught.value.node == "conv"


def test_python_infer_function_failures_stay_infer_shape_errors(op_type: str) -> None:
    broken = opgraph.OpDef(op_type)
    broken.input("x")
    broken.output("y", follow="x")

    @broken.infer_shape
    def fail(ctx: opgraph.InferShapeContext) -> None:
        raise ValueError("my rule is unfinished")

    opgraph.register(broken)
    g = opgraph.Graph("g")
    g.add_node(op_type, "n", [g.add_input("x", opgraph.DataType.FLOAT, (2,))])
    with pytest.raises(opgraph.InferShapeError) as caught:
        opgraph.infer(g)
    assert not isinstance(caught.value, opgraph.VerifyError)
    assert isinstance(caught.value.__cause__, ValueError)
