"""Memory and throughput per profile (``opgraph compile --batch-sizes
... --out DIR`` writes ``profiles.png``; ``--dynamic_image_size`` and
``--dynamic_dims`` profiles too), on matplotlib's Agg canvas."""

from __future__ import annotations

from pathlib import Path

from .._plot_text import literal_text
from .profiles import Profile

MIB = float(1 << 20)


@literal_text
def plot_profiles(profiles: list[Profile], path: Path, title: str) -> None:
    """Arena, weights and I/O (MiB) per profile (by batch size on a log
    axis when every profile is a batch), and the predicted throughput on a
    second axis when the cost model ran. Needs matplotlib."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    by_batch = all(p.batch is not None for p in profiles)
    # Non-batch profiles are placed one per position and labelled.
    position = {
        id(p): (p.batch if by_batch and p.batch is not None else i + 1) for i, p in enumerate(profiles)
    }
    batches = [position[id(p)] for p in profiles]
    figure = Figure(figsize=(7.5, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    plans = [(position[id(p)], p.memory) for p in profiles if p.memory is not None]
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
    if by_batch:
        ax.set_xscale("log", base=2)
        ax.set_xticks(batches, [str(b) for b in batches])
        ax.set_xlabel("batch size")
    else:
        ax.set_xticks(batches, [p.label for p in profiles], rotation=30, ha="right")
        ax.set_xlabel("profile")
    ax.set_ylabel("MiB")
    ax.set_title(title)
    costed = [p for p in profiles if p.cost is not None]
    if costed:
        rate = ax.twinx()
        rate.plot(
            [position[id(p)] for p in costed],
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
