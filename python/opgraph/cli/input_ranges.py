"""Input ranges in the compile command: a model given size ranges
(``--input-shape "x:1~8,1~512"``) has its dynamic dims bounded by probing
those sizes (:func:`opgraph.narrow_ranges`), so the memory plan and the
worst-case latency cover the tensors that interval ranges leave unbounded."""

from __future__ import annotations

from .._core import Graph
from ..ranges import narrow_ranges


def has_ranged_inputs(graph: Graph) -> bool:
    """Whether some graph input has an unknown dim with a range."""
    for ref in graph.inputs:
        desc = graph.desc(ref)
        if desc.shape_range is not None and any(d < 0 for d in desc.shape):
            return True
    return False


def probe_input_ranges(graph: Graph, symbols: dict[str, list[str]]) -> list[str]:
    """Probes the ranged inputs' sizes (:func:`opgraph.narrow_ranges`); the
    notes that say what it bounded, or why it could not."""
    probe = narrow_ranges(graph, symbols)
    if probe.skipped is not None:
        return [f"the input ranges were not probed for tighter bounds: {probe.skipped}"]
    sizes = ", ".join(f"{name} {lo}~{hi}" for name, lo, hi in probe.symbols)
    notes = [
        f"{probe.fitted} of {probe.unknown_dims} unknown dims are products of the input sizes ({sizes}): "
        f"bounded from {probe.probes} inferences at fixed sizes, {probe.narrowed} more tightly than "
        "shape ranges alone bound them"
    ]
    if probe.steps:
        grid = ", ".join(f"{name} in steps of {step}" for name, step in probe.steps)
        notes.append(
            f"sizes between did not infer, so the sizes were probed on a grid ({grid}): the bounds "
            "assume the model takes only sizes on it"
        )
    if probe.merged:
        notes.append(
            "input sizes probed apart did not infer, so sizes of equal ranges were probed as one "
            "(the names joined by '='): only dims that shape ranges left unbounded take those bounds"
        )
    return notes
