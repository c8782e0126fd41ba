"""Static memory planning, as GE's memory assigner does before a network
runs: every tensor is sized by GE's rule (bytes of its storage shape and
dtype, rounded up to 32, plus 32), views (Reshape, Squeeze, Identity, ...
and any output a prototype marks ``reuses_input=``) share their input's
memory, and the activations are placed in one arena at 512-byte aligned
offsets by several strategies, keeping the smallest. Graph inputs, outputs
and constants get their own regions.

    plan = opgraph.plan_memory(graph)
    print(plan.arena_bytes, plan.lower_bound_bytes, plan.chosen_strategy)
    plan.plot("plan.png")        # needs matplotlib (pip install 'opgraph[plot]')

:func:`plan_lifetimes` plans a bare lifetime set (sizes and first / last
steps) with the same strategies."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import Any, Literal, get_args, overload

import numpy as np
import numpy.typing as npt

from . import _core
from ._core import Graph
from ._memory_plot import draw_plan
from ._plot_path import image_path
from ._str_column import StrColumn

Strategy = Literal[
    "naive", "ge_block_reuse", "greedy_by_size", "greedy_by_breadth", "greedy_repair", "branch_and_bound"
]
#: The order the top graph's steps run in (see :func:`plan_memory`).
Schedule = Literal["topological", "depth_first", "frees_most", "refined"]
"""A placement strategy: ``naive`` (no reuse), ``ge_block_reuse`` (GE's rule:
a released block is reused only by a request of exactly its aligned size),
``greedy_by_size`` (largest first, smallest fitting gap), ``greedy_by_breadth``
(busiest step first), ``greedy_repair`` (the better greedy order, then
rounds that move the buffers above the lower bound forward) and
``branch_and_bound`` (where repair leaves the arena more than 1% above the
lower bound: an exact search, within a fixed budget of work, for the steps
around the peak packed at the bound, the other buffers placed around them;
chosen only when strictly smaller than repair)."""

Region = Literal["activation", "input", "output", "weight", "dynamic", "folded", "dead"]
"""Where a tensor's memory is: the planned activation arena, the graph
input / output regions, the weights, nowhere yet (``dynamic``: unknown
size, left out with ``allow_dynamic=True``), or nowhere at all
(``folded``: a constant that only GE's build-time constant folding reads,
such as the INT8 weight of a folded DequantizeLinear, or that nothing
reads; ``dead``: produced in a branch that cannot run, which GE deletes
before it plans: the untaken side of a TensorFlow 1 Switch whose predicate
is known, the bodies an If / Case with a known condition does not take)."""

STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
OFFSET_ALIGNMENT = 512
"""GE's ``MEM_ALIGN_SIZE``: offsets are multiples of it."""

Int64Array = npt.NDArray[np.int64]
ArrayLikeInt = Sequence[int] | npt.NDArray[np.integer[Any]]


@dataclass(frozen=True)
class PlannedTensor:
    """One tensor of a planned graph. A buffer's owner shows the buffer's
    lifetime (views and loops included); a view shows its own steps and its
    owner's name in ``view_of``, at its owner's offset."""

    name: str
    size: int | None
    offset: int | None
    first_step: int
    last_step: int
    region: Region
    view_of: str | None


def _aligned(sizes: Int64Array, alignment: int) -> Int64Array:
    return -(-sizes // alignment) * alignment


class _Arena:
    """The activation arena's totals, common to both kinds of plan."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self.arena_bytes: int = raw["arena_bytes"]
        self.lower_bound_bytes: int = raw["lower_bound_bytes"]
        self.chosen_strategy: Strategy = raw["chosen"]
        self.alignment: int = raw["alignment"]
        self.strategies: dict[Strategy, int] = {name: total for name, total, _ in raw["strategies"]}
        """Arena bytes of every strategy run, in reporting order."""
        self.strategy_seconds: dict[Strategy, float] = {name: s for name, _, s in raw["strategies"]}
        """Planning time of every strategy run. From 4096 buffers the two greedy
        orders run at the same time on two threads, so their times overlap."""

    @property
    def ratio(self) -> float:
        """Arena over lower bound (1.0 when both are empty)."""
        return self.arena_bytes / self.lower_bound_bytes if self.lower_bound_bytes else 1.0


class LifetimePlan(_Arena):
    """Offsets for a lifetime set (see :func:`plan_lifetimes`)."""

    def __init__(self, raw: dict[str, Any], sizes: Int64Array, firsts: Int64Array, lasts: Int64Array) -> None:
        super().__init__(raw)
        self.offsets: Int64Array = raw["offsets"]
        self.sizes, self.firsts, self.lasts = sizes, firsts, lasts

    def check(self) -> list[str]:
        """The checker's findings (empty when valid): every buffer placed,
        aligned, inside the arena, and no two alive at a common step sharing
        an address."""
        aligned = _aligned(self.sizes, self.alignment)
        return check_placement(
            aligned, self.firsts, self.lasts, self.offsets, self.arena_bytes, self.alignment
        )

    def plot(self, path: str | PathLike[str], *, title: str | None = None) -> Path:
        """Draws the plan (needs matplotlib); returns the file written (``.png``
        added to a name without a suffix)."""
        target = image_path(path)
        aligned = _aligned(self.sizes, self.alignment)
        draw_plan(target, aligned, self.offsets, self.firsts, self.lasts, self, title or "memory plan")
        return target

    def __repr__(self) -> str:
        return (
            f"<LifetimePlan {len(self.offsets)} buffers: arena {self.arena_bytes} B, "
            f"lower bound {self.lower_bound_bytes} B, {self.chosen_strategy}>"
        )


class MemoryPlan(_Arena):
    """The memory plan of a graph (see :func:`plan_memory`). Per tensor, as
    columns in schedule order: ``names`` (a :class:`~opgraph.StrColumn`,
    each name made when read), ``regions`` and int64 arrays
    ``sizes``, ``offsets``, ``first_steps``, ``last_steps`` and ``view_of``
    (the index of the tensor owning a view's memory); -1 means none. As
    objects: :attr:`tensors`."""

    def __init__(self, raw: dict[str, Any]) -> None:
        super().__init__(raw)
        self.names: StrColumn = StrColumn(raw["names_data"], raw["names_offsets"])
        self.regions: list[Region] = raw["regions"]
        self.sizes: Int64Array = raw["sizes"]
        self.offsets: Int64Array = raw["offsets"]
        self.first_steps: Int64Array = raw["first_steps"]
        self.last_steps: Int64Array = raw["last_steps"]
        self.view_of: Int64Array = raw["view_of"]
        self.weights_bytes: int = raw["weights_bytes"]
        self.input_bytes: int = raw["input_bytes"]
        self.output_bytes: int = raw["output_bytes"]
        self.steps: int = raw["steps"]
        """Steps of the schedule: nodes run, bodies included."""
        self.schedule: Schedule = raw["schedule"]
        """The order the plan runs the top graph's steps in."""
        self.schedule_peaks: dict[Schedule, int] = dict(raw["schedule_peaks"])
        """Every order tried and its peak of live activation bytes (its
        lower bound); ``"refined"`` only where refining lowered the best
        built order's peak. The chosen order's is :attr:`lower_bound_bytes`."""
        self.any_order_bound_bytes: int | None = raw["any_order_bound_bytes"]
        """The peak of live activation bytes that no order of the steps can
        go below: a buffer counts at a step when data edges force its
        producer before that step and one of its readers after it (or at
        it). The gap to :attr:`lower_bound_bytes` is all any schedule could
        still cut. ``None`` for graphs of more than 8,192 steps."""

    @property
    def io_bytes(self) -> int:
        """Graph inputs and outputs."""
        return self.input_bytes + self.output_bytes

    def _tensor_at(self, i: int, names: Sequence[str]) -> PlannedTensor:
        """Row ``i``; ``names`` is :attr:`names` or, for many rows, its
        decoded list."""

        def opt(value: int) -> int | None:
            return None if value < 0 else value

        owner = self.view_of.item(i)
        return PlannedTensor(
            name=names[i],
            size=opt(self.sizes.item(i)),
            offset=opt(self.offsets.item(i)),
            first_step=self.first_steps.item(i),
            last_step=self.last_steps.item(i),
            region=self.regions[i],
            view_of=None if owner < 0 else names[owner],
        )

    @cached_property
    def tensors(self) -> list[PlannedTensor]:
        names = list(self.names)  # decoded once, not per row
        return [self._tensor_at(i, names) for i in range(len(names))]

    def tensor(self, name: str) -> PlannedTensor:
        """The tensor named ``name`` (``node:i``, or ``caller/body/node:i``),
        found in O(1); raises :class:`KeyError` for a name not in the plan."""
        try:
            i = self.names.index(name)
        except ValueError:
            raise KeyError(f"the plan has no tensor named {name!r}") from None
        return self._tensor_at(i, self.names)

    def _owners(self, region: Region) -> npt.NDArray[np.bool_]:
        """The tensors owning a buffer in ``region`` (not views)."""
        in_region = np.fromiter((r == region for r in self.regions), dtype=bool, count=len(self.regions))
        owners: npt.NDArray[np.bool_] = in_region & (self.view_of < 0)
        return owners

    def check(self) -> list[str]:
        """The checker's findings (empty when valid): in every region each
        buffer is placed, aligned and inside the region, no two buffers alive
        at a common step share an address, and each view is at its owner's
        offset."""
        totals: dict[Region, int] = {
            "activation": self.arena_bytes,
            "input": self.input_bytes,
            "output": self.output_bytes,
            "weight": self.weights_bytes,
        }
        problems = []
        for region, total in totals.items():
            mask = self._owners(region)
            found = check_placement(
                _aligned(self.sizes[mask], self.alignment),
                self.first_steps[mask],
                self.last_steps[mask],
                self.offsets[mask],
                total,
                self.alignment,
            )
            problems += [f"{region} region: {p}" for p in found]
        views = np.flatnonzero(self.view_of >= 0)
        moved = views[self.offsets[views] != self.offsets[self.view_of[views]]]
        problems += [f"view {self.names[i]!r} is not at its owner's offset" for i in moved]
        return problems

    def to_dict(self) -> dict[str, Any]:
        """The plan as plain data (what :meth:`to_json` writes)."""
        return {
            "arena_bytes": self.arena_bytes,
            "lower_bound_bytes": self.lower_bound_bytes,
            "ratio": self.ratio,
            "weights_bytes": self.weights_bytes,
            "input_bytes": self.input_bytes,
            "output_bytes": self.output_bytes,
            "io_bytes": self.io_bytes,
            "steps": self.steps,
            "schedule": self.schedule,
            "schedule_peaks": dict(self.schedule_peaks),
            "any_order_bound_bytes": self.any_order_bound_bytes,
            "alignment": self.alignment,
            "chosen_strategy": self.chosen_strategy,
            "strategies": dict(self.strategies),
            "tensors": [dict(vars(t)) for t in self.tensors],  # flat rows: asdict would deep-copy
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """:meth:`to_dict` as JSON text, indented by ``indent`` spaces when given."""
        return json.dumps(self.to_dict(), indent=indent)

    def plot(self, path: str | PathLike[str], *, title: str | None = None) -> Path:
        """Draws the activation arena: one rectangle per buffer (steps by
        addresses), the live bytes per step, the lower bound and the arena
        size, the largest buffers labelled with their tensors' names. Returns
        the file written (``.png`` added to a name without a suffix). Needs
        matplotlib (``pip install 'opgraph[plot]'``)."""
        target = image_path(path)
        mask = self._owners("activation")
        draw_plan(
            target,
            _aligned(self.sizes[mask], self.alignment),
            self.offsets[mask],
            self.first_steps[mask],
            self.last_steps[mask],
            self,
            title or "activation memory plan",
            names=[self.names[int(i)] for i in np.flatnonzero(mask)],
        )
        return target

    def __repr__(self) -> str:
        return (
            f"<MemoryPlan {len(self.names)} tensors: arena {self.arena_bytes} B "
            f"(lower bound {self.lower_bound_bytes} B, {self.chosen_strategy}), "
            f"weights {self.weights_bytes} B, io {self.io_bytes} B>"
        )


InputShapes = Mapping[str, Sequence[int]]
"""One profile: a shape for each graph input it fixes, by input name."""


@dataclass(frozen=True)
class ProfilePlan:
    """The plan of one profile (see :func:`plan_memory`): the graph with
    ``input_shapes`` given to its inputs, inferred again and planned."""

    input_shapes: dict[str, tuple[int, ...]]
    plan: MemoryPlan


@overload
def plan_memory(
    graph: Graph,
    *,
    strategy: Strategy | None = None,
    alignment: int = OFFSET_ALIGNMENT,
    use_shape_ranges: bool = True,
    allow_dynamic: bool = False,
    schedule: Schedule | Literal["auto"] = "auto",
    profiles: None = None,
) -> MemoryPlan: ...


@overload
def plan_memory(
    graph: Graph,
    *,
    strategy: Strategy | None = None,
    alignment: int = OFFSET_ALIGNMENT,
    use_shape_ranges: bool = True,
    allow_dynamic: bool = False,
    schedule: Schedule | Literal["auto"] = "auto",
    profiles: Sequence[InputShapes],
) -> list[ProfilePlan]: ...


def plan_memory(
    graph: Graph,
    *,
    strategy: Strategy | None = None,
    alignment: int = OFFSET_ALIGNMENT,
    use_shape_ranges: bool = True,
    allow_dynamic: bool = False,
    schedule: Schedule | Literal["auto"] = "auto",
    profiles: Sequence[InputShapes] | None = None,
) -> MemoryPlan | list[ProfilePlan]:
    """Plans the memory of an inferred ``graph``.

    Nodes run one step each, in an order chosen to lower the peak of live
    activation bytes: with ``schedule="auto"`` the topological order, a
    depth-first order finishing the largest branch first and a list
    schedule freeing the most bytes first are each measured, the best is
    refined by moving single nodes (and a branch's head with them) while
    that lowers the peak (``"refined"``, on graphs without bodies, within
    a fixed work budget), and the lowest peak kept
    (:attr:`MemoryPlan.schedule_peaks` has every peak; graphs of more than
    200,000 nodes and TensorFlow v1 loops that may iterate keep the
    topological order; a loop in dead code does not count); or
    name one order. :attr:`MemoryPlan.any_order_bound_bytes` is the peak no
    order can go below. A node's bodies (If branches, While cond and
    body) run at the node. A tensor lives from its producer's step to its
    last reader's (graph outputs to the end); a buffer crossing a loop's
    iterations lives over the whole loop.

    Every strategy runs and the smallest arena is kept, unless ``strategy``
    names one. Tensors with unknown dims are sized by their shape ranges'
    upper bounds when ``use_shape_ranges`` and every such dim has one;
    otherwise :class:`~opgraph.errors.MemoryPlanError` names the tensor, or
    with ``allow_dynamic=True`` they are left out (region ``dynamic``).

    With ``profiles`` (ATC's ``--dynamic_batch_size`` / ``--dynamic_dims``:
    one static plan per profile), each profile maps input names to shapes,
    e.g. ``[{"data": [1, 3, 224, 224]}, {"data": [8, 3, 224, 224]}]``; a
    copy of ``graph`` takes them (:meth:`Graph.set_input_shape`), is
    inferred again and planned, and one :class:`ProfilePlan` per profile is
    returned in the order given. ``graph`` itself is left as it is. Give
    profiles before :func:`opgraph.prepare` stores an input in a device
    format."""
    if profiles is not None:
        # Said once, before any profile is inferred (and for no profiles too).
        _core.check_alignment(alignment)
        return [
            _plan_profile(graph, profile, strategy, alignment, use_shape_ranges, allow_dynamic, schedule)
            for profile in profiles
        ]
    return MemoryPlan(
        _core.plan_memory(graph, strategy, alignment, use_shape_ranges, allow_dynamic, schedule)
    )


def _plan_profile(
    graph: Graph,
    profile: InputShapes,
    strategy: Strategy | None,
    alignment: int,
    use_shape_ranges: bool,
    allow_dynamic: bool,
    schedule: Schedule | Literal["auto"],
) -> ProfilePlan:
    if not isinstance(profile, Mapping):
        raise TypeError(
            f"a profile maps input names to shapes, e.g. {{'data': [1, 3, 224, 224]}}; got {profile!r}"
        )
    copy = graph.copy()
    for name, shape in profile.items():
        # Checked as Graph.set_input_shape checks shapes: ints, not text.
        copy.set_input_shape(name, shape)
    shapes = {name: copy.desc(copy.tensor(name, 0)).shape for name in profile}
    _core.infer(copy, False, None)
    raw = _core.plan_memory(copy, strategy, alignment, use_shape_ranges, allow_dynamic, schedule)
    return ProfilePlan(shapes, MemoryPlan(raw))


def _column(values: ArrayLikeInt, name: str) -> Int64Array:
    array = np.asarray(values)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise TypeError(f"{name} must be a 1-D sequence of integers")
    if array.dtype.kind == "u" and array.size and array.max() > np.iinfo(np.int64).max:
        # Cast to int64, it would wrap to a negative number the message then shows.
        i = int(np.argmax(array > np.iinfo(np.int64).max))
        raise ValueError(f"{name}[{i}] is {int(array[i])}, which exceeds int64")
    return np.ascontiguousarray(array, dtype=np.int64)


def plan_lifetimes(
    sizes: ArrayLikeInt,
    firsts: ArrayLikeInt,
    lasts: ArrayLikeInt,
    *,
    strategy: Strategy | None = None,
    alignment: int = OFFSET_ALIGNMENT,
) -> LifetimePlan:
    """Plans a lifetime set: buffer ``i`` has ``sizes[i]`` bytes and is alive
    from step ``firsts[i]`` through ``lasts[i]`` (inclusive). Sizes are
    rounded up to ``alignment``. Every strategy runs and the smallest arena
    is kept, unless ``strategy`` names one."""
    size_column, first_column, last_column = (
        _column(sizes, "sizes"),
        _column(firsts, "firsts"),
        _column(lasts, "lasts"),
    )
    raw = _core.plan_lifetimes(size_column, first_column, last_column, strategy, alignment)
    return LifetimePlan(raw, size_column, first_column, last_column)


def check_placement(
    sizes: ArrayLikeInt,
    firsts: ArrayLikeInt,
    lasts: ArrayLikeInt,
    offsets: ArrayLikeInt,
    arena_bytes: int,
    alignment: int = OFFSET_ALIGNMENT,
) -> list[str]:
    """The problems of placing buffer ``i`` (``sizes[i]`` bytes, alive from
    ``firsts[i]`` through ``lasts[i]``) at ``offsets[i]`` (-1: not placed) in
    an arena of ``arena_bytes``: empty when the placement is valid."""
    if isinstance(arena_bytes, bool) or not isinstance(arena_bytes, int) or not 0 <= arena_bytes < 2**64:
        raise ValueError(f"arena_bytes is a size in bytes, >= 0 and below 2**64, got {arena_bytes!r}")
    return _core.check_placement(
        _column(sizes, "sizes"),
        _column(firsts, "firsts"),
        _column(lasts, "lasts"),
        _column(offsets, "offsets"),
        arena_bytes,
        alignment,
    )
