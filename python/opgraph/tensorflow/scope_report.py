"""What the scope-fusion passes did in one load: which ran, which were
disabled or not enabled, and per pass the scopes fused and the scopes
matched but declined (left unfused: the fused op's plugin rejected them)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

__all__ = ["DeclinedScope", "FusedScope", "ScopeFusionDeclined", "ScopePassRun"]

PassStatus = Literal["ran", "disabled", "not enabled"]


class ScopeFusionDeclined(UserWarning):
    """A scope-fusion pass matched a scope it could not fuse; the model's
    original ops for it are kept."""


@dataclass(frozen=True)
class FusedScope:
    """A fused op: its name, (origin) type and the ops it replaced."""

    name: str
    op_type: str
    replaced: tuple[str, ...]


@dataclass(frozen=True)
class DeclinedScope:
    """A matched scope left unfused: the op it would have been, the scopes
    and ops the pass chose, and why."""

    name: str
    op_type: str
    scopes: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class ScopePassRun:
    """One registered pass in one load."""

    name: str
    status: PassStatus
    fused: tuple[FusedScope, ...]
    declined: tuple[DeclinedScope, ...]


RawRun = tuple[str, str, list[tuple[str, str, list[str]]], list[tuple[str, str, list[str], str]]]


def pass_runs(raw: Sequence[RawRun]) -> list[ScopePassRun]:
    """The report from the extension's tuples."""
    return [
        ScopePassRun(
            name,
            cast(PassStatus, status),
            tuple(FusedScope(n, t, tuple(r)) for n, t, r in fused),
            tuple(DeclinedScope(n, t, tuple(s), why) for n, t, s, why in declined),
        )
        for name, status, fused, declined in raw
    ]


def warn_declined(runs: Sequence[ScopePassRun]) -> None:
    """One :class:`ScopeFusionDeclined` warning per declined scope."""
    for run in runs:
        for scope in run.declined:
            warnings.warn(
                f"scope fusion pass '{run.name}' left {', '.join(scope.scopes)} unfused "
                f"(it would have been {scope.op_type} '{scope.name}'): {scope.reason}",
                ScopeFusionDeclined,
                stacklevel=3,
            )
