"""Matplotlib charts of a :class:`~opgraph.cost.CostReport` (imported only
when a report is plotted, so matplotlib stays optional)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._plot_text import literal_text
from ._roofline import LINKS, ceilings, roofline_points
from .cost import BOUNDS

if TYPE_CHECKING:
    from ._core import DeviceSpec
    from .cost import CostReport

COLORS = {
    "cube": "tab:blue",
    "vector": "tab:green",
    "memory": "tab:orange",
    "overhead": "tab:gray",
    "ai_cpu": "tab:red",
}
#: Marker and ceiling style per memory link.
LINK_MARKERS = {"off-chip": "o", "L2": "^"}
LINK_STYLES = {"off-chip": "-", "L2": "--"}


@literal_text
def plot_report(report: CostReport, spec: DeviceSpec, path: Path, top: int) -> Path:
    figure = cost_figure(report, spec, top)
    figure.savefig(path, dpi=100)
    return path


def cost_figure(report: CostReport, spec: DeviceSpec, top: int) -> Any:
    """The roofline and the time by op type, side by side (a Figure on the
    Agg canvas: the user's pyplot backend is left alone)."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("CostReport.plot needs matplotlib: pip install 'opgraph[plot]'") from e
    figure = Figure(figsize=(14, 5.5), layout="constrained")
    FigureCanvasAgg(figure)
    roof, bars = figure.subplots(1, 2)
    draw_roofline(roof, report, spec)
    by_type = list(report.time_by_op_type().items())[:top]
    labels = [t for t, _ in reversed(by_type)]
    values = [us / 1000 for _, us in reversed(by_type)]
    bars.barh(labels, values, color="tab:blue")
    bars.set_xlabel("time (ms)")
    bars.set_title(
        f"Time by op type: {report.total_ms:.3f} ms in total, "
        f"critical path {report.critical_path_us / 1000:.3f} ms"
    )
    return figure


def draw_roofline(ax: Any, report: CostReport, spec: DeviceSpec) -> None:
    """Each working op at the intensity of the memory link that times it
    (see :mod:`opgraph._roofline`), under that link's ceiling; one
    collection per bound and link, labelled ``"<bound> (<count>)"``."""
    from matplotlib.ticker import FuncFormatter

    limits = ceilings(spec)
    points = roofline_points(report, limits)
    bounds = report.columns.bound_codes[points.rows]
    ridges = [limits.ridge(link) for link in LINKS]
    found = points.intensity[points.intensity > 0]
    lo = min(float(found.min(initial=min(ridges))), *ridges) / 4
    hi = max(float(found.max(initial=max(ridges))), *ridges) * 4
    peak = limits.peak_flops
    for link, ridge in zip(LINKS, ridges, strict=True):
        bandwidth = limits.bytes_per_s[link]
        ax.plot(
            [lo, ridge, hi],
            [lo * bandwidth, peak, peak],
            color="black",
            linewidth=1.2,
            linestyle=LINK_STYLES[link],
            label=f"{link} ceiling (ridge {ridge:,.0f} FLOP/B)",
        )
    for bound, color in COLORS.items():
        of_bound = bounds == BOUNDS.index(bound)
        count = int(of_bound.sum())
        for code, link in enumerate(LINKS):
            chosen = of_bound & (points.links == code)
            if chosen.any():
                ax.scatter(
                    points.intensity[chosen],
                    points.achieved[chosen],
                    s=16,
                    color=color,
                    marker=LINK_MARKERS[link],
                    alpha=0.75,
                    label=f"{bound} ({count})" if not ax_has_label(ax, bound) else None,
                )
    ax.set_xscale("log")
    ax.set_yscale("log")
    # Mathtext is off while opgraph draws (names are literal), so the log
    # axes get plain labels instead of the default "$10^{14}$".
    plain = FuncFormatter(lambda value, _pos: f"{value:.0e}")
    ax.xaxis.set_major_formatter(plain)
    ax.yaxis.set_major_formatter(plain)
    ax.set_xlabel("arithmetic intensity (FLOP per byte of the link bounding memory time: o off-chip, ^ L2)")
    ax.set_ylabel("achieved FLOP/s")
    ax.set_title(f"Roofline on {report.device} ({report.precision})")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)


def ax_has_label(ax: Any, bound: str) -> bool:
    """Whether a collection of ``bound`` is already labelled (one legend
    entry per bound, whichever link's marker comes first)."""
    return any(str(c.get_label()).startswith(f"{bound} (") for c in ax.collections)
