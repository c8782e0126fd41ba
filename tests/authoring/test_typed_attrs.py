"""Issue 18 item 1: typed getters on FrameworkOp (defaults, None defaults,
a ParseError naming node, attribute, expected and actual type) and typed
setters on Operator."""

from __future__ import annotations

import numpy as np
import pytest

from opgraph import DataType, ParseError
from opgraph.caffe import FrameworkOp, Operator

ATTRS: dict[str, object] = {
    "num_output": 8,
    "ratio": 0.5,
    "bias_term": True,
    "mode": "SAME",
    "kernel": [3, 3],
    "scales": [0.5, 2.0],
    "tags": ["a", "b"],
    "shape": [1, -1, 4],
    "T": DataType.FLOAT16,
    "value": np.arange(6, dtype=np.float32).reshape(2, 3),
    "empty": [],
}


def src() -> FrameworkOp:
    return FrameworkOp("conv1", "Convolution", attrs=ATTRS)


def test_each_getter_reads_its_type() -> None:
    op = src()
    assert op.get_int("num_output") == 8
    assert op.get_float("ratio") == 0.5
    assert op.get_bool("bias_term") is True
    assert op.get_str("mode") == "SAME"
    assert op.get_ints("kernel") == [3, 3]
    assert op.get_floats("scales") == [0.5, 2.0]
    assert op.get_strs("tags") == ["a", "b"]
    assert op.get_shape("shape") == [1, -1, 4]
    assert op.get_dtype("T") == DataType.FLOAT16
    np.testing.assert_array_equal(op.get_tensor("value"), np.arange(6, dtype=np.float32).reshape(2, 3))


def test_lossless_conversions() -> None:
    op = src()
    assert op.get_float("num_output") == 8.0
    assert op.get_floats("kernel") == [3.0, 3.0]
    # An empty list has no element type: it reads as any list.
    assert op.get_ints("empty") == []
    assert op.get_floats("empty") == []
    assert op.get_strs("empty") == []


def test_defaults_apply_only_when_absent() -> None:
    op = src()
    assert op.get_int("group", 1) == 1
    assert op.get_int("num_output", 1) == 8
    assert op.get_int("group", None) is None
    assert op.get_ints("dilation", []) == []
    assert op.get_str("mode", None) == "SAME"
    assert op.has_attr("mode") and not op.has_attr("group")


def test_missing_attribute_names_node_and_what_is_there() -> None:
    with pytest.raises(ParseError) as raised:
        src().get_int("num_outptu")
    message = str(raised.value)
    assert "'conv1' (Convolution)" in message
    assert "'num_outptu'" in message and "expected an int" in message
    assert "num_output, ratio" in message
    assert "did you mean 'num_output'?" in message
    assert raised.value.node == "conv1"
    assert raised.value.origin_op_type == "Convolution"


@pytest.mark.parametrize(
    ("getter", "name", "expected", "actual"),
    [
        ("get_int", "ratio", "an int", "float"),
        ("get_int", "bias_term", "an int", "bool"),
        ("get_bool", "num_output", "a bool", "int"),
        ("get_str", "tags", "a str", "list[str]"),
        ("get_ints", "scales", "a list of ints", "list[float]"),
        ("get_dtype", "mode", "a DataType", "str"),
        ("get_tensor", "kernel", "a tensor", "list[int]"),
    ],
)
def test_wrong_type_names_expected_and_actual(getter: str, name: str, expected: str, actual: str) -> None:
    with pytest.raises(ParseError) as raised:
        getattr(src(), getter)(name)
    assert str(raised.value) == (
        f"framework op 'conv1' (Convolution): attribute '{name}' is a {actual}, expected {expected}"
    )


def test_wrong_type_is_an_error_even_with_a_default() -> None:
    with pytest.raises(ParseError, match="expected an int"):
        src().get_int("mode", 0)


def test_typed_setters_store_their_type() -> None:
    dst = Operator("node", "NoSuchOpType")
    dst.set_int("i", 3)
    dst.set_float("f", 2)  # an int given to set_float is a float attribute
    dst.set_bool("b", False)
    dst.set_str("s", "x")
    dst.set_ints("li", [1, 2])
    dst.set_floats("lf", [1, 2.5])
    dst.set_bools("lb", [True])
    dst.set_strs("ls", [])
    dst.set_dtype("d", DataType.INT8)
    dst.set_tensor("t", np.ones((2,), np.float32))
    attrs = dst.attrs
    assert attrs["i"] == 3 and isinstance(attrs["f"], float) and attrs["f"] == 2.0
    assert attrs["b"] is False and attrs["s"] == "x"
    assert attrs["li"] == [1, 2] and attrs["lf"] == [1.0, 2.5] and attrs["lb"] == [True]
    assert attrs["ls"] == [] and attrs["d"] == DataType.INT8
    np.testing.assert_array_equal(attrs["t"], np.ones((2,), np.float32))


def test_setters_reject_values_of_another_type() -> None:
    dst = Operator("node", "NoSuchOpType")
    with pytest.raises(TypeError):
        dst.set_int("i", "3")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        dst.set_ints("li", [1.5])  # type: ignore[list-item]
