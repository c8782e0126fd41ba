"""Matplotlib charts of a :class:`~opgraph.cost.CostReport` (imported only
when a report is plotted, so matplotlib stays optional)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ._plot_text import literal_text
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


@literal_text
def plot_report(report: CostReport, spec: DeviceSpec, path: Path, top: int) -> Path:
    try:
        import matplotlib
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("CostReport.plot needs matplotlib: pip install 'opgraph[plot]'") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (roof, bars) = plt.subplots(1, 2, figsize=(14, 5.5))
    c = report.columns
    timed = (c.time_us > 0) & (c.flops > 0) & (c.bytes > 0)
    intensity = np.divide(c.flops, c.bytes, out=np.full(len(c), np.inf), where=c.bytes > 0)
    achieved = np.divide(c.flops, c.time_us * 1e-6, out=np.zeros(len(c)), where=c.time_us > 0)

    peak = spec.sustained_fp16_flops
    bandwidth = spec.sustained_bytes_per_s
    ridge = peak / bandwidth
    lo = min(float(intensity[timed].min(initial=ridge)), ridge) / 4
    hi = max(float(intensity[timed].max(initial=ridge)), ridge) * 4
    roof.plot([lo, ridge, hi], [lo * bandwidth, peak, peak], color="black", linewidth=1.5, label="ceiling")
    for bound, color in COLORS.items():
        points = timed & (c.bound_codes == BOUNDS.index(bound))
        count = int(points.sum())
        if count:
            roof.scatter(
                intensity[points],
                achieved[points],
                s=14,
                color=color,
                alpha=0.7,
                label=f"{bound} ({count})",
            )
    roof.set_xscale("log")
    roof.set_yscale("log")
    roof.set_xlabel("arithmetic intensity (FLOP / off-chip byte)")
    roof.set_ylabel("achieved FLOP/s")
    roof.set_title(f"Roofline on {report.device} ({report.precision})")
    roof.legend(fontsize=8)
    roof.grid(True, which="both", alpha=0.3)

    by_type = list(report.time_by_op_type().items())[:top]
    labels = [t for t, _ in reversed(by_type)]
    values = [us / 1000 for _, us in reversed(by_type)]
    bars.barh(labels, values, color="tab:blue")
    bars.set_xlabel("time (ms)")
    bars.set_title(
        f"Time by op type: {report.total_ms:.3f} ms in total, "
        f"critical path {report.critical_path_us / 1000:.3f} ms"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
