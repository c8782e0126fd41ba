"""The cost model against published Ascend throughput, judged on rows it was
not fitted to.

    python tests/benchmarks/bench_cost_validation.py [--profile] [--no-l2-residency]

Reads ``../shared/calibration/ascend_published.tsv`` (66 rows: model x SoC x
batch), builds every row's network as ``opgraph compile`` prepares it
(``tests/device/calibration``), and:

1. checks that the calibration arithmetic (``Terms.total_us``) reproduces
   ``estimate_cost`` with the shipped presets on every row, so what is fitted
   is what the command line computes;
2. fits the unpublished constants (Cube / vector / memory efficiency, one
   task launch overhead per SoC) on all rows and prints them, with
   ``--profile`` the range of each efficiency whose best fit is within 5% of
   the best loss (how well the data determine it);
3. leave-one-model-out: for each model x SoC group, refits without it and
   predicts its rows. Those held-out predictions are the only accuracy claim:
   rows within +-25% of the published latency, median |log(predicted /
   measured)|, and per batch sweep the worst row.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "device" / "calibration"))

import calibrate as calibration
import published
from calibrate import Sample

import opgraph
from opgraph import DeviceSpec


def samples(directory: Path, *, l2_residency: bool = True) -> tuple[list[Sample], list[str]]:
    """Every row whose SoC has a cost preset, with its terms; and the rows skipped.
    Without L2 residency the terms are an experiment: they no longer match
    what the shipped presets compute, so that check is skipped."""
    presets = {s.name for s in DeviceSpec.presets()}
    out, skipped = [], []
    for row in published.rows():
        if row.soc not in presets:
            skipped.append(f"{row.group} batch {row.batch}: no cost preset for {row.soc}")
            continue
        graph = published.load(row, directory)
        terms = published.terms(graph, row.soc, l2_residency=l2_residency)
        out.append(Sample(row, terms))
        if not l2_residency:
            continue
        shipped = opgraph.estimate_cost(graph, row.soc, precision=published.PRECISION)
        spec = DeviceSpec.preset(row.soc)
        eff = published.efficiencies(spec)
        again = terms.total_us(eff["cube"], eff["vector"], eff["memory"], spec.task_launch_us)
        if not math.isclose(again, shipped.total_us, rel_tol=1e-9):
            raise AssertionError(
                f"{row.group} batch {row.batch}: the calibration terms give {again:.3f} us, "
                f"estimate_cost {shipped.total_us:.3f} us"
            )
    return out, skipped


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--profile", action="store_true", help="how well the data determine each efficiency")
    parser.add_argument(
        "--no-l2-residency",
        action="store_true",
        help="an experiment: every activation goes through memory (the constants are refitted)",
    )
    args = parser.parse_args()
    if not published.available():
        sys.exit(f"no published figures at {published.TSV} (the shared reference data)")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        rows, skipped = samples(Path(tmp), l2_residency=not args.no_l2_residency)
    checked = (
        "without L2 residency (not what estimate_cost ships)"
        if args.no_l2_residency
        else "terms match estimate_cost on every row"
    )
    print(f"{len(rows)} rows costed in {time.perf_counter() - start:.1f} s; {checked}")
    for line in skipped:
        print(f"  skipped: {line}")

    best, loss = calibration.fit(rows)
    launch = ", ".join(f"{group} {us:.2f} us" for group, us in sorted(best.launch_us.items()))
    print(
        f"\nfitted on all rows: cube {best.cube:.2f}, vector {best.vector:.2f}, memory {best.memory:.2f}; "
        f"task launch {launch}; loss {loss:.3f}"
    )
    if args.profile:
        for name, span in calibration.profile(rows, best, loss).items():
            print(f"  {name}: {span}")

    held_out = calibration.leave_one_model_out(rows)
    print("\n| model | SoC | batch | measured | predicted (held out) | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for s, predicted, _ in held_out:
        r = s.row
        print(
            f"| {r.model} | {r.soc} | {r.batch} | {r.measured_us / 1000:.3f} ms ({r.images_per_s:g}/s) "
            f"| {predicted / 1000:.3f} ms ({1e6 * r.batch / predicted:.0f}/s) "
            f"| {predicted / r.measured_us:.2f} |"
        )
    summary = calibration.summarise(held_out)
    group, off = summary.worst_sweep
    print(
        f"\nheld out: {summary.within_25:.0%} of {summary.rows} rows within +-25% (target >= 80%); "
        f"median |log(predicted / measured)| {summary.median_abs_log:.3f} (target <= 0.15); "
        f"{summary.sweeps_within_25} of {summary.sweeps} batch sweeps within +-25% at every batch "
        f"(worst {group}: {off:.0%} off)"
    )


if __name__ == "__main__":
    main()
