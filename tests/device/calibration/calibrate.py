"""Calibrating the cost model's unpublished constants on published rows, and
judging it only on rows it was not fitted to.

The constants: the achievable fraction of peak of the Cube, the vector unit
and memory (shared by every SoC), and the task launch overhead of each SoC.
Everything else in a preset is a published figure. A row's prediction is
``Terms.total_us`` (the same arithmetic as the cost model's timing, checked
against ``estimate_cost`` by the benchmark), so a fit is a search over a few
numbers, not thousands of cost estimates.

The loss is the sum over rows of ``log(predicted / measured) ** 2``: errors
are relative, a row 2x too slow weighs as much as one 2x too fast.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from published import Row, Terms

LAUNCH_GRID = np.round(np.arange(0.0, 60.0001, 0.05), 3)
"""Task launch overheads tried, in microseconds."""

SCHEDULER = {"Ascend310": "Ascend310", "Ascend310P3": "Ascend310P", "Ascend310B1": "Ascend310P"}
"""Which task launch overhead a SoC's rows fit. The Ascend 310B1's two rows
alone drive its own to 0 (not determined: its preset's memory bandwidth is
an estimate that makes both rows memory-bound), so it shares the 310P's."""


def scheduler(soc: str) -> str:
    return SCHEDULER.get(soc, soc)


@dataclass(frozen=True)
class Constants:
    cube: float
    vector: float
    memory: float
    launch_us: dict[str, float]
    """Per task scheduler (see ``SCHEDULER``)."""

    def predict(self, row: Row, terms: Terms) -> float:
        return terms.total_us(self.cube, self.vector, self.memory, self.launch_us[scheduler(row.soc)])


@dataclass(frozen=True)
class Sample:
    row: Row
    terms: Terms


class _Stacked:
    """Every sample's kernels in one array, for the busy time of all rows at once."""

    def __init__(self, samples: Sequence[Sample]) -> None:
        self.cube = np.concatenate([s.terms.cube for s in samples])
        self.vector = np.concatenate([s.terms.vector for s in samples])
        self.memory = np.concatenate([s.terms.memory for s in samples])
        sizes = [len(s.terms.cube) for s in samples]
        self.starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.tasks = np.array([s.terms.tasks for s in samples])
        self.fixed = np.array([s.terms.ai_cpu_us for s in samples])
        self.log_measured = np.log([s.row.measured_us for s in samples])
        groups = [scheduler(s.row.soc) for s in samples]
        # Each scheduler's rows, found once rather than on every grid point.
        self.masks = {g: np.array([x == g for x in groups]) for g in sorted(set(groups))}

    def busy(self, cube: float, vector: float, memory: float) -> np.ndarray:
        per_kernel = np.maximum(np.maximum(self.cube / cube, self.vector / vector), self.memory / memory)
        total: np.ndarray = np.add.reduceat(per_kernel, self.starts) + self.fixed
        return total

    def best_launch(self, busy: np.ndarray) -> tuple[float, dict[str, float]]:
        """The loss with each SoC's launch overhead at its best grid value."""
        loss, launch = 0.0, {}
        for soc, mask in self.masks.items():
            pred = busy[mask][:, None] + self.tasks[mask][:, None] * LAUNCH_GRID[None, :]
            losses = ((np.log(pred) - self.log_measured[mask][:, None]) ** 2).sum(axis=0)
            k = int(np.argmin(losses))
            loss += float(losses[k])
            launch[soc] = float(LAUNCH_GRID[k])
        return loss, launch


def _grid(lo: float, hi: float, step: float) -> list[float]:
    return [round(x, 4) for x in np.arange(lo, hi + step / 2, step) if 0.05 <= x <= 1.0 + 1e-9]


def fit(samples: Sequence[Sample], fixed: dict[str, float] | None = None) -> tuple[Constants, float]:
    """The constants minimising the loss over ``samples`` (coarse grid in
    steps of 0.1, then steps of 0.01 around the best); ``fixed`` pins some of
    ``cube`` / ``vector`` / ``memory``. Returns them and the loss."""
    stacked = _Stacked(samples)
    fixed = fixed or {}

    def search(grids: dict[str, list[float]]) -> tuple[float, Constants]:
        # A pinned constant is searched over its one value.
        grids = {k: [fixed[k]] if k in fixed else values for k, values in grids.items()}
        best: tuple[float, Constants] | None = None
        for c, v, m in itertools.product(grids["cube"], grids["vector"], grids["memory"]):
            loss, launch = stacked.best_launch(stacked.busy(c, v, m))
            if best is None or loss < best[0]:
                best = (loss, Constants(c, v, m, launch))
        assert best is not None
        return best

    coarse = _grid(0.1, 1.0, 0.1)
    loss, best = search({"cube": coarse, "vector": coarse, "memory": coarse})
    near = {
        k: _grid(getattr(best, k) - 0.1, getattr(best, k) + 0.1, 0.01) for k in ("cube", "vector", "memory")
    }
    loss, best = search(near)
    return best, loss


def profile(
    samples: Sequence[Sample], best: Constants, best_loss: float, within: float = 0.05
) -> dict[str, str]:
    """How well the data determine each efficiency: the range of its values
    (steps of 0.02) whose best fit, the others refitted, has a loss within
    ``within`` (relative) of the best, and whether that range reaches a bound
    of the search (then the data do not determine it)."""
    out = {}
    for name in ("cube", "vector", "memory"):
        ok = []
        for value in _grid(0.06, 1.0, 0.02):
            _, loss = fit(samples, fixed={name: value})
            if loss <= best_loss * (1 + within) + 1e-12:
                ok.append(value)
        if not ok:
            out[name] = f"{getattr(best, name):.2f} (no grid value within {within:.0%})"
            continue
        edge = ok[0] <= 0.06 or ok[-1] >= 1.0
        out[name] = f"{ok[0]:.2f}-{ok[-1]:.2f}" + (
            " (not determined: reaches the search bound)" if edge else ""
        )
    return out


def leave_one_model_out(samples: Sequence[Sample]) -> list[tuple[Sample, float, Constants]]:
    """For each model x SoC group: fit without it, predict its rows. A SoC
    whose only rows are left out keeps no fitted launch overhead: its rows
    cannot be predicted and are reported as such (NaN)."""
    out = []
    for group in sorted({s.row.group for s in samples}):
        train = [s for s in samples if s.row.group != group]
        constants, _ = fit(train)
        for s in samples:
            if s.row.group == group:
                if scheduler(s.row.soc) in constants.launch_us:
                    out.append((s, constants.predict(s.row, s.terms), constants))
                else:
                    out.append((s, math.nan, constants))
    return out


@dataclass(frozen=True)
class Summary:
    rows: int
    within_25: float
    median_abs_log: float
    worst_sweep: tuple[str, float]
    """The batch sweep whose worst row is furthest off, and that row's |ratio - 1|."""
    sweeps_within_25: int
    sweeps: int


def summarise(predictions: Iterable[tuple[Sample, float, Constants]]) -> Summary:
    ratios: dict[str, list[float]] = {}
    for s, predicted, _ in predictions:
        ratios.setdefault(s.row.group, []).append(predicted / s.row.measured_us)
    flat = [r for rs in ratios.values() for r in rs]
    sweeps = {g: rs for g, rs in ratios.items() if len(rs) > 1}
    worst = {g: max(abs(r - 1) if math.isfinite(r) else math.inf for r in rs) for g, rs in sweeps.items()}
    worst_group = max(worst, key=lambda g: worst[g]) if worst else ""
    return Summary(
        rows=len(flat),
        within_25=sum(1 for r in flat if math.isfinite(r) and 0.75 <= r <= 1.25) / len(flat),
        median_abs_log=float(
            np.median([abs(math.log(r)) if math.isfinite(r) and r > 0 else math.inf for r in flat])
        ),
        worst_sweep=(worst_group, worst.get(worst_group, 0.0)),
        sweeps_within_25=sum(1 for g in sweeps if worst[g] <= 0.25),
        sweeps=len(sweeps),
    )
