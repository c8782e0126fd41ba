"""BiasAdd, Caffe-style layers (FullyConnection, Eltwise, Scale, Bias, PReLU,
Power, Crop), SoftmaxV2, ConcatD, normalisation ops and resizing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import desc, infer_output
from hypothesis import given
from hypothesis import strategies as st
from nn_helpers import infer_outputs, shape_of

import opgraph
from opgraph import DataType, Format, TensorDesc

shapes = st.lists(st.integers(1, 4), min_size=2, max_size=5)


# ---- BiasAdd -------------------------------------------------------------------------


@given(shape=shapes, nchw=st.booleans(), delta=st.integers(0, 2))
def test_bias_add_matches_numpy_broadcasting(shape: list[int], nchw: bool, delta: int) -> None:
    x = np.zeros(shape)
    if nchw and len(shape) < 3:
        with pytest.raises(opgraph.VerifyError, match="rank"):
            shape_of("BiasAdd", [desc(shape), desc((1,))], {"data_format": "NCHW"})
        return
    c = shape[1] if nchw else shape[-1]
    bias = np.zeros(c + delta)
    # numpy reference: the bias as a per-channel vector broadcast along C.
    view = bias.reshape((-1,) + (1,) * (len(shape) - 2)) if nchw else bias
    fmt = "NCHW" if nchw else "NHWC"
    if delta == 0:
        assert shape_of("BiasAdd", [desc(shape), desc(bias.shape)], {"data_format": fmt}) == (x + view).shape
    else:
        with pytest.raises(opgraph.VerifyError, match="bias"):
            shape_of("BiasAdd", [desc(shape), desc(bias.shape)], {"data_format": fmt})


def test_bias_add_edges() -> None:
    assert shape_of("BiasAdd", [desc((-1, 3)), desc((3,))]) == (-1, 3)
    assert shape_of("BiasAdd", [desc((-2,)), desc((3,))]) == (-2,)
    with pytest.raises(opgraph.VerifyError, match="data_format"):
        shape_of("BiasAdd", [desc((2, 3)), desc((3,))], {"data_format": "HWC"})
    with pytest.raises(opgraph.VerifyError, match="1-D"):
        shape_of("BiasAdd", [desc((2, 3)), desc((1, 3))])
    y = infer_output("BiasAdd", [desc((2, 3), DataType.INT32), desc((3,), DataType.INT32)])
    assert y.dtype == DataType.INT32


# ---- FullyConnection ---------------------------------------------------------------


@given(shape=shapes, n=st.integers(1, 5), axis=st.integers(1, 2), transpose=st.booleans())
def test_fully_connection_is_a_flattened_matmul(shape: list[int], n: int, axis: int, transpose: bool) -> None:
    axis = min(axis, len(shape) - 1)
    x = np.zeros(shape)
    flat = x.reshape(int(np.prod(shape[:axis])), -1)
    k = flat.shape[1]
    w = np.zeros((k, n) if transpose else (n, k))
    expected = (flat @ (w if transpose else w.T)).reshape(*shape[:axis], n).shape
    attrs = {"num_output": n, "axis": axis, "transpose": transpose}
    assert shape_of("FullyConnection", [desc(shape), desc(w.shape), desc((n,))], attrs) == expected


def test_fully_connection_caffe_blobs_and_errors() -> None:
    # AlexNet fc6: x [10, 256, 6, 6], weight [4096, 9216] (or 4-D [4096, 256, 6, 6]).
    assert shape_of("FullyConnection", [desc((10, 256, 6, 6)), desc((4096, 9216))], {"num_output": 4096}) == (
        10,
        4096,
    )
    assert shape_of(
        "FullyConnection", [desc((10, 256, 6, 6)), desc((4096, 256, 6, 6))], {"num_output": 4096}
    ) == (10, 4096)
    assert shape_of("FullyConnection", [desc((-1, 8)), desc((4, 8))], {"num_output": 4}) == (-1, 4)
    assert shape_of("FullyConnection", [desc((2, 3, 8)), desc((4, 8))], {"num_output": 4, "axis": -1}) == (
        2,
        3,
        4,
    )
    with pytest.raises(opgraph.NodeError, match="num_output"):
        shape_of("FullyConnection", [desc((2, 8)), desc((5, 8))], {"num_output": 4})
    with pytest.raises(opgraph.NodeError, match="input size"):
        shape_of("FullyConnection", [desc((2, 8)), desc((4, 7))], {"num_output": 4})
    with pytest.raises(opgraph.NodeError, match="bias"):
        shape_of("FullyConnection", [desc((2, 8)), desc((4, 8)), desc((5,))], {"num_output": 4})
    with pytest.raises(opgraph.NodeError, match="axis"):
        shape_of("FullyConnection", [desc((2, 8)), desc((4, 8))], {"num_output": 4, "axis": 2})
    with pytest.raises(opgraph.NodeError, match="num_output"):
        shape_of("FullyConnection", [desc((2, 8)), desc((4, 8))], {"num_output": 0})
    y = infer_output(
        "FullyConnection",
        [desc((2, 8), DataType.INT8), desc((4, 8), DataType.INT8), desc((4,), DataType.INT32)],
        {"num_output": 4},
    )
    assert y.dtype == DataType.INT32


# ---- Eltwise / Power / Scale / Bias / PReLU -----------------------------------------


def test_eltwise() -> None:
    assert shape_of("Eltwise", [[desc((2, 3)), desc((2, -1)), desc((-1, 3))]], {"N": 3, "mode": 2}) == (2, 3)
    assert shape_of("Eltwise", [[desc((2, 3)), desc((2, 3))]], {"N": 2, "coeff": [1.0, -1.0]}) == (2, 3)
    cases: list[tuple[dict[str, Any], list[TensorDesc], str]] = [
        ({"N": 2}, [desc((2, 3)), desc((3, 2))], "differs"),
        ({"N": 3}, [desc((2, 3)), desc((2, 3))], "N is 3"),
        ({"N": 2, "mode": 3}, [desc((2, 3)), desc((2, 3))], "mode"),
        ({"N": 2, "coeff": [1.0]}, [desc((2, 3)), desc((2, 3))], "coeff"),
        ({"N": 2, "mode": 0, "coeff": [1.0, 1.0]}, [desc((2, 3)), desc((2, 3))], "sum"),
        ({"N": 2}, [desc((2, 3)), desc((2, 3), DataType.FLOAT16)], "dtype"),
    ]
    for attrs, inputs, message in cases:
        with pytest.raises(opgraph.NodeError, match=message):
            shape_of("Eltwise", [inputs], attrs)


def test_power_follows_x() -> None:
    y = infer_output(
        "Power", [desc((2, -1), DataType.FLOAT16, Format.NCHW)], {"power": 2.0, "scale": 0.5, "shift": 1.0}
    )
    assert (y.shape, y.dtype, y.format) == ((2, -1), DataType.FLOAT16, Format.NCHW)


@given(
    shape=st.lists(st.integers(1, 4), min_size=2, max_size=4), axis=st.integers(0, 3), num=st.integers(1, 3)
)
def test_scale_blob_broadcasts_like_numpy(shape: list[int], axis: int, num: int) -> None:
    if axis + num > len(shape):
        return
    blob = shape[axis : axis + num]
    # numpy: the blob reshaped to align with x's dims from axis.
    view = np.zeros(blob).reshape(blob + [1] * (len(shape) - axis - num))
    expected = (np.zeros(shape) * view).shape
    attrs = {"axis": axis, "num_axes": num}
    assert shape_of("Scale", [desc(shape), desc(blob), desc(blob)], attrs) == expected
    assert shape_of("Bias", [desc(shape), desc(blob)], attrs) == expected


def test_scale_bias_prelu_errors() -> None:
    assert shape_of("Scale", [desc((2, 3, 4, 5)), desc((1,))]) == (2, 3, 4, 5)
    assert shape_of("Scale", [desc((2, 3, 4, 5)), desc((3, 4))], {"scale_from_blob": False}) == (2, 3, 4, 5)
    assert shape_of("Scale", [desc((2, 3, 4, 5)), desc((4, 5))], {"axis": 2, "num_axes": -1}) == (2, 3, 4, 5)
    with pytest.raises(opgraph.VerifyError, match="scale"):
        shape_of("Scale", [desc((2, 3, 4, 5)), desc((4,))])
    with pytest.raises(opgraph.VerifyError, match="span"):
        shape_of("Scale", [desc((2, 3, 4, 5)), desc((3, 4))])
    with pytest.raises(opgraph.VerifyError, match="bias"):
        shape_of("Scale", [desc((2, 3, 4, 5)), desc((3,)), desc((4,))])
    with pytest.raises(opgraph.VerifyError, match="axis"):
        shape_of("Bias", [desc((2, 3)), desc((3,))], {"axis": 5})
    for op in ("PRelu", "PReLU"):
        assert shape_of(op, [desc((2, 3, 4, 4)), desc((3,))]) == (2, 3, 4, 4)
        assert shape_of(op, [desc((2, 3, 4, 4)), desc((1,))]) == (2, 3, 4, 4)
        assert shape_of(op, [desc((2, 3, 4, 4)), desc((3, 1, 1))]) == (2, 3, 4, 4)
        with pytest.raises(opgraph.VerifyError, match="channels"):
            shape_of(op, [desc((2, 3, 4, 4)), desc((4,))])


# ---- Crop ---------------------------------------------------------------------------


@given(
    shape=st.lists(st.integers(1, 6), min_size=4, max_size=4),
    axis=st.integers(0, 3),
    offset=st.integers(0, 2),
    data=st.data(),
)
def test_crop_matches_numpy_slicing(shape: list[int], axis: int, offset: int, data: Any) -> None:
    ref = [data.draw(st.integers(1, 6)) for _ in shape]
    size = shape[:axis] + ref[axis:]
    x = np.zeros(shape)
    attrs = {"axis": axis, "offsets": [offset]}
    if any(offset + size[i] > shape[i] for i in range(axis, 4)):
        with pytest.raises(opgraph.NodeError, match="overruns"):
            shape_of("Crop", [desc(shape), desc(size)], attrs)
        return
    expected = x[tuple(slice(None) if i < axis else slice(offset, offset + size[i]) for i in range(4))].shape
    assert shape_of("Crop", [desc(shape), desc(size)], attrs) == expected


def test_crop_errors() -> None:
    assert shape_of("Crop", [desc((1, 3, 10, 10)), desc((1, 1, 8, 6))], {"offsets": [1, 2]}) == (1, 3, 8, 6)
    with pytest.raises(opgraph.NodeError, match="offsets"):
        shape_of("Crop", [desc((1, 3, 10, 10)), desc((1, 1, 8, 6))], {"offsets": [1, 2, 3]})
    with pytest.raises(opgraph.NodeError, match="same rank"):
        shape_of("Crop", [desc((1, 3, 10, 10)), desc((8, 6))], {"offsets": [0]})


# ---- SoftmaxV2 / ConcatD ------------------------------------------------------------


def test_softmax_v2() -> None:
    y = infer_output("SoftmaxV2", [desc((2, 3, 4), DataType.FLOAT16)], {"axes": [1, -1]})
    assert (y.shape, y.dtype) == ((2, 3, 4), DataType.FLOAT16)
    with pytest.raises(opgraph.VerifyError, match="out of range"):
        shape_of("SoftmaxV2", [desc((2, 3))], {"axes": [2]})
    with pytest.raises(opgraph.VerifyError, match="repeat"):
        shape_of("SoftmaxV2", [desc((2, 3))], {"axes": [1, -1]})
    with pytest.raises(opgraph.VerifyError):
        shape_of("SoftmaxV2", [desc((2, 3), DataType.INT32)])


@given(shape=shapes, axis=st.integers(-5, 4), extra=st.lists(st.integers(0, 3), min_size=1, max_size=3))
def test_concat_d_matches_numpy(shape: list[int], axis: int, extra: list[int]) -> None:
    arrays = []
    for e in [shape[axis % len(shape)] if -len(shape) <= axis < len(shape) else 1, *extra]:
        s = list(shape)
        if -len(shape) <= axis < len(shape):
            s[axis] = e
        arrays.append(np.zeros(s))
    try:
        expected = np.concatenate(arrays, axis=axis).shape
    except (ValueError, np.exceptions.AxisError):
        with pytest.raises(opgraph.NodeError):
            shape_of("ConcatD", [[desc(a.shape) for a in arrays]], {"concat_dim": axis, "N": len(arrays)})
        return
    assert (
        shape_of("ConcatD", [[desc(a.shape) for a in arrays]], {"concat_dim": axis, "N": len(arrays)})
        == expected
    )


def test_concat_d_edges() -> None:
    assert shape_of("ConcatD", [[desc((2, -1)), desc((-1, 3))]], {"concat_dim": 1}) == (2, -1)
    assert shape_of("ConcatD", [[desc((-2,)), desc((4, 3))]], {"concat_dim": 0}) == (-1, 3)
    with pytest.raises(opgraph.NodeError, match="dim 0"):
        shape_of("ConcatD", [[desc((2, 3)), desc((4, 3))]], {"concat_dim": 1})
    with pytest.raises(opgraph.NodeError, match="rank"):
        shape_of("ConcatD", [[desc((2, 3)), desc((2, 3, 1))]], {"concat_dim": 1})
    with pytest.raises(opgraph.NodeError, match="N is 3"):
        shape_of("ConcatD", [[desc((2, 3)), desc((2, 3))]], {"concat_dim": 1, "N": 3})
    with pytest.raises(opgraph.NodeError, match="overflows"):
        shape_of("ConcatD", [[desc((2, 2**62)), desc((2, 2**62))]], {"concat_dim": 1})


# ---- normalisation -------------------------------------------------------------------


@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
def test_fused_batch_norm_outputs(op: str) -> None:
    v3 = op == "FusedBatchNormV3"
    n = 6 if v3 else 5
    c = desc((3,))
    outs = infer_outputs(op, [desc((2, 5, 5, 3)), c, c, c, c], {"is_training": False}, n=n)
    assert outs[0].shape == (2, 5, 5, 3) and outs[0].format == Format.NHWC
    assert [o.shape for o in outs[1:5]] == [(3,)] * 4
    assert all(o.dtype == DataType.FLOAT for o in outs)
    if v3:
        # Empty at inference (TensorFlow's kernel returns [0]); opaque in
        # training, as TensorFlow's shape function leaves it.
        assert outs[5].shape == (0,)
        training = infer_outputs(op, [desc((2, 5, 5, 3)), c, c, c, c], {"is_training": True}, n=n)
        assert training[5].shape == (-2,)
    nchw = infer_outputs(op, [desc((2, 3, 5, 5)), c, c, c, c], {"data_format": "NCHW"}, n=2)
    assert nchw[1].shape == (3,)
    # Training lets mean / variance be empty.
    empty = desc((0,))
    assert infer_outputs(op, [desc((2, 5, 5, 3)), c, c, empty, empty], n=2)[1].shape == (3,)
    with pytest.raises(opgraph.NodeError, match="scale"):
        infer_outputs(op, [desc((2, 5, 5, 3)), desc((4,)), c, c, c])
    with pytest.raises(opgraph.NodeError, match="mean"):
        infer_outputs(op, [desc((2, 5, 5, 3)), c, c, empty, empty], {"is_training": False})


def test_fused_batch_norm_v3_half_and_5d() -> None:
    c = desc((3,))
    outs = infer_outputs(
        "FusedBatchNormV3",
        [desc((2, 4, 5, 5, 3), DataType.FLOAT16), c, c, c, c],
        {"data_format": "NDHWC"},
        n=2,
    )
    assert (outs[0].dtype, outs[0].shape, outs[1].dtype) == (
        DataType.FLOAT16,
        (2, 4, 5, 5, 3),
        DataType.FLOAT,
    )
    with pytest.raises(opgraph.NodeError, match="4-D"):
        infer_outputs("FusedBatchNorm", [desc((2, 4, 5, 5, 3)), c, c, c, c])
    with pytest.raises(opgraph.VerifyError):
        infer_outputs("FusedBatchNorm", [desc((2, 5, 5, 3), DataType.FLOAT16), c, c, c, c])


def test_bn_inference() -> None:
    c = desc((3,))
    assert shape_of("BNInference", [desc((2, 3, 4, 4)), c, c, desc((1,))]) == (2, 3, 4, 4)
    assert shape_of("BNInference", [desc((2, 3, 4, 4)), c, c, desc((1,)), c, c]) == (2, 3, 4, 4)
    with pytest.raises(opgraph.VerifyError, match="variance"):
        shape_of("BNInference", [desc((2, 3, 4, 4)), c, desc((4,)), desc((1,))])
    with pytest.raises(opgraph.VerifyError, match="momentum"):
        shape_of("BNInference", [desc((2, 3, 4, 4)), c, c, desc((2,))])


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_layer_norm_stats_match_numpy_keepdims(shape: list[int], data: Any) -> None:
    rank = len(shape)
    norm_axis = data.draw(st.integers(-rank, rank - 1))
    params_axis = data.draw(st.integers(-rank, rank - 1))
    x = np.zeros(shape)
    axes = tuple(range(norm_axis % rank, rank))
    mean = x.mean(axis=axes, keepdims=True)
    params = shape[params_axis % rank :]
    attrs = {"begin_norm_axis": norm_axis, "begin_params_axis": params_axis}
    outs = infer_outputs("LayerNorm", [desc(shape), desc(params), desc(params)], attrs, n=3)
    assert [o.shape for o in outs] == [x.shape, mean.shape, mean.shape]


def test_layer_norm_and_lrn_errors() -> None:
    with pytest.raises(opgraph.NodeError, match="gamma"):
        infer_outputs("LayerNorm", [desc((2, 3, 4)), desc((3, 4)), desc((4,))], {"begin_params_axis": -1})
    with pytest.raises(opgraph.NodeError, match="axis"):
        infer_outputs("LayerNorm", [desc((2, 3)), desc((3,)), desc((3,))], {"begin_norm_axis": 2})
    outs = infer_outputs("LayerNorm", [desc((-2,)), desc((3,)), desc((3,))], n=3)
    assert [o.shape for o in outs] == [(-2,)] * 3
    y = infer_output(
        "LRN", [desc((1, 8, 5, 5), DataType.FLOAT16)], {"depth_radius": 2, "alpha": 1e-4, "beta": 0.75}
    )
    assert (y.shape, y.dtype) == ((1, 8, 5, 5), DataType.FLOAT16)
    with pytest.raises(opgraph.VerifyError, match="depth_radius"):
        shape_of("LRN", [desc((1, 8, 5, 5))], {"depth_radius": -1})
    with pytest.raises(opgraph.VerifyError, match="norm_region"):
        shape_of("LRN", [desc((1, 8, 5, 5))], {"norm_region": "ACROSS"})
    with pytest.raises(opgraph.VerifyError, match="4-D"):
        shape_of("LRN", [desc((8, 5, 5))])


# ---- resize -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op", ["ResizeBilinear", "ResizeNearestNeighbor", "ResizeBilinearV2", "ResizeNearestNeighborV2"]
)
def test_resize(op: str) -> None:
    y = infer_output(
        op, [desc((2, 5, 7, 3), DataType.UINT8, Format.NHWC), np.array([10, 14], dtype=np.int32)]
    )
    assert y.shape == (2, 10, 14, 3)
    assert y.dtype == (DataType.FLOAT if "Bilinear" in op else DataType.UINT8)
    nchw = infer_output(op, [desc((2, 3, 5, 7), fmt=Format.NCHW), np.array([4, 4], dtype=np.int32)])
    assert (nchw.shape, nchw.format) == ((2, 3, 4, 4), Format.NCHW)
    # No value for size: H and W are unknown.
    assert shape_of(op, [desc((2, 5, 7, 3)), desc((2,), DataType.INT32)]) == (2, -1, -1, 3)
    with pytest.raises(opgraph.NodeError, match="positive"):
        shape_of(op, [desc((2, 5, 7, 3)), np.array([0, 4], dtype=np.int32)])
    with pytest.raises(opgraph.NodeError, match="2-element"):
        shape_of(op, [desc((2, 5, 7, 3)), np.array([1, 2, 4], dtype=np.int32)])
    with pytest.raises(opgraph.NodeError, match="align_corners"):
        shape_of(
            op,
            [desc((2, 5, 7, 3)), np.array([2, 4], dtype=np.int32)],
            {"align_corners": True, "half_pixel_centers": True},
        )
