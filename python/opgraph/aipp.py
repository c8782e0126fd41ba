"""ATC's AIPP (``--insert_op_conf``): the AI Core's image pre-processing
stage in front of a model input.

The config file is protobuf text format of opgraph's own
``rust/core/proto/atc/insert_op.proto`` (CANN's field names and numbers),
decoded by the core's protobuf text-format parser. :func:`read_insert_op_config`
returns one :class:`AippConfig` per ``aipp_op`` block; :func:`apply_aipp`
works out what the stage does to the model input it feeds: the application
passes 8-bit NHWC images of the source size (``src_image_size_w/h``), the
stage crops (``load_start_pos``, ``crop_size``), resizes, pads, converts the
colour space and normalises, and its output is the model's input, whose H
and W it must match (as ATC requires)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _core
from ._core import Graph, InferDataTypeContext, InferShapeContext
from .dtype import DataType
from .errors import AtcConfigError
from .format import Format

__all__ = [
    "AIPP_OP_TYPE",
    "IMAGE_CHANNELS",
    "AippConfig",
    "AippStage",
    "apply_aipp",
    "insert_aipp",
    "read_insert_op_config",
]

#: Channels of each 8-bit image format the stage reads (``input_format``).
IMAGE_CHANNELS: dict[str, int] = {
    "YUV420SP_U8": 3,
    "YUV422SP_U8": 3,
    "YUYV_U8": 3,
    "AYUV444_U8": 4,
    "XRGB8888_U8": 4,
    "ARGB8888_U8": 4,
    "RGB888_U8": 3,
    "YUV400_U8": 1,
}
# Bytes per pixel where the chroma planes are subsampled (the rest: channels).
_SUBSAMPLED_BYTES: dict[str, float] = {"YUV420SP_U8": 1.5, "YUV422SP_U8": 2.0, "YUYV_U8": 2.0}


@dataclass(frozen=True)
class AippConfig:
    """One ``aipp_op`` block as written (fields absent from the file hold
    their protobuf defaults: 0, false, ``UNDEFINED``)."""

    fields: dict[str, Any]
    path: str

    def get(self, name: str, default: Any = 0) -> Any:
        """Field ``name`` as written, else ``default``."""
        return self.fields.get(name, default)

    @property
    def mode(self) -> str:
        """``aipp_mode`` (``static`` or ``dynamic``; ``undefined`` when unset)."""
        return str(self.fields.get("aipp_mode", "undefined"))

    @property
    def input_rank(self) -> int:
        """``related_input_rank``: which model input (by position) the stage feeds."""
        return int(self.fields.get("related_input_rank", 0))


@dataclass(frozen=True)
class AippStage:
    """What one AIPP stage does to model input ``input``: the image buffer
    the application passes (``input_shape``, uint8, NHWC, ``input_bytes``)
    and the tensor it produces (the model's input, ``output_shape`` /
    ``output_dtype`` / ``output_format``)."""

    input: str
    mode: str
    image_format: str
    input_shape: list[int]
    input_bytes: int | None
    """``None`` while a dim is unknown (a -1 batch, a dynamic image size)."""
    output_shape: list[int]
    output_dtype: str
    output_format: str
    crop: bool
    resize: bool
    padding: bool
    csc: bool

    def to_dict(self) -> dict[str, Any]:
        """The stage as report.json's ``aipp`` entries hold it."""
        return {
            "input": self.input,
            "mode": self.mode,
            "image_format": self.image_format,
            "before": {
                "dtype": "UINT8",
                "format": "NHWC",
                "shape": self.input_shape,
                "bytes": self.input_bytes,
            },
            "after": {"dtype": self.output_dtype, "format": self.output_format, "shape": self.output_shape},
            "crop": self.crop,
            "resize": self.resize,
            "padding": self.padding,
            "csc_switch": self.csc,
        }


def read_insert_op_config(path: Path) -> list[AippConfig]:
    """The ``aipp_op`` blocks of the config file at ``path``; raises
    :class:`AtcConfigError` naming the file (and the line and column) when
    it does not parse, and when it has no ``aipp_op`` block."""
    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AtcConfigError(f"--insert_op_conf {shown!r} cannot be read: {error}", path=shown) from None
    try:
        decoded = json.loads(_core.parse_insert_op_config(text))
    except ValueError as error:
        raise AtcConfigError(f"--insert_op_conf {shown!r}: {error}", path=shown) from None
    blocks = decoded.get("aipp_op", [])
    if not blocks:
        raise AtcConfigError(f"--insert_op_conf {shown!r} has no aipp_op {{ ... }} block", path=shown)
    for block in blocks:
        _check_finite(block, shown)
    return [AippConfig(block, shown) for block in blocks]


# Protobuf's JSON spells non-finite floats as strings; a text-format ``nan``
# or ``inf`` would otherwise reach the stage as one.
_NON_FINITE = {"NaN", "Infinity", "-Infinity"}


def _check_finite(block: dict[str, object], path: str) -> None:
    """Every float in ``block`` is a number: NaN or infinity is refused,
    naming the field."""
    for field, value in block.items():
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and v in _NON_FINITE for v in values):
            raise AtcConfigError(
                f"--insert_op_conf {path!r}: {field}: is {values[0] if len(values) == 1 else values}; "
                "expected a finite number",
                path=path,
                field=field,
            )


def _bad(config: AippConfig, field: str, message: str) -> AtcConfigError:
    return AtcConfigError(
        f"--insert_op_conf {config.path!r}: {field}: {message}", path=config.path, field=field
    )


def _axes(shape: list[int], layout: str) -> tuple[int, int, int]:
    """Indices of C, H and W in a 4-D ``shape`` of ``layout`` (NCHW / NHWC)."""
    return (3, 1, 2) if layout == "NHWC" else (1, 2, 3)


def apply_aipp(config: AippConfig, input_name: str, shape: list[int], dtype: str, layout: str) -> AippStage:
    """The stage ``config`` describes in front of model input ``input_name``
    (``shape`` 4-D in ``layout``, NCHW or NHWC, ``dtype`` its element type).
    Raises :class:`AtcConfigError` naming the field whose value does not fit
    (a crop outside the image, an output size unlike the model's input ...)."""
    if len(shape) != 4:
        raise _bad(
            config,
            "related_input_rank",
            f"model input {input_name!r} has shape {shape}; AIPP feeds a 4-D image input",
        )
    c_axis, h_axis, w_axis = _axes(shape, layout)
    batch, model_c, model_h, model_w = shape[0], shape[c_axis], shape[h_axis], shape[w_axis]
    if min(model_h, model_w) < 0:
        # Dynamic H/W (--dynamic_image_size): the output size is checked per profile.
        return _unsized_stage(config, input_name, shape, dtype, layout)
    if config.mode == "dynamic":
        max_bytes = int(config.get("max_src_image_size"))
        if max_bytes <= 0:
            raise _bad(
                config, "max_src_image_size", "dynamic AIPP needs the largest image's size in bytes (> 0)"
            )
        return AippStage(
            input_name, "dynamic", "set at run time", [batch, -1, -1, -1], max_bytes * batch,
            list(shape), dtype, layout, False, False, False, False,
        )  # fmt: skip
    if config.mode != "static":
        raise _bad(config, "aipp_mode", f"is {config.mode!r}; expected static or dynamic")
    image_format = str(config.get("input_format", "UNDEFINED"))
    channels = IMAGE_CHANNELS.get(image_format)
    if channels is None:
        known = ", ".join(IMAGE_CHANNELS)
        raise _bad(config, "input_format", f"is {image_format!r}; opgraph models the 8-bit formats {known}")
    if model_c >= 0 and model_c not in (channels, min(channels, 3)):
        raise _bad(
            config,
            "input_format",
            f"{image_format} gives {min(channels, 3)} channels but model input {input_name!r} has {model_c}",
        )
    crop, resize, padding = (
        bool(config.get("crop", False)),
        bool(config.get("resize", False)),
        bool(config.get("padding", False)),
    )
    pads_w = config.get("left_padding_size") + config.get("right_padding_size") if padding else 0
    pads_h = config.get("top_padding_size") + config.get("bottom_padding_size") if padding else 0
    for field in ("left_padding_size", "right_padding_size", "top_padding_size", "bottom_padding_size"):
        if config.get(field) < 0:
            raise _bad(config, field, f"is {config.get(field)}; expected >= 0")
    # A size left at 0 is the size that makes the output match the model, as in ATC.
    src_w = config.get("src_image_size_w") or model_w
    src_h = config.get("src_image_size_h") or model_h
    for field, value in (("src_image_size_w", src_w), ("src_image_size_h", src_h)):
        if value <= 0:
            raise _bad(config, field, f"is {value}; expected > 0")
    width, height = src_w, src_h
    if crop:
        x, y = config.get("load_start_pos_w"), config.get("load_start_pos_h")
        crop_w = config.get("crop_size_w") or (src_w - x if resize else model_w - pads_w)
        crop_h = config.get("crop_size_h") or (src_h - y if resize else model_h - pads_h)
        for field, start, size, limit in (
            ("load_start_pos_w", x, crop_w, src_w),
            ("load_start_pos_h", y, crop_h, src_h),
        ):
            if start < 0 or size <= 0 or start + size > limit:
                axis = field[-1]
                raise _bad(
                    config,
                    field,
                    f"the crop {start}..{start + size} (load_start_pos_{axis} + crop_size_{axis}) "
                    f"does not fit in the source image's {limit} (src_image_size_{axis})",
                )
        width, height = crop_w, crop_h
    if resize:
        width = config.get("resize_output_w") or model_w - pads_w
        height = config.get("resize_output_h") or model_h - pads_h
        if width <= 0 or height <= 0:
            raise _bad(config, "resize_output_w", f"the resized image is {width}x{height}; expected > 0")
    width, height = width + pads_w, height + pads_h
    if (height, width) != (model_h, model_w):
        field = (
            "src_image_size_w"
            if not (crop or resize or padding)
            else "crop_size_w"
            if crop
            else "resize_output_w"
        )
        raise _bad(
            config,
            field,
            f"the stage outputs {height}x{width} (HxW) but model input {input_name!r} is "
            f"{model_h}x{model_w}; src size, crop, resize and padding must give the model's H and W",
        )
    input_bytes = _image_bytes(image_format, channels, batch, src_h, src_w)
    return AippStage(
        input_name, "static", image_format, [batch, src_h, src_w, channels], input_bytes,
        list(shape), dtype, layout, crop, resize, padding, bool(config.get("csc_switch", False)),
    )  # fmt: skip


def _image_bytes(image_format: str, channels: int, batch: int, height: int, width: int) -> int | None:
    if min(batch, height, width) < 0:
        return None
    per_pixel = _SUBSAMPLED_BYTES.get(image_format, float(channels))
    return math.ceil(batch * height * width * per_pixel)


def _unsized_stage(
    config: AippConfig, input_name: str, shape: list[int], dtype: str, layout: str
) -> AippStage:
    """A static stage in front of an input whose H or W is not known yet."""
    image_format = str(config.get("input_format", "UNDEFINED"))
    channels = IMAGE_CHANNELS.get(image_format)
    if channels is None:
        raise _bad(
            config,
            "input_format",
            f"is {image_format!r}; opgraph models the 8-bit formats {', '.join(IMAGE_CHANNELS)}",
        )
    src_w = config.get("src_image_size_w") or -1
    src_h = config.get("src_image_size_h") or -1
    return AippStage(
        input_name, config.mode, image_format, [shape[0], src_h, src_w, channels],
        _image_bytes(image_format, channels, shape[0], src_h, src_w), list(shape), dtype, layout,
        *(bool(config.get(name, False)) for name in ("crop", "resize", "padding", "csc_switch")),
    )  # fmt: skip


def stage_layout(format: Format | str, default: str) -> str:
    """NCHW or NHWC: the input's own 4-D format, else ``default``."""
    name = format.name if isinstance(format, Format) else str(format)
    return name if name in ("NCHW", "NHWC") else default


AIPP_OP_TYPE = "Aipp"
"""The op type of the stage in the graph (GE's name for it)."""


def _register_aipp_op() -> None:
    """Registers the stage's op once: a uint8 image in, the model's input
    out, as its attributes describe (``output_shape``, ``output_dtype``,
    ``output_format``). Registered on first use, so ``import opgraph``
    keeps its op count."""
    from .opdef import OpDef, register, registered_op_types

    if AIPP_OP_TYPE in registered_op_types():
        return
    op = OpDef(AIPP_OP_TYPE)
    op.input("images", dtypes=[DataType.UINT8])
    op.output("features")
    op.attr("output_shape", list[int])
    op.attr("output_dtype", DataType)
    op.attr("output_format", str)
    op.attr("image_format", str)

    @op.infer_dtype
    def _dtype(ctx: InferDataTypeContext) -> None:
        ctx.set_output_dtype(0, ctx.attr_dtype("output_dtype"))

    @op.infer_shape
    def _shape(ctx: InferShapeContext) -> None:
        ctx.set_output_shape(0, ctx.attr_list_int("output_shape"))
        ctx.set_output_format(0, ctx.attr_str("output_format"))

    register(op)


def insert_aipp(graph: Graph, stage: AippStage) -> None:
    """Puts ``stage`` into ``graph`` as ATC does (before inference): the
    input node now delivers the uint8 NHWC image, an ``Aipp`` node turns it
    into the tensor the model read, and the model's readers read that. The
    image buffer is then the graph's input (I/O memory) and the stage an op
    the cost model times."""
    _register_aipp_op()
    ref = next(r for r in graph.inputs if r.node == stage.input)
    readers = [
        (node.name, i)
        for node in graph.nodes()
        for i, source in enumerate(node.input_sources)
        if source is not None and source[0] == ref.node and source[1] == ref.index
    ]
    attrs = {
        "output_shape": stage.output_shape,
        "output_dtype": DataType[stage.output_dtype],
        "output_format": stage.output_format,
        "image_format": stage.image_format,
    }
    features = graph.add_node(AIPP_OP_TYPE, f"{ref.node}_aipp", [ref], attrs)
    for name, i in readers:
        graph.set_input(name, i, features)
    outputs = graph.outputs
    if any(o.node == ref.node and o.index == ref.index for o in outputs):
        graph.set_outputs([features if o.node == ref.node and o.index == ref.index else o for o in outputs])
    graph.set_input_desc(ref.node, DataType.UINT8, stage.input_shape, "NHWC")
