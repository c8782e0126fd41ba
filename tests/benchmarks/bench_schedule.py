"""Benchmark: memory-aware scheduling (issue 16). For every model of the
corpora at static input shapes, after ``opgraph.prepare`` (what ``opgraph
compile`` plans): the peak of live activation bytes (the arena's lower
bound) under the topological order, the depth-first order and the
frees-most list schedule, the order ``plan_memory(schedule="auto")`` keeps,
and its reduction against the topological order; and the bound no order
can go below (``MemoryPlan.any_order_bound_bytes``), hence the most any
schedule could cut ("room").

Models: the TensorFlow fixtures (recorded static shapes), the Caffe
fixtures, the shared Caffe networks (``../shared/models`` when present) and
the ONNX corpus (run A's input shapes). Classification models (the
torchvision / timm / Keras families) are summarised apart, as the issue's
target names them::

    python tests/benchmarks/bench_schedule.py [--soc Ascend310] [--only SUBSTRING ...]

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
for _dir in (TESTS / "device",):
    sys.path.append(str(_dir))

from memory_models import all_models, onnx_models  # noqa: E402

import opgraph  # noqa: E402
from opgraph.memory import Schedule  # noqa: E402

#: Families of classification networks (by label substring).
CLASSIFIERS = (
    "resnet",
    "resnext",
    "mobilenet",
    "efficientnet",
    "convnext",
    "regnet",
    "shufflenet",
    "squeezenet",
    "googlenet",
    "inception",
    "densenet",
    "mnasnet",
    "vgg",
    "alexnet",
    "dpn",
    "seresnet",
    "xception",
    "nasnet",
    "vit",
    "swin",
    "lenet",
)
#: Detection and segmentation networks named after their backbone.
NOT_CLASSIFIERS = ("retinanet", "fasterrcnn", "ssdlite", "deeplab", "fcn_", "lraspp")


def is_classifier(label: str) -> bool:
    name = label.lower()
    return any(c in name for c in CLASSIFIERS) and not any(c in name for c in NOT_CLASSIFIERS)


SCHEDULES: tuple[Schedule, ...] = ("topological", "depth_first", "frees_most", "refined")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--soc", default="Ascend310")
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    rows: list[tuple[str, dict[Schedule, int], Schedule, float, float]] = []
    header = " ".join(f"{name:>12}" for name in (*SCHEDULES, "chosen", "any order"))
    print(f"{'model':48} {header} {'cut':>7} {'room':>7} {'ms':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, load in [*all_models(Path(tmp)), *onnx_models(Path(tmp))]:
            if args.only and not any(s in label for s in args.only):
                continue
            try:
                graph = load()
                opgraph.prepare(graph, args.soc)
                start = time.perf_counter()
                plan = opgraph.plan_memory(graph, allow_dynamic=True)
                elapsed = time.perf_counter() - start
            except opgraph.OpgraphError as error:
                print(f"{label:48} not planned: {str(error)[:90]}")
                continue
            peaks = dict(plan.schedule_peaks)
            top = peaks["topological"]
            if top == 0:
                continue
            cut = 1 - plan.lower_bound_bytes / top
            assert plan.lower_bound_bytes <= top, label
            assert not plan.check(), label
            bound = plan.any_order_bound_bytes
            assert bound is None or bound <= plan.lower_bound_bytes, label
            room = 1 - bound / top if bound is not None else float("nan")
            rows.append((label, peaks, plan.schedule, cut, room))
            cells = [f"{peaks[s] / 2**20:12.2f}" if s in peaks else f"{'-':>12}" for s in SCHEDULES]
            floor = f"{bound / 2**20:12.2f}" if bound is not None else f"{'-':>12}"
            print(
                f"{label:48} {' '.join(cells)} {plan.schedule:>12} {floor} {cut:7.1%} {room:7.1%} "
                f"{elapsed * 1e3:7.1f}"
            )
    cuts = [cut for *_, cut, _ in rows]
    classifiers = [(cut, room) for label, _, _, cut, room in rows if is_classifier(label)]
    print(
        f"\n{len(rows)} models: the chosen order's peak is never above the topological order's "
        f"(checked); mean cut {statistics.mean(cuts):.1%}, median {statistics.median(cuts):.1%}, "
        f"max {max(cuts):.1%}"
    )
    rooms = [room for *_, room in rows if room == room]
    print(
        f"room (1 - any-order bound / topological peak) over {len(rooms)} models: "
        f"mean {statistics.mean(rooms):.1%}, median {statistics.median(rooms):.1%}, max {max(rooms):.1%}"
    )
    if classifiers:
        mean = statistics.mean(cut for cut, _ in classifiers)
        verdict = "met" if mean >= 0.10 else "NOT met"
        print(f"{len(classifiers)} classification models: mean cut {mean:.1%} (target >= 10%: {verdict})")
        bounded = [room for _, room in classifiers if room == room]
        at_bound = sum(room == 0 for room in bounded)
        print(
            f"  no order can cut more than {statistics.mean(bounded):.1%} on average "
            f"over the {len(bounded)} with a bound (any-order bound; "
            f"median {statistics.median(bounded):.1%}, max {max(bounded):.1%}); "
            f"on {at_bound} the topological peak is the bound"
        )


if __name__ == "__main__":
    main()
