"""Huge and negative attributes and dims (2**31, 2**32, 2**61+4, 2**63-1,
-2**63) on the built-in ops: shape inference must answer with TensorFlow's
result or a typed error naming what is wrong, never an internal error (a
caught Rust panic such as an integer overflow or a division by zero).

Expected shapes and the cases TF rejects follow TensorFlow's documented
shape functions (tf.nn.depth_to_space, tf.nn.conv2d output sizes, ...)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from helpers import desc, one_node_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opgraph
from opgraph import DataType, OpgraphError, VerifyError
from opgraph.errors import InvalidShapeError

HUGE = [2**31, 2**32, 2**61 + 4, 2**63 - 1]
EXTREME = [*HUGE, -1, -(2**31), -(2**63)]
INT64_MAX = 2**63 - 1


def assert_not_internal(error: BaseException) -> None:
    """A typed opgraph error that is not a caught panic."""
    assert isinstance(error, OpgraphError), repr(error)
    assert type(error).__name__ != "InternalError", str(error)
    assert "internal error" not in str(error), str(error)


def infer(op_type: str, inputs: list[Any], attrs: dict[str, Any] | None = None) -> tuple[int, ...]:
    graph, out = one_node_graph(op_type, inputs, attrs)
    opgraph.infer(graph)
    shape: tuple[int, ...] = graph.desc(out).shape
    return shape


def rejects(
    op_type: str, inputs: list[Any], attrs: dict[str, Any] | None = None, match: str | None = None
) -> None:
    """The node is rejected as invalid (InvalidShapeError or VerifyError),
    with ``match`` in the message."""
    with pytest.raises((InvalidShapeError, VerifyError), match=match) as info:
        infer(op_type, inputs, attrs)
    assert_not_internal(info.value)


def i64(v: Any) -> npt.NDArray[np.int64]:
    return np.array(v, dtype=np.int64)


# --- DepthToSpace / SpaceToDepth: block_size * block_size must not wrap ---


@pytest.mark.parametrize("block", [2**32, 2**61 + 4, INT64_MAX])
def test_depth_to_space_huge_block_is_rejected(block: int) -> None:
    # TF: depth (16) must be divisible by block_size^2, which overflows.
    rejects("DepthToSpace", [desc([1, 4, 4, 16])], {"block_size": block}, match="block_size")


@pytest.mark.parametrize("block", [2**32, 2**61 + 4])
def test_space_to_depth_huge_block_is_rejected(block: int) -> None:
    # The spatial dims divide, but the output depth 1 * block^2 overflows int64.
    rejects("SpaceToDepth", [desc([1, block, block, 1])], {"block_size": block}, match="block_size")


def test_depth_to_space_large_valid_block_matches_tf() -> None:
    # block 2**31: block^2 = 2**62 divides a depth of 2**62; output H, W grow.
    assert infer("DepthToSpace", [desc([1, 1, 1, 2**62])], {"block_size": 2**31}) == (1, 2**31, 2**31, 1)


@pytest.mark.parametrize("block", [-(2**63), -1, 0, 1])
def test_depth_block_below_two_is_rejected(block: int) -> None:
    rejects("DepthToSpace", [desc([1, 4, 4, 16])], {"block_size": block}, match=">= 2")


# --- windows: strides, dilations, kernel sizes, pads ---


@pytest.mark.parametrize("stride", HUGE)
def test_conv2d_huge_stride_same_is_one(stride: int) -> None:
    # TF SAME: ceil(in / stride) = 1 for any stride >= in.
    out = infer(
        "Conv2D",
        [desc([1, 8, 8, 3]), desc([3, 3, 3, 4])],
        {"strides": [1, stride, stride, 1], "pads": [0, 0, 0, 0], "padding": "SAME"},
    )
    assert out == (1, 1, 1, 4)


@pytest.mark.parametrize("dilation", HUGE)
def test_conv2d_huge_dilation_valid_is_rejected(dilation: int) -> None:
    # The effective kernel (k - 1) * dilation + 1 exceeds the input.
    rejects(
        "Conv2D",
        [desc([1, 8, 8, 3]), desc([3, 3, 3, 4])],
        {
            "strides": [1, 1, 1, 1],
            "pads": [0] * 4,
            "dilations": [1, dilation, dilation, 1],
            "padding": "VALID",
        },
    )


@pytest.mark.parametrize("pad", HUGE)
def test_conv2d_huge_explicit_pads(pad: int) -> None:
    attrs = {"strides": [1, 1, 1, 1], "padding": "EXPLICIT", "pads": [pad, pad, 0, 0]}
    inputs = [desc([1, 8, 8, 3]), desc([3, 3, 3, 4])]
    expected = 8 + 2 * pad - 3 + 1
    if expected > INT64_MAX:
        rejects("Conv2D", inputs, attrs)
    else:
        assert infer("Conv2D", inputs, attrs) == (1, expected, 8 - 3 + 1, 4)


@pytest.mark.parametrize("value", EXTREME)
def test_max_pool_extreme_ksize_and_strides(value: int) -> None:
    for k, s in [(value, 1), (2, value)]:
        attrs = {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": "VALID"}
        try:
            out = infer("MaxPool", [desc([1, 8, 8, 3])], attrs)
        except OpgraphError as e:
            assert_not_internal(e)
            continue
        # TF VALID: (in - k) // s + 1, defined only for 1 <= k <= in, s >= 1.
        assert 1 <= k <= 8 and s >= 1
        assert out == (1, (8 - k) // s + 1, (8 - k) // s + 1, 3)


# --- shapes from values: Tile, Pad, Reshape, Fill, BroadcastTo, Range, OneHot ---


def test_tile_multiples_overflow_is_rejected() -> None:
    rejects("Tile", [desc([4, 4]), i64([2**62, 4])], match="overflow")


def test_pad_paddings_overflow_is_rejected() -> None:
    rejects("Pad", [desc([4]), i64([[2**62, 2**62]])], match="overflow")


@pytest.mark.parametrize("pads", [[[-(2**63), 0]], [[0, -1]]])
def test_pad_negative_paddings_are_rejected(pads: list[list[int]]) -> None:
    rejects("Pad", [desc([4]), i64(pads)], match=">= 0")


@pytest.mark.parametrize("target", [[2**62, 4], [-1, 2**62, 4], [INT64_MAX, INT64_MAX]])
def test_reshape_overflowing_target_is_rejected(target: list[int]) -> None:
    rejects("Reshape", [desc([4]), i64(target)])


@pytest.mark.parametrize("dims", [[2**62, 4], [INT64_MAX, 2], [2**32, 2**32]])
def test_fill_overflowing_shape_is_rejected(dims: list[int]) -> None:
    rejects("Fill", [i64(dims), np.float32(0)], match="overflows int64")


@pytest.mark.parametrize("dims", [[-2, 4], [-(2**63), 1], [4, -5]])
def test_broadcast_to_negative_dims_are_rejected(dims: list[int]) -> None:
    rejects("BroadcastTo", [desc([1]), i64(dims)])


def test_range_whose_length_overflows_is_rejected() -> None:
    rejects("Range", [i64(-(2**63)), i64(INT64_MAX), i64(1)])


def test_range_with_huge_delta_matches_tf() -> None:
    # TF: size = ceil(|limit - start| / |delta|).
    assert infer("Range", [i64(0), i64(INT64_MAX), i64(2**62)]) == (2,)


def test_one_hot_extreme_depths() -> None:
    # depth is int32 in TF: the largest one appends a dim of that size.
    indices = desc([4, 4], DataType.INT32)
    assert infer("OneHot", [indices, np.int32(2**31 - 1), np.float32(1), np.float32(0)]) == (4, 4, 2**31 - 1)
    # TF: "depth must be non-negative".
    rejects("OneHot", [indices, np.int32(-(2**31)), np.float32(1), np.float32(0)])


# --- dims: MatMul, Concat, ExpandDims, StridedSlice ---


def test_matmul_huge_dims_are_exact_or_rejected() -> None:
    # TF's MatMul shape function: [m, k] x [k, n] -> [m, n], k must agree.
    assert infer("MatMul", [desc([2**62, 4]), desc([4, INT64_MAX])]) == (2**62, INT64_MAX)
    rejects("MatMul", [desc([4, 2**62]), desc([2**61, 4])], match="contracted dims")


def test_concat_dims_overflow_is_rejected() -> None:
    rejects("ConcatV2", [[desc([2**62 + 2**61]), desc([2**62 + 2**61])], np.int32(0)], match="overflow")


@pytest.mark.parametrize("axis", [INT64_MAX, -(2**63), 2**32, -3])
def test_expand_dims_axis_out_of_range_is_rejected(axis: int) -> None:
    rejects("ExpandDims", [desc([4]), i64(axis)], match="out of range")


@pytest.mark.parametrize("stride", [INT64_MAX, -(2**63), 2**61 + 4])
def test_strided_slice_extreme_stride_matches_python(stride: int) -> None:
    begin, end = (0, 10) if stride > 0 else (-1, -(2**63))
    out = infer("StridedSlice", [desc([10]), i64([begin]), i64([end]), i64([stride])])
    assert out == (len(range(10)[slice(begin, None if end == -(2**63) else end, stride)]),)


# --- every registered op, huge ints in every int attribute ---

_SKIP_INPUTS = {"Const", "Placeholder", "Data"}


def _attr_value(type_name: str, value: int, length: int) -> Any:
    if type_name == "int":
        return value
    if type_name == "list_int":
        return [value] * length
    return None


def _one_op_with_ints(op_type: str, value: int, length: int) -> None:
    """``op_type`` on rank-4 float inputs with every int attribute set to
    ``value`` and every list(int) attribute to ``length`` copies of it."""
    spec = opgraph.op_def(op_type)
    attrs: dict[str, Any] = {}
    for a in spec.attrs:
        v = _attr_value(a.type_name, value, length)
        if v is not None:
            attrs[a.name] = v
    inputs: list[Any] = []
    for port in spec.inputs:
        if port.param_type == opgraph.ParamType.OPTIONAL:
            inputs.append(None)
        elif port.param_type == opgraph.ParamType.DYNAMIC:
            inputs.append([desc([1, 4, 4, 16]), desc([1, 4, 4, 16])])
        else:
            inputs.append(desc([1, 4, 4, 16]))
    try:
        graph, _ = one_node_graph(op_type, inputs, attrs)
        opgraph.infer(graph)
    except OpgraphError as e:
        assert_not_internal(e)


BUILTIN_OPS = [t for t in opgraph.registered_op_types() if t not in _SKIP_INPUTS]


@pytest.mark.parametrize("value", EXTREME)
def test_every_builtin_op_survives_extreme_int_attrs(value: int) -> None:
    """Exhaustive over the built-in ops: a panic anywhere fails the test."""
    for op_type in BUILTIN_OPS:
        for length in (1, 2, 4, 5):
            _one_op_with_ints(op_type, value, length)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    op_type=st.sampled_from(BUILTIN_OPS),
    value=st.one_of(st.sampled_from(EXTREME), st.integers(-(2**63), 2**63 - 1)),
    length=st.integers(0, 6),
)
def test_any_int_attr_value_is_never_an_internal_error(op_type: str, value: int, length: int) -> None:
    _one_op_with_ints(op_type, value, length)


@pytest.mark.parametrize("length", [255, 2**40, INT64_MAX])
def test_shape_vectors_longer_than_the_maximum_rank_are_rejected(length: int) -> None:
    # TF's TensorShape holds at most 254 dims; a shape vector input of unknown
    # value but this length names a rank beyond it.
    shape = desc([length], DataType.INT32)
    rejects("Fill", [shape, np.float32(0)], match="maximum rank")
    rejects("BroadcastTo", [desc([1]), shape], match="maximum rank")
    rejects("Reshape", [desc([4]), shape], match="maximum rank")
