"""GE TopK with ONNX's k / INT64 indices, NonMaxSuppressionV6 (ONNX
NonMaxSuppression) and the ONNX activations, against onnx.reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from helpers import Feed, desc, infer_output, one_node_graph
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx_form_helpers import dtype_of, run_onnx

import opgraph
from opgraph import DataType, TensorDesc


def _outputs(
    op: str, inputs: list[Feed], attrs: dict[str, Any] | None = None, n: int = 1
) -> list[TensorDesc]:
    graph, out = one_node_graph(op, inputs, attrs)
    opgraph.infer(graph)
    return [graph.desc(out.output(i)) for i in range(n)]


# ---- TopK ----------------------------------------------------------------------


@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), data=st.data(), largest=st.booleans())
def test_top_k_onnx_form_matches_reference(shape: list[int], data: st.DataObject, largest: bool) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    k = np.array([data.draw(st.integers(0, shape[axis]))], dtype=np.int64)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    values, indices = run_onnx("TopK", [x, k], {"axis": axis, "largest": int(largest)}, 2, opset=11)
    attrs = {"dim": axis, "largest": largest, "indices_dtype": DataType.INT64}
    got = _outputs("TopK", [desc(shape), k], attrs, 2)
    assert [(g.shape, g.dtype) for g in got] == [
        (values.shape, DataType.FLOAT),
        (indices.shape, dtype_of(indices)),
    ]


def test_top_k_keeps_int32_indices_and_tf_scalar_k() -> None:
    k1 = np.array([2], np.int64)
    assert _outputs("TopK", [desc((3, 5)), k1], None, 2)[1].dtype == DataType.INT32
    assert _outputs("TopK", [desc((3, 5)), desc((-1,), DataType.INT64)], None, 2)[0].shape == (3, -1)
    with pytest.raises(opgraph.NodeError, match="k must be a scalar"):
        _outputs("TopKV2", [desc((3, 5)), k1])
    with pytest.raises(opgraph.NodeError, match="k must be a scalar"):
        _outputs("TopK", [desc((3, 5)), np.array([1, 2], np.int64)])
    with pytest.raises(opgraph.NodeError, match="indices_dtype"):
        _outputs("TopK", [desc((3, 5)), k1], {"indices_dtype": DataType.FLOAT})


# ---- NonMaxSuppression ---------------------------------------------------------


def _nms_inputs(b: int, c: int, n: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    rng = np.random.default_rng(b * 100 + c * 10 + n)
    corners = rng.uniform(0, 10, (b, n, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + rng.uniform(1, 4, (b, n, 2)).astype(np.float32)], axis=2)
    return boxes, rng.uniform(0, 1, (b, c, n)).astype(np.float32)


@settings(max_examples=40, deadline=None)
@given(b=st.integers(1, 3), c=st.integers(1, 3), n=st.integers(1, 6), max_out=st.integers(0, 8))
def test_nms_bound_holds_the_reference_output(b: int, c: int, n: int, max_out: int) -> None:
    boxes, scores = _nms_inputs(b, c, n)
    m, iou = np.array([max_out], np.int64), np.array([0.3], np.float32)
    (selected,) = run_onnx("NonMaxSuppression", [boxes, scores, m, iou])
    (y,) = _outputs("NonMaxSuppressionV6", [desc(boxes.shape), desc(scores.shape), m, iou, None])
    assert y.dtype == DataType.INT64 == dtype_of(selected)
    bound = b * c * min(n, max_out)
    if bound == 0:
        assert y.shape == selected.shape == (0, 3)
        return
    assert y.shape == (-1, 3) and y.shape_range == [(0, bound), (3, 3)]
    assert selected.shape[0] <= bound and selected.shape[1] == 3


def test_nms_defaults_and_unknowns() -> None:
    boxes, scores = desc((2, 5, 4)), desc((2, 3, 5))
    # No max_output_boxes_per_class: the spec's default 0 selects nothing
    # (onnx.reference needs the input given).
    b, s = _nms_inputs(2, 3, 5)
    assert run_onnx("NonMaxSuppression", [b, s, np.array([0], np.int64), np.array([0.5], np.float32)])[
        0
    ].shape == (0, 3)
    assert _outputs("NonMaxSuppressionV6", [boxes, scores, None, None, None])[0].shape == (0, 3)
    # An unknown max_output_boxes_per_class: at most every box of every
    # class of every batch, 2 * 3 * 5.
    y = _outputs("NonMaxSuppressionV6", [boxes, scores, desc((1,), DataType.INT64), None, None])[0]
    assert y.shape == (-1, 3) and y.shape_range == [(0, 30), (3, 3)]
    # An unknown box count: at most max_output_boxes_per_class per class, 2 * 3 * 4.
    y = _outputs(
        "NonMaxSuppressionV6", [desc((-1, -1, 4)), desc((2, 3, -1)), np.array(4, np.int64), None, None]
    )[0]
    assert y.shape == (-1, 3) and y.shape_range == [(0, 24), (3, 3)]
    # Nothing bounds the classes: no range.
    y = _outputs("NonMaxSuppressionV6", [boxes, desc((2, -1, 5)), desc((1,), DataType.INT64), None, None])[0]
    assert y.shape == (-1, 3) and y.shape_range is None


@pytest.mark.parametrize(
    ("boxes", "scores", "attrs", "match"),
    [
        ((2, 5, 3), (2, 3, 5), {}, "4 coordinates"),
        ((2, 5, 4), (3, 3, 5), {}, "batch"),
        ((2, 5, 4), (2, 3, 6), {}, "box count"),
        ((5, 4), (2, 3, 5), {}, "boxes .* must be 3-D"),
        ((2, 5, 4), (2, 3, 5), {"center_point_box": 2}, "center_point_box"),
    ],
)
def test_nms_errors(
    boxes: tuple[int, ...], scores: tuple[int, ...], attrs: dict[str, Any], match: str
) -> None:
    with pytest.raises(opgraph.NodeError, match=match):
        _outputs(
            "NonMaxSuppressionV6", [desc(boxes), desc(scores), np.array([3], np.int64), None, None], attrs
        )
    with pytest.raises(opgraph.NodeError, match="scalar or a 1-element"):
        _outputs(
            "NonMaxSuppressionV6", [desc((1, 2, 4)), desc((1, 1, 2)), np.array([3, 4], np.int64), None, None]
        )


# ---- activations ---------------------------------------------------------------

ACTIVATIONS: list[tuple[str, dict[str, Any], int]] = [
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, 22),
    ("HardSwish", {}, 22),
    ("Mish", {}, 22),
    ("Celu", {"alpha": 2.0}, 22),
    ("ThresholdedRelu", {"alpha": 0.5}, 22),
    ("Shrink", {"bias": 0.1, "lambd": 0.3}, 9),
    # The existing ops ONNX maps onto (Gelu and Selu without ONNX's
    # approximate / alpha / gamma attributes, which only change values).
    ("Gelu", {}, 20),
    ("Selu", {}, 22),
    ("Elu", {"alpha": 0.5}, 22),
    ("LeakyRelu", {"alpha": 0.1}, 22),
    ("Softplus", {}, 22),
    ("Softsign", {}, 22),
]


@pytest.mark.parametrize(("op", "attrs", "opset"), ACTIVATIONS)
@pytest.mark.parametrize("np_type", [np.float32, np.float64, np.float16])
def test_activations_follow_x(op: str, attrs: dict[str, Any], opset: int, np_type: type) -> None:
    x: npt.NDArray[Any] = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np_type)
    (expected,) = run_onnx(op, [x], attrs, opset=opset)
    y = infer_output(op, [desc(x.shape, dtype_of(x))], attrs)
    assert (y.shape, y.dtype) == (expected.shape, dtype_of(expected))
    assert infer_output(op, [desc((-1, 5), dtype_of(x))], attrs).shape == (-1, 5)


def test_shrink_takes_ints_others_do_not() -> None:
    x = np.arange(-3, 3, dtype=np.int32).reshape(2, 3)
    (expected,) = run_onnx("Shrink", [x], {"lambd": 1.0}, opset=9)
    y = infer_output("Shrink", [x], {"lambd": 1.0})
    assert (y.shape, y.dtype) == (expected.shape, DataType.INT32)
    with pytest.raises(opgraph.VerifyError):
        infer_output("HardSwish", [x])


# ---- OneHot --------------------------------------------------------------------


@given(shape=st.lists(st.integers(1, 4), max_size=3), data=st.data(), depth=st.integers(0, 5))
def test_one_hot_matches_reference(shape: list[int], data: st.DataObject, depth: int) -> None:
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    indices = np.random.default_rng(0).integers(-depth - 1, depth + 1, shape).astype(np.int64)
    depth_value: npt.NDArray[Any] = np.array(depth, np.int64)
    if data.draw(st.booleans()):
        depth_value = np.array([depth], np.float32)
    values = np.array([0, 7], np.int32)
    # onnx.reference reads depth as a Python scalar: it gets the 0-d form.
    (expected,) = run_onnx("OneHot", [indices, depth_value.reshape(()), values], {"axis": axis}, opset=11)
    y = infer_output("OneHotV2", [desc(shape, DataType.INT64), depth_value, values], {"axis": axis})
    assert (y.shape, y.dtype) == (expected.shape, DataType.INT32)


def test_one_hot_unknowns_and_errors() -> None:
    values = np.array([0.0, 1.0], np.float32)
    unknown_depth = desc((1,), DataType.INT64)
    assert infer_output("OneHotV2", [desc((2, 3), DataType.INT64), unknown_depth, values]).shape == (2, 3, -1)
    assert infer_output("OneHotV2", [desc((-2,), DataType.INT64), np.array(4), values]).shape == (-2,)
    assert infer_output(
        "OneHotV2", [desc((2,), DataType.INT32), np.array(4.7), values], {"axis": 0}
    ).shape == (4, 2)
    cases: list[tuple[Feed, Feed, dict[str, Any], str]] = [
        (np.array([3, 4]), values, {}, "depth must be a scalar"),
        (np.array(-1), values, {}, "depth must be >= 0"),
        (np.array(np.inf), values, {}, "not a valid size"),
        (np.array(3), np.array([1.0, 2.0, 3.0]), {}, "values must be"),
        (np.array(3), values, {"axis": 3}, "out of range"),
    ]
    for depth, vals, attrs, match in cases:
        with pytest.raises(opgraph.NodeError, match=match):
            infer_output("OneHotV2", [desc((2, 3), DataType.INT64), depth, vals], attrs)
