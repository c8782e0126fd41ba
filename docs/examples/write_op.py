"""Two user ops with their inference rules, unit-tested without a graph and
then inferred inside one (the "Writing an op" guide includes this file).

    python docs/examples/write_op.py
"""

from __future__ import annotations

import numpy as np

import opgraph
from opgraph import (
    DYNAMIC,
    OPTIONAL,
    DataType,
    InferDataTypeContext,
    InferShapeContext,
    OpDef,
    TensorDesc,
    ValueDepend,
    VerifyContext,
)

# --- 1. A prototype with a value-depend input -------------------------------
# PadTo(x, target): zero-pads x up to the shape held by the int tensor
# `target`. The output shape is a *value* of an input, so inference needs that
# value: `value_depend=` asks the engine for it (a constant, or something it
# could fold on the host, such as Shape(y)).
pad_to = OpDef("DocsPadTo")
pad_to.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16])
pad_to.input("target", dtype_list=[DataType.INT32, DataType.INT64], value_depend=ValueDepend.OPTIONAL)
pad_to.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16])


@pad_to.verify
def verify_pad_to(ctx: VerifyContext) -> bool:
    # `target` is a vector with one entry per dim of x (when both are known).
    (length,) = ctx.input_shape(1)
    rank = len(ctx.input_shape(0))
    return length < 0 or ctx.input_shape(0) == (-2,) or length == rank


@pad_to.infer_shape
def infer_pad_to(ctx: InferShapeContext) -> None:
    target = ctx.input_shape_value(1)  # the value, element by element (-1 unknown), or None
    if target is None:
        (length,) = ctx.input_shape(1)
        ctx.set_output_shape(0, [-1] * length if length >= 0 else [-2])
        return
    for dim, want in zip(ctx.input_shape(0), target, strict=True):
        if dim >= 0 and want >= 0 and want < dim:
            raise ValueError(f"cannot pad a dim of {dim} down to {want}")
    ctx.set_output_shape(0, target)


# --- 2. A DYNAMIC input, an OPTIONAL input and an infer-dtype function ------
# WeightedSum(x[0..n-1], bias?) = sum(weights[i] * x[i]) + bias, computed in
# `out_dtype`.
weighted_sum = OpDef("DocsWeightedSum")
weighted_sum.input("x", dtype_list=[DataType.FLOAT, DataType.FLOAT16], param_type=DYNAMIC)
weighted_sum.input("bias", dtype_list=[DataType.FLOAT, DataType.FLOAT16], param_type=OPTIONAL)
weighted_sum.output("y", dtype_list=[DataType.FLOAT, DataType.FLOAT16])
weighted_sum.attr("weights", list[float])
weighted_sum.attr("out_dtype", DataType, default=DataType.FLOAT)


@weighted_sum.verify
def verify_weighted_sum(ctx: VerifyContext) -> None:
    count = ctx.dynamic_input_count(0)
    weights = ctx.attr_list_float("weights")
    if len(weights) != count:
        raise ValueError(f"{len(weights)} weights for {count} inputs")
    shapes = {ctx.dynamic_input_shape(0, i) for i in range(count)}
    if len(shapes) > 1:
        raise ValueError(f"the inputs' shapes differ: {sorted(shapes)}")


@weighted_sum.infer_dtype
def infer_weighted_sum_dtype(ctx: InferDataTypeContext) -> None:
    ctx.set_output_dtype(0, ctx.attr_dtype("out_dtype"))


@weighted_sum.infer_shape
def infer_weighted_sum(ctx: InferShapeContext) -> None:
    shape = ctx.dynamic_input_shape(0, 0)
    bias = ctx.optional_input_shape(1)  # by prototype index; None when absent
    if bias is not None and bias not in ((), shape):
        raise ValueError(f"bias {bias} is neither a scalar nor {shape}")
    ctx.set_output_shape(0, shape)


opgraph.register(pad_to, override=True)
opgraph.register(weighted_sum, override=True)

# --- 3. Unit tests: a context over a one-node graph -------------------------
# Inputs are given per prototype input: a TensorDesc, None for an absent
# OPTIONAL input, a list for a DYNAMIC one.
f32 = DataType.FLOAT
ctx = InferShapeContext.standalone(
    "DocsWeightedSum",
    [[TensorDesc(f32, [2, 3]), TensorDesc(f32, [2, 3])], None],
    {"weights": [0.5, 0.5]},
)
infer_weighted_sum(ctx)
assert ctx.output_desc(0).shape == (2, 3)

# A constant input's value reaches the function when the port is value-depend.
target = TensorDesc(DataType.INT64, [2], value=np.array([8, 16], np.int64))
ctx = InferShapeContext.standalone("DocsPadTo", [TensorDesc(f32, [4, 10]), target])
infer_pad_to(ctx)
assert ctx.output_desc(0).shape == (8, 16)

# --- 4. In a graph: the target folded from Shape(y) -------------------------
g = opgraph.Graph("docs_write_op")
x = g.add_input("x", DataType.FLOAT16, [4, 10])
y = g.add_input("y", DataType.FLOAT16, [8, 16])
padded = g.add_node("DocsPadTo", "padded", [x, g.add_node("Shape", "y_shape", [y])])
total = g.add_node("DocsWeightedSum", "total", {"x": [padded, y]}, {"weights": [1.0, 2.0]})
g.set_outputs([total])
opgraph.infer(g)
assert g.desc(padded).shape == (8, 16)
assert g.desc(total).shape == (8, 16) and g.desc(total).dtype == DataType.FLOAT

# --- 5. Errors name the node; collect_errors=True gathers all of them -------
bad = opgraph.Graph("docs_bad")
a = bad.add_input("a", f32, [2, 3])
bad.add_node("DocsWeightedSum", "one_weight", {"x": [a, a]}, {"weights": [1.0]})
bad.add_node("DocsPadTo", "shrink", [a, bad.add_const("small", np.array([1, 3], np.int64))])
try:
    opgraph.infer(bad)
except opgraph.VerifyError as error:
    assert error.node == "one_weight" and "1 weights for 2 inputs" in str(error.__cause__)
else:
    raise AssertionError("expected a VerifyError")
errors = opgraph.infer(bad, collect_errors=True)
assert [type(e).__name__ for e in errors] == ["VerifyError", "InferShapeError"]
print("\n".join(str(e) for e in errors))
