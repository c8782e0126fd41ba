"""Plots draw names from models and files as they are: matplotlib's mathtext
is off while opgraph draws, so a tensor named ``a$x^$b`` is a label, not
TeX that fails to parse."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def literal_text(draw: Callable[P, R]) -> Callable[P, R]:
    """Runs ``draw`` with ``text.parse_math`` off (it raises its own error
    when matplotlib is not installed)."""

    @functools.wraps(draw)
    def drawing(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            from matplotlib import rc_context
        except ImportError:
            return draw(*args, **kwargs)
        with rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)

    return drawing
