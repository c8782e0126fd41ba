"""``opgraph.plan_lifetimes`` on lifetime sets: a hand-computed set, and
random sets (hypothesis) where every strategy's plan must pass both the
planner's checker and an independent brute-force one, with the totals in
the order the strategies promise."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

import opgraph
from opgraph import MemoryPlanError
from opgraph.memory import STRATEGIES

U = 512

# The four-buffer set of the Rust tests (sizes in 512-byte units):
#            step 0  1  2  3  4
# 0: 1 unit        .  x  x
# 1: 2 units       x
# 2: 2 units       x  x
# 3: 2 units             x  x  x      live units 4 3 3 2 2 -> bound 4
FOUR = ([U, 2 * U, 2 * U, 2 * U], [1, 0, 0, 2], [2, 0, 1, 4])
FOUR_PLANS = {
    "naive": ([0, U, 3 * U, 5 * U], 7 * U),
    "ge_block_reuse": ([4 * U, 0, 2 * U, 2 * U], 5 * U),
    "greedy_by_size": ([4 * U, 0, 2 * U, 0], 5 * U),
    "greedy_by_breadth": ([0, 0, 2 * U, U], 4 * U),
    "greedy_repair": ([0, 0, 2 * U, U], 4 * U),
    # Repair is at the bound already: the search does not run.
    "branch_and_bound": ([0, 0, 2 * U, U], 4 * U),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_strategy_on_the_hand_computed_set(strategy: opgraph.memory.Strategy) -> None:
    plan = opgraph.plan_lifetimes(*FOUR, strategy=strategy)
    offsets, arena = FOUR_PLANS[strategy]
    assert plan.offsets.tolist() == offsets
    assert (plan.arena_bytes, plan.lower_bound_bytes) == (arena, 4 * U)
    assert plan.strategies == {strategy: arena}
    assert plan.check() == []


def test_all_strategies_run_and_the_smallest_is_kept() -> None:
    plan = opgraph.plan_lifetimes(*FOUR)
    assert plan.strategies == {name: total for name, (_, total) in FOUR_PLANS.items()}
    assert list(plan.strategies) == list(STRATEGIES)
    assert plan.chosen_strategy == "greedy_repair"  # ties go to the later strategy
    assert plan.offsets.tolist() == FOUR_PLANS["greedy_repair"][0]
    assert plan.ratio == 1.0
    assert set(plan.strategy_seconds) == set(STRATEGIES)


def test_branch_and_bound_reaches_the_bound_where_every_greedy_order_misses() -> None:
    """The six-buffer set of the Rust tests (sizes in units, steps 1..3; see
    strategies/tests.rs for the greedy placements): step 3 must be packed
    without a gap, which no best-fit order finds."""
    units = [(1, 1, 3), (1, 1, 2), (2, 2, 3), (6, 3, 3), (6, 1, 1), (6, 1, 3)]
    sizes, firsts, lasts = ([u[k] * (U if k == 0 else 1) for u in units] for k in range(3))
    plan = opgraph.plan_lifetimes(sizes, firsts, lasts)
    assert plan.lower_bound_bytes == 15 * U
    assert plan.strategies["greedy_repair"] == 16 * U
    assert (plan.chosen_strategy, plan.arena_bytes) == ("branch_and_bound", 15 * U)
    assert plan.offsets.tolist() == [14 * U, 12 * U, 6 * U, 8 * U, 6 * U, 0]
    assert plan.check() == []


def brute_force_problems(
    sizes: npt.NDArray[np.int64],
    firsts: npt.NDArray[np.int64],
    lasts: npt.NDArray[np.int64],
    offsets: npt.NDArray[np.int64],
    arena: int,
    alignment: int,
) -> list[str]:
    """Every pair compared: the checker the planner's own is tested against."""
    problems = []
    if (offsets < 0).any() or (offsets % alignment).any() or (offsets + sizes > arena).any():
        problems.append("misplaced")
    for i in range(len(sizes)):
        for j in range(i + 1, len(sizes)):
            in_time = firsts[i] <= lasts[j] and firsts[j] <= lasts[i]
            in_memory = offsets[i] < offsets[j] + sizes[j] and offsets[j] < offsets[i] + sizes[i]
            if in_time and in_memory and sizes[i] and sizes[j]:
                problems.append(f"{i} and {j} overlap")
    return problems


def brute_force_bound(
    sizes: npt.NDArray[np.int64], firsts: npt.NDArray[np.int64], lasts: npt.NDArray[np.int64]
) -> int:
    steps = range(int(lasts.max()) + 1) if len(sizes) else range(0)
    return max((int(sizes[(firsts <= s) & (s <= lasts)].sum()) for s in steps), default=0)


@st.composite
def lifetime_sets(draw: st.DrawFn) -> tuple[list[int], list[int], list[int]]:
    n = draw(st.integers(0, 40))
    steps = draw(st.integers(1, 30))
    sizes = draw(st.lists(st.integers(0, 70_000), min_size=n, max_size=n))
    firsts = draw(st.lists(st.integers(0, steps - 1), min_size=n, max_size=n))
    lengths = draw(st.lists(st.integers(0, steps), min_size=n, max_size=n))
    return sizes, firsts, [f + length for f, length in zip(firsts, lengths, strict=True)]


@given(lifetime_sets(), st.sampled_from([1, 32, 512]))
def test_random_sets_plan_validly_in_the_promised_order(
    lifetimes: tuple[list[int], list[int], list[int]], alignment: int
) -> None:
    sizes, firsts, lasts = (np.array(c, dtype=np.int64) for c in lifetimes)
    aligned = -(-sizes // alignment) * alignment
    bound = brute_force_bound(aligned, firsts, lasts)
    totals = {}
    for strategy in STRATEGIES:
        plan = opgraph.plan_lifetimes(sizes, firsts, lasts, strategy=strategy, alignment=alignment)
        assert plan.check() == [], strategy
        assert brute_force_problems(aligned, firsts, lasts, plan.offsets, plan.arena_bytes, alignment) == []
        assert plan.lower_bound_bytes == bound
        assert plan.arena_bytes >= bound
        assert plan.arena_bytes == int((plan.offsets + aligned).max(initial=0))
        totals[strategy] = plan.arena_bytes
    assert totals["naive"] == int(aligned.sum())
    assert totals["greedy_repair"] <= min(totals["greedy_by_size"], totals["greedy_by_breadth"])
    assert totals["branch_and_bound"] <= totals["greedy_repair"]
    chosen = opgraph.plan_lifetimes(sizes, firsts, lasts, alignment=alignment)
    assert chosen.strategies == totals
    assert chosen.arena_bytes == min(totals.values()) <= totals["ge_block_reuse"]
    assert chosen.arena_bytes >= chosen.lower_bound_bytes
    assert chosen.check() == []


def test_the_checker_finds_each_kind_of_problem() -> None:
    sizes, firsts, lasts = [U, U, U], [0, 1, 2], [1, 2, 3]
    assert opgraph.check_placement(sizes, firsts, lasts, [0, U, 0], 2 * U) == []
    overlap = opgraph.check_placement(sizes, firsts, lasts, [0, 0, U], 2 * U)
    assert len(overlap) == 1 and "overlap" in overlap[0] and "step 1" in overlap[0]
    assert "not a multiple of 512" in opgraph.check_placement(sizes, firsts, lasts, [0, 600, 0], 4 * U)[0]
    assert "beyond the arena" in opgraph.check_placement(sizes, firsts, lasts, [0, U, 0], U)[0]
    assert opgraph.check_placement(sizes, firsts, lasts, [0, -1, 0], 2 * U) == ["lifetime 1 is not placed"]


def test_bad_lifetime_sets_are_rejected() -> None:
    with pytest.raises(ValueError, match="same length"):
        opgraph.plan_lifetimes([1, 2], [0], [0, 1])
    with pytest.raises(ValueError, match=r"sizes\[1\] is -5"):
        opgraph.plan_lifetimes([1, -5], [0, 0], [0, 0])
    with pytest.raises(ValueError, match=r"firsts\[0\] is -1"):
        opgraph.plan_lifetimes([1], [-1], [0])
    with pytest.raises(MemoryPlanError, match="lifetime 1 ends at step 2, before it starts at step 3"):
        opgraph.plan_lifetimes([1, 1], [0, 3], [0, 2])
    with pytest.raises(MemoryPlanError, match="alignment"):
        opgraph.plan_lifetimes([1], [0], [0], alignment=0)
    for alignment in (-1, 2**64):
        with pytest.raises(MemoryPlanError, match=f"must be a power of two .*, got {alignment}$"):
            opgraph.plan_lifetimes([1], [0], [0], alignment=alignment)
        with pytest.raises(MemoryPlanError, match="the alignment must be a power of two"):
            opgraph.check_placement([1], [0], [0], [0], 512, alignment=alignment)
    with pytest.raises(TypeError, match=r"whole number of bytes, got 1\.5"):
        opgraph.plan_lifetimes([1], [0], [0], alignment=1.5)  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error
    with pytest.raises(ValueError, match=r"unknown strategy 'best'.*greedy_repair"):
        opgraph.plan_lifetimes([1], [0], [0], strategy="best")  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error
    with pytest.raises(TypeError, match="1-D sequence of integers"):
        opgraph.plan_lifetimes([1.5], [0], [0])  # type: ignore[list-item]  # deliberately wrong: checks the runtime error
    with pytest.raises(MemoryPlanError, match="overflows"):
        opgraph.plan_lifetimes([2**62, 2**62, 2**62, 2**62], [0, 0, 0, 0], [0, 0, 0, 0])


def test_a_lifetime_plan_plots(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(1)
    firsts = rng.integers(0, 50, 200)
    plan = opgraph.plan_lifetimes(rng.integers(1, 100_000, 200), firsts, firsts + rng.integers(0, 6, 200))
    out = tmp_path / "plan.png"
    plan.plot(out, title="random set")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
