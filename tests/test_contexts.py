"""The verify / infer contexts: standalone construction for unit-testing op
functions, every accessor, typed attribute getters, index rules and the
errors of bad use; and TensorDesc itself."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from helpers import identity_like

import opgraph
from opgraph import (
    ContextError,
    DataType,
    Format,
    GraphError,
    InferDataTypeContext,
    InferShapeContext,
    TensorDesc,
    UnknownOpTypeError,
    VerifyContext,
)

F, I32 = DataType.FLOAT, DataType.INT32


def _conv_context() -> InferShapeContext:
    return InferShapeContext.standalone(
        "Conv2D",
        [TensorDesc(F, [1, 3, 8, 8], Format.NCHW), TensorDesc(F, [4, 3, 3, 3], "NCHW"), None, None],
        {"strides": [1, 1, 2, 2], "pads": [0, 1, 0, 1], "data_format": "NCHW"},
        name="conv",
    )


def test_standalone_add_runs_a_user_function() -> None:
    def broadcast_like_numpy(ctx: InferShapeContext) -> None:
        shape = np.broadcast_shapes(ctx.input_shape(0), ctx.input_shape(1))
        ctx.set_output_shape(0, shape)

    ctx = InferShapeContext.standalone("Add", [TensorDesc(F, [2, 1]), TensorDesc(F, [3])])
    assert ctx.output_desc(0).dtype is DataType.UNDEFINED  # nothing set yet
    broadcast_like_numpy(ctx)
    assert ctx.output_desc(0).shape == (2, 3)


def test_standalone_runs_a_registered_user_functions(op_type: str) -> None:
    op = identity_like(op_type).attr("repeat", int, default=2)

    @op.verify
    def verify(ctx: VerifyContext) -> bool:
        return ctx.attr_int("repeat") > 0

    @op.infer_dtype
    def infer_dtype(ctx: InferDataTypeContext) -> None:
        ctx.set_output_dtype(0, DataType.DOUBLE)

    @op.infer_shape
    def infer_shape(ctx: InferShapeContext) -> None:
        (n,) = ctx.input_shape(0)
        ctx.set_output_shape(0, [n * ctx.attr_int("repeat")])

    opgraph.register(op)
    inputs = [TensorDesc(F, [5])]
    assert verify(VerifyContext.standalone(op_type, inputs)) is True
    assert verify(VerifyContext.standalone(op_type, inputs, {"repeat": 0})) is False
    dtype_ctx = InferDataTypeContext.standalone(op_type, inputs)
    infer_dtype(dtype_ctx)
    assert dtype_ctx.output_desc(0).dtype is DataType.DOUBLE
    shape_ctx = InferShapeContext.standalone(op_type, inputs, {"repeat": 3})
    infer_shape(shape_ctx)
    assert shape_ctx.output_desc(0).shape == (15,)


def test_standalone_context_stays_valid_after_use() -> None:
    ctx = InferShapeContext.standalone("Identity", [TensorDesc(F, [2])])
    ctx.set_output_shape(0, [2])
    ctx.set_output_shape(0, [4])
    assert ctx.output_desc(0).shape == (4,)
    assert ctx.input_shape(0) == (2,)


def test_node_identity() -> None:
    ctx = _conv_context()
    assert ctx.node_name == "conv"
    assert ctx.op_type == "Conv2D"
    assert InferShapeContext.standalone("Identity", [TensorDesc(F, [])]).node_name == "node"


def test_input_accessors() -> None:
    ctx = _conv_context()
    assert ctx.input_count() == 4
    assert ctx.input_shape(0) == (1, 3, 8, 8)
    assert ctx.input_dtype(1) is F
    assert ctx.input_format(0) is Format.NCHW
    assert ctx.input_desc(1) == TensorDesc(F, [4, 3, 3, 3], Format.NCHW)
    assert ctx.input_desc(2) is None
    assert ctx.output_count() == 1


def test_optional_inputs_by_prototype_index() -> None:
    ctx = _conv_context()
    assert ctx.optional_input_shape(2) is None
    assert ctx.optional_input_desc(3) is None
    with_bias = InferShapeContext.standalone(
        "Conv2D",
        [TensorDesc(F, [1, 8, 8, 3]), TensorDesc(F, [3, 3, 3, 4]), TensorDesc(F, [4])],
        {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0]},
    )
    assert with_bias.optional_input_shape(2) == (4,)
    assert with_bias.optional_input_desc(2) == TensorDesc(F, [4])


def test_dynamic_inputs_by_ir_and_relative_index() -> None:
    ctx = InferShapeContext.standalone(
        "PartitionedCall", [[TensorDesc(F, [1]), TensorDesc(DataType.INT8, [2, 2])]]
    )
    assert ctx.dynamic_input_count(0) == 2
    assert ctx.dynamic_input_shape(0, 1) == (2, 2)
    assert ctx.dynamic_input_dtype(0, 1) is DataType.INT8
    assert ctx.dynamic_input_desc(0, 0) == TensorDesc(F, [1])
    with pytest.raises(ContextError, match="2 instances"):
        ctx.dynamic_input_shape(0, 2)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda c: c.input_shape(2), "absent"),
        (lambda c: c.input_shape(10), "out of range"),
        (lambda c: c.optional_input_shape(9), "out of range"),
        (lambda c: c.attr("nope"), "not set"),
        (lambda c: c.attr(99), "no attribute at index 99"),
        (lambda c: c.attr_int("strides"), "expected int"),
        (lambda c: c.attr_str("groups"), "expected str"),
        (lambda c: c.attr_list_str("pads"), "expected list\\[str\\]"),
        (lambda c: c.output_desc(1), "out of range"),
        (lambda c: c.set_output_shape(3, [1]), "out of range"),
    ],
)
def test_bad_context_use_is_a_context_error(
    call: Callable[[InferShapeContext], object], message: str
) -> None:
    ctx = _conv_context()
    with pytest.raises(ContextError, match=message):
        call(ctx)


def test_attributes_by_name_index_and_typed_getters() -> None:
    ctx = _conv_context()
    assert ctx.attr("strides") == [1, 1, 2, 2]
    assert ctx.attr(0) == [1, 1, 2, 2]  # prototype order: strides, pads, dilations, ...
    assert ctx.attr(1) == [0, 1, 0, 1]
    assert ctx.attr(2) == [1, 1, 1, 1]  # default
    assert ctx.attr_list_int("pads") == [0, 1, 0, 1]
    assert ctx.attr_int("groups") == 1
    assert ctx.attr_str("data_format") == "NCHW"
    assert ctx.has_attr("groups")  # from its default
    assert not ctx.has_attr("nope")


def test_typed_getters_of_every_kind(op_type: str) -> None:
    op = identity_like(op_type)
    op.attr("f", float, default=0.25)
    op.attr("b", bool, default=True)
    op.attr("d", DataType, default=DataType.BF16)
    op.attr("lf", list[float], default=[1.5, -2.0])
    op.attr("ls", list[str], default=["a", "b"])
    opgraph.register(op)
    ctx = InferShapeContext.standalone(op_type, [TensorDesc(F, [1])], {"b": False})
    assert ctx.attr_float("f") == 0.25
    assert ctx.attr_bool("b") is False
    assert ctx.attr_dtype("d") is DataType.BF16
    assert ctx.attr_list_float("lf") == [1.5, -2.0]
    assert ctx.attr_list_str("ls") == ["a", "b"]


def test_input_tensor_only_for_value_depend_inputs() -> None:
    shape = np.array([2, 3], dtype=np.int32)
    ctx = InferShapeContext.standalone(
        "Reshape",
        [TensorDesc(F, [6], value=np.arange(6, dtype=np.float32)), TensorDesc(I32, [2], value=shape)],
    )
    tensor = ctx.input_tensor(1)
    assert tensor is not None
    np.testing.assert_array_equal(tensor, shape)
    assert ctx.input_tensor(0) is None  # x has a value but is not value-depend
    no_value = InferShapeContext.standalone("Reshape", [TensorDesc(F, [6]), TensorDesc(I32, [2])])
    assert no_value.input_tensor(1) is None


def test_set_output_shape_range_and_format() -> None:
    ctx = InferShapeContext.standalone("Identity", [TensorDesc(F, [2, 3])])
    ctx.set_output_shape(0, [-1, 3])
    ctx.set_output_shape_range(0, [(1, 16), (3, 3)])
    ctx.set_output_format(0, Format.NHWC)
    out = ctx.output_desc(0)
    assert out.shape == (-1, 3)
    assert out.shape_range == [(1, 16), (3, 3)]
    assert out.format is Format.NHWC
    ctx.set_output_format(0, "NCHW")
    assert ctx.output_desc(0).format is Format.NCHW


@pytest.mark.parametrize(("shape", "error"), [([-3], ValueError), ([1, -2], ValueError), ("x", TypeError)])
def test_set_output_shape_rejects_invalid_shapes(shape: object, error: type[Exception]) -> None:
    ctx = InferShapeContext.standalone("Identity", [TensorDesc(F, [2])])
    with pytest.raises(error):
        ctx.set_output_shape(0, shape)  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error


def test_set_output_dtype_on_a_dtype_context() -> None:
    ctx = InferDataTypeContext.standalone("Add", [TensorDesc(F, [2, 1]), TensorDesc(F, [3])])
    assert ctx.input_dtype(0) is F
    ctx.set_output_dtype(0, DataType.FLOAT16)
    assert ctx.output_desc(0).dtype is DataType.FLOAT16


def test_each_context_kind_only_has_its_own_setters() -> None:
    inputs = [TensorDesc(F, [1]), TensorDesc(F, [1])]
    assert not hasattr(VerifyContext.standalone("Add", inputs), "set_output_shape")
    assert not hasattr(VerifyContext.standalone("Add", inputs), "set_output_dtype")
    assert not hasattr(InferDataTypeContext.standalone("Add", inputs), "set_output_shape")
    assert not hasattr(InferShapeContext.standalone("Add", inputs), "set_output_dtype")
    for kind in (VerifyContext, InferDataTypeContext, InferShapeContext):
        assert issubclass(kind, opgraph.OpContext)


def test_standalone_of_unknown_op_type_raises() -> None:
    with pytest.raises(UnknownOpTypeError):
        InferShapeContext.standalone("NoSuchOp", [])


def test_standalone_with_missing_required_input_raises() -> None:
    with pytest.raises(GraphError, match="required input 'x2'"):
        InferShapeContext.standalone("Add", [TensorDesc(F, [1])])


# ---- TensorDesc -------------------------------------------------------------------


def test_tensor_desc_fields_and_equality() -> None:
    d = TensorDesc(F, [1, 2, 3, 4], Format.NCHW, shape_range=[(1, 1), (2, 2), (3, 3), (4, 4)])
    assert d.dtype is F
    assert d.shape == (1, 2, 3, 4)
    assert d.format is Format.NCHW
    assert d.storage_format is Format.NCHW
    assert d.storage_shape == (1, 2, 3, 4)
    assert d.shape_range == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert d.value is None
    assert TensorDesc(F, [2]) == TensorDesc(F, (2,), Format.ND)
    assert TensorDesc(F, [2]) != TensorDesc(F, [2], Format.NCHW)
    assert TensorDesc(F, [2]) != TensorDesc(I32, [2])
    assert TensorDesc(F, [2]) != TensorDesc(F, [3])
    assert TensorDesc(F, [2]) != "TensorDesc"


def test_tensor_desc_default_format_is_nd() -> None:
    assert TensorDesc(F, [3]).format is Format.ND


def test_tensor_desc_value_round_trips() -> None:
    value = np.array([[1, 2], [3, 4]], dtype=np.int16)
    d = TensorDesc(DataType.INT16, [2, 2], value=value)
    assert d.value is not None
    np.testing.assert_array_equal(d.value, value)
    assert d.value.dtype == np.int16


def test_tensor_desc_scalar_value_keeps_rank_zero() -> None:
    d = TensorDesc(DataType.INT64, [], value=np.array(7, dtype=np.int64))
    assert d.shape == ()
    assert d.value is not None
    assert d.value.shape == ()
    assert d.value.item() == 7


def test_tensor_desc_is_unhashable() -> None:
    with pytest.raises(TypeError):
        hash(TensorDesc(F, [1]))


@pytest.mark.parametrize(
    "value",
    [np.zeros(2, np.int8), np.zeros(5, np.float32), np.zeros((2, 1), np.float32)],
    ids=["wrong_dtype", "wrong_element_count", "wrong_shape"],
)
def test_tensor_desc_rejects_a_value_that_contradicts_it(value: np.ndarray) -> None:
    # a float[2] descriptor cannot hold an int8 value, five elements, or a 2-D value
    with pytest.raises((ValueError, TypeError)):
        TensorDesc(F, [2], value=value)
