"""The IR op prototypes of Caffe-SSD's custom layers, with their shape rules
(as Caffe-SSD's layers compute them)."""

from __future__ import annotations

import opgraph
from opgraph import DataType, InferDataTypeContext, InferShapeContext, OpDef, VerifyContext

FLOATS = [DataType.FLOAT, DataType.FLOAT16]

# ---- Permute: transposes by `order`; axes it does not name follow in order ----------

permute = OpDef("Permute")
permute.input("x", dtype_list=FLOATS)
permute.output("y", follow=("x", opgraph.FollowType.DTYPE))
permute.attr("order", list[int], default=[])


def full_order(order: list[int], rank: int) -> list[int]:
    """Caffe's rule: the named axes first, then the others in their order."""
    for axis in order:
        if not 0 <= axis < rank:
            raise ValueError(f"order names axis {axis}, but the input has rank {rank}")
    if len(set(order)) != len(order):
        raise ValueError(f"order {order} names an axis twice")
    return order + [axis for axis in range(rank) if axis not in order]


@permute.infer_shape
def infer_permute(ctx: InferShapeContext) -> None:
    shape = ctx.input_shape(0)
    order = full_order(ctx.attr_list_int("order"), len(shape))
    ctx.set_output_shape(0, [shape[axis] for axis in order])


# ---- Normalize: L2-normalizes, then scales (per channel or shared) ----------------

normalize = OpDef("Normalize")
normalize.input("x", dtype_list=FLOATS)
normalize.input("scale", param_type=opgraph.OPTIONAL)
normalize.output("y", follow=("x", opgraph.FollowType.ALL))
normalize.attr("across_spatial", bool, default=True)
normalize.attr("channel_shared", bool, default=True)
normalize.attr("eps", float, default=1e-10)


@normalize.verify
def verify_normalize(ctx: VerifyContext) -> None:
    if len(ctx.input_shape(0)) != 4:
        raise ValueError(f"Normalize takes an NCHW input, got rank {len(ctx.input_shape(0))}")
    if ctx.attr_float("eps") <= 0:
        raise ValueError(f"eps must be positive, got {ctx.attr_float('eps')}")


@normalize.weight_shapes
def normalize_scale_shape(ctx: VerifyContext) -> dict[int, list[int]]:
    """The scale a net loaded without weights gets: one per channel of x."""
    if ctx.input_count() < 2 or ctx.attr_bool("channel_shared"):
        return {}
    return {1: [ctx.input_shape(0)[1]]}


# ---- PriorBox: 4 coordinates and 4 variances per prior per feature-map cell ---------

prior_box = OpDef("PriorBox")
prior_box.input("x", dtype_list=FLOATS)
prior_box.input("img", dtype_list=FLOATS)
prior_box.output("y")
prior_box.attr("min_size", list[float])
prior_box.attr("max_size", list[float], default=[])
prior_box.attr("aspect_ratio", list[float], default=[])
prior_box.attr("flip", bool, default=True)
prior_box.attr("clip", bool, default=False)
prior_box.attr("variance", list[float], default=[0.1])
prior_box.attr("img_h", int, default=0)
prior_box.attr("img_w", int, default=0)
prior_box.attr("step_h", float, default=0.0)
prior_box.attr("step_w", float, default=0.0)
prior_box.attr("offset", float, default=0.5)


def aspect_ratios(given: list[float], flip: bool) -> list[float]:
    """Caffe-SSD's list: 1, then each new ratio (and its inverse with flip)."""
    ratios = [1.0]
    for ratio in given:
        if any(abs(ratio - r) < 1e-6 for r in ratios):
            continue
        ratios.append(ratio)
        if flip:
            ratios.append(1.0 / ratio)
    return ratios


def prior_count(min_sizes: list[float], max_sizes: list[float], ratios: list[float]) -> int:
    return len(ratios) * len(min_sizes) + len(max_sizes)


@prior_box.verify
def verify_prior_box(ctx: VerifyContext) -> None:
    min_sizes, max_sizes = ctx.attr_list_float("min_size"), ctx.attr_list_float("max_size")
    if not min_sizes or any(size <= 0 for size in min_sizes):
        raise ValueError(f"min_size must list positive sizes, got {min_sizes}")
    if max_sizes and len(max_sizes) != len(min_sizes):
        raise ValueError(f"max_size has {len(max_sizes)} sizes for {len(min_sizes)} min_size ones")
    if any(high <= low for low, high in zip(min_sizes, max_sizes, strict=False)):
        raise ValueError(f"each max_size must exceed its min_size: {min_sizes} vs {max_sizes}")
    if len(ctx.attr_list_float("variance")) not in (1, 4):
        raise ValueError(f"variance has 1 or 4 values, got {ctx.attr_list_float('variance')}")
    if len(ctx.input_shape(0)) != 4:
        raise ValueError(f"PriorBox takes an NCHW feature map, got rank {len(ctx.input_shape(0))}")


@prior_box.infer_dtype
def infer_prior_box_dtype(ctx: InferDataTypeContext) -> None:
    ctx.set_output_dtype(0, DataType.FLOAT)


@prior_box.infer_shape
def infer_prior_box(ctx: InferShapeContext) -> None:
    _, _, height, width = ctx.input_shape(0)
    ratios = aspect_ratios(ctx.attr_list_float("aspect_ratio"), ctx.attr_bool("flip"))
    priors = prior_count(ctx.attr_list_float("min_size"), ctx.attr_list_float("max_size"), ratios)
    cells = -1 if height < 0 or width < 0 else height * width
    ctx.set_output_shape(0, [1, 2, -1 if cells < 0 else cells * priors * 4])


# ---- DetectionOutput: decodes boxes, NMS, keeps keep_top_k per image ----------------

detection_output = OpDef("SSDDetectionOutput")
detection_output.input("loc", dtype_list=FLOATS)
detection_output.input("conf", dtype_list=FLOATS)
detection_output.input("priors", dtype_list=FLOATS)
detection_output.output("y")
detection_output.attr("num_classes", int)
detection_output.attr("share_location", bool, default=True)
detection_output.attr("background_label_id", int, default=0)
detection_output.attr("nms_threshold", float, default=0.3)
detection_output.attr("top_k", int, default=-1)
detection_output.attr("keep_top_k", int, default=-1)
detection_output.attr("confidence_threshold", float, default=0.0)
detection_output.attr("code_type", str, default="CORNER")


@detection_output.verify
def verify_detection_output(ctx: VerifyContext) -> None:
    classes = ctx.attr_int("num_classes")
    if classes < 1:
        raise ValueError(f"num_classes must be positive, got {classes}")
    loc, conf, priors = ctx.input_shape(0), ctx.input_shape(1), ctx.input_shape(2)
    if len(priors) != 3 or priors[1] != 2 or priors[2] % 4:
        raise ValueError(f"priors must be [1, 2, 4 * num_priors], got {list(priors)}")
    count = priors[2] // 4
    per_prior = 4 if ctx.attr_bool("share_location") else 4 * classes
    if len(loc) != 2 or loc[1] != count * per_prior:
        raise ValueError(f"loc must be [N, {count * per_prior}] for {count} priors, got {list(loc)}")
    if len(conf) != 2 or conf[1] != count * classes:
        raise ValueError(f"conf must be [N, {count * classes}] for {count} priors, got {list(conf)}")
    if ctx.attr_str("code_type") not in ("CORNER", "CENTER_SIZE", "CORNER_SIZE"):
        raise ValueError(f"code_type {ctx.attr_str('code_type')!r} is not a PriorBox code type")


@detection_output.infer_dtype
def infer_detection_output_dtype(ctx: InferDataTypeContext) -> None:
    ctx.set_output_dtype(0, DataType.FLOAT)


@detection_output.infer_shape
def infer_detection_output(ctx: InferShapeContext) -> None:
    # Rows of [image_id, label, confidence, xmin, ymin, xmax, ymax]: at most
    # keep_top_k per image; how many is known only when it runs.
    batch, keep = ctx.input_shape(0)[0], ctx.attr_int("keep_top_k")
    rows = batch * keep if batch >= 0 and keep > 0 else -1
    ctx.set_output_shape(0, [1, 1, rows, 7])


OP_DEFS = (permute, normalize, prior_box, detection_output)


def register() -> None:
    """Registers the four op types (again: replacing this module's own)."""
    for op_def in OP_DEFS:
        opgraph.register(op_def, override=True)
