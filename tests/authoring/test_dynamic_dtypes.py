"""Issue 18 item 5: a dtype mismatch in a dynamic input shows every
element's dtype and says that the elements of one dynamic input share one
dtype."""

from __future__ import annotations

import pytest

import opgraph
from opgraph import DYNAMIC, DataType, Graph, InferShapeContext, OpDef, VerifyError


def shaped(op: OpDef) -> None:
    @op.infer_shape
    def infer(ctx: InferShapeContext) -> None:
        ctx.set_output_shape(0, [2])


def test_mixed_dynamic_input_names_each_element(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16], param_type=DYNAMIC)
    op.input("axis", dtypes=[DataType.INT32, DataType.INT32])
    op.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16])
    shaped(op)
    opgraph.register(op)
    g = Graph("g")
    a = g.add_input("a", DataType.FLOAT, [2])
    b = g.add_input("b", DataType.FLOAT16, [2])
    axis = g.add_input("axis", DataType.INT32, [])
    g.set_outputs([g.add_node(op_type, "cat", [[a, b], axis])])
    with pytest.raises(VerifyError) as raised:
        opgraph.infer(g)
    message = str(raised.value)
    assert (
        "its input dtypes (x[0]=FLOAT, x[1]=FLOAT16, axis=INT32) match none of the allowed "
        "combinations (FLOAT, INT32), (FLOAT16, INT32); the elements of one dynamic input share "
        "one dtype, and 'x' mixes them"
    ) in message


def test_uniform_dynamic_input_has_no_mixing_hint(op_type: str) -> None:
    op = OpDef(op_type)
    op.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16], param_type=DYNAMIC)
    op.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16])
    shaped(op)
    opgraph.register(op)
    g = Graph("g")
    a = g.add_input("a", DataType.INT8, [2])
    b = g.add_input("b", DataType.INT8, [2])
    g.set_outputs([g.add_node(op_type, "cat", [[a, b]])])
    with pytest.raises(VerifyError) as raised:
        opgraph.infer(g)
    assert "(x[0]=INT8, x[1]=INT8) match none" in str(raised.value)
    assert "share one dtype" not in str(raised.value)
