"""Property-based checks of an op's inference rules with ``opgraph.testing``
(the "Fuzzing an op" guide includes this file). Needs ``opgraph[testing]``.

    python docs/examples/fuzz_op.py
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from opgraph import DataType, InferShapeContext, OpDef
from opgraph.testing import OpCase, check_case, check_inference, checked_op_type, op_cases

# Repeat(x) = numpy.repeat(x, repeats, axis): the axis dim grows `repeats` times.
repeat = OpDef("DocsRepeat")
repeat.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16, DataType.INT32])
repeat.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16, DataType.INT32], follow="x")
repeat.attr("repeats", int)
repeat.attr("axis", int, default=0)


@repeat.infer_shape
def infer_repeat(ctx: InferShapeContext) -> None:
    shape = list(ctx.input_shape(0))
    repeats, axis = ctx.attr_int("repeats"), ctx.attr_int("axis")
    if repeats < 0:
        raise ValueError(f"repeats must be >= 0, got {repeats}")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of range for rank {len(shape)}")
    axis %= len(shape)
    if shape[axis] >= 0:
        shape[axis] *= repeats
    ctx.set_output_shape(0, shape)


def reference(x: npt.NDArray[Any], repeats: int, axis: int) -> npt.NDArray[Any]:
    """What the op computes, in numpy: check_inference compares the dtypes and
    shapes of its results with what inference says, case by case. Raising
    rejects a case, which inference must then reject too."""
    if x.ndim == 0:
        # numpy repeats a scalar as a 1-D array whatever the axis; this op
        # has no axis to repeat along and rejects it (found by the first run).
        raise ValueError("a scalar has no axis to repeat")
    return np.repeat(x, repeats, axis=axis)


# The prototype says nothing about the range of `repeats` or `axis`: the
# strategies do. Out-of-range axes are drawn on purpose: both sides must
# reject them (rank-0 inputs too).
ATTRS = {"repeats": st.integers(0, 3), "axis": st.integers(-3, 2)}

check_inference(repeat, reference, attrs=ATTRS, max_examples=100)

# A bug is found and shrunk to a small case: this rule forgets negative axes.
buggy = OpDef("DocsRepeatBuggy")
buggy.input("x", dtypes=[DataType.FLOAT])
buggy.output("y", dtypes=[DataType.FLOAT], follow="x")
buggy.attr("repeats", int)
buggy.attr("axis", int, default=0)


@buggy.infer_shape
def infer_buggy(ctx: InferShapeContext) -> None:
    shape = list(ctx.input_shape(0))
    axis = ctx.attr_int("axis")
    if not 0 <= axis < len(shape):
        raise ValueError(f"axis {axis} is out of range")
    shape[axis] *= ctx.attr_int("repeats")
    ctx.set_output_shape(0, shape)


try:
    check_inference(buggy, reference, attrs=ATTRS, max_examples=200)
except AssertionError as failure:
    report = str(failure)
    assert "rejected" in report, report  # opgraph rejected axis=-1, numpy did not
    print(report)
else:
    raise AssertionError("the bug was not found")


# The case strategy is public: write your own properties over drawn cases,
# e.g. that every drawn axis in range gives a non-negative element count.
@settings(max_examples=50, deadline=None)
@given(op_cases(repeat, attrs=ATTRS))
def test_repeat_cases(case: OpCase) -> None:
    op, op_type = checked_op_type(repeat)  # the prototype, and the type to check it under
    check_case(op, op_type, reference, case)  # raises AssertionError on a disagreement
    assert case.op_type == "DocsRepeat" and len(case.inputs) == 1


test_repeat_cases()
