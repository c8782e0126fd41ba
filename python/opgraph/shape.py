"""Shapes are plain tuples of ints with GE's conventions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

from .errors import ShapeTypeError

Shape: TypeAlias = tuple[int, ...]
"""A shape: ``-1`` is an unknown dim, ``(-2,)`` an unknown rank, ``()`` a scalar."""

UNKNOWN_DIM = -1
UNKNOWN_RANK: Shape = (-2,)


def is_unknown_rank(shape: Shape) -> bool:
    """Whether ``shape`` is GE's unknown-rank shape ``(-2,)``."""
    return shape == UNKNOWN_RANK


def is_static(shape: Shape) -> bool:
    """True when the rank and every dim are known."""
    return all(d >= 0 for d in shape)


def input_shape_pairs(input_shapes: Mapping[str, Sequence[int]] | None) -> list[tuple[str, Sequence[int]]]:
    """``input_shapes`` as ``(name, shape)`` pairs for the loaders, whose core
    checks each shape (raising :class:`~opgraph.errors.ShapeArgumentError`
    naming the input and the dim)."""
    if input_shapes is None:
        return []
    if not isinstance(input_shapes, Mapping):
        raise ShapeTypeError(
            f"input_shapes maps input names to shapes, e.g. {{'x': [1, 224, 224, 3]}}; "
            f"got {type(input_shapes).__name__}"
        )
    pairs: list[tuple[str, Sequence[int]]] = []
    for name, shape in input_shapes.items():
        if not isinstance(name, str):
            raise ShapeTypeError(
                f"input_shapes keys are input names (str), got {type(name).__name__} {name!r}"
            )
        pairs.append((name, shape))
    return pairs
