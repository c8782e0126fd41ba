"""The TensorFlow nn / image ops of common frozen models against numpy
references on real arrays: MaxPoolV2 (a sliding-window max pool, windows
from inputs), CropAndResize (a nearest-neighbour crop), non-max suppression
(a greedy numpy NMS, whose selection must fall inside the inferred range),
plus ResizeBicubic and Assert, which have no numpy counterpart."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from helpers import Feed, desc, infer_output, one_node_graph
from hypothesis import given
from hypothesis import strategies as st
from nn_helpers import infer_outputs, same_pads, sliding_max_pool_nhwc

import opgraph
from opgraph import DataType, Format, Graph

Array = npt.NDArray[Any]


@given(
    h=st.integers(1, 9),
    w=st.integers(1, 9),
    k=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    s=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    padding=st.sampled_from(["SAME", "VALID"]),
)
def test_max_pool_v2_matches_sliding_window(
    h: int, w: int, k: tuple[int, int], s: tuple[int, int], padding: str
) -> None:
    x = np.arange(2 * h * w * 3, dtype=np.float64).reshape(2, h, w, 3)
    inputs: list[Feed] = [desc(x.shape), np.array([1, *k, 1], np.int32), np.array([1, *s, 1], np.int32)]
    if padding == "VALID" and (k[0] > h or k[1] > w):
        return  # no window fits: covered by the MaxPool tests' size rule
    pads = (*same_pads(h, k[0], s[0]), *same_pads(w, k[1], s[1])) if padding == "SAME" else (0, 0, 0, 0)
    expected = sliding_max_pool_nhwc(x, k, s, pads)
    out = infer_output("MaxPoolV2", inputs, {"padding": padding})
    assert (out.shape, out.format) == (expected.shape, Format.NHWC)
    # The same windows as attributes give MaxPool's shape.
    attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding}
    assert infer_output("MaxPool", [desc(x.shape)], attrs).shape == expected.shape


def test_max_pool_v2_without_window_values_keeps_n_and_c() -> None:
    windows = [desc([4], DataType.INT32), desc([4], DataType.INT32)]
    out = infer_output(
        "MaxPoolV2", [desc([2, 3, 9, 8]), *windows], {"padding": "SAME", "data_format": "NCHW"}
    )
    assert (out.shape, out.format) == ((2, 3, -1, -1), Format.NCHW)
    with pytest.raises(opgraph.VerifyError, match="expected SAME or VALID"):
        infer_output("MaxPoolV2", [desc([2, 9, 8, 3]), *windows], {"padding": "EXPLICIT"})


@pytest.mark.parametrize("op_type", ["ResizeBicubic", "ResizeArea"])
@pytest.mark.parametrize("dtype", [DataType.UINT8, DataType.INT32, DataType.FLOAT16, DataType.DOUBLE])
def test_resize_bicubic_and_area_give_float_of_the_new_size(op_type: str, dtype: DataType) -> None:
    out = infer_output(op_type, [desc([2, 5, 7, 3], dtype), np.array([10, 3], np.int32)])
    assert (out.shape, out.dtype) == ((2, 10, 3, 3), DataType.FLOAT)
    unknown = infer_output(op_type, [desc([2, 5, 7, 3], dtype), desc([2], DataType.INT32)])
    assert unknown.shape == (2, -1, -1, 3)
    with pytest.raises(opgraph.NodeError, match="must be positive"):
        infer_output(op_type, [desc([2, 5, 7, 3], dtype), np.array([0, 3], np.int32)])


def crop_and_resize_nearest(images: Array, boxes: Array, box_index: Array, size: tuple[int, int]) -> Array:
    """TensorFlow's crop_and_resize with method="nearest": sample each box
    (normalised y1, x1, y2, x2) on a size[0] x size[1] grid."""
    _, h, w, _ = images.shape
    crops = []
    for (y1, x1, y2, x2), b in zip(boxes, box_index, strict=True):
        ys = y1 * (h - 1) + np.arange(size[0]) * (y2 - y1) * (h - 1) / max(size[0] - 1, 1)
        xs = x1 * (w - 1) + np.arange(size[1]) * (x2 - x1) * (w - 1) / max(size[1] - 1, 1)
        rows = np.clip(np.round(ys).astype(int), 0, h - 1)
        cols = np.clip(np.round(xs).astype(int), 0, w - 1)
        crops.append(images[b][rows][:, cols].astype(np.float32))
    return np.stack(crops) if crops else np.zeros((0, *size, images.shape[3]), np.float32)


@given(
    image=st.tuples(st.integers(1, 3), st.integers(1, 6), st.integers(1, 6), st.integers(1, 3)),
    num_boxes=st.integers(0, 4),
    size=st.tuples(st.integers(1, 5), st.integers(1, 5)),
)
def test_crop_and_resize_gives_a_float_crop_per_box(
    image: tuple[int, int, int, int], num_boxes: int, size: tuple[int, int]
) -> None:
    rng = np.random.default_rng(0)
    images = rng.integers(0, 255, image).astype(np.uint8)
    boxes = np.sort(rng.random((num_boxes, 4)), axis=-1).astype(np.float32)
    box_index = rng.integers(0, image[0], num_boxes).astype(np.int32)
    expected = crop_and_resize_nearest(images, boxes, box_index, size)
    inputs: list[Feed] = [desc(image, DataType.UINT8), boxes, box_index, np.array(size, np.int32)]
    out = infer_output("CropAndResize", inputs, {"method": "nearest"})
    assert (out.shape, out.dtype) == (expected.shape, DataType.from_numpy(expected.dtype))


def greedy_nms(
    boxes: Array, scores: Array, max_output_size: int, iou_threshold: float, score_threshold: float
) -> Array:
    """The boxes kept: by descending score, each unless it overlaps a kept
    one by more than iou_threshold; at most max_output_size."""
    y1, x1 = np.minimum(boxes[:, 0], boxes[:, 2]), np.minimum(boxes[:, 1], boxes[:, 3])
    y2, x2 = np.maximum(boxes[:, 0], boxes[:, 2]), np.maximum(boxes[:, 1], boxes[:, 3])
    area = (y2 - y1) * (x2 - x1)
    kept: list[int] = []
    for i in np.argsort(-scores, kind="stable"):
        if len(kept) == max_output_size or scores[i] <= score_threshold:
            break
        inter_h = np.maximum(0, np.minimum(y2[i], y2[kept]) - np.maximum(y1[i], y1[kept]))
        inter_w = np.maximum(0, np.minimum(x2[i], x2[kept]) - np.maximum(x1[i], x1[kept]))
        inter = inter_h * inter_w
        iou = inter / np.maximum(area[i] + area[kept] - inter, 1e-9)
        if not np.any(iou > iou_threshold):
            kept.append(int(i))
    return np.array(kept, np.int32)


def _nms_inputs(num_boxes: int, max_output_size: int, v5: bool) -> list[Any]:
    thresholds = [np.array(0.5, np.float32), np.array(0.1, np.float32)]
    if v5:
        thresholds.append(np.array(0.0, np.float32))
    return [desc([num_boxes, 4]), desc([num_boxes]), np.array(max_output_size, np.int32), *thresholds]


@given(
    num_boxes=st.integers(0, 12),
    max_output_size=st.integers(0, 15),
    version=st.sampled_from(["NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5"]),
    padded=st.booleans(),
)
def test_non_max_suppression_selection_falls_in_the_range(
    num_boxes: int, max_output_size: int, version: str, padded: bool
) -> None:
    rng = np.random.default_rng(num_boxes)
    boxes, scores = rng.random((num_boxes, 4)).astype(np.float32), rng.random(num_boxes).astype(np.float32)
    kept = greedy_nms(boxes, scores, max_output_size, 0.5, 0.1)
    attrs = {"pad_to_max_output_size": True} if padded and version != "NonMaxSuppressionV3" else {}
    n = {"NonMaxSuppressionV3": 1, "NonMaxSuppressionV4": 2, "NonMaxSuppressionV5": 3}[version]
    outputs = infer_outputs(
        version, _nms_inputs(num_boxes, max_output_size, version.endswith("V5")), attrs, n
    )
    selected = outputs[0]
    assert selected.dtype == DataType.INT32
    if attrs:
        # Padded to max_output_size with the kept indices first.
        assert selected.shape == (max_output_size,) and kept.size <= max_output_size
    else:
        assert selected.shape == (-1,)
        (lo, hi) = (selected.shape_range or [(0, -1)])[0]
        assert lo <= kept.size <= hi == min(max_output_size, num_boxes)
    if n > 1:
        assert (outputs[-1].shape, outputs[-1].dtype) == ((), DataType.INT32)  # valid_outputs
    if n == 3:
        assert (outputs[1].shape, outputs[1].dtype) == (selected.shape, DataType.FLOAT)  # selected_scores


@pytest.mark.parametrize(
    ("boxes", "scores", "match"),
    [([5, 4], [6], "disagree on num_boxes"), ([5, 3], [5], r"\[num_boxes, 4\]"), ([5, 4], [5, 1], "1-D")],
)
def test_non_max_suppression_rejects_misshapen_boxes(boxes: list[int], scores: list[int], match: str) -> None:
    inputs: list[Feed] = [
        desc(boxes),
        desc(scores),
        np.array(3, np.int32),
        np.array(0.5, np.float32),
        np.array(0.1, np.float32),
    ]
    with pytest.raises(opgraph.InferShapeError, match=match):
        infer_output("NonMaxSuppressionV3", inputs)


@pytest.mark.parametrize(
    ("per_class", "total", "pad_per_class", "detections"),
    [(4, 5, False, 5), (1, 5, True, 3), (4, 20, True, 12), (4, 20, False, 20)],
)
def test_combined_non_max_suppression_pads_to_its_detection_count(
    per_class: int, total: int, pad_per_class: bool, detections: int
) -> None:
    # TensorFlow's rule: max_total_size, or with pad_per_class at most
    # max_output_size_per_class for each of the 3 classes.
    inputs: list[Feed] = [
        desc([2, 6, 1, 4]),
        desc([2, 6, 3]),
        np.array(per_class, np.int32),
        np.array(total, np.int32),
        np.array(0.5, np.float32),
        np.array(0.1, np.float32),
    ]
    outputs = infer_outputs("CombinedNonMaxSuppression", inputs, {"pad_per_class": pad_per_class}, 4)
    assert [o.shape for o in outputs] == [(2, detections, 4), (2, detections), (2, detections), (2,)]
    assert [o.dtype for o in outputs] == [DataType.FLOAT] * 3 + [DataType.INT32]


def test_assert_has_no_outputs_and_checks_its_condition() -> None:
    def assert_on(condition: list[int]) -> Graph:
        graph = Graph("assert")
        c = graph.add_input("c", DataType.BOOL, condition)
        data = [graph.add_input("x", DataType.FLOAT, [2, 3]), graph.add_input("n", DataType.INT64, [])]
        graph.add_node("Assert", "check", [c, data], {"summarize": 5})
        opgraph.infer(graph)
        return graph

    assert assert_on([]).node("check").outputs == []
    with pytest.raises(opgraph.VerifyError, match="input_condition must be a scalar"):
        assert_on([3])


def test_l2_loss_and_crop_reject_wrong_dtypes() -> None:
    with pytest.raises(opgraph.NodeError):
        infer_output("L2Loss", [desc([3], DataType.INT32)])
    graph, _ = one_node_graph(
        "CropAndResize",
        [desc([1, 4, 4, 1]), desc([2, 4]), desc([2], DataType.INT64), np.array([2, 2], np.int32)],
    )
    with pytest.raises(opgraph.NodeError, match="box_index"):
        opgraph.infer(graph)
