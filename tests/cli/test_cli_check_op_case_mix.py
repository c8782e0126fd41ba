"""Issue 18 item 6: ``opgraph check-op`` takes attribute strategies
(``--attr``, ``--strategies``), prints what each side accepted and rejected,
and fails a vacuous case mix, so a buggy pooling rule is caught."""

from __future__ import annotations

import re
from pathlib import Path

import pooling_rule
import pytest
from cli_helpers import run_cli
from hypothesis import settings
from hypothesis import strategies as st

from opgraph.testing import MIN_ACCEPTED, CaseTally, VacuousCheckError, check_inference

RULE = Path(__file__).resolve().parent / "pooling_rule.py"
ATTRS = (
    "--attr",
    "kernel=1..5",
    "--attr",
    "stride=1..3",
    "--attr",
    "pad=0..3",
    "--shape",
    "x=1..2,1..3,1..8,1..8",
)
# The checks below that must catch the bug draw from a fixed seed, so they do
# not depend on the run's luck (check_op_catch_rate.py measures that luck).
SEED = ("--seed", "20261130")


def test_buggy_rule_is_caught_with_attribute_strategies() -> None:
    done = run_cli(
        "check-op", f"{RULE}:pool", "--reference", f"{RULE}:reference", "--examples", "200", *ATTRS, *SEED
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL" in done.stdout and "output 0 shape" in done.stdout
    assert "hypothesis seed 20261130 (replay: --seed 20261130)" in done.stdout


def test_buggy_rule_never_passes_without_them() -> None:
    done = run_cli("check-op", f"{RULE}:pool", "--reference", f"{RULE}:reference", "--examples", "200", *SEED)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "VACUOUS" in done.stdout or "FAIL" in done.stdout


def test_a_printed_seed_replays_the_same_cases(tmp_path: Path) -> None:
    """Without --seed a run draws one and prints it; that seed replays the
    run (the same tally of accepted and rejected cases), and two other seeds
    draw other cases. Each run has its own empty directory, so no example
    database carries cases from one to the next."""
    args = ("check-op", f"{RULE}:fixed_pool", "--reference", f"{RULE}:reference", "--examples", "40")

    def run(*extra: str) -> str:
        where = tmp_path / str(len(list(tmp_path.iterdir())))
        where.mkdir()
        done = run_cli(*args, *ATTRS, *extra, cwd=where)
        assert done.returncode == 0, done.stdout + done.stderr
        return re.sub(r"\s+", " ", done.stdout)

    first = run()
    seed = re.search(r"hypothesis seed (\d+) \(replay: --seed \1\)", first)
    assert seed is not None, first
    assert run("--seed", seed.group(1)) == first

    def accepted(seed: str) -> str:
        tally = re.search(r"the reference accepted \d+", run("--seed", seed))
        assert tally is not None
        return tally.group()

    assert accepted("1") != accepted("2")


def test_ok_prints_the_case_mix() -> None:
    done = run_cli(
        "check-op", f"{RULE}:fixed_pool", "--reference", f"{RULE}:reference", "--examples", "100", *ATTRS
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK" in done.stdout
    assert "cases: the reference accepted" in done.stdout and "opgraph accepted" in done.stdout


def test_strategies_object_from_a_module() -> None:
    done = run_cli(
        "check-op",
        f"{RULE}:fixed_pool",
        "--reference",
        f"{RULE}:reference",
        "--examples",
        "50",
        "--strategies",
        f"{RULE}:STRATEGIES",
        "--shape",
        "x=1..2,1..3,1..8,1..8",
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_both_sides_rejecting_everything_is_vacuous(tmp_path: Path) -> None:
    module = tmp_path / "rejects.py"
    module.write_text(
        "import opgraph\n"
        "OP = opgraph.OpDef('CheckOpRejectsAll')\n"
        "OP.input('x')\nOP.output('y', follow='x')\n"
        "@OP.verify\ndef never(ctx):\n    raise ValueError('never valid')\n"
        "def reference(x):\n    raise ValueError('never valid')\n"
    )
    done = run_cli("check-op", f"{module}:OP", "--reference", f"{module}:reference", "--examples", "20")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "VACUOUS" in done.stdout
    assert "the reference accepted 0" in done.stdout and "opgraph accepted 0" in done.stdout


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("kernel", "is not NAME=SPEC"),
        ("kernel=5..1", "is empty"),
        ("kernel=a..b", "is not a range"),
        ("kernal=1..5", "not attributes of the op (kernel, pad, stride)"),
    ],
)
def test_bad_attr_option_is_a_usage_error(option: str, message: str) -> None:
    done = run_cli("check-op", f"{RULE}:pool", "--reference", f"{RULE}:reference", "--attr", option)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("x", "is not PORT=DIMS"),
        ("x=1..a", "is not N or LO..HI"),
        ("x=3..1", "is empty or negative"),
        ("y=1,2", "not inputs of the op (x)"),
    ],
)
def test_bad_shape_option_is_a_usage_error(option: str, message: str) -> None:
    done = run_cli("check-op", f"{RULE}:pool", "--reference", f"{RULE}:reference", "--shape", option)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


def test_library_returns_the_tally_and_flags_vacuous_mixes() -> None:
    tally = check_inference(
        pooling_rule.fixed_pool,
        pooling_rule.reference,
        attrs=pooling_rule.STRATEGIES,
        shapes=pooling_rule.SHAPES,
        settings=settings(max_examples=50, database=None),
    )
    assert isinstance(tally, CaseTally) and tally.cases >= 50
    assert tally.reference_accepted + tally.reference_rejected == tally.cases
    seeded = [
        check_inference(
            pooling_rule.fixed_pool,
            pooling_rule.reference,
            attrs=pooling_rule.STRATEGIES,
            shapes=pooling_rule.SHAPES,
            settings=settings(max_examples=30, database=None),
            seed=7,
        )
        for _ in range(2)
    ]
    assert seeded[0] == seeded[1]
    with pytest.raises(VacuousCheckError) as raised:
        check_inference(
            pooling_rule.fixed_pool,
            pooling_rule.reference,
            attrs={"kernel": st.just(0)},
            settings=settings(max_examples=20, database=None),
            min_accepted=MIN_ACCEPTED,
        )
    assert raised.value.tally.reference_accepted == 0
    assert "is vacuous" in str(raised.value)
