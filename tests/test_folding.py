"""Value folding: constants flow through foldable ops into value-depend
inputs, bounded by ``fold_limit``."""

from __future__ import annotations

import numpy as np

import opgraph
from opgraph import DataType, Graph, InferShapeContext, OpDef


def reshape_through_identity(fold_limit: int | None) -> tuple[int, ...]:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (2, 3, 4))
    target = g.add_const("target", np.array([-1, 4], np.int64))
    same = g.add_node("Identity", "same", [target])
    y = g.add_node("Reshape", "y", [x, same])
    opgraph.infer(g, fold_limit=fold_limit)
    assert g.desc(same).value is not None if fold_limit != 0 else g.desc(same).value is None
    return g.desc(y).shape


def test_constants_fold_through_identity() -> None:
    assert reshape_through_identity(None) == (6, 4)


def test_fold_limit_zero_turns_folding_off() -> None:
    assert reshape_through_identity(0) == (-1, -1)


def test_python_ops_see_folded_shape_values(op_type: str) -> None:
    seen: list[tuple[int, ...] | None] = []
    probe = OpDef(op_type)
    probe.input("x")
    probe.output("y", follow="x")

    @probe.infer_shape
    def record(ctx: InferShapeContext) -> None:
        seen.append(ctx.input_shape_value(0))
        ctx.set_output_shape(0, ctx.input_shape(0))

    opgraph.register(probe)
    g = Graph("g")
    target = g.add_const("target", np.array([3, 1, 2], np.int32))
    g.add_node(op_type, "probe", [g.add_node("Identity", "same", [target])])
    opgraph.infer(g)
    assert seen == [(3, 1, 2)]


def test_comparisons_and_select_of_empty_tensors_fold_to_empty_values() -> None:
    # Nothing is known of x's elements, but it has none: Equal and SelectV2
    # over it are empty, a value known whole (ReduceProd of it folds to 1).
    g = Graph("g")
    x = g.add_input("x", DataType.INT64, (0, 3))
    one = g.add_const("one", np.array(1, np.int64))
    equal = g.add_node("Equal", "equal", [x, one])
    ones = g.add_input("ones", DataType.INT64, (1, 3))
    select = g.add_node("SelectV2", "select", [equal, ones, x])
    opgraph.infer(g)
    for tensor in (equal, select):
        value = g.desc(tensor).value
        assert value is not None and value.shape == (0, 3)
