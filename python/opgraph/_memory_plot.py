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
LABELLED_BUFFERS = 8


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
    ``names`` (one per buffer), the largest buffers are numbered and named in
    a legend beside the axes. The other legend sits below, off the data."""
    plan_figure(sizes, offsets, firsts, lasts, totals, title, names).savefig(path, dpi=120)


def plan_figure(
    sizes: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    totals: _Totals,
    title: str,
    names: Sequence[str] | None = None,
) -> Any:
    """The Figure :func:`draw_plan` saves (on the Agg canvas)."""
    try:
        from matplotlib import colormaps
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.cm import ScalarMappable
        from matplotlib.collections import PolyCollection
        from matplotlib.colors import LogNorm
        from matplotlib.figure import Figure
        from matplotlib.ticker import FuncFormatter
    except ImportError as error:
        raise ImportError("plotting a memory plan needs matplotlib: pip install 'opgraph[plot]'") from error

    top = max(totals.arena_bytes, totals.lower_bound_bytes, 1)
    unit, scale = _unit(top)
    fig = Figure(figsize=(14, 6), layout="constrained")
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
        named = _label_largest(ax, names, sizes, offsets, firsts, lasts, scale, unit, faces)
        # The largest tensors' full names, beside the axes (the numbers mark their boxes).
        fig.legend(
            handles=named,
            loc="outside right upper",
            title=f"largest tensors ({unit}, steps)",
            fontsize=7,
            title_fontsize=8,
            frameon=False,
        )
    # Steps before the first buffer (constants, inputs) hold nothing to draw.
    ax.set_xlim(int(firsts.min()) if firsts.size else 0, steps)
    ax.set_ylim(0, top / scale * 1.08)
    ax.set_xlabel("step (nodes in schedule order)")
    ax.set_ylabel(f"address ({unit})")
    ax.set_title(f"{title}: {len(sizes)} buffers")
    lines, labels = ax.get_legend_handles_labels()
    fig.legend(lines, labels, loc="outside lower center", ncols=3, frameon=False)
    bar = fig.colorbar(
        ScalarMappable(norm=LogNorm(*_size_range(sizes, scale)), cmap="viridis"),
        ax=ax,
        fraction=0.025,
        aspect=40,
    )
    # Mathtext is off while opgraph draws: plain numbers, not "$10^{0}$".
    bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
    bar.ax.yaxis.set_minor_formatter(FuncFormatter(lambda _value, _pos: ""))
    bar.set_label(f"buffer size ({unit}): its colour")
    return fig


def _size_range(sizes: npt.NDArray[np.int64], scale: float) -> tuple[float, float]:
    """The colour scale's ends: the smallest and largest buffer (log scale)."""
    if not sizes.size:
        return 1.0 / scale, 2.0 / scale
    low, high = float(max(int(sizes.min()), 1)), float(max(int(sizes.max()), 1))
    return low / scale, max(high, low * 2) / scale


#: Longest tensor name the legend shows in full (longer ones keep their tail).
NAME_CHARS = 48


def short_name(name: str) -> str:
    """``name``, or its last :data:`NAME_CHARS` characters after an ellipsis."""
    return name if len(name) <= NAME_CHARS else "\u2026" + name[-(NAME_CHARS - 1) :]


def _label_largest(
    ax: Any,
    names: Sequence[str],
    sizes: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    scale: float,
    unit: str,
    faces: Any,
) -> list[Any]:
    """Numbers the largest buffers inside their rectangles (skipping one
    whose number would sit on another's) and returns their legend entries:
    number, tensor name, size and lifetime, in the buffer's colour."""
    from matplotlib.patches import Patch

    x_span = max(float(lasts.max()) - float(firsts.min()), 1.0) if lasts.size else 1.0
    y_span = max(float((offsets + sizes).max()) / scale, 1e-9) if sizes.size else 1.0
    placed: list[tuple[float, float]] = []
    entries = []
    for i in np.argsort(-sizes, kind="stable"):
        if len(placed) == LABELLED_BUFFERS:
            break
        x = (float(firsts[i]) + float(lasts[i]) + 1.0) / 2
        y = (float(offsets[i]) + float(sizes[i]) / 2) / scale
        if any(abs(x - px) < 0.03 * x_span and abs(y - py) < 0.04 * y_span for px, py in placed):
            continue
        placed.append((x, y))
        number = len(placed)
        ax.annotate(
            str(number),
            (x, y),
            ha="center",
            va="center",
            fontsize=7,
            bbox={"boxstyle": "circle,pad=0.2", "facecolor": "white", "alpha": 0.85, "linewidth": 0},
            zorder=5,
        )
        label = (
            f"{number}. {short_name(names[i])}  {sizes[i] / scale:,.2f} {unit}, "
            f"steps {int(firsts[i])}\u2013{int(lasts[i])}"
        )
        entries.append(Patch(facecolor=faces[i], label=label))
    return entries
