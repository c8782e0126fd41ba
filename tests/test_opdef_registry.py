"""OpDef prototypes and the OperatorFactory: registration rules, Follow
resolution, attribute types and defaults, inspection with op_def()."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import desc, identity_like, infer_output, one_node_graph, unique_name

import opgraph
from opgraph import (
    DYNAMIC,
    OPTIONAL,
    REQUIRED,
    DataType,
    FollowType,
    Format,
    InferDataTypeContext,
    InferShapeContext,
    OpDef,
    RegistrationError,
    ValueDepend,
    VerifyError,
)

BUILTINS = ["Add", "Const", "Conv2D", "Data", "Identity", "PartitionedCall", "Placeholder", "Reshape"]


# ---- registration ----------------------------------------------------------


def test_registered_op_is_usable_and_listed(op_type: str) -> None:
    assert op_type not in opgraph.registered_op_types()
    opgraph.register(identity_like(op_type))
    types = opgraph.registered_op_types()
    assert op_type in types
    assert set(BUILTINS) <= set(types)
    assert types == sorted(types)
    out = infer_output(op_type, [desc([4, 5], DataType.INT16, Format.NHWC)])
    assert (out.dtype, out.shape, out.format) == (DataType.INT16, (4, 5), Format.NHWC)


def test_duplicate_registration_is_an_error(op_type: str) -> None:
    opgraph.register(identity_like(op_type))
    with pytest.raises(RegistrationError, match="already registered"):
        opgraph.register(identity_like(op_type))


def test_override_replaces_the_prototype(op_type: str) -> None:
    opgraph.register(identity_like(op_type))
    replacement = OpDef(op_type)
    replacement.input("x")
    replacement.output("y", follow=("x", FollowType.DTYPE))

    @replacement.infer_shape
    def flatten(ctx: InferShapeContext) -> None:
        ctx.set_output_shape(0, [int(np.prod(ctx.input_shape(0)))])

    opgraph.register(replacement, override=True)
    assert infer_output(op_type, [desc([2, 3])]).shape == (6,)


def test_builtin_cannot_be_replaced_without_override() -> None:
    with pytest.raises(RegistrationError, match="Add"):
        opgraph.register(identity_like("Add"))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda op: op.output("a", follow="b").output("b", follow="a"),
            "form a ring",
        ),
        (
            lambda op: op.output("a", follow="b").output("b", follow="c").output("c", follow="a"),
            "form a ring",
        ),
        (lambda op: op.output("y", dtypes=[DataType.FLOAT]), "infer_shape"),
        (lambda op: op.output("y", follow=("x", FollowType.DTYPE)), "infer_shape"),
        (lambda op: op.output("y", follow=("x", FollowType.SHAPE)), "infer_dtype"),
        (lambda op: op.output("y", follow="nope"), "not a port"),
        (lambda op: op.output("x", follow="x"), "used twice"),
        (lambda op: op.output("y", param_type=OPTIONAL, follow="x"), "OPTIONAL"),
    ],
    ids=[
        "ring_of_two",
        "ring_of_three",
        "no_shape_rule",
        "dtype_follow_only",
        "no_dtype_rule",
        "follow_unknown_port",
        "duplicate_port",
        "optional_output",
    ],
)
def test_invalid_prototypes_are_rejected(op_type: str, build: Any, message: str) -> None:
    op = OpDef(op_type)
    op.input("x")
    build(op)
    with pytest.raises(RegistrationError, match=message):
        opgraph.register(op)
    assert op_type not in opgraph.registered_op_types()


def test_mismatched_parallel_dtype_lists_are_rejected(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16])
    op.input("w", dtypes=[DataType.FLOAT, DataType.FLOAT16])
    op.output("y", dtypes=[DataType.FLOAT], follow=("x", FollowType.SHAPE))
    with pytest.raises(RegistrationError, match="different lengths"):
        opgraph.register(op)


def test_dtypes_and_dtype_list_together_is_a_type_error(op_type: str) -> None:
    with pytest.raises(TypeError):
        OpDef(op_type).input("x", dtypes=[DataType.FLOAT], dtype_list=[DataType.FLOAT])


@pytest.mark.parametrize(
    ("attr_type", "default"),
    [
        (int, "3"),
        (int, 1.5),
        (int, True),
        (float, True),
        (bool, 1),
        (str, 3),
        (DataType, "FLOAT"),
        (list[int], [1.5]),
        (list[int], ["a"]),
        (list[str], [1, 2]),
        (list[list[int]], [1, 2]),
    ],
)
def test_attr_default_of_wrong_type_is_rejected(op_type: str, attr_type: object, default: object) -> None:
    op = identity_like(op_type)
    op.attr("k", attr_type, default=default)
    with pytest.raises((RegistrationError, TypeError)):
        opgraph.register(op)
    assert op_type not in opgraph.registered_op_types()


def test_duplicate_attr_is_rejected(op_type: str) -> None:
    op = identity_like(op_type).attr("k", int, default=1).attr("k", int, default=2)
    with pytest.raises(RegistrationError, match="declared twice"):
        opgraph.register(op)


def test_unsupported_attr_type_is_a_type_error(op_type: str) -> None:
    with pytest.raises(TypeError):
        OpDef(op_type).attr("k", dict)
    with pytest.raises(TypeError):
        OpDef(op_type).attr("k", list[dict[str, int]])


# ---- Follow ------------------------------------------------------------------


def test_follow_all_copies_dtype_shape_and_format(op_type: str) -> None:
    opgraph.register(identity_like(op_type))
    out = infer_output(op_type, [desc([1, 2, 3, 4], DataType.BF16, Format.NCHW)])
    assert out == desc([1, 2, 3, 4], DataType.BF16, Format.NCHW)


def test_follow_shape_only_with_infer_dtype(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x")
    op.output("y", follow=("x", FollowType.SHAPE))

    @op.infer_dtype
    def to_bool(ctx: InferDataTypeContext) -> None:
        ctx.set_output_dtype(0, DataType.BOOL)

    opgraph.register(op)
    out = infer_output(op_type, [desc([5, 6], DataType.FLOAT, Format.NHWC)])
    assert out.dtype is DataType.BOOL
    assert out.shape == (5, 6)
    assert out.format is Format.ND  # the format is not followed


def test_follow_is_transitive_through_outputs(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x")
    op.input("w")
    op.output("first", follow="second")
    op.output("second", follow="w")
    opgraph.register(op)
    graph, out = one_node_graph(
        op_type, [desc([1], DataType.INT8), desc([7, 8], DataType.UINT16, Format.NCHW)]
    )
    opgraph.infer(graph)
    expected = desc([7, 8], DataType.UINT16, Format.NCHW)
    assert graph.desc(out) == expected
    assert graph.desc(out.output(1)) == expected


def test_follow_of_mixed_kinds_combines_sources(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("a")
    op.input("b")
    op.output("y", follow=("a", FollowType.SHAPE))

    @op.infer_dtype
    def from_b(ctx: InferDataTypeContext) -> None:
        ctx.set_output_dtype(0, ctx.input_dtype(1))

    opgraph.register(op)
    out = infer_output(op_type, [desc([3], DataType.FLOAT), desc([9, 9], DataType.INT64)])
    assert (out.dtype, out.shape) == (DataType.INT64, (3,))


def test_input_following_another_input_must_agree(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x")
    op.input("y", follow=("x", FollowType.DTYPE))
    op.output("z", follow="x")
    opgraph.register(op)
    ok = infer_output(op_type, [desc([2], DataType.INT32), desc([3], DataType.INT32)])
    assert ok.shape == (2,)
    with pytest.raises(VerifyError, match="must have the dtype of 'x'"):
        infer_output(op_type, [desc([2], DataType.INT32), desc([2], DataType.FLOAT)])


def test_input_formats_are_checked(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x", formats=[Format.NCHW])
    op.output("y", follow="x")
    opgraph.register(op)
    assert infer_output(op_type, [desc([1], fmt=Format.NCHW)]).format is Format.NCHW
    assert infer_output(op_type, [desc([1], fmt=Format.ND)]).format is Format.ND
    with pytest.raises(VerifyError, match="format"):
        infer_output(op_type, [desc([1], fmt=Format.NHWC)])


# ---- attributes ----------------------------------------------------------------

ATTR_CASES: list[tuple[str, object, object, object]] = [
    # name, type, default, a different value set on the node
    ("i", int, 7, -(2**40)),
    ("f", float, 2.5, -0.125),
    ("b", bool, True, False),
    ("s", str, "same", "VALID"),
    ("d", DataType, DataType.FLOAT16, DataType.BF16),
    ("li", list[int], [1, -2, 3], [2**62]),
    ("lf", list[float], [0.5, 1.5], [-1.0]),
    ("ls", list[str], ["a", "b"], ["NCHW"]),
    ("lb", list[bool], [True, False], [False, False, True]),
    ("ld", list[DataType], [DataType.INT8, DataType.BOOL], [DataType.UINT64]),
    ("lli", list[list[int]], [[1, 2], [3]], [[], [4, 5, 6]]),
]
ATTR_TYPE_NAMES = {
    "i": "int",
    "f": "float",
    "b": "bool",
    "s": "str",
    "d": "DataType",
    "li": "list[int]",
    "lf": "list[float]",
    "ls": "list[str]",
    "lb": "list[bool]",
    "ld": "list[DataType]",
    "lli": "list[list[int]]",
}


def _attr_recorder(op_type: str) -> tuple[OpDef, dict[str, tuple[object, object]]]:
    """An op with every attribute type; its infer function records
    ``(ctx.attr(name), ctx.attr(index))`` per attribute."""
    seen: dict[str, tuple[object, object]] = {}
    op = identity_like(op_type)
    for name, attr_type, default, _value in ATTR_CASES:
        op.attr(name, attr_type, default=default)

    @op.infer_shape
    def record(ctx: InferShapeContext) -> None:
        for index, (name, *_rest) in enumerate(ATTR_CASES):
            seen[name] = (ctx.attr(name), ctx.attr(index))
        ctx.set_output_shape(0, ctx.input_shape(0))

    return op, seen


def test_attr_defaults_reach_the_context_by_name_and_index(op_type: str) -> None:
    op, seen = _attr_recorder(op_type)
    opgraph.register(op)
    infer_output(op_type, [desc([1])])
    for name, _type, default, _value in ATTR_CASES:
        by_name, by_index = seen[name]
        assert by_name == default, name
        assert by_index == default, name
        assert type(by_name) is type(default), name


def test_attr_values_set_on_the_node_reach_the_context(op_type: str) -> None:
    op, seen = _attr_recorder(op_type)
    opgraph.register(op)
    graph, _out = one_node_graph(op_type, [desc([1])], {n: v for n, _t, _d, v in ATTR_CASES})
    opgraph.infer(graph)
    for name, _type, _default, value in ATTR_CASES:
        assert seen[name] == (value, value), name
    assert graph.node("node").attrs == {n: v for n, _t, _d, v in ATTR_CASES}


def test_attr_dtypes_come_back_as_data_type_members(op_type: str) -> None:
    op, seen = _attr_recorder(op_type)
    opgraph.register(op)
    infer_output(op_type, [desc([1])])
    assert seen["d"][0] is DataType.FLOAT16
    ld = seen["ld"][0]
    assert isinstance(ld, list)
    assert all(isinstance(d, DataType) for d in ld)


def test_op_def_reports_attr_types_and_defaults(op_type: str) -> None:
    op, _seen = _attr_recorder(op_type)
    op.attr("required_one", int)
    opgraph.register(op)
    attrs = opgraph.op_def(op_type).attrs
    assert [a.name for a in attrs] == [c[0] for c in ATTR_CASES] + ["required_one"]
    for spec, (name, _type, default, _value) in zip(attrs[:-1], ATTR_CASES, strict=True):
        assert spec.type_name == ATTR_TYPE_NAMES[name]
        assert spec.default == default
        assert not spec.required
    assert attrs[-1].required
    assert attrs[-1].type_name == "int"


def test_int_default_for_float_attr_is_widened(op_type: str) -> None:
    op = identity_like(op_type).attr("scale", float, default=2)
    opgraph.register(op)
    (spec,) = opgraph.op_def(op_type).attrs
    assert spec.default == 2.0
    assert isinstance(spec.default, float)


def test_int_value_for_float_attr_is_widened_on_the_node(op_type: str) -> None:
    seen: list[float] = []
    op = identity_like(op_type).attr("scale", float, default=1.0)

    @op.infer_shape
    def record(ctx: InferShapeContext) -> None:
        seen.append(ctx.attr_float("scale"))
        ctx.set_output_shape(0, ctx.input_shape(0))

    opgraph.register(op)
    infer_output(op_type, [desc([1])], {"scale": 3})
    assert seen == [3.0]


def test_required_attr_missing_is_a_verify_error(op_type: str) -> None:
    opgraph.register(identity_like(op_type).attr("k", int))
    with pytest.raises(VerifyError, match="required attribute 'k'") as info:
        infer_output(op_type, [desc([1])])
    assert info.value.node == "node"
    assert info.value.op_type == op_type
    assert infer_output(op_type, [desc([1])], {"k": 1}).shape == (1,)


def test_attr_of_wrong_type_on_the_node_is_a_verify_error(op_type: str) -> None:
    opgraph.register(identity_like(op_type).attr("k", int))
    with pytest.raises(VerifyError, match="attribute 'k' is a str, expected int"):
        infer_output(op_type, [desc([1])], {"k": "three"})


# ---- inspection ----------------------------------------------------------------


def test_op_def_of_builtin_conv2d() -> None:
    conv = opgraph.op_def("Conv2D")
    assert conv.builtin
    assert conv.op_type == "Conv2D"
    assert [(p.name, p.param_type) for p in conv.inputs] == [
        ("x", REQUIRED),
        ("filter", REQUIRED),
        ("bias", OPTIONAL),
        ("offset_w", OPTIONAL),
    ]
    assert [p.name for p in conv.outputs] == ["y"]
    assert conv.inputs[0].dtypes == (DataType.FLOAT16, DataType.FLOAT, DataType.INT8, DataType.BF16)
    assert conv.outputs[0].dtypes == (DataType.FLOAT16, DataType.FLOAT, DataType.INT32, DataType.BF16)
    attrs = {a.name: a for a in conv.attrs}
    assert set(attrs) >= {"strides", "pads", "dilations", "groups", "data_format"}
    assert attrs["strides"].required and attrs["pads"].required
    assert attrs["dilations"].default == [1, 1, 1, 1]
    assert attrs["groups"].default == 1
    assert attrs["data_format"].default == "NHWC"


def test_op_def_of_builtin_reshape_marks_shape_value_depend() -> None:
    reshape = opgraph.op_def("Reshape")
    shape = reshape.inputs[1]
    assert shape.name == "shape"
    assert shape.value_depend is ValueDepend.REQUIRED
    assert shape.dtype_list
    assert set(shape.dtypes) == {DataType.INT32, DataType.INT64}
    assert reshape.outputs[0].follow == ("x", FollowType.DTYPE)


def test_op_def_round_trips_a_user_prototype(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16], formats=[Format.NCHW, Format.NHWC])
    op.input("shape", dtype_list=[DataType.INT32], value_depend=ValueDepend.OPTIONAL)
    op.input("extra", param_type=DYNAMIC)
    op.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16], follow=("x", FollowType.SHAPE))
    op.output("z", param_type=DYNAMIC, follow="x")
    opgraph.register(op)
    back = opgraph.op_def(op_type)
    assert not back.builtin
    assert back.inputs == op.inputs
    assert back.outputs == op.outputs


def test_op_def_of_unknown_type_raises() -> None:
    with pytest.raises(opgraph.UnknownOpTypeError):
        opgraph.op_def("DefinitelyNotRegistered")


def test_opdef_builder_methods_chain(op_type: str) -> None:
    op = OpDef(op_type)
    assert op.input("x") is op
    assert op.output("y", follow="x") is op
    assert op.attr("k", int, default=0) is op
    assert "x" in repr(op) and "y" in repr(op)


def test_decorators_return_the_function_unchanged(op_type: str) -> None:
    op = identity_like(op_type)

    def shape_fn(ctx: InferShapeContext) -> None:
        ctx.set_output_shape(0, [])

    assert op.infer_shape(shape_fn) is shape_fn
    assert op.infer_shape_fn is shape_fn


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (
            lambda op: op.attr("pads", list[int, float]),  # type: ignore[misc]  # the mistake under test
            r"op '\w+' attribute 'pads': list\[int, float\] is not an attribute type",
        ),
        (
            lambda op: op.output("y", follow=("x",)),
            r"port 'y': follow is a port name or \(port name, FollowType\), got \('x',\)",
        ),
        (lambda op: op.output("y", follow=("x", 7)), r"port 'y': follow is .*, got \('x', 7\)"),
        (
            lambda op: op.input("z", dtypes=["float32"]),
            r"port 'z': dtypes holds 'float32', which is not a DataType \(e.g. DataType.FLOAT\)",
        ),
        (
            lambda op: op.input("z", param_type="optional"),
            r"port 'z': param_type is a ParamType .*, got 'optional'",
        ),
    ],
)
def test_a_prototype_mistake_names_the_port_or_attribute(build: Any, expected: str) -> None:
    op = opgraph.OpDef(unique_name("Proto"))
    op.input("x")
    with pytest.raises(TypeError, match=expected):
        build(op)


@pytest.mark.parametrize(
    ("attr_type", "default", "expected"),
    [
        (str, None, r"attribute 'mode': the default None: NoneType None is not a supported attribute type"),
        (list[int], [1, "2"], r"attribute 'mode': the default \[1, '2'\]"),
    ],
)
def test_a_bad_attribute_default_names_the_op_and_attribute(
    attr_type: Any, default: Any, expected: str
) -> None:
    op = opgraph.OpDef(unique_name("Defaults"))
    op.input("x")
    op.output("y", follow="x")
    op.attr("mode", attr_type, default=default)
    with pytest.raises(TypeError, match=rf"op '{op.op_type}' {expected}"):
        opgraph.register(op)


def test_register_takes_an_op_def() -> None:
    with pytest.raises(TypeError, match=r"register\(\) takes an OpDef, got str 'MyOp'"):
        opgraph.register("MyOp")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [np.float16, np.dtype("float16")])
def test_a_numpy_dtype_as_an_attribute_points_to_data_type(value: Any) -> None:
    graph = opgraph.Graph("g")
    x = graph.add_input("x", DataType.FLOAT, [2])
    with pytest.raises(
        TypeError, match=r"a dtype attribute takes an opgraph.DataType, e.g. DataType.FLOAT16"
    ):
        graph.add_node("Cast", "cast", [x], {"dst_type": value})
