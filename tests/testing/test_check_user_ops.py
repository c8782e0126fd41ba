"""check_inference on user ops: correct ones pass, and wrong shape rules,
dtype rules, too-strict verify functions and unsound handling of unknown dims
fail with an AssertionError naming a shrunk counterexample. Also optional and
dynamic inputs (a SumN op) and which op type an OpDef is checked under."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import strategies as st

import opgraph
from opgraph import DYNAMIC, OPTIONAL, DataType, InferDataTypeContext, InferShapeContext, OpDef, VerifyContext
from opgraph.testing import ShapeSpec, check_inference
from opgraph.testing.check import PRIVATE_SUFFIX

Array = npt.NDArray[Any]
FLOATS = [DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE]


def scale_op(op_type: str) -> OpDef:
    op = OpDef(op_type)
    op.input("x", dtypes=FLOATS)
    op.output("y", dtypes=FLOATS, follow="x")
    op.attr("factor", float, default=1.0)
    return op


def pad_op(op_type: str, *, unknown_aware: bool = True, off_by_one: bool = False) -> OpDef:
    """``y = np.pad(x, 1)``: every dim grows by 2."""
    op = OpDef(op_type)
    op.input("x", dtypes=FLOATS)
    op.output("y", dtypes=FLOATS, follow=("x", opgraph.FollowType.DTYPE))
    grow = 1 if off_by_one else 2

    @op.infer_shape
    def infer(ctx: InferShapeContext) -> None:
        shape = ctx.input_shape(0)
        if shape == (-2,):
            ctx.set_output_shape(0, shape)
            return
        keep = unknown_aware
        ctx.set_output_shape(0, [d if keep and d < 0 else d + grow for d in shape])

    return op


def test_a_correct_user_op_passes_in_three_lines(op_type: str) -> None:
    my_scale_def = scale_op(op_type)
    check_inference(my_scale_def, lambda x, factor: x * factor, max_examples=200)


def test_a_wrong_shape_rule_fails_with_a_shrunk_counterexample(op_type: str) -> None:
    with pytest.raises(AssertionError) as failure:
        check_inference(pad_op(op_type, off_by_one=True), lambda x: np.pad(x, 1))
    message = str(failure.value)
    # np.pad of a scalar is a scalar, so the smallest disagreeing case is x = FLOAT[0]
    assert f"check_inference({op_type}): inference disagrees" in message
    assert "x = FLOAT[0] Data" in message
    assert "reference: y = FLOAT[2]" in message
    assert "inferred:  y = FLOAT[1]" in message
    assert "mismatch:  output 0 shape: reference [2], inferred [1]" in message


def test_the_correct_pad_rule_passes(op_type: str) -> None:
    check_inference(pad_op(op_type), lambda x: np.pad(x, 1))


def test_a_wrong_dtype_rule_fails(op_type: str) -> None:
    op = scale_op(op_type)

    @op.infer_dtype
    def always_float(ctx: InferDataTypeContext) -> None:
        ctx.set_output_dtype(0, DataType.FLOAT)

    with pytest.raises(AssertionError, match=r"output 0 dtype: reference FLOAT16, inferred FLOAT") as failure:
        check_inference(op, lambda x, factor: x * factor)
    # shrunk to a scalar of the first combination that disagrees
    assert "x = FLOAT16[] Data" in str(failure.value)


def test_a_too_strict_verify_fails(op_type: str) -> None:
    op = scale_op(op_type)

    @op.verify
    def no_empty_tensors(ctx: VerifyContext) -> bool:
        return 0 not in ctx.input_shape(0)

    with pytest.raises(AssertionError) as failure:
        check_inference(op, lambda x, factor: x * factor)
    message = str(failure.value)
    assert "opgraph rejects a case the reference accepts" in message
    assert "x = FLOAT[0] Data" in message
    assert "inferred:  rejected: VerifyError" in message


def test_accepting_what_the_reference_rejects_fails(op_type: str) -> None:
    op = OpDef(op_type)  # no verify: any two shapes are "fine"
    op.input("a", dtypes=FLOATS)
    op.input("b", dtypes=FLOATS)
    op.output("y", dtypes=FLOATS, follow="a")

    def same_shape_add(a: Array, b: Array) -> Array:
        if a.shape != b.shape:
            raise ValueError(f"shapes {a.shape} and {b.shape} differ")
        return a + b

    with pytest.raises(AssertionError) as failure:
        check_inference(op, same_shape_add)
    message = str(failure.value)
    assert "opgraph accepts a case the reference rejects" in message
    assert "reference: rejected: ValueError: shapes (" in message
    assert "inferred:  y = FLOAT[" in message


def test_unknown_dims_catch_a_rule_that_treats_minus_one_as_a_dim(op_type: str) -> None:
    sloppy = pad_op(op_type, unknown_aware=False)
    check_inference(sloppy, lambda x: np.pad(x, 1))  # fine on known shapes
    with pytest.raises(AssertionError) as failure:
        check_inference(sloppy, lambda x: np.pad(x, 1), unknown_dims=True)
    message = str(failure.value)
    # The counterexample hides the input's dim; which concrete size shrinking
    # lands on ([0] or [1]) depends on the run, the sloppy -1 + 2 = 1 does not.
    assert re.search(r"x = FLOAT\[-1\] Data \(concrete shape \[[01]\]\)", message), message
    assert "inferred:  y = FLOAT[1]" in message


def test_the_unknown_aware_rule_is_sound(op_type: str) -> None:
    check_inference(pad_op(op_type), lambda x: np.pad(x, 1), unknown_dims=True)


# ---- optional and dynamic inputs ----------------------------------------------------


def sum_n_op(op_type: str, *, broadcast_bias: bool = True) -> OpDef:
    """``y = sum(xs) + bias``: one or more equal-shaped ``xs`` and an optional
    ``bias`` broadcast against them."""
    op = OpDef(op_type)
    op.input("xs", param_type=DYNAMIC, dtypes=FLOATS)
    op.input("bias", param_type=OPTIONAL, dtypes=FLOATS)
    op.output("y", dtypes=FLOATS)

    @op.verify
    def verify(ctx: VerifyContext) -> None:
        count = ctx.dynamic_input_count(0)
        if count < 1:
            raise ValueError("SumN needs at least one input")
        shapes = {ctx.dynamic_input_shape(0, k) for k in range(count)}
        if len(shapes) > 1:
            raise ValueError(f"xs have different shapes {sorted(shapes)}")

    @op.infer_shape
    def infer(ctx: InferShapeContext) -> None:
        shape = ctx.dynamic_input_shape(0, 0)
        bias = ctx.optional_input_shape(1)
        if bias is not None and broadcast_bias:
            shape = tuple(np.broadcast_shapes(shape, bias))
        ctx.set_output_shape(0, shape)

    return op


def sum_n(xs: list[Array], bias: Array | None) -> Array:
    total = np.sum(np.stack(xs), axis=0, dtype=xs[0].dtype) if xs else np.stack(xs)
    return total if bias is None else total + bias


def test_sum_n_with_optional_bias_and_dynamic_inputs_passes(op_type: str) -> None:
    check_inference(sum_n_op(op_type), sum_n, dynamic_sizes=(0, 4))


def test_sum_n_that_ignores_the_bias_fails_on_a_present_bias(op_type: str) -> None:
    # Only a bias that widens the output exposes the bug; drawing such
    # biases (not every run of the default strategy meets one) keeps this
    # test failing for the right reason under every hypothesis profile.
    widening: st.SearchStrategy[Mapping[str, ShapeSpec]] = st.fixed_dictionaries(
        {
            "xs": st.lists(st.just((2, 3)), min_size=1, max_size=3),
            "bias": st.sampled_from([(4, 2, 3), (5, 1, 3)]),
        }
    )
    with pytest.raises(AssertionError) as failure:
        check_inference(sum_n_op(op_type, broadcast_bias=False), sum_n, shapes=widening, max_examples=20)
    message = str(failure.value)
    assert "xs   = [FLOAT[" in message and "(1 instances)" in message  # shrunk to one x
    assert "bias = FLOAT[" in message


def test_shapes_override_by_name_sets_the_instance_count(op_type: str) -> None:
    seen: set[int] = set()

    def reference(xs: list[Array], bias: Array | None) -> Array:
        seen.add(len(xs))
        assert bias is None
        return sum_n(xs, bias)

    three_equal = st.fixed_dictionaries({"xs": st.just([(2, 3)] * 3), "bias": st.none()})
    check_inference(sum_n_op(op_type), reference, shapes=three_equal, max_examples=20)
    assert seen == {3}


# ---- which op type is checked -------------------------------------------------------


def test_an_unregistered_opdef_is_checked_without_registering_its_type(op_type: str) -> None:
    check_inference(scale_op(op_type), lambda x, factor: x * factor, max_examples=10)
    assert op_type not in opgraph.registered_op_types()
    assert op_type + PRIVATE_SUFFIX in opgraph.registered_op_types()


def test_a_changed_opdef_is_checked_as_given_not_as_registered(op_type: str) -> None:
    opgraph.register(pad_op(op_type, off_by_one=True))
    check_inference(pad_op(op_type), lambda x: np.pad(x, 1), max_examples=50)


def test_the_registered_prototype_from_op_def_checks_the_registered_functions(op_type: str) -> None:
    opgraph.register(pad_op(op_type, off_by_one=True))
    with pytest.raises(AssertionError, match="inferred:  y = FLOAT"):
        check_inference(opgraph.op_def(op_type), lambda x: np.pad(x, 1))
    check_inference(opgraph.op_def("Add"), np.add, max_examples=20)


def test_reference_outputs_without_an_opgraph_dtype_are_a_type_error(op_type: str) -> None:
    with pytest.raises(TypeError, match="has no opgraph DataType"):
        check_inference(scale_op(op_type), lambda x, factor: x.astype(object), max_examples=5)


def _pad(x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return np.pad(x, 1)


@pytest.mark.parametrize(
    ("kwargs", "error", "expected"),
    [
        ({"min_accepted": 20}, ValueError, r"min_accepted is a share of the cases, in \[0, 1\], got 20"),
        ({"shapes": {"x": st.just((2, 3))}}, TypeError, r"shapes= is one strategy .*, got dict"),
        (
            {"shapes": st.just({"x": (2, 2.5)})},
            TypeError,
            r"shapes= gives \(2, 2.5\) for input 'x'; a shape is a sequence of ints",
        ),
        (
            {"shapes": st.just({"x": (2, -3)})},
            ValueError,
            r"shapes= gives \(2, -3\) for input 'x'; dims are sizes",
        ),
        (
            {"value_inputs": {"x": np.zeros((2, 3))}},
            TypeError,
            r"value_inputs\['x'\] is a strategy of arrays .*, got ndarray",
        ),
    ],
)
def test_a_mistaken_check_argument_is_named(
    op_type: str, kwargs: dict[str, Any], error: type[Exception], expected: str
) -> None:
    """Not a hypothesis or numpy internal error, nor a silently truncated dim."""
    with pytest.raises(error, match=expected):
        check_inference(pad_op(op_type), _pad, max_examples=5, **kwargs)


def test_the_op_and_the_reference_swapped_is_a_type_error(op_type: str) -> None:
    with pytest.raises(TypeError, match="op is an OpDef or an op type name, got function"):
        check_inference(_pad, pad_op(op_type), max_examples=5)  # type: ignore[arg-type]


def test_a_reference_that_returns_nothing_is_said_so(op_type: str) -> None:
    with pytest.raises(TypeError, match="the reference returned None"):
        check_inference(pad_op(op_type), lambda x: None, max_examples=5)
