"""Per-op precision from ATC's config files: ``--keep_dtype``,
``--customize_dtypes`` and ``--op_precision_mode``. Each names ops by node
name or, after ``OpType::`` (or in ``[ByOpType]``), by op type (opgraph's IR
type or the framework's original type). The result is a precision mode per
node, which ``compile`` writes to the node attribute the core's cost model
and precision pass read (``_precision_mode``)."""

from __future__ import annotations

import configparser
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .._core import Graph
from ..dtype import DataType
from ..errors import AtcConfigError

PRECISION_ATTR = "_precision_mode"
"""The node attribute the core reads (``PRECISION_MODE_ATTR`` in rust/core/src/device/cost)."""
ORIGIN_OP_TYPE_ATTRS = ("_origin_op_type", "original_type", "_original_type")

KEEP = "must_keep_origin_dtype"
FP16 = "force_fp16"
_FLOAT_DTYPES = {"float", "float32", "fp32", "dt_float"}
_HALF_DTYPES = {"float16", "fp16", "half", "dt_float16"}
# Every dtype name a --customize_dtypes line may give: GE's (DT_ prefix or
# not, any case) and the usual short forms.
_KNOWN_DTYPES = (
    {d.name.lower() for d in DataType}
    | {"dt_" + d.name.lower() for d in DataType}
    | {"float32", "fp32", "bfloat16", "int4", "uint1"}
    | _HALF_DTYPES
)
# --op_precision_mode values that change the dtype an op computes in.
_OP_MODE_DTYPE = {
    "enable_float_32_execution": KEEP,
    "enable_hi_float_32_execution": KEEP,
    "keep_fp16": FP16,
}
_OP_MODES_WITHOUT_DTYPE = {"high_precision", "high_performance", "support_out_of_bound_index"}


@dataclass
class PrecisionOverrides:
    """Precision mode per node name, and notes on what was not applied."""

    modes: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def apply(self, graph: Graph) -> None:
        for node, mode in self.modes.items():
            graph.set_attr(node, PRECISION_ATTR, mode)


@dataclass(frozen=True)
class _Selector:
    """One line of a config: a node name, or an op type (``by_type``)."""

    text: str
    by_type: bool
    mode: str | None
    line: int


def _read(path: Path, option: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AtcConfigError(f"{option} {str(path)!r} cannot be read: {error}", path=str(path)) from None


def _lines(text: str) -> Iterable[tuple[int, str]]:
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            yield number, line


def keep_dtype_selectors(path: Path) -> list[_Selector]:
    """``--keep_dtype``: one op per line, a node name or ``OpType::TYPE``."""
    selectors = []
    for number, line in _lines(_read(path, "--keep_dtype")):
        by_type = line.startswith("OpType::")
        selectors.append(_Selector(line.removeprefix("OpType::"), by_type, KEEP, number))
    return selectors


def customize_dtypes_selectors(path: Path) -> list[_Selector]:
    """``--customize_dtypes``: ``NAME::InputDtype:a,b,OutputDtype:c`` or
    ``OpType::TYPE:InputDtype:...``; fp16 dtypes make the op compute in
    fp16, fp32 ones keep the model's dtype."""
    option = "--customize_dtypes"
    selectors = []
    for number, line in _lines(_read(path, option)):
        by_type = line.startswith("OpType::")
        body = line.removeprefix("OpType::")
        name, sep, spec = body.partition(":" if by_type else "::")
        if not sep or not name or "Dtype:" not in spec:
            raise AtcConfigError(
                f"{option} {str(path)!r} line {number}: {line!r} is not "
                "NAME::InputDtype:...,OutputDtype:... or OpType::TYPE:InputDtype:...",
                path=str(path),
                field=f"line {number}",
            )
        dtypes = {
            d.strip().lower()
            for part in spec.replace("OutputDtype:", ",").replace("InputDtype:", ",").split(",")
            if (d := part.strip())
        }
        unknown = sorted(dtypes - _KNOWN_DTYPES)
        if unknown:
            raise AtcConfigError(
                f"{option} {str(path)!r} line {number}: {unknown[0]!r} is not a dtype "
                "(e.g. float16, float32, int8)",
                path=str(path),
                field=f"line {number}",
            )
        mode = FP16 if dtypes & _HALF_DTYPES else KEEP if dtypes & _FLOAT_DTYPES else None
        selectors.append(_Selector(name.strip(), by_type, mode, number))
    return selectors


def op_precision_selectors(path: Path) -> list[_Selector]:
    """``--op_precision_mode``: an ini file, ``[ByOpType]`` and
    ``[ByNodeName]`` sections of ``name=mode`` (lines before any section are
    by op type, as in older CANN)."""
    option = "--op_precision_mode"
    text = _read(path, option)
    parser = configparser.ConfigParser(delimiters=("=",), comment_prefixes=("#", ";"), strict=False)
    parser.optionxform = str  # type: ignore[assignment, method-assign]  # op names are case-sensitive
    try:
        parser.read_string(text if text.lstrip().startswith("[") else "[ByOpType]\n" + text)
    except configparser.Error as error:
        reason = str(error).splitlines()[0]
        raise AtcConfigError(f"{option} {str(path)!r} does not parse: {reason}", path=str(path)) from None
    selectors = []
    for section in parser.sections():
        if section not in ("ByOpType", "ByNodeName"):
            raise AtcConfigError(
                f"{option} {str(path)!r}: section [{section}]; expected [ByOpType] or [ByNodeName]",
                path=str(path),
                field=section,
            )
        for name, value in parser.items(section):
            mode = value.strip()
            if mode not in _OP_MODE_DTYPE and mode not in _OP_MODES_WITHOUT_DTYPE:
                known = ", ".join([*_OP_MODE_DTYPE, *_OP_MODES_WITHOUT_DTYPE])
                raise AtcConfigError(
                    f"{option} {str(path)!r}: {name}={mode}: unknown mode; expected one of {known}",
                    path=str(path),
                    field=name,
                )
            selectors.append(_Selector(name, section == "ByOpType", _OP_MODE_DTYPE.get(mode), 0))
    return selectors


def _node_types(graph: Graph) -> dict[str, set[str]]:
    types: dict[str, set[str]] = {}
    for node in graph.nodes():
        kinds = {node.op_type}
        attrs = node.attrs
        kinds.update(attrs[k] for k in ORIGIN_OP_TYPE_ATTRS if isinstance(attrs.get(k), str))
        types[node.name] = kinds
    return types


def resolve(graph: Graph, option: str, selectors: list[_Selector], into: PrecisionOverrides) -> None:
    """Adds the nodes ``selectors`` pick to ``into`` (later options win);
    a name or type that picks nothing gets a note."""
    types = _node_types(graph)
    missing: list[str] = []
    unmodelled = 0
    for selector in selectors:
        if selector.by_type:
            picked = [name for name, kinds in types.items() if selector.text in kinds]
        else:
            picked = [selector.text] if selector.text in types else []
        if not picked:
            missing.append(("OpType::" if selector.by_type else "") + selector.text)
        elif selector.mode is None:
            unmodelled += 1
        for name in picked if selector.mode is not None else []:
            into.modes[name] = selector.mode  # type: ignore[assignment]
    if missing:
        into.notes.append(f"{option}: the model has no {', '.join(missing)}; those lines have no effect")
    if unmodelled:
        into.notes.append(
            f"{option}: {unmodelled} line(s) set an implementation or dtype opgraph does not model "
            "(only fp16 against the model's dtype changes its estimate)"
        )
