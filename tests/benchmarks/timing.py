"""Timing for the benchmarks that compare sub-millisecond calls with a peer.

On a shared machine one call in a few is interrupted, so the best of a
fixed handful says more about the machine than about the call. ``best``
keeps timing while the calls so far took under ``budget_s`` (at least
``runs`` calls, at most ``max_runs``); both sides of a comparison are timed
with it, so neither gets more tries than its cost allows the other.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar, overload

T = TypeVar("T")

BUDGET_S = 0.2
MAX_RUNS = 200


@overload
def best(runs: int, fn: Callable[[], object], *, budget_s: float = BUDGET_S) -> float: ...
@overload
def best(
    runs: int, fn: Callable[[T], object], setup: Callable[[], T], *, budget_s: float = BUDGET_S
) -> float: ...
def best(
    runs: int,
    fn: Callable[..., object],
    setup: Callable[[], object] | None = None,
    *,
    budget_s: float = BUDGET_S,
) -> float:
    """Seconds of the fastest call of ``fn`` (given ``setup()``'s result
    when set; setting up and freeing the result are not timed)."""
    times: list[float] = []
    while len(times) < runs or (sum(times) < budget_s and len(times) < MAX_RUNS):
        arg = setup() if setup is not None else None
        start = time.perf_counter()
        result = fn(arg) if setup is not None else fn()
        times.append(time.perf_counter() - start)
        del result
    return min(times)
