"""The ATC options ``opgraph compile`` implements beyond its own
(``--mode``, ``--input_format``, ``--output``, ``--output_type``, the
dynamic-shape profiles, AIPP, per-op precision, fusion switches, ``--log``):
their argparse registration and the parsing of their values."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import cast

from ..cost import PRECISION_MODES, PrecisionMode
from ..dtype import DataType
from .usage import UsageError

LOG_LEVELS = ("debug", "info", "warning", "error", "null")
"""ATC's ``--log`` levels. opgraph prints: debug, each stage's time as well;
info (the default), notes and warnings; warning, warnings; error and null,
neither (errors always)."""

INPUT_FORMATS = ("NCHW", "NHWC", "ND", "NCDHW", "NDHWC")

# ATC precision modes opgraph's cost model has no mode of its own for: the
# closest one, and why.
_MAPPED_PRECISION: dict[str, tuple[PrecisionMode, str]] = {
    "force_fp32": ("must_keep_origin_dtype", "float ops keep fp32"),
    "cube_fp16in_fp32out": ("allow_fp32_to_fp16", "cube ops in fp16, the rest as the model has them"),
    "allow_mix_precision": ("allow_fp32_to_fp16", "ATC's mixed-precision op lists are not modelled"),
    "allow_mix_precision_fp16": ("allow_fp32_to_fp16", "ATC's mixed-precision op lists are not modelled"),
    "allow_mix_precision_bf16": ("allow_fp32_to_fp16", "bf16 is as wide as fp16"),
    "allow_fp32_to_bf16": ("allow_fp32_to_fp16", "bf16 is as wide as fp16"),
    "force_lowerprecision": ("force_fp16", "every float op in a 16-bit type"),
}
PRECISION_CHOICES = (*PRECISION_MODES, *_MAPPED_PRECISION)

# --precision_mode_v2 values and the --precision_mode they are.
_PRECISION_V2: dict[str, str] = {
    "fp16": "force_fp16",
    "origin": "must_keep_origin_dtype",
    "cube_fp16in_fp32out": "cube_fp16in_fp32out",
    "mixed_float16": "allow_mix_precision_fp16",
    "mixed_bfloat16": "allow_mix_precision_bf16",
}

# --output_type names (ATC's) and opgraph's dtypes.
_OUTPUT_DTYPES = {
    "FP32": DataType.FLOAT,
    "FP16": DataType.FLOAT16,
    "UINT8": DataType.UINT8,
    "INT8": DataType.INT8,
    "INT32": DataType.INT32,
    "INT64": DataType.INT64,
    "BF16": DataType.BF16,
}


def atc_options(parser: argparse.ArgumentParser) -> None:
    """Registers the ATC options ``compile`` implements (those of
    ``main.py`` aside). ATC's spellings; hyphenated ones too."""

    def add(name: str, **kwargs: object) -> None:
        spellings = [f"--{name}"] + ([f"--{name.replace('_', '-')}"] if "_" in name else [])
        parser.add_argument(*spellings, dest=name, **kwargs)  # type: ignore[arg-type]

    add("mode", metavar="0", help="ATC's run mode: 0 (build) only")
    add("input_format", type=str.upper, choices=INPUT_FORMATS, help="the inputs' layout (ATC)")
    add("input_shape_range", metavar="NAME:[D~D,...]", help=argparse.SUPPRESS)
    add("dynamic_image_size", metavar="H,W;H,W", help="profiles of the -1 H and W of --input_shape")
    add("dynamic_dims", metavar="D,D;D,D", help="profiles of the -1 dims of --input_shape, in order")
    add(
        "output",
        metavar="OUTPUT",
        help="write the report to OUTPUT.json (ATC's .om path; no .om is made); "
        "an OUTPUT ending in .json is the report's path as given",
    )
    add("output_type", metavar="FP16|NODE:I:FP16;...", help="dtype of the graph outputs (ATC)")
    add("insert_op_conf", type=Path, metavar="AIPP.cfg", help="ATC's AIPP config: a uint8 image stage")
    add("keep_dtype", type=Path, metavar="FILE", help="ops that keep the model's dtype (ATC)")
    add("customize_dtypes", type=Path, metavar="FILE", help="per-op compute dtypes (ATC)")
    add("op_precision_mode", type=Path, metavar="FILE", help="per-op precision modes, ini (ATC)")
    add("fusion_switch_file", type=Path, metavar="FILE", help="fusion passes on/off (ATC)")
    add("precision_mode_v2", choices=tuple(_PRECISION_V2), help=argparse.SUPPRESS)


def atc_precision(args: argparse.Namespace) -> tuple[PrecisionMode, list[str]]:
    """The cost model's precision mode for ``--precision_mode`` /
    ``--precision_mode_v2``, and a note when an ATC mode maps to a near one."""
    if args.precision_mode and args.precision_mode_v2:
        raise UsageError("give --precision_mode or --precision_mode_v2, not both")
    name = args.precision_mode or _PRECISION_V2.get(args.precision_mode_v2 or "", "force_fp16")
    if name in PRECISION_MODES:
        return cast(PrecisionMode, name), []
    mode, why = _MAPPED_PRECISION[name]
    return mode, [f"--precision_mode {name} is estimated as {mode} ({why})"]


def parse_output_type(text: str) -> dict[str | None, DataType]:
    """``--output_type``: ``FP16`` for every output, or ``node:index:FP16``
    entries separated by ``;``."""
    known = ", ".join(_OUTPUT_DTYPES)

    def dtype(name: str) -> DataType:
        found = _OUTPUT_DTYPES.get(name.strip().upper())
        if found is None:
            raise UsageError(f"--output_type: {name.strip()!r} is not a dtype; expected one of {known}")
        return found

    entries = [e.strip() for e in text.split(";") if e.strip()]
    if len(entries) == 1 and ":" not in entries[0]:
        return {None: dtype(entries[0])}
    types: dict[str | None, DataType] = {}
    for entry in entries:
        node, sep, rest = entry.rpartition(":")
        tensor_node, sep2, index = node.rpartition(":")
        if sep and not (sep2 and index.isdigit()):
            tensor_node, index = node, "0"  # NAME:DTYPE, output 0 of NAME
        if not sep or not tensor_node:
            raise UsageError(f"--output_type entry {entry!r} is not NODE:INDEX:DTYPE (or one DTYPE for all)")
        types[f"{tensor_node}:{index}"] = dtype(rest)
    return types


def output_report_path(output: str) -> Path:
    """ATC's ``--output=x`` (the .om's path without its suffix) as the
    report's path, ``x.json``; a name that already ends in ``.json`` is the
    report's path as given (not ``x.json.json``)."""
    stem = output.removesuffix(".om").removesuffix(".json")
    if not stem or stem.endswith(("/", "\\")):
        raise UsageError(f"--output {output!r} names a directory; give a file name such as out/model")
    return Path(stem + ".json")
