"""The strategies opgraph.testing derives from prototypes: dtype combinations,
optional / dynamic inputs, value-depend constants, overrides and unknown dims."""

from __future__ import annotations

import pytest
from hypothesis import find, given
from hypothesis import strategies as st

from opgraph import DYNAMIC, OPTIONAL, DataType, OpDef, ValueDepend
from opgraph.testing import DEFAULT_DTYPES, OpCase, attr_values, dtype_choices, op_cases


def ports_op() -> OpDef:
    op = OpDef("StrategiesProbe")  # never registered: strategies only read the prototype
    op.input("x", dtypes=[DataType.FLOAT, DataType.BF16, DataType.INT32])
    op.input("bias", param_type=OPTIONAL, dtypes=[DataType.FLOAT, DataType.BF16, DataType.INT32])
    op.input("extras", param_type=DYNAMIC)
    op.input("axes", dtype_list=[DataType.INT32, DataType.INT64], value_depend=ValueDepend.REQUIRED)
    op.output("y", follow="x")
    op.attr("axis", int, default=0)
    op.attr("mode", str, default="fast")
    op.attr("scale", float)
    return op


@given(dtype_choices("Add"))
def test_add_dtypes_are_one_combination_with_numpy_dtypes(dtypes: dict[str, DataType]) -> None:
    assert dtypes["x1"] == dtypes["x2"]
    assert dtypes["x1"] != DataType.BF16


@given(dtype_choices(ports_op(), allowed=[DataType.INT32, DataType.INT64]))
def test_allowed_dtypes_restrict_every_port(dtypes: dict[str, DataType]) -> None:
    assert set(dtypes.values()) <= {DataType.INT32, DataType.INT64}
    assert dtypes["x"] == dtypes["bias"] == DataType.INT32


def test_no_usable_combination_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="no dtype combination"):
        dtype_choices("Add", allowed=[DataType.BF16])


@given(op_cases(ports_op(), dynamic_sizes=(1, 2)))
def test_cases_follow_the_prototype(case: OpCase) -> None:
    x, bias, extras, axes = case.inputs
    assert len(x.instances) == 1 and len(bias.instances) <= 1
    assert 1 <= len(extras.instances) <= 2
    assert all(t.dtype in DEFAULT_DTYPES for t in extras.instances)
    assert axes.instances[0].const and axes.instances[0].dtype in (DataType.INT32, DataType.INT64)
    assert axes.instances[0].array.ndim <= 1
    assert "scale" in case.attrs  # required: always set
    assert "mode" not in case.attrs and case.reference_attrs()["mode"] == "fast"
    assert case.reference_attrs()["axis"] == case.attrs.get("axis", 0)
    for port in case.inputs:
        for tensor in port.instances:
            assert tensor.array.shape == tensor.declared_shape
            assert tensor.array.dtype == tensor.dtype.to_numpy()


def test_optional_inputs_are_drawn_present_and_absent() -> None:
    cases = op_cases(ports_op())
    find(cases, lambda c: c.inputs[1].absent)
    find(cases, lambda c: not c.inputs[1].absent)
    find(cases, lambda c: not c.inputs[2].instances)  # zero dynamic instances by default
    find(cases, lambda c: "axis" not in c.attrs)
    find(cases, lambda c: c.inputs[0].instances[0].shape == ())
    find(cases, lambda c: 0 in c.inputs[0].instances[0].shape)


def test_unknown_dims_declare_minus_one_and_unknown_rank() -> None:
    cases = op_cases(ports_op(), unknown_dims=True)
    find(cases, lambda c: -1 in c.inputs[0].instances[0].declared_shape)
    find(cases, lambda c: c.inputs[0].instances[0].declared_shape == (-2,))


@given(
    op_cases(
        ports_op(),
        shapes=st.fixed_dictionaries(
            {"x": st.just((2, 3)), "bias": st.none(), "extras": st.just([(1,)] * 3)}
        ),
        attrs={"axis": st.integers(-2, 1), "mode": "slow", "scale": lambda arrays: st.just(arrays["x"].size)},
        value_inputs={"axes": st.lists(st.integers(0, 1), max_size=2)},
    )
)
def test_overrides_are_used(case: OpCase) -> None:
    x, bias, extras, axes = case.inputs
    assert x.instances[0].shape == (2, 3) and bias.absent
    assert [t.shape for t in extras.instances] == [(1,)] * 3
    axis = case.attrs["axis"]
    assert isinstance(axis, int) and -2 <= axis <= 1
    assert case.attrs["mode"] == "slow" and case.attrs["scale"] == 6
    assert set(axes.instances[0].array.tolist()) <= {0, 1}


def test_bad_overrides_are_value_errors() -> None:
    with pytest.raises(ValueError, match="has no attribute 'axes'"):
        attr_values(ports_op(), {"axes": 1})
    with pytest.raises(ValueError, match="value_inputs= names no input 'w'"):
        op_cases(ports_op(), value_inputs={"w": st.just(1)})
