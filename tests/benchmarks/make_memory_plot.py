"""Regenerates the README's memory-plan figure (``docs/memory_plan_resnet50.png``)
and prints the numbers the README quotes beside it: the frozen Keras
ResNet-50 of the TensorFlow corpus at its recorded static shape, after
``prepare(graph, "Ascend310")`` (what ``opgraph compile`` plans)::

    python tests/benchmarks/make_memory_plot.py [--out docs/memory_plan_resnet50.png]

Needs matplotlib (``pip install 'opgraph[plot]'``)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.append(str(REPO / "tests" / "device"))

from memory_models import load_tensorflow_model  # noqa: E402

import opgraph  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "memory_plan_resnet50.png")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        graph = load_tensorflow_model("resnet50", Path(tmp))
    opgraph.prepare(graph, "Ascend310")
    plan = opgraph.plan_memory(graph)
    batch = graph.node(graph.inputs[0].node).outputs[0].shape[0]
    plan.plot(args.out, title=f"ResNet-50, batch {batch}, Ascend310 storage formats")
    mib = 2**20
    print(f"wrote {args.out}")
    print(
        f"arena {plan.arena_bytes / mib:.2f} MiB ({plan.chosen_strategy}, schedule {plan.schedule}), "
        f"lower bound {plan.lower_bound_bytes / mib:.2f} MiB, "
        f"GE block reuse {plan.strategies['ge_block_reuse'] / mib:.1f} MiB, "
        f"no reuse {plan.strategies['naive'] / mib:.0f} MiB"
    )


if __name__ == "__main__":
    main()
