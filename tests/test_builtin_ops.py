"""The built-in ops of this issue: Data/Placeholder, Const, Identity, Add,
Reshape and Conv2D, with expected shapes computed by hand from numpy /
TensorFlow semantics (formulas in the comments)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import add_shape, conv2d_output, desc, infer_output, reshape_shape

import opgraph
from opgraph import DataType, Format, Graph, InferShapeError, VerifyError

F, F16, I8, I32 = DataType.FLOAT, DataType.FLOAT16, DataType.INT8, DataType.INT32


# ---- Data / Placeholder / Const / Identity ------------------------------------------


def test_graph_inputs_are_data_nodes_and_keep_their_descriptor() -> None:
    graph = Graph()
    x = graph.add_input("x", DataType.UINT8, [3, -1], Format.NHWC)
    opgraph.infer(graph)
    assert graph.node("x").op_type == "Data"
    assert graph.desc(x) == desc([3, -1], DataType.UINT8, Format.NHWC)


@pytest.mark.parametrize("op_type", ["Data", "Placeholder"])
def test_input_node_without_dtype_is_an_error(op_type: str) -> None:
    graph = Graph()
    graph.add_node(op_type, "p", [])
    with pytest.raises(opgraph.InferDataTypeError, match="no dtype"):
        opgraph.infer(graph)


def test_const_node_is_a_const() -> None:
    graph = Graph()
    graph.add_const("c", np.zeros(2, np.float32))
    assert graph.node("c").op_type == "Const"


def test_const_value_attribute_defines_the_output() -> None:
    value = np.arange(6, dtype=np.int16).reshape(2, 3)
    graph = Graph()
    c = graph.add_node("Const", "c", [], {"value": value})
    opgraph.infer(graph)
    out = graph.desc(c)
    assert (out.dtype, out.shape) == (DataType.INT16, (2, 3))
    assert out.value is not None
    np.testing.assert_array_equal(out.value, value)


def test_const_without_value_is_an_error() -> None:
    graph = Graph()
    graph.add_node("Const", "c", [])
    with pytest.raises(opgraph.OpgraphError, match="no value"):
        opgraph.infer(graph)


@pytest.mark.parametrize(
    "x",
    [desc([2, 3], F16, Format.NCHW), desc([], DataType.BOOL), desc([-1, 4], I8), desc([-2], DataType.INT64)],
    ids=["nchw", "scalar", "unknown_dim", "unknown_rank"],
)
def test_identity_copies_dtype_shape_and_format(x: opgraph.TensorDesc) -> None:
    assert infer_output("Identity", [x]) == x


def test_identity_accepts_any_dtype() -> None:
    assert infer_output("Identity", [desc([1], DataType.STRING)]).dtype is DataType.STRING


# ---- Add ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([2, 3], [2, 3]),
        ([2, 1, 3], [4, 1]),
        ([], [5]),
        ([5], []),
        ([0], [1]),
        ([3, 0, 1], [1, 4]),
        ([1, 1, 1, 7], [6, 1]),
        ([8, 1, 6, 1], [7, 1, 5]),
    ],
)
def test_add_broadcasts_like_numpy(a: list[int], b: list[int]) -> None:
    assert add_shape(a, b) == np.broadcast_shapes(tuple(a), tuple(b))


@pytest.mark.parametrize(("a", "b"), [([2], [3]), ([2, 3], [3, 2]), ([0], [2]), ([4, 2, 3], [3, 3])])
def test_add_rejects_shapes_numpy_cannot_broadcast(a: list[int], b: list[int]) -> None:
    with pytest.raises(ValueError):
        np.broadcast_shapes(tuple(a), tuple(b))
    with pytest.raises(InferShapeError, match="cannot be broadcast"):
        add_shape(a, b)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        # an unknown dim against d != 1 must be 1 or d, so the result is d
        ([-1, 3], [2, 1], (2, 3)),
        ([-1], [5], (5,)),
        ([-1], [0], (0,)),
        # against 1 (or a missing leading axis, or another unknown) it stays unknown
        ([-1], [1], (-1,)),
        ([-1, 4], [4], (-1, 4)),
        ([-1], [-1], (-1,)),
        # an unknown rank makes the result an unknown rank
        ([-2], [3, 4], (-2,)),
        ([3], [-2], (-2,)),
    ],
)
def test_add_with_unknown_dims(a: list[int], b: list[int], expected: tuple[int, ...]) -> None:
    assert add_shape(a, b) == expected


def test_add_with_unknown_dim_still_rejects_known_conflicts() -> None:
    with pytest.raises(InferShapeError):
        add_shape([-1, 2], [3, 3])


def test_add_output_dtype_and_format() -> None:
    out = infer_output("Add", [desc([2], F16, Format.NCHW), desc([2], F16, Format.NHWC)])
    assert out.dtype is F16
    assert out.format is Format.NCHW  # follows x1


@pytest.mark.parametrize("dtype", [DataType.BOOL, DataType.RESOURCE, DataType.QINT8])
def test_add_rejects_non_arithmetic_dtypes(dtype: DataType) -> None:
    with pytest.raises(VerifyError):
        infer_output("Add", [desc([2], dtype), desc([2], dtype)])


# ---- Reshape ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "target"),
    [
        ([2, 3, 4], [4, -1]),
        ([2, 3, 4], [-1]),
        ([2, 3, 4], [6, 4]),
        ([6], [1, -1, 1]),
        ([1], []),
        ([], [1, 1]),
        ([0, 5], [5, 0]),
        ([3, 0], [0, 7]),
        ([0], [-1]),
        ([0, 3], [-1, 3]),
        ([0, 3], [3, -1]),
    ],
)
def test_reshape_matches_numpy(x: list[int], target: list[int]) -> None:
    assert reshape_shape(x, target) == np.empty(x).reshape(target).shape


@pytest.mark.parametrize(
    ("x", "target", "message"),
    [
        ([2, 3], [4], "6 elements"),
        ([2, 3], [4, -1], "cannot be inferred"),
        ([6], [-1, -1], "more than one -1"),
        ([6], [-2, -3], "dims must be >= 0"),
        ([0, 5], [0, -1], "cannot be inferred"),  # numpy and TensorFlow reject this too
        ([6], [], "holds 1"),
    ],
)
def test_reshape_rejects_bad_targets(x: list[int], target: list[int], message: str) -> None:
    with pytest.raises(InferShapeError, match=message):
        reshape_shape(x, target)


def test_reshape_accepts_int32_shape_and_keeps_the_input_dtype() -> None:
    out = infer_output("Reshape", [desc([2, 6], F16), np.array([3, 4], np.int32)])
    assert (out.dtype, out.shape) == (F16, (3, 4))


def test_reshape_rejects_float_shape() -> None:
    with pytest.raises(VerifyError, match="INT32, INT64"):
        infer_output("Reshape", [desc([2, 6]), np.array([3.0, 4.0], np.float32)])


def test_reshape_rejects_shape_that_is_not_a_vector() -> None:
    with pytest.raises(InferShapeError, match="1-D"):
        infer_output("Reshape", [desc([6]), np.array([[2, 3]], np.int64)])


def test_reshape_without_value_takes_rank_from_the_shape_length() -> None:
    assert reshape_shape([2, 3, 4], None, target_len=3) == (-1, -1, -1)


def test_reshape_to_an_empty_shape_vector_is_a_scalar_and_checks_the_count() -> None:
    # An empty shape vector needs no value: the target is [] (one element).
    assert reshape_shape([1, 1], None, target_len=0) == ()
    with pytest.raises(InferShapeError, match="cannot reshape 24 elements"):
        reshape_shape([2, 3, 4], None, target_len=0)


def test_reshape_without_value_or_length_is_unknown_rank() -> None:
    assert reshape_shape([2, 3, 4], None) == (-2,)


@pytest.mark.parametrize(
    ("x", "target", "expected"),
    [
        ([-1, 6], [-1, 2], (-1, 2)),  # the element count is unknown, so -1 stays
        ([-2], [4, -1], (4, -1)),
        ([-1, 6], [3, 4], (3, 4)),
    ],
)
def test_reshape_of_input_with_unknown_dims(
    x: list[int], target: list[int], expected: tuple[int, ...]
) -> None:
    assert reshape_shape(x, target) == expected


@pytest.mark.parametrize(
    ("x", "target", "attrs", "expected"),
    [
        # Caffe's Reshape: target replaces input dims [axis, axis + num_axes)
        ([2, 3, 4, 5], [12], {"axis": 1, "num_axes": 2}, (2, 12, 5)),
        ([2, 3, 4], [-1], {"axis": 1}, (2, 12)),
        ([2, 3], [1], {"axis": 0, "num_axes": 0}, (1, 2, 3)),
        ([2, 3], [1], {"axis": -1, "num_axes": 0}, (2, 3, 1)),
    ],
)
def test_reshape_axis_and_num_axes(
    x: list[int], target: list[int], attrs: dict[str, int], expected: tuple[int, ...]
) -> None:
    out = infer_output("Reshape", [desc(x), np.array(target, np.int64)], attrs)
    assert out.shape == expected


def test_reshape_axis_out_of_range_is_an_error() -> None:
    with pytest.raises(InferShapeError, match="does not fit"):
        infer_output("Reshape", [desc([2, 3]), np.array([6], np.int64)], {"axis": 5})


# ---- Conv2D ----------------------------------------------------------------------
# Output size per spatial axis (explicit pads), as in TensorFlow / GE:
#   out = (in + pad_before + pad_after - (dilation * (k - 1) + 1)) // stride + 1


@pytest.mark.parametrize(
    ("x", "filter", "data_format", "filter_format", "expected"),
    [
        # NCHW data, filter [Cout, Cin, kh, kw]
        ([1, 3, 32, 32], [16, 3, 3, 3], "NCHW", Format.NCHW, (1, 16, 30, 30)),
        # NHWC data, filter HWCN [kh, kw, Cin, Cout]
        ([2, 32, 32, 3], [5, 5, 3, 8], "NHWC", Format.HWCN, (2, 28, 28, 8)),
        # NHWC data with an NCHW filter
        ([2, 10, 12, 3], [8, 3, 3, 5], "NHWC", Format.NCHW, (2, 8, 8, 8)),
        # NHWC filter [Cout, kh, kw, Cin]
        ([1, 3, 10, 12], [8, 3, 5, 3], "NCHW", Format.NHWC, (1, 8, 8, 8)),
        # NCHW data with an HWCN filter
        ([1, 3, 10, 12], [3, 5, 3, 8], "NCHW", Format.HWCN, (1, 8, 8, 8)),
        # ND filter: NCHW layout for NCHW data, HWCN layout for NHWC data
        ([1, 3, 10, 12], [8, 3, 3, 5], "NCHW", Format.ND, (1, 8, 8, 8)),
        ([1, 10, 12, 3], [3, 5, 3, 8], "NHWC", Format.ND, (1, 8, 8, 8)),
    ],
)
def test_conv2d_layouts(
    x: list[int], filter: list[int], data_format: str, filter_format: Format, expected: tuple[int, ...]
) -> None:
    out = conv2d_output(x, filter, data_format=data_format, filter_format=filter_format)
    assert out.shape == expected
    assert out.format is Format[data_format]
    assert out.dtype is F


@pytest.mark.parametrize(
    ("kwargs", "expected_hw"),
    [
        # pads (top, bottom, left, right): H = 8+0+2-3+1 = 8, W = 8+1+0-3+1 = 7
        ({"pads": [0, 2, 1, 0]}, (8, 7)),
        ({"pads": [1, 1, 1, 1]}, (8, 8)),
        # strides: (8-3)//2+1 = 3, (8-3)//3+1 = 2
        ({"strides": [1, 1, 2, 3]}, (3, 2)),
        # dilations: effective kernel 2*(3-1)+1 = 5 -> 8-5+1 = 4; 3*2+1 = 7 -> 2
        ({"dilations": [1, 1, 2, 3]}, (4, 2)),
        # all together: H = (8+1+1-5)//2+1 = 3, W = (8+0+3-3)//1+1 = 9
        ({"pads": [1, 1, 0, 3], "strides": [1, 1, 2, 1], "dilations": [1, 1, 2, 1]}, (3, 9)),
        # TensorFlow SAME: ceil(in / stride), independent of the kernel
        ({"padding": "SAME"}, (8, 8)),
        ({"padding": "SAME", "strides": [1, 1, 3, 2]}, (3, 4)),
        ({"padding": "SAME", "dilations": [1, 1, 2, 2]}, (8, 8)),
        # TensorFlow VALID: ceil((in - (k-1)*dilation) / stride)
        ({"padding": "VALID", "strides": [1, 1, 2, 2]}, (3, 3)),
        ({"padding": "VALID", "dilations": [1, 1, 3, 1]}, (2, 6)),
        # VALID ignores pads
        ({"padding": "VALID", "pads": [5, 5, 5, 5]}, (6, 6)),
        ({"padding": "EXPLICIT", "pads": [1, 0, 0, 1]}, (7, 7)),
    ],
)
def test_conv2d_spatial_attributes(kwargs: dict[str, Any], expected_hw: tuple[int, int]) -> None:
    out = conv2d_output([1, 4, 8, 8], [2, 4, 3, 3], **kwargs)
    assert out.shape == (1, 2, *expected_hw)


def test_conv2d_nhwc_strides_and_dilations_are_in_nhwc_positions() -> None:
    out = conv2d_output(
        [1, 9, 9, 4],
        [3, 3, 4, 2],
        data_format="NHWC",
        filter_format=Format.HWCN,
        strides=[1, 2, 1, 1],
        dilations=[1, 1, 2, 1],
    )
    # H: (9-3)//2+1 = 4, W: 9-5+1 = 5
    assert out.shape == (1, 4, 5, 2)


@pytest.mark.parametrize(
    ("channels", "filter", "groups", "expected_c"),
    [
        (4, [6, 2, 3, 3], 2, 6),
        (6, [6, 1, 3, 3], 6, 6),  # depthwise
        (6, [12, 2, 3, 3], 3, 12),
    ],
)
def test_conv2d_groups(channels: int, filter: list[int], groups: int, expected_c: int) -> None:
    out = conv2d_output([1, channels, 5, 5], filter, groups=groups)
    assert out.shape == (1, expected_c, 3, 3)


@pytest.mark.parametrize(
    ("channels", "filter", "groups", "message"),
    [
        (4, [6, 3, 3, 3], 1, "channels"),
        (4, [6, 2, 3, 3], 1, "channels"),
        (4, [5, 2, 3, 3], 2, "groups"),
        (4, [6, 2, 3, 3], 0, "groups"),
        (4, [6, 2, 3, 3], -2, "groups"),
    ],
)
def test_conv2d_invalid_channels_or_groups(
    channels: int, filter: list[int], groups: int, message: str
) -> None:
    with pytest.raises(InferShapeError, match=message):
        conv2d_output([1, channels, 5, 5], filter, groups=groups)


@pytest.mark.parametrize("bias", [[8], [-1], [-2]])
def test_conv2d_accepts_matching_bias(bias: list[int]) -> None:
    out = conv2d_output([1, 3, 8, 8], [8, 3, 3, 3], bias=bias)
    assert out.shape == (1, 8, 6, 6)


@pytest.mark.parametrize("bias", [[4], [8, 1], [], [1]])
def test_conv2d_rejects_bias_of_wrong_shape(bias: list[int]) -> None:
    with pytest.raises(InferShapeError, match="bias"):
        conv2d_output([1, 3, 8, 8], [8, 3, 3, 3], bias=bias)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"strides": [1, 1, 1]}, "strides has 3 values"),
        ({"strides": [1, 1, 0, 1]}, ">= 1"),
        ({"strides": [1, 1, -1, 1]}, ">= 1"),
        ({"strides": [2, 1, 1, 1]}, "N and C"),
        ({"strides": [1, 2, 1, 1]}, "N and C"),
        ({"dilations": [1, 1, 0, 1]}, ">= 1"),
        ({"dilations": [1, 2, 1, 1]}, "N and C"),
        ({"pads": [0, 0, 0]}, "pads has 3 values"),
        ({"pads": [0, -1, 0, 0]}, ">= 0"),
        ({"data_format": "NCDHW"}, "data_format"),
        ({"data_format": "nchw"}, "data_format"),
        ({"padding": "FULL"}, "padding"),
        ({"padding": "VALID", "dilations": [1, 1, 4, 1]}, "VALID"),  # 2*4+1 = 9 > 8
        ({"pads": [0, 0, 0, 0], "dilations": [1, 1, 1, 5]}, "effective kernel"),
    ],
)
def test_conv2d_invalid_attributes(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InferShapeError, match=message):
        conv2d_output([1, 4, 8, 8], [2, 4, 3, 3], **kwargs)


def test_conv2d_missing_required_attr_is_a_verify_error() -> None:
    with pytest.raises(VerifyError, match="strides"):
        infer_output("Conv2D", [desc([1, 3, 8, 8]), desc([8, 3, 3, 3])], {"pads": [0, 0, 0, 0]})


@pytest.mark.parametrize("x", [[1, 3, 8], [1, 3, 8, 8, 1]])
def test_conv2d_needs_4d_input(x: list[int]) -> None:
    with pytest.raises(InferShapeError, match="4-D"):
        conv2d_output(x, [8, 3, 3, 3])


@pytest.mark.parametrize(
    ("x", "filter", "expected"),
    [
        ([-1, 3, -1, 10], [8, 3, 3, 3], (-1, 8, -1, 8)),
        ([2, -1, 10, 10], [8, 3, 3, 3], (2, 8, 8, 8)),  # unknown C cannot be checked
        ([2, 3, 10, 10], [-1, 3, -1, 3], (2, -1, -1, 8)),
        ([-2], [8, 3, 3, 3], (-1, 8, -1, -1)),
        ([2, 3, 10, 10], [-2], (2, -1, -1, -1)),
    ],
)
def test_conv2d_unknown_dims_propagate(x: list[int], filter: list[int], expected: tuple[int, ...]) -> None:
    assert conv2d_output(x, filter).shape == expected


@pytest.mark.parametrize(
    ("x", "bias", "y"),
    [(F16, F16, F16), (F, F, F), (I8, I32, I32), (DataType.BF16, F, DataType.BF16)],
)
def test_conv2d_dtype_combinations(x: DataType, bias: DataType, y: DataType) -> None:
    attrs = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0]}
    inputs = [desc([1, 4, 4, 3], x), desc([1, 1, 3, 2], x), desc([2], bias)]
    assert infer_output("Conv2D", inputs, attrs).dtype is y
    assert infer_output("Conv2D", inputs[:2], attrs).dtype is y


def test_conv2d_rejects_mixed_dtypes() -> None:
    attrs = {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0]}
    with pytest.raises(VerifyError, match="FLOAT16"):
        infer_output("Conv2D", [desc([1, 4, 4, 3], F), desc([1, 1, 3, 2], F16)], attrs)
