"""Shapes are plain tuples of ints with GE's conventions."""

from __future__ import annotations

from typing import TypeAlias

Shape: TypeAlias = tuple[int, ...]
"""A shape: ``-1`` is an unknown dim, ``(-2,)`` an unknown rank, ``()`` a scalar."""

UNKNOWN_DIM = -1
UNKNOWN_RANK: Shape = (-2,)


def is_unknown_rank(shape: Shape) -> bool:
    return shape == UNKNOWN_RANK


def is_static(shape: Shape) -> bool:
    """True when the rank and every dim are known."""
    return all(d >= 0 for d in shape)
