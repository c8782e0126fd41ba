"""Tighter bounds on dynamic dims, read from a few fixed-size inferences.

A model given input ranges (ATC's ``--input_shape "x:1~8,1~512"``) is
inferred with shape ranges, and interval arithmetic loses what ties dims
together: a transformer's ``Reshape(x, [B, S, -1, 64])`` has a ``-1`` of
exactly 12, but from the ranges alone it could be anything up to
``max(B·S·768) / min(B·S·64)``, and the memory plan then leaves the tensor
out. :func:`narrow_ranges` infers copies of the graph with the input sizes
fixed — all at their maximum; each in turn at its minimum, the size above
it, its middle and the size below its maximum; all at their minimum and
all at their middle — and reads each unknown dim as a product of powers of
the sizes (``c · B^i · S^j``), which is what ONNX Runtime's symbolic shape
inference would derive for it. A dim whose product holds at every probe gets
that product's range; one that does not (``S + 1``, a pad to a multiple of a
window, a size that depends on data) keeps its interval range. Ranges only
ever narrow. This is evidence, not proof: a size that agrees with a product
at every probed point but not between them would be misread. Where sizes
between do not infer at all (a YOLO detector takes only multiples of 32),
the sizes are probed on a grid (:attr:`RangeProbe.steps`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from . import _core
from ._core import Graph


@dataclass(frozen=True)
class RangeProbe:
    """What :func:`narrow_ranges` did."""

    probes: int
    """Inferences of a copy of the graph at fixed input sizes."""
    unknown_dims: int
    """Unknown dims of node outputs, in the bodies of If, Loop and function
    calls too (the graph's inputs excluded)."""
    fitted: int
    """Of those, the dims that are a product of powers of the input sizes."""
    narrowed: int
    """Of those, the dims whose range became narrower, or bounded at all."""
    symbols: tuple[tuple[str, int, int], ...]
    """Each input size probed: its name (the ONNX ``dim_param``, else
    ``input[dim]``; ``a=b`` for sizes probed as one) and its inclusive range."""
    merged: bool
    """Whether sizes probed apart did not infer, so those of equal ranges
    were probed as one size (``a=b``): an assumption, so only dims that
    interval ranges left unbounded take the probed bounds."""
    skipped: str | None
    """Why nothing was probed (an input dim without an upper bound, or a
    probe that did not infer, with the sizes it used); None otherwise."""
    steps: tuple[tuple[str, int], ...] = ()
    """Sizes probed only on a grid, with its step: when a probe did not infer
    (a YOLO detector concatenates feature maps across strides, so it takes
    only multiples of 32), the sizes it had moved are probed at their minimum
    plus multiples of the finest power of two (2 to 64, dividing both ends of
    the range) at which every probe infers. The bounds then assume the model
    takes only sizes on that grid."""


def narrow_ranges(graph: Graph, symbols: Mapping[str, Sequence[str]] | None = None) -> RangeProbe:
    """Narrows the shape ranges of the inferred ``graph`` by probing it at
    fixed sizes of its ranged inputs.

    ``symbols`` names the input dims (per input name, one name per dim,
    ``""`` for none, as :attr:`opgraph.onnx.OnnxReport.symbols` gives them):
    dims named alike are one size, probed together. Unnamed dims are probed
    apart, and together with the others of an equal range when apart they
    do not infer (two batch dims that must agree).

    >>> import numpy as np
    >>> import opgraph
    >>> from opgraph import DataType
    >>> g = opgraph.Graph()
    >>> x = g.add_input("x", DataType.FLOAT, [-1, -1, 128], shape_range=[(1, 8), (1, 512), (128, 128)])
    >>> first_two = g.add_const("i", np.array([0, 1], np.int32))
    >>> axis = g.add_const("axis", np.array(0, np.int32))
    >>> batch_and_seq = g.add_node("GatherV2", "bs", [g.add_node("Shape", "shape", [x]), first_two, axis])
    >>> target = g.add_node("ConcatV2", "target", {
    ...     "x": [batch_and_seq, g.add_const("tail", np.array([-1, 32], np.int32))],
    ...     "concat_dim": g.add_const("c", np.array(0, np.int32))})
    >>> heads = g.add_node("Reshape", "heads", [x, target])
    >>> _ = opgraph.infer(g)
    >>> g.desc(heads).shape, g.desc(heads).shape_range  # the -1: the count over B, S and 32
    ((-1, -1, -1, 32), [(1, 8), (1, 512), (1, 16384), (32, 32)])
    >>> probe = opgraph.narrow_ranges(g)
    >>> probe.probes, probe.fitted, probe.narrowed, probe.symbols
    (11, 3, 1, (('x[0]', 1, 8), ('x[1]', 1, 512)))
    >>> g.desc(heads).shape_range
    [(1, 8), (1, 512), (4, 4), (32, 32)]
    """
    names = None if symbols is None else {name: list(dims) for name, dims in symbols.items()}
    probes, unknown, fitted, narrowed, found, merged, skipped, steps = _core.narrow_ranges(graph, names)
    return RangeProbe(probes, unknown, fitted, narrowed, tuple(found), merged, skipped, tuple(steps))
