"""Drawing a memory plan with matplotlib (an optional dependency: the
``opgraph[plot]`` extra), on the Agg canvas so no display is needed and the
user's pyplot backend is left alone."""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ._plot_text import literal_text


class _Totals(Protocol):
    @property
    def arena_bytes(self) -> int: ...
    @property
    def lower_bound_bytes(self) -> int: ...
    @property
    def chosen_strategy(self) -> str: ...
    @property
    def ratio(self) -> float: ...


def _unit(top: float) -> tuple[str, float]:
    for name, scale in (("GiB", 2.0**30), ("MiB", 2.0**20), ("KiB", 2.0**10)):
        if top >= 4 * scale:
            return name, scale
    return "B", 1.0


def live_bytes(
    sizes: npt.NDArray[np.int64], firsts: npt.NDArray[np.int64], lasts: npt.NDArray[np.int64]
) -> Any:
    """Live bytes at every step 0..max(lasts)."""
    steps = int(lasts.max()) + 2 if lasts.size else 1
    diff = np.zeros(steps, dtype=np.int64)
    np.add.at(diff, firsts, sizes)
    np.add.at(diff, lasts + 1, -sizes)
    return np.cumsum(diff)[:-1] if lasts.size else np.zeros(0, dtype=np.int64)


#: How many of the largest buffers the plot names.
LABELLED_BUFFERS = 6


@literal_text
def draw_plan(
    path: str | PathLike[str],
    sizes: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    totals: _Totals,
    title: str,
    names: Sequence[str] | None = None,
) -> None:
    """One rectangle per buffer (steps on x, addresses on y), the live bytes
    per step, the lower bound and the arena size, saved to ``path``; with
    ``names`` (one per buffer), the largest buffers are labelled. The legend
    sits below the axes, off the data."""
    try:
        from matplotlib import colormaps
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import PolyCollection
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError("plotting a memory plan needs matplotlib: pip install 'opgraph[plot]'") from error

    top = max(totals.arena_bytes, totals.lower_bound_bytes, 1)
    unit, scale = _unit(top)
    fig = Figure(figsize=(11, 6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    x0, x1 = firsts.astype(float), lasts.astype(float) + 1.0
    y0 = offsets.astype(float) / scale
    y1 = (offsets + sizes).astype(float) / scale
    boxes = np.stack(
        [np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1), np.stack([x0, y1], 1)], 1
    )
    shade = np.log2(np.maximum(sizes, 1).astype(float))
    span = max(float(np.ptp(shade)) if shade.size else 0.0, 1.0)
    faces = colormaps["viridis"]((shade - (shade.min() if shade.size else 0.0)) / span)
    edge = 0.3 if len(sizes) <= 5000 else 0.0
    ax.add_collection(PolyCollection(list(boxes), facecolors=faces, edgecolors="white", linewidths=edge))
    steps = int(lasts.max()) + 1 if lasts.size else 1
    live = live_bytes(sizes, firsts, lasts)
    if live.size:
        ax.step(
            np.arange(live.size + 1),
            np.append(live, live[-1]) / scale,
            where="post",
            color="tab:orange",
            linewidth=1.0,
            label="live bytes",
        )
    ax.axhline(
        totals.lower_bound_bytes / scale,
        color="tab:red",
        linestyle="--",
        linewidth=1.2,
        zorder=4,
        label=f"lower bound {totals.lower_bound_bytes / scale:,.2f} {unit}",
    )
    ax.axhline(
        totals.arena_bytes / scale,
        color="black",
        linewidth=1.2,
        label=f"arena {totals.arena_bytes / scale:,.2f} {unit} ({totals.chosen_strategy}, "
        f"x{totals.ratio:.3f})",
    )
    if names is not None:
        _label_largest(ax, names, sizes, offsets, firsts, lasts, scale)
    # Steps before the first buffer (constants, inputs) hold nothing to draw.
    ax.set_xlim(int(firsts.min()) if firsts.size else 0, steps)
    ax.set_ylim(0, top / scale * 1.08)
    ax.set_xlabel("step (nodes in schedule order)")
    ax.set_ylabel(f"address ({unit})")
    ax.set_title(f"{title}: {len(sizes)} buffers")
    fig.legend(loc="outside lower center", ncols=3, frameon=False)
    fig.savefig(path, dpi=120)


def _label_largest(
    ax: Any,
    names: Sequence[str],
    sizes: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    scale: float,
) -> None:
    """Names the largest buffers inside their rectangles (the last two parts
    of the tensor's name), skipping one whose label would sit on another's."""
    x_span = max(float(lasts.max()) - float(firsts.min()), 1.0) if lasts.size else 1.0
    y_span = max(float((offsets + sizes).max()) / scale, 1e-9) if sizes.size else 1.0
    placed: list[tuple[float, float]] = []
    for i in np.argsort(-sizes, kind="stable"):
        if len(placed) == LABELLED_BUFFERS:
            break
        x = (float(firsts[i]) + float(lasts[i]) + 1.0) / 2
        y = (float(offsets[i]) + float(sizes[i]) / 2) / scale
        if any(abs(x - px) < 0.2 * x_span and abs(y - py) < 0.06 * y_span for px, py in placed):
            continue
        placed.append((x, y))
        short = "/".join(names[i].split("/")[-2:])
        ax.annotate(
            f"{short} ({sizes[i] / scale:,.2f})",
            (x, y),
            ha="center",
            va="center",
            fontsize=7,
            bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "alpha": 0.8, "linewidth": 0},
            zorder=5,
        )
