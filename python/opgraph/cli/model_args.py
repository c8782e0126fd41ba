"""The model arguments of ``opgraph compile``: which framework a model file
is, and ATC's ``--input_shape`` (shapes and ``lo~hi`` ranges) and
``--dynamic_batch_size`` spellings, checked for syntax only (the values are
checked against the model when it loads)."""

from __future__ import annotations

from pathlib import Path

from .usage import UsageError

FRAMEWORKS = ("tensorflow", "caffe", "onnx")
MODEL_FILE = "a .pb/.pbtxt, .prototxt or .onnx model file"
TF_SUFFIXES = (".pb", ".pbtxt")
CAFFE_SUFFIXES = (".prototxt", ".caffemodel")
ONNX_SUFFIXES = (".onnx",)
MAX_BATCH = 1 << 20


def framework_of_suffix(model: Path) -> str | None:
    """The framework a model file's extension names, if it names one."""
    suffix = model.suffix.lower()
    if suffix in TF_SUFFIXES:
        return "tensorflow"
    if suffix in CAFFE_SUFFIXES:
        return "caffe"
    if suffix in ONNX_SUFFIXES:
        return "onnx"
    return None


def framework_of(model: Path) -> str:
    """The framework a model file's extension names (a UsageError if none)."""
    framework = framework_of_suffix(model)
    if framework is not None:
        return framework
    raise UsageError(
        f"cannot tell the framework of {model.name!r} from its extension; "
        "pass --framework tensorflow, caffe or onnx (ATC: --framework=3, 0 or 5)"
    )


def parse_input_shapes(text: str) -> dict[str, list[int]]:
    """ATC's ``--input_shape``: ``"data:1,3,224,224;im_info:1,3"`` (``-1`` an
    unknown dim, ``-2`` alone an unknown rank, ``"x:"`` a scalar; the dims may
    be in brackets, ``"x:[1,3,224,224]"``). A range ``128~2048`` is an
    unknown dim here (its bounds: :func:`parse_input_ranges`). The dims'
    values are checked when the model is loaded (``ShapeArgumentError``,
    reported as a usage error); here only the syntax is."""
    return {name: [-1 if r is not None else d for d, r in dims] for name, dims in _parse(text).items()}


def parse_input_ranges(text: str) -> dict[str, list[tuple[int, int]]]:
    """The shape ranges of ``--input_shape``: for each input with a range
    dim (``1,3,128~2048,128~2048``), inclusive ``(min, max)`` per dim; a
    fixed dim is ``(d, d)`` and ``-1`` is ``(0, -1)`` (unbounded)."""
    ranges = {}
    for name, dims in _parse(text).items():
        if any(r is not None for _, r in dims):
            ranges[name] = [r if r is not None else ((d, d) if d >= 0 else (0, -1)) for d, r in dims]
    return ranges


def _parse(text: str) -> dict[str, list[tuple[int, tuple[int, int] | None]]]:
    shapes: dict[str, list[tuple[int, tuple[int, int] | None]]] = {}
    for item in filter(None, (part.strip() for part in text.split(";"))):
        name, sep, dims = item.rpartition(":")
        if not sep or not name:
            raise UsageError(f"--input-shape entry {item!r} is not NAME:D,D,...")
        if name in shapes:
            raise UsageError(f"--input-shape names input {name!r} twice")
        dims = dims.strip()
        if dims.startswith("[") and dims.endswith("]"):
            dims = dims[1:-1]
        shapes[name] = [_dim(item, i, d.strip()) for i, d in enumerate(dims.split(","))] if dims else []
    return shapes


def parse_batch_sizes(text: str) -> list[int]:
    """``--batch-sizes`` / ATC's ``--dynamic_batch_size``: ``"1,4,8,16"``."""
    sizes = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            size = int(part)
        except ValueError:
            raise UsageError(f"--batch-sizes: {part!r} is not a whole number (give e.g. 1,4,8,16)") from None
        if not 1 <= size <= MAX_BATCH:
            raise UsageError(f"--batch-sizes: {size} is not between 1 and {MAX_BATCH}")
        sizes.append(size)
    if not sizes:
        raise UsageError("--batch-sizes: no batch size given (give e.g. 1,4,8,16)")
    return sizes


def _dim(item: str, index: int, text: str) -> tuple[int, tuple[int, int] | None]:
    """A dim and, for ATC's ``lo~hi``, its range."""
    if "~" in text:
        lo, _, hi = text.partition("~")
        low, high = _int(item, index, lo.strip()), _int(item, index, hi.strip())
        if low < 0 or high < low:
            raise UsageError(
                f"--input-shape entry {item!r}: dim {index} range {text} is not MIN~MAX with 0 <= MIN <= MAX"
            )
        return -1, (low, high)
    return _int(item, index, text), None


def _int(item: str, index: int, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        shown = repr(text) if text else "empty"
        raise UsageError(
            f"--input-shape entry {item!r}: dim {index} is {shown}; dims are integers "
            "(-1 unknown, MIN~MAX a range)"
        ) from None
