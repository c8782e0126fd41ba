"""Issue 18 item 6: ``opgraph check-op`` takes attribute strategies
(``--attr``, ``--strategies``), prints what each side accepted and rejected,
and fails a vacuous case mix, so a buggy pooling rule is caught."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
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
    assert "hypothesis seed 20261130: --seed 20261130 with the same options replays" in done.stdout


def test_buggy_rule_never_passes_without_them() -> None:
    done = run_cli("check-op", f"{RULE}:pool", "--reference", f"{RULE}:reference", "--examples", "200", *SEED)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "VACUOUS" in done.stdout or "FAIL" in done.stdout


def test_a_printed_seed_replays_the_same_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --seed a run draws a seed and prints it; that seed draws the
    same cases again (the reference writes down each case it is given), and
    other seeds draw other cases."""
    recorder = tmp_path / "recording.py"
    recorder.write_text(
        "import os\n"
        "from pooling_rule import reference as pool_reference\n"
        "def reference(x, kernel, stride, pad):\n"
        "    with open(os.environ['CHECK_OP_CASES'], 'a') as out:\n"
        "        out.write(f'{x.shape} {kernel} {stride} {pad}\\n')\n"
        "    return pool_reference(x, kernel, stride, pad)\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(RULE.parent))
    args = ("check-op", f"{RULE}:fixed_pool", "--reference", f"{recorder}:reference", "--examples", "40")

    def cases(*extra: str) -> tuple[str, str]:
        log = tmp_path / f"cases{len(list(tmp_path.glob('cases*')))}.txt"
        monkeypatch.setenv("CHECK_OP_CASES", str(log))
        done = run_cli(*args, *ATTRS, *extra)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout, log.read_text()

    stdout, first = cases()
    seed = re.search(r"hypothesis seed (\d+): --seed \1 with the same options replays", stdout)
    assert seed is not None, stdout
    assert cases("--seed", seed.group(1))[1] == first
    assert len({first, *(cases("--seed", s)[1] for s in ("1", "2", "3"))}) >= 3


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

    def drawn(seed: int) -> list[tuple[object, ...]]:
        """The cases a check with ``seed`` hands the reference."""
        seen: list[tuple[object, ...]] = []

        def recording(x: np.ndarray, kernel: int, stride: int, pad: int) -> np.ndarray:
            seen.append((x.shape, kernel, stride, pad))
            return pooling_rule.reference(x, kernel, stride, pad)

        check_inference(
            pooling_rule.fixed_pool,
            recording,
            attrs=pooling_rule.STRATEGIES,
            shapes=pooling_rule.SHAPES,
            settings=settings(max_examples=30, database=None, derandomize=False),
            seed=seed,
        )
        return seen

    assert drawn(7) == drawn(7) != drawn(8)
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


def test_the_seed_is_printed_when_the_reference_breaks(tmp_path: Path) -> None:
    # A reference that returns nothing is an error in the user's code, not a
    # verdict: reported as an error, with the seed that reaches it again.
    module = tmp_path / "silent.py"
    module.write_text("def reference(x, kernel, stride, pad):\n    return None\n")
    done = run_cli("check-op", f"{RULE}:fixed_pool", "--reference", f"{module}:reference", *ATTRS, *SEED)
    assert done.returncode not in (0, 1), done.stdout + done.stderr
    assert "hypothesis seed 20261130" in done.stdout and "Traceback" not in done.stderr
    assert "returned None" in done.stdout + done.stderr
