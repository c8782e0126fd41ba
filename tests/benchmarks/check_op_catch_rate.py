"""Measurement: how often ``check_inference`` catches the buggy pooling rule
of ``tests/cli/pooling_rule.py`` (issue 18 item 6), over ``--runs``
independent runs of ``--examples`` hypothesis examples each (no example
database, so no run replays another's failure).

Three ways to run the check:

- ``before``: what ``opgraph check-op`` did before the case-mix check, the
  default attribute draws (ints -4..4) and no floor on accepted cases: a run
  passes unless the few valid cases happen to expose the bug;
- ``after, no --attr``: the same draws with the 20% floor: a run that does
  not catch the bug now fails as vacuous instead of passing;
- ``after, --attr``: ``kernel=1..5 stride=1..3 pad=0..3``, the floor on;
- ``after, --attr --shape``: also ``x=1..2,1..3,1..8,1..8`` (NCHW inputs).

Prints, per way, how many runs passed, caught the bug (FAIL) or were
vacuous, and the mean share of cases the reference accepted::

    python tests/benchmarks/check_op_catch_rate.py --runs 10 --examples 200
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))

import pooling_rule

from opgraph.testing import CaseTally, VacuousCheckError, check_inference

WAYS = {
    "before": ({}, None, 0.0),
    "after, no --attr": ({}, None, 0.2),
    "after, --attr": (pooling_rule.STRATEGIES, None, 0.2),
    "after, --attr --shape": (pooling_rule.STRATEGIES, pooling_rule.SHAPES, 0.2),
}


def one_run(
    attrs: dict[str, object], shapes: object, min_accepted: float, examples: int
) -> tuple[str, float]:
    tally = CaseTally()
    try:
        tally = check_inference(
            pooling_rule.pool,
            pooling_rule.reference,
            attrs=attrs,
            shapes=shapes,  # type: ignore[arg-type]
            min_accepted=min_accepted,
            settings=settings(max_examples=examples, database=None),
        )
        outcome = "passed"
    except VacuousCheckError as vacuous:
        tally, outcome = vacuous.tally, "vacuous"
    except AssertionError:
        return "caught", float("nan")
    return outcome, tally.reference_accepted / max(tally.cases, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--examples", type=int, default=200)
    args = parser.parse_args()
    print(f"{args.runs} runs of {args.examples} examples each")
    for way, (attrs, shapes, floor) in WAYS.items():
        outcomes: Counter[str] = Counter()
        shares = []
        for _ in range(args.runs):
            outcome, share = one_run(dict(attrs), shapes, floor, args.examples)
            outcomes[outcome] += 1
            if share == share:  # not NaN: the run finished its examples
                shares.append(share)
        accepted = f"{sum(shares) / len(shares):.0%}" if shares else "n/a"
        print(
            f"{way:<22} passed {outcomes['passed']:>2}  caught {outcomes['caught']:>2}  "
            f"vacuous {outcomes['vacuous']:>2}  (reference accepted {accepted} of the cases "
            "in runs that did not catch it)"
        )


if __name__ == "__main__":
    main()
