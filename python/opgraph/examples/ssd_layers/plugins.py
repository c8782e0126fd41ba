"""Caffe parser plugins for Caffe-SSD's custom layers: each reads the layer's
parameters with the typed getters of :class:`~opgraph.caffe.FrameworkOp` and
sets the IR op's attributes with the typed setters of
:class:`~opgraph.caffe.Operator`."""

from __future__ import annotations

from opgraph import caffe
from opgraph.caffe import EnumValue, FrameworkOp, Operator


@caffe.plugin("Permute", origin_op_types=["Permute"])
def parse_permute(src: FrameworkOp, dst: Operator) -> None:
    dst.set_ints("order", src.get_ints("order", []))


def normalize_blobs(src: FrameworkOp) -> list[list[int]]:
    """Normalize's one blob, the scale, as Caffe-SSD's LayerSetUp makes it: a
    scalar when shared, else one per input channel (known at inference: the
    op's weight_shapes completes it)."""
    return [[]] if src.get_bool("channel_shared", True) else [[-1]]


@caffe.plugin("Normalize", origin_op_types=["Normalize"], blob_shapes=normalize_blobs)
def parse_normalize(src: FrameworkOp, dst: Operator) -> None:
    dst.set_bool("across_spatial", src.get_bool("across_spatial", True))
    dst.set_bool("channel_shared", src.get_bool("channel_shared", True))
    dst.set_float("eps", src.get_float("eps", 1e-10))


@caffe.plugin("PriorBox", origin_op_types=["PriorBox"])
def parse_prior_box(src: FrameworkOp, dst: Operator) -> None:
    dst.set_floats("min_size", src.get_floats("min_size"))
    dst.set_floats("max_size", src.get_floats("max_size", []))
    dst.set_floats("aspect_ratio", src.get_floats("aspect_ratio", []))
    dst.set_bool("flip", src.get_bool("flip", True))
    dst.set_bool("clip", src.get_bool("clip", False))
    dst.set_floats("variance", src.get_floats("variance", []) or [0.1])
    # `step` / `img_size` give both sides at once; `step_h` … one each.
    step = src.get_float("step", 0.0)
    dst.set_float("step_h", src.get_float("step_h", step))
    dst.set_float("step_w", src.get_float("step_w", step))
    size = src.get_int("img_size", 0)
    dst.set_int("img_h", src.get_int("img_h", size))
    dst.set_int("img_w", src.get_int("img_w", size))
    dst.set_float("offset", src.get_float("offset", 0.5))


def int_at(src: FrameworkOp, path: str, default: int) -> int:
    """An int field of the structured parameters (``param_path``), typed."""
    value = src.param_path(path, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{src.name}: {path} is {value!r}, expected an int")
    return value


def float_at(src: FrameworkOp, path: str, default: float) -> float:
    value = src.param_path(path, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{src.name}: {path} is {value!r}, expected a number")
    return float(value)


@caffe.plugin("SSDDetectionOutput", origin_op_types=["DetectionOutput"])
def parse_detection_output(src: FrameworkOp, dst: Operator) -> None:
    dst.set_int("num_classes", src.get_int("num_classes"))
    dst.set_bool("share_location", src.get_bool("share_location", True))
    dst.set_int("background_label_id", src.get_int("background_label_id", 0))
    dst.set_int("keep_top_k", src.get_int("keep_top_k", -1))
    dst.set_float("confidence_threshold", src.get_float("confidence_threshold", 0.0))
    # The NMS settings live in a nested message: read them by their path
    # (the flattened view has them too, as long as no other field shares a
    # name with them).
    dst.set_float("nms_threshold", float_at(src, "detection_output_param.nms_param.nms_threshold", 0.3))
    dst.set_int("top_k", int_at(src, "detection_output_param.nms_param.top_k", -1))
    # An enum: its number under `code_type`, its name under `code_type_name`
    # in the flattened view; the structured view has both in one value.
    code = src.param_path("detection_output_param.code_type", EnumValue("CORNER", 1))
    if not isinstance(code, EnumValue):
        raise TypeError(f"{src.name}: code_type is {code!r}, expected an enum value")
    dst.set_str("code_type", code.name)
