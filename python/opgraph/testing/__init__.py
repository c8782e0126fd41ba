"""Property-based checking of inference rules (needs ``pip install opgraph[testing]``,
which brings hypothesis).

:func:`check_inference` draws cases from an op's prototype — valid dtype
combinations, shapes (rank 0, zero-size, equal / broadcastable / unrelated
groups), attribute values, optional inputs present or absent, dynamic input
counts, constant values for value-depend inputs — runs a numpy reference and
opgraph's verify → infer-dtype → infer-shape on each, and fails with the
smallest disagreeing case hypothesis can shrink to::

    import numpy as np
    from opgraph import DataType, OpDef
    from opgraph.testing import check_inference

    scale = OpDef("MyScale")
    scale.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16])
    scale.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16], follow="x")
    scale.attr("factor", float, default=1.0)

    def test_my_scale() -> None:
        check_inference(scale, lambda x, factor: x * np.asarray(factor, x.dtype), max_examples=200)

The reference gets one positional argument per prototype input (an array,
``None`` for an absent optional input, a list of arrays for a dynamic input)
and every attribute as a keyword (defaults filled in); it returns an array or
a tuple of arrays, or raises to reject the case. Output dtypes and shapes must
match, and a case must be rejected by both sides or neither. A failure is an
``AssertionError`` whose message lists the op, each input's dtype/shape (and
value for constants), the attributes, the reference's and opgraph's results,
and the mismatch.

Tell it what the prototype does not say:

- ``shapes=``: how inputs relate, as a strategy of shapes by position or by
  port name, e.g. ``hypothesis.extra.numpy.mutually_broadcastable_shapes(num_shapes=2)``
  or ``st.fixed_dictionaries({"x": shapes(min_rank=4, max_rank=4)})``;
- ``attrs=``: per-attribute strategies or fixed values, e.g.
  ``{"axis": st.integers(-3, 2), "data_format": "NCHW"}``;
- ``dtypes=``: a set of dtypes to stay within (e.g. what the reference supports);
- ``value_inputs=``: values of constant inputs, e.g. a Reshape target that
  depends on ``x``: ``{"shape": lambda arrays: targets_for(arrays["x"].shape)}``;
- ``unknown_dims=True``: declare inputs with ``-1`` dims / unknown rank and
  check soundness (known inferred dims equal the reference's) instead.

Settings: ``max_examples`` defaults to the active hypothesis profile's (100
unless a profile says otherwise; opgraph's own suite uses its ``ci`` profile
of 300); deadlines are off, ``too_slow`` is suppressed and a single (shrunk)
failure is reported. Pass ``settings=hypothesis.settings(...)`` for more.

Checking an :class:`~opgraph.OpDef` that is not the registered prototype of
its type registers it as ``<op_type>@opgraph.testing``: you check what you
pass, and the registry entry of ``op_type`` is neither created nor replaced.

The strategies (:func:`op_cases`, :func:`dtype_choices`, :func:`attr_values`,
:func:`shapes`, :func:`related_shapes`) are public for your own ``@given`` tests.
"""

from __future__ import annotations

from .cases import OpCase, PortCase, TensorCase
from .check import (
    MIN_ACCEPTED,
    CaseTally,
    Outcome,
    Reference,
    VacuousCheckError,
    check_case,
    check_inference,
    checked_op_type,
)
from .strategies import (
    DEFAULT_DTYPES,
    INDEX_DTYPES,
    AttrOverride,
    InputsToStrategy,
    ShapesOverride,
    ShapeSpec,
    ValueSource,
    attr_values,
    dtype_choices,
    op_cases,
    related_shapes,
    shapes,
)

__all__ = [
    "DEFAULT_DTYPES",
    "INDEX_DTYPES",
    "MIN_ACCEPTED",
    "AttrOverride",
    "CaseTally",
    "InputsToStrategy",
    "OpCase",
    "Outcome",
    "PortCase",
    "Reference",
    "ShapeSpec",
    "ShapesOverride",
    "TensorCase",
    "VacuousCheckError",
    "ValueSource",
    "attr_values",
    "check_case",
    "check_inference",
    "checked_op_type",
    "dtype_choices",
    "op_cases",
    "related_shapes",
    "shapes",
]
