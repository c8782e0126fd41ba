"""Why tensors of an inferred graph have unknown dims, for the compile
command's warning: graph inputs whose dims are free (``--input-shape`` fixes
them) or given as ranges, or, once every input is fixed, sizes that depend
on values known only at run time (NonZero, NonMaxSuppression, an If on data,
a Reshape to a computed shape), named at the nodes where they first appear.
Telling a user to fix input shapes that are already fixed sends them the
wrong way."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._core import Graph, TensorDesc

#: How many op types, and nodes of each, the warning names.
SHOWN_OP_TYPES = 4
SHOWN_NODES = 2


def is_unknown(desc: TensorDesc) -> bool:
    """Whether the shape has an unknown dim (or rank)."""
    return any(d < 0 for d in desc.shape)


def _has_upper_bounds(desc: TensorDesc) -> bool:
    ranges = desc.shape_range
    if not ranges:
        return False
    return all(hi >= 0 for d, (_, hi) in zip(desc.shape, ranges, strict=False) if d < 0)


@dataclass
class UnknownDims:
    """The unknown tensors of a graph and where their unknown dims come from."""

    #: ``node:i`` of every node output with an unknown dim.
    tensors: list[str] = field(default_factory=list)
    #: Graph inputs with an unknown dim that has no upper bound.
    free_inputs: list[str] = field(default_factory=list)
    #: Graph inputs whose every unknown dim is a range with an upper bound.
    ranged_inputs: list[str] = field(default_factory=list)
    #: By op type, the nodes with an unknown output whose inputs are all of
    #: known shape: where a size starts to depend on run-time values.
    origins: dict[str, list[str]] = field(default_factory=dict)

    def data_dependent_only(self) -> bool:
        """Whether every input is fixed, so each unknown size comes from data."""
        return not self.free_inputs and not self.ranged_inputs

    def inputs_bounded(self) -> bool:
        """Whether every input dim is fixed or a range with an upper bound."""
        return not self.free_inputs


def find_unknown_dims(graph: Graph) -> UnknownDims:
    found = UnknownDims()
    input_nodes = {ref.node for ref in graph.inputs}
    for ref in graph.inputs:
        desc = graph.desc(ref)
        if is_unknown(desc):
            kind = found.ranged_inputs if _has_upper_bounds(desc) else found.free_inputs
            kind.append(f"{ref.node}:{ref.index}")
    for node in graph.nodes():
        unknown = [i for i, desc in enumerate(node.outputs) if is_unknown(desc)]
        found.tensors += [f"{node.name}:{i}" for i in unknown]
        if not unknown or node.name in input_nodes:
            continue
        if not any(desc is not None and is_unknown(desc) for desc in node.inputs):
            found.origins.setdefault(node.op_type, []).append(node.name)
    return found


def _listed(names: list[str], shown: int) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _origins(origins: dict[str, list[str]]) -> str:
    ranked = list(origins.items())  # in the order of their first node: the graph's
    parts = [f"{op_type} ({_listed(nodes, SHOWN_NODES)})" for op_type, nodes in ranked[:SHOWN_OP_TYPES]]
    others = sum(len(nodes) for _, nodes in ranked[SHOWN_OP_TYPES:])
    return "; ".join(parts) + (f"; {others} nodes of other types" if others else "")


def unknown_dims_warning(found: UnknownDims, unplanned: int | None, *, costed: bool = False) -> str:
    """The compile warning for ``found``; ``unplanned`` is how many tensors the
    memory plan left out for want of an upper bound (None: no plan);
    ``costed``: the latency was estimated at the upper bounds."""
    count = len(found.tensors)
    if found.free_inputs or found.ranged_inputs:
        given = [
            f"{_inputs(names)} {what}"
            for names, what in (
                (found.free_inputs, "free dims"),
                (found.ranged_inputs, "dims given as ranges"),
            )
            if names
        ]
        advice = (
            "fix them with --input-shape"
            if found.free_inputs
            else "give each input one shape with --input-shape"
        )
        why = f"{count} tensors have unknown dims: {' and '.join(given)}"
        if not costed:
            why += f"; {advice} for a cost estimate (sizes still unknown then depend on data)"
    elif found.origins:
        why = (
            f"{count} tensors have sizes known only at run time, from values computed at "
            f"{_origins(found.origins)}; no --input-shape fixes them"
        )
    else:
        why = f"{count} tensors have sizes known only at run time; no --input-shape fixes them"
    if costed:
        return f"{why}. Memory and latency are estimated at the shape ranges' upper bounds: a worst case"
    if unplanned is None:
        return f"{why}. The cost model is skipped"
    left_out = f" (the plan leaves out {unplanned} tensors that have none)" if unplanned else ""
    return (
        f"{why}. Memory is planned at the shape ranges' upper bounds{left_out} and the cost model is skipped"
    )


def _inputs(names: list[str]) -> str:
    return f"the input {names[0]} has" if len(names) == 1 else f"the inputs {_listed(names, 3)} have"
