"""Uses ``opgraph.testing`` with precise annotations; must pass
``mypy --strict tests/typing/check_testing_api.py`` from the repository root.
``main()`` runs it (tests/test_typing_examples.py), so every line
is working code: a user op checked against numpy, strategies in a hand-written
``@given`` test, and the overrides each keyword takes."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import opgraph
from opgraph import DYNAMIC, DataType, InferShapeContext, OpDef
from opgraph.testing import (
    OpCase,
    Outcome,
    attr_values,
    check_case,
    check_inference,
    checked_op_type,
    dtype_choices,
    op_cases,
    related_shapes,
    shapes,
)

Array = npt.NDArray[Any]


def scale_def() -> OpDef:
    op = OpDef(f"TypedScale_{uuid.uuid4().hex[:8]}")
    op.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16])
    op.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16], follow="x")
    op.attr("factor", float, default=1.0)
    return op


def concat_def() -> OpDef:
    op = OpDef(f"TypedConcat_{uuid.uuid4().hex[:8]}")
    op.input("xs", param_type=DYNAMIC, dtypes=[DataType.FLOAT])
    op.output("y", dtypes=[DataType.FLOAT])
    op.attr("axis", int, default=0)

    @op.infer_shape
    def infer(ctx: InferShapeContext) -> None:
        count = ctx.dynamic_input_count(0)
        if count == 0:
            raise ValueError("nothing to concatenate")
        parts = [ctx.dynamic_input_shape(0, k) for k in range(count)]
        rank = len(parts[0])
        axis = ctx.attr_int("axis")
        if not -rank <= axis < rank or any(len(p) != rank for p in parts):
            raise ValueError(f"axis {axis} or ranks {parts} do not fit")
        axis %= rank
        rest = {p[:axis] + p[axis + 1 :] for p in parts}
        if len(rest) > 1:
            raise ValueError(f"shapes {parts} differ off axis {axis}")
        ctx.set_output_shape(0, (*parts[0][:axis], sum(p[axis] for p in parts), *parts[0][axis + 1 :]))

    return op


def concatenate(xs: list[Array], *, axis: int) -> Array:
    return np.concatenate(xs, axis=axis)


def concat_axis(arrays: Mapping[str, Array]) -> st.SearchStrategy[int]:
    rank = max((a.ndim for a in arrays.values()), default=1)
    return st.integers(-rank, max(rank - 1, 0))


def main() -> None:
    scale = scale_def()
    check_inference(scale, lambda x, factor: x * factor, max_examples=50)
    check_inference("Add", np.add, shapes=mutually_broadcastable_shapes(num_shapes=2), max_examples=20)
    check_inference(
        concat_def(),
        concatenate,
        attrs={"axis": concat_axis},
        dynamic_sizes=(1, 3),
        settings=settings(max_examples=50),
    )

    definition, op_type = checked_op_type(scale)
    assert op_type.startswith(definition.op_type)
    dtypes: st.SearchStrategy[dict[str, DataType]] = dtype_choices(definition)
    attrs: st.SearchStrategy[dict[str, object]] = attr_values(definition, {"factor": st.just(2.0)})
    assert dtypes is not None and attrs is not None
    pair: st.SearchStrategy[tuple[tuple[int, ...], ...]] = related_shapes(2, max_rank=3)
    assert pair is not None

    @settings(max_examples=20)
    @given(op_cases(scale, shapes=st.tuples(shapes(max_rank=2)), dtypes=[DataType.FLOAT]))
    def each_case(case: OpCase) -> None:
        check_case(definition, op_type, lambda x, factor: x * factor, case)
        outcome: Outcome = Outcome(((DataType.FLOAT, case.inputs[0].instances[0].shape),))
        assert not outcome.rejected

    each_case()
    assert isinstance(opgraph.op_def("Add"), OpDef)


if __name__ == "__main__":
    main()
