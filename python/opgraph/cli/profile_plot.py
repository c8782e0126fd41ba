"""Memory and throughput against batch size (``opgraph compile --batch-sizes
... --out DIR`` writes ``profiles.png``), on matplotlib's Agg canvas."""

from __future__ import annotations

from pathlib import Path

from .._plot_text import literal_text
from .compile import BatchProfile

MIB = float(1 << 20)


@literal_text
def plot_profiles(profiles: list[BatchProfile], path: Path, title: str) -> None:
    """Arena, weights and I/O (MiB) per batch size, and the predicted
    throughput on a second axis when the cost model ran. Needs matplotlib."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    batches = [p.batch for p in profiles]
    figure = Figure(figsize=(7.5, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    plans = [(p.batch, p.memory) for p in profiles if p.memory is not None]
    series = {
        "activation arena": [m.arena_bytes for _, m in plans],
        "arena lower bound": [m.lower_bound_bytes for _, m in plans],
        "weights": [m.weights_bytes for _, m in plans],
        "inputs + outputs": [m.io_bytes for _, m in plans],
    }
    for label, values in series.items():
        ax.plot(
            [b for b, _ in plans],
            [v / MIB for v in values],
            marker="o",
            label=label,
            linestyle="--" if label == "arena lower bound" else "-",
        )
    ax.set_xscale("log", base=2)
    ax.set_xticks(batches, [str(b) for b in batches])
    ax.set_xlabel("batch size")
    ax.set_ylabel("MiB")
    ax.set_title(title)
    costed = [p for p in profiles if p.cost is not None]
    if costed:
        rate = ax.twinx()
        rate.plot(
            [p.batch for p in costed],
            [p.cost.throughput for p in costed if p.cost is not None],
            color="black",
            marker="s",
            label="predicted throughput",
        )
        rate.set_ylabel("samples / s")
        rate.set_ylim(bottom=0)
        handles, labels = ax.get_legend_handles_labels()
        more, more_labels = rate.get_legend_handles_labels()
        ax.legend(handles + more, labels + more_labels, loc="upper left", bbox_to_anchor=(1.12, 1.0))
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    figure.savefig(path, dpi=120)
