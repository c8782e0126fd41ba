"""Resize (ONNX Resize 10-19) and Upsample (ONNX Upsample 7-9) against
onnx.reference on real arrays: scales, sizes, axes, keep_aspect_ratio_policy,
empty optional inputs, unknown values and the invalid inputs each rejects."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from helpers import Feed, desc, infer_output
from hypothesis import given
from hypothesis import strategies as st
from onnx_form_helpers import run_onnx

import opgraph
from opgraph import DataType, Graph

SCALES = [0.3, 0.5, 0.75, 1.0, 1.3, 1.5, 2.0, 2.7, 3.0]
NO_FLOATS = np.zeros(0, dtype=np.float32)


def _resize(
    x: Feed, roi: Feed, scales: Feed, sizes: Feed, attrs: dict[str, Any] | None = None
) -> tuple[int, ...]:
    return infer_output("Resize", [x, roi, scales, sizes], attrs).shape


@st.composite
def _axes(draw: st.DrawFn, rank: int) -> list[int] | None:
    if draw(st.booleans()):
        return None
    picked = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    return [a - rank if draw(st.booleans()) else a for a in picked]


@given(data=st.data(), shape=st.lists(st.integers(1, 5), min_size=1, max_size=4))
def test_scales_match_reference(data: st.DataObject, shape: list[int]) -> None:
    axes = data.draw(_axes(len(shape)))
    n = len(shape) if axes is None else len(axes)
    scales = np.array(data.draw(st.lists(st.sampled_from(SCALES), min_size=n, max_size=n)), dtype=np.float32)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    # onnx.reference does not normalise negative axes: it gets them >= 0.
    ref_axes = list(range(len(shape))) if axes is None else [a % len(shape) for a in axes]
    onnx_attrs: dict[str, Any] = {"mode": "nearest", "axes": ref_axes}
    if any(int(np.float64(s) * shape[a]) == 0 for s, a in zip(scales, ref_axes, strict=True)):
        return  # the reference cannot build an empty output; covered below
    expected = run_onnx("Resize", [x, None, scales], onnx_attrs, opset=19)[0]
    attrs = {} if axes is None else {"axes": axes}
    assert _resize(desc(shape), None, scales, None, attrs) == expected.shape


@given(
    data=st.data(),
    shape=st.lists(st.integers(1, 6), min_size=1, max_size=4),
    policy=st.sampled_from(["stretch", "not_larger", "not_smaller"]),
)
def test_sizes_match_reference(data: st.DataObject, shape: list[int], policy: str) -> None:
    axes = data.draw(_axes(len(shape)))
    n = len(shape) if axes is None else len(axes)
    sizes = np.array(data.draw(st.lists(st.integers(1, 9), min_size=n, max_size=n)), dtype=np.int64)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    onnx_attrs: dict[str, Any] = {"mode": "nearest", "keep_aspect_ratio_policy": policy}
    attrs: dict[str, Any] = {"keep_aspect_ratio_policy": policy}
    if axes is not None:
        onnx_attrs["axes"] = [a % len(shape) for a in axes]
        attrs["axes"] = axes
    expected = run_onnx("Resize", [x, None, None, sizes], onnx_attrs, opset=19)[0]
    # Exporters write an empty scales tensor beside sizes: absent.
    assert _resize(desc(shape), None, NO_FLOATS, sizes, attrs) == expected.shape
    assert _resize(desc(shape), None, None, sizes, attrs) == expected.shape


def test_scale_down_to_zero_and_roi_is_ignored_for_the_size() -> None:
    roi = np.array([0, 0, 0.25, 0.25, 1, 1, 0.75, 0.75], dtype=np.float32)
    attrs = {"coordinate_transformation_mode": "tf_crop_and_resize", "mode": "linear"}
    scales = np.array([1, 1, 2, 0.5], dtype=np.float32)
    x = np.zeros((1, 2, 5, 6), dtype=np.float32)
    expected = run_onnx("Resize", [x, roi, scales], attrs, opset=13)[0]
    assert _resize(desc(x.shape), roi, scales, None, attrs) == expected.shape == (1, 2, 10, 3)
    assert _resize(desc((1, 2, 3, 1)), None, np.array([1, 1, 0.3, 0.5], np.float32), None) == (1, 2, 0, 0)


def test_int8_and_no_roi() -> None:
    # Opset 10's (x, scales) maps to ports 0 and 2 (onnx.reference runs
    # Resize-10 models with opset 11's signature, so 13 is the reference).
    x = np.zeros((2, 3, 4), dtype=np.int8)
    scales = np.array([1, 2, 1.5], dtype=np.float32)
    expected = run_onnx("Resize", [x, None, scales], {"mode": "nearest"}, opset=13)[0]
    y = infer_output("Resize", [desc(x.shape, DataType.INT8), None, scales, None])
    assert y.shape == expected.shape and y.dtype == DataType.INT8


def test_unknown_values_and_dims() -> None:
    sizes_in = desc((2,), DataType.INT64)
    assert _resize(desc((1, 3, 8, 8)), None, None, sizes_in, {"axes": [2, 3]}) == (1, 3, -1, -1)
    scales_in = desc((4,), DataType.FLOAT)
    assert _resize(desc((1, 3, 8, 8)), None, scales_in, None) == (-1, -1, -1, -1)
    scales = np.array([1, 1, 2, 2], dtype=np.float32)
    assert _resize(desc((-1, 3, -1, 8)), None, scales, None) == (-1, 3, -1, 16)
    assert _resize(desc((-2,)), None, scales, None) == (-1, -1, -1, -1)
    sizes = np.array([5, 7], dtype=np.int64)
    policy = {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"}
    assert _resize(desc((1, 3, -1, 8)), None, None, sizes, policy) == (1, 3, -1, -1)


def _scales(v: list[float]) -> npt.NDArray[np.float32]:
    return np.array(v, dtype=np.float32)


@pytest.mark.parametrize(
    ("scales", "sizes", "attrs", "match"),
    [
        (_scales([1, 2]), np.array([1, 2], np.int64), {}, "both scales and sizes"),
        (None, None, {}, "neither scales nor sizes"),
        (NO_FLOATS, np.zeros(0, np.int64), {}, "neither scales nor sizes"),
        (_scales([1, 2, 3]), None, {}, "scales has 3 values, expected 2"),
        (_scales([1, -2]), None, {}, "must be a finite value > 0"),
        (_scales([1, 2]), None, {"axes": [1, -1]}, "repeats axis 1"),
        (_scales([1, 2]), None, {"axes": [0, 2]}, "out of range"),
        (None, np.array([3, -1], np.int64), {}, "every size must be >= 0"),
        (None, np.array([3, 4], np.int64), {"keep_aspect_ratio_policy": "fit"}, "keep_aspect_ratio_policy"),
        (_scales([1, 2]), None, {"mode": "area"}, "mode is 'area'"),
        (_scales([1, 1e30]), None, {}, "overflows int64"),
    ],
)
def test_resize_errors(scales: Feed, sizes: Feed, attrs: dict[str, Any], match: str) -> None:
    with pytest.raises(opgraph.NodeError, match=match):
        _resize(desc((3, 4)), None, scales, sizes, attrs)


@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_upsample_matches_reference(shape: list[int], data: st.DataObject) -> None:
    ints = data.draw(st.lists(st.integers(1, 3), min_size=len(shape), max_size=len(shape)))
    scales = np.array(ints, dtype=np.float32)
    x = np.zeros(shape, dtype=np.float32)
    expected = run_onnx("Upsample", [x, scales], {"mode": "nearest"}, opset=9)[0]
    assert infer_output("Upsample", [desc(shape), scales]).shape == expected.shape
    # Opset 7: scales as an attribute.
    attr = {"scales": [float(s) for s in scales]}
    assert infer_output("Upsample", [desc(shape), None], attr).shape == expected.shape


def test_upsample_fractional_scales_floor_like_resize() -> None:
    # onnx.reference's Upsample handles integer scales only; the spec's
    # floor(d * scale) is Resize's, so Resize is the reference.
    x = np.zeros((1, 2, 5, 7), dtype=np.float32)
    scales = _scales([1, 1, 1.5, 2.5])
    expected = run_onnx("Resize", [x, None, scales], {"mode": "nearest"}, opset=13)[0]
    assert infer_output("Upsample", [desc(x.shape), scales]).shape == expected.shape == (1, 2, 7, 17)
    assert infer_output("Upsample", [desc((-2,)), scales]).shape == (-1, -1, -1, -1)
    with pytest.raises(opgraph.NodeError, match="scales has 4 values"):
        infer_output("Upsample", [desc((2, 3)), scales])
    with pytest.raises(opgraph.NodeError, match="neither an input nor an attribute"):
        infer_output("Upsample", [desc((2, 3)), None])


def test_sizes_from_a_partly_known_shape_vector() -> None:
    # PyTorch exports sizes = Concat(Shape(x)[:2], computed H, W): the folded
    # shape value keeps N (unknown) and C, and H, W when constant.
    def resize_of(hw: Feed) -> tuple[int, ...]:
        g = Graph("g")
        x = g.add_input("x", DataType.FLOAT, (-1, 3, 8, 8))
        shape = g.add_node("Shape", "shape", [x], {"out_type": DataType.INT64})
        ends = [g.add_const(n, np.array([v], np.int64)) for n, v in (("b", 0), ("e", 2), ("s", 1))]
        nc = g.add_node("StridedSlice", "nc", [shape, *ends])
        hw_in = (
            g.add_const("hw", hw) if isinstance(hw, np.ndarray) else g.add_input("hw", DataType.INT64, (2,))
        )
        sizes = g.add_node("ConcatV2", "sizes", [[nc, hw_in], g.add_const("axis", np.array(0, np.int32))])
        y = g.add_node("Resize", "y", [x, None, None, sizes])
        opgraph.infer(g)
        return g.desc(y).shape

    x = np.zeros((2, 3, 8, 8), np.float32)
    expected = run_onnx("Resize", [x, None, None, np.array([2, 3, 16, 12], np.int64)], {}, opset=13)[0]
    assert resize_of(np.array([16, 12], np.int64)) == (-1, *expected.shape[1:])
    assert resize_of(None) == (-1, 3, -1, -1)
