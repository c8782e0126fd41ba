"""Input ranges carried over by symbol. ONNX inputs that name the same
``dim_param`` share that size, so when ``--input-shape`` gives some of them
(``input_ids:1~8,1~512``) the range it gives a symbol applies to every other
input naming it, just as a fixed size does (``opgraph.load_onnx``). Without
this, BERT given ranges for two of its three inputs kept the third's dims
unbounded and got neither a whole memory plan nor a latency."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .._core import Graph
from .usage import UsageError

Range = tuple[int, int]


def _shown(size: Range) -> str:
    low, high = size
    return f"size {low}" if low == high else f"the range {low}~{high}"


def symbol_sizes(
    symbols: Mapping[str, Sequence[str]],
    shapes: Mapping[str, Sequence[int]],
    ranges: Mapping[str, Sequence[Range]],
) -> dict[str, tuple[Range, bool]]:
    """Each symbol's size as the given inputs fix it: ``(d, d)`` for a fixed
    dim, ``(lo, hi)`` for a range, and whether a range gave it; an unknown
    dim (``-1``) fixes nothing. Two inputs giving one symbol different sizes
    is a :class:`UsageError`."""
    sizes: dict[str, tuple[Range, str, int]] = {}
    for name, dims in shapes.items():
        params = symbols.get(name)
        if params is None or len(params) != len(dims):
            continue
        given = ranges.get(name)
        for index, (param, dim) in enumerate(zip(params, dims, strict=True)):
            size = given[index] if given is not None else (dim, dim)
            if not param or size[0] < 0 or size[1] < 0:
                continue
            if param not in sizes:
                sizes[param] = (size, name, index)
                continue
            first, other, other_index = sizes[param]
            if first != size:
                raise UsageError(
                    f"--input-shape gives symbol '{param}' {_shown(first)} (input '{other}' dim "
                    f"{other_index}) and {_shown(size)} (input '{name}' dim {index}); inputs "
                    "sharing a symbol share its size"
                )
    return {param: (size, name in ranges) for param, (size, name, _) in sizes.items()}


def shared_ranges(
    graph: Graph,
    symbols: Mapping[str, Sequence[str]],
    shapes: Mapping[str, Sequence[int]],
    ranges: Mapping[str, Sequence[Range]],
) -> dict[str, list[Range]]:
    """The ranges of the inputs ``--input-shape`` does not name that share a
    symbol it gives a range: per dim the symbol's range, else the loaded
    dim (``(d, d)``, or ``(0, -1)`` where unknown). A fixed size needs no
    carrying: the loader gave it to every input naming it. An input given
    with ``-1`` keeps that dim free, as it does beside fixed sizes."""
    given = symbol_sizes(symbols, shapes, ranges)
    sizes = {param: size for param, (size, ranged) in given.items() if ranged}
    carried: dict[str, list[Range]] = {}
    for ref in graph.inputs:
        name = ref.node  # an input's Data node is named after it
        params = symbols.get(name)
        dims = graph.desc(ref).shape
        if name in shapes or params is None or len(params) != len(dims):
            continue
        if not any(param in sizes for param in params):
            continue
        carried[name] = [
            sizes.get(param, (dim, dim) if dim >= 0 else (0, -1))
            for param, dim in zip(params, dims, strict=True)
        ]
    return carried


def carried_note(carried: Mapping[str, Sequence[Range]], symbols: Mapping[str, Sequence[str]]) -> str:
    """The note saying which inputs took their ranges from their symbols."""
    parts = []
    for name, dims in carried.items():
        named = ", ".join(
            f"{param} {low}" if low == high else f"{param} {low}~{high}"
            for param, (low, high) in zip(symbols[name], dims, strict=True)
            if param and high >= 0
        )
        parts.append(f"'{name}' ({named})")
    inputs = f"input {parts[0]} takes" if len(parts) == 1 else f"inputs {', '.join(parts)} take"
    return f"{inputs} the ranges --input-shape gives the same symbols"
