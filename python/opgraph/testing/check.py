"""``check_inference``: an op's registered verify / infer functions against a
numpy reference, on hypothesis-drawn cases, with a shrunk counterexample."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import hypothesis
import numpy as np
from hypothesis import HealthCheck, Phase, given
from hypothesis import strategies as st

from .. import _core
from .._core import Graph, TensorRef
from ..dtype import DataType
from ..errors import OpgraphError
from ..opdef import OpDef, ParamType, op_def, register
from ..shape import Shape
from .cases import OpCase
from .strategies import AttrOverride, ShapesOverride, ValueSource, op_cases

Reference = Callable[..., Any]
"""``reference(*inputs, **attrs)``: one positional argument per prototype input
(an array; ``None`` for an absent optional input; a list of arrays for a
dynamic input) and every attribute by name (defaults filled in); returns an
array or a tuple of arrays (one per output instance), or raises to reject."""

PRIVATE_SUFFIX = "@opgraph.testing"
"""An :class:`OpDef` that is not the registered prototype is checked under
``<op_type>@opgraph.testing`` so the user's registry is left untouched."""


@dataclass(frozen=True)
class Outcome:
    """What one side (reference or opgraph) made of a case: output
    ``(dtype, shape)`` pairs, or the exception that rejected it."""

    outputs: tuple[tuple[DataType, Shape], ...] = ()
    error: BaseException | None = None

    @property
    def rejected(self) -> bool:
        """Whether the side raised instead of producing outputs."""
        return self.error is not None

    def describe(self, names: Sequence[str]) -> str:
        """One line for a failure message: the error (and its cause) when
        rejected, else each output, named from ``names``, as dtype and shape."""
        if self.error is not None:
            text = f"rejected: {type(self.error).__name__}: {self.error}"
            cause = self.error.__cause__
            if cause is not None:
                text += f" (caused by {type(cause).__name__}: {cause})"
            return text
        parts = [
            f"{_output_name(names, i)} = {dtype.name}{list(shape)}"
            for i, (dtype, shape) in enumerate(self.outputs)
        ]
        return ", ".join(parts) or "(no outputs)"


def _output_name(names: Sequence[str], i: int) -> str:
    return names[i] if i < len(names) else f"output{i}"


# ---- which op type is checked ------------------------------------------------------


def _same_prototype(a: OpDef, b: OpDef) -> bool:
    try:
        return bool(a.inputs == b.inputs and a.outputs == b.outputs and a.attrs == b.attrs)
    except Exception:  # attribute defaults that cannot be compared (arrays)
        return False


def checked_op_type(op: OpDef | str) -> tuple[OpDef, str]:
    """The prototype to draw cases from and the op type to put in the graph.

    - a string: the registered op of that type;
    - a built-in :class:`OpDef` (from :func:`opgraph.op_def`), or one with no
      functions that describes the registered prototype exactly: that op type;
    - any other :class:`OpDef`: *that definition*, registered under
      ``<op_type>@opgraph.testing`` (overriding a previous check's), whether
      or not it was registered — the registry entry of ``op_type`` itself is
      never created or replaced.
    """
    if isinstance(op, str):
        return op_def(op), op
    if not isinstance(op, OpDef):
        raise TypeError(f"op is an OpDef or an op type name, got {type(op).__name__} {op!r}")
    if op.builtin:
        return op, op.op_type
    functions = (op.verify_fn, op.infer_dtype_fn, op.infer_shape_fn)
    registered = _core.op_schema(op.op_type) is not None
    if all(f is None for f in functions) and registered and _same_prototype(op, op_def(op.op_type)):
        return op, op.op_type
    private = copy.copy(op)
    private.op_type = op.op_type + PRIVATE_SUFFIX
    register(private, override=True)
    return op, private.op_type


# ---- running one case --------------------------------------------------------------


def run_reference(reference: Reference, case: OpCase) -> Outcome:
    """Calls ``reference`` on the case's arrays and attributes (numpy
    warnings silenced); an exception means the reference rejects the case."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = reference(*case.reference_args(), **case.reference_attrs())
    except Exception as error:
        return Outcome(error=error)
    if result is None:
        raise TypeError("the reference returned None; it returns the output array (or a tuple of them)")
    results = list(result) if isinstance(result, tuple | list) else [result]
    outputs: list[tuple[DataType, Shape]] = []
    for i, item in enumerate(results):
        array = np.asarray(item)
        try:
            dtype = DataType.from_numpy(array.dtype)
        except ValueError:
            raise TypeError(
                f"the reference's output {i} has numpy dtype {array.dtype}, which has no opgraph DataType"
            ) from None
        outputs.append((dtype, tuple(int(d) for d in array.shape)))
    return Outcome(tuple(outputs))


def build_graph(op: OpDef, op_type: str, case: OpCase, output_count: int | None = None) -> Graph:
    """A graph of one ``op_type`` node named ``node``: data inputs are graph
    inputs with the declared shapes, constant inputs are ``Const`` nodes.
    ``output_count`` (from the reference) sizes a single dynamic output."""
    graph = Graph("check_inference")
    ports: list[TensorRef | list[TensorRef] | None] = []
    for port in case.inputs:
        refs = [
            graph.add_const(f"in/{t.name}", t.array, t.format)
            if t.const
            else graph.add_input(f"in/{t.name}", t.dtype, t.declared_shape, t.format)
            for t in port.instances
        ]
        if port.param_type == ParamType.DYNAMIC:
            ports.append(refs)
        else:
            ports.append(refs[0] if refs else None)
    dynamic = [p.name for p in op.outputs if p.param_type == ParamType.DYNAMIC]
    counts: list[tuple[str, int]] = []
    if len(dynamic) == 1:
        fixed = len(op.outputs) - 1
        count = output_count - fixed if output_count is not None and output_count > fixed else 1
        counts = [(dynamic[0], count)]
    else:
        counts = [(name, 1) for name in dynamic]
    graph.add_node(op_type, "node", ports, dict(case.attrs), dynamic_outputs=counts or None)
    return graph


def run_opgraph(op: OpDef, op_type: str, case: OpCase, output_count: int | None = None) -> Outcome:
    """Builds the case's graph and infers it; an :class:`~opgraph.OpgraphError`
    (from building or inference) means opgraph rejects the case."""
    try:
        graph = build_graph(op, op_type, case, output_count)
        errors = _core.infer(graph, False)
    except OpgraphError as error:
        return Outcome(error=error)
    if errors:  # not raised: opgraph's errors module is broken
        raise errors[0]
    outputs = tuple((d.dtype, tuple(d.shape)) for d in graph.node("node").outputs)
    return Outcome(outputs)


def _shape_agrees(inferred: Shape, expected: Shape, sound_only: bool) -> bool:
    if not sound_only:
        return inferred == expected
    if inferred == (-2,):
        return True
    return len(inferred) == len(expected) and all(
        i in (-1, e) for i, e in zip(inferred, expected, strict=True)
    )


def compare(expected: Outcome, inferred: Outcome, *, sound_only: bool = False) -> list[str]:
    """Why ``inferred`` disagrees with ``expected`` (empty when it agrees).

    With ``sound_only`` (inputs declared with unknown dims) unknown inferred
    dims / rank are accepted, and so is accepting a case the reference
    rejects (the concrete shapes are not visible to inference)."""
    if expected.rejected and inferred.rejected:
        return []
    if expected.rejected:
        return [] if sound_only else ["opgraph accepts a case the reference rejects"]
    if inferred.rejected:
        return ["opgraph rejects a case the reference accepts"]
    problems: list[str] = []
    if len(expected.outputs) != len(inferred.outputs):
        problems.append(
            f"the reference returns {len(expected.outputs)} outputs, the node has {len(inferred.outputs)}"
        )
    for i, ((e_dtype, e_shape), (i_dtype, i_shape)) in enumerate(
        zip(expected.outputs, inferred.outputs, strict=False)
    ):
        if e_dtype != i_dtype:
            problems.append(f"output {i} dtype: reference {e_dtype.name}, inferred {i_dtype.name}")
        if not _shape_agrees(i_shape, e_shape, sound_only):
            problems.append(f"output {i} shape: reference {list(e_shape)}, inferred {list(i_shape)}")
    return problems


def failure_message(
    op: OpDef, case: OpCase, expected: Outcome, inferred: Outcome, problems: Sequence[str]
) -> str:
    """The readable block an :class:`AssertionError` carries."""
    names = [p.name for p in op.outputs]
    return "\n".join(
        [
            f"check_inference({op.op_type}): inference disagrees with the reference "
            "on this case (minimal after hypothesis shrinking):",
            f"  op:        {op.op_type}",
            case.describe(),
            f"  reference: {expected.describe(names)}",
            f"  inferred:  {inferred.describe(names)}",
            *(f"  mismatch:  {p}" for p in problems),
        ]
    )


def check_case(
    op: OpDef,
    op_type: str,
    reference: Reference,
    case: OpCase,
    *,
    sound_only: bool = False,
    tally: CaseTally | None = None,
) -> None:
    """Runs one case on both sides; raises AssertionError when they disagree.
    ``tally`` counts what each side made of it."""
    expected = run_reference(reference, case)
    inferred = run_opgraph(op, op_type, case, None if expected.rejected else len(expected.outputs))
    if tally is not None:
        tally.add(expected, inferred)
    problems = compare(expected, inferred, sound_only=sound_only)
    if problems:
        raise AssertionError(failure_message(op, case, expected, inferred, problems))


# ---- the case mix ------------------------------------------------------------------

MIN_ACCEPTED = 0.2
"""The share of cases the reference must accept for a check to mean
something (``opgraph check-op``'s default floor): below it, the drawn
attributes and shapes are mostly invalid and the cases that would expose a
wrong rule are too few to be drawn reliably."""


@dataclass
class CaseTally:
    """How many cases each side accepted and rejected (every case hypothesis
    ran, shrinking included)."""

    cases: int = 0
    reference_accepted: int = 0
    opgraph_accepted: int = 0

    @property
    def reference_rejected(self) -> int:
        """Cases the reference rejected."""
        return self.cases - self.reference_accepted

    @property
    def opgraph_rejected(self) -> int:
        """Cases opgraph's rule rejected."""
        return self.cases - self.opgraph_accepted

    def add(self, expected: Outcome, inferred: Outcome) -> None:
        """Counts one case: the reference's outcome and opgraph's."""
        self.cases += 1
        self.reference_accepted += not expected.rejected
        self.opgraph_accepted += not inferred.rejected

    def describe(self) -> str:
        """The counts as one sentence, as check-op prints them."""
        return (
            f"{self.cases} cases: the reference accepted {self.reference_accepted} and rejected "
            f"{self.reference_rejected}; opgraph accepted {self.opgraph_accepted} and rejected "
            f"{self.opgraph_rejected}"
        )


class VacuousCheckError(AssertionError):
    """Too few cases were valid for the reference: an agreement on them
    proves little (``tally`` has the counts)."""

    def __init__(self, message: str, tally: CaseTally) -> None:
        super().__init__(message)
        self.tally = tally


def check_case_mix(op_type: str, tally: CaseTally, min_accepted: float) -> None:
    """Raises :class:`VacuousCheckError` when the reference accepted less than
    ``min_accepted`` of the cases (all rejected on both sides included)."""
    if tally.cases == 0 or tally.reference_accepted >= min_accepted * tally.cases:
        return
    share = tally.reference_accepted / tally.cases
    raise VacuousCheckError(
        f"check_inference({op_type}) is vacuous: {tally.describe()}; only {share:.0%} of the cases "
        f"are valid for the reference, below {min_accepted:.0%}. Draw valid attributes and "
        "shapes (attrs= and shapes=, or check-op --attr kernel=1..5 --shape x=1..2,3,8..16,8..16)",
        tally,
    )


# ---- the entry point ---------------------------------------------------------------


def check_inference(
    op: OpDef | str,
    reference: Reference,
    *,
    max_examples: int | None = None,
    shapes: ShapesOverride | None = None,
    attrs: Mapping[str, AttrOverride] | None = None,
    dtypes: st.SearchStrategy[Mapping[str, DataType]] | Collection[DataType] | None = None,
    value_inputs: Mapping[str, ValueSource] | None = None,
    unknown_dims: bool = False,
    dynamic_sizes: tuple[int, int] = (0, 3),
    settings: hypothesis.settings | None = None,
    min_accepted: float = 0.0,
    seed: int | None = None,
) -> CaseTally:
    """Checks ``op``'s verify / infer-dtype / infer-shape against ``reference``
    on cases drawn by :func:`~opgraph.testing.op_cases` (see it for ``shapes``,
    ``attrs``, ``dtypes``, ``value_inputs``, ``unknown_dims`` and
    ``dynamic_sizes``).

    For each case the reference runs on the arrays and a one-node graph is
    inferred; output dtypes and shapes must be equal, and a case rejected by
    one side (the reference raising, opgraph raising an
    :class:`~opgraph.OpgraphError`) must be rejected by the other. With
    ``unknown_dims`` the check is soundness: inferred dims may be unknown and
    opgraph may accept what the reference rejects.

    ``op`` is an op type, or an :class:`OpDef` (see :func:`checked_op_type`:
    an unregistered or changed definition is checked as given, without
    touching the registry entry of its op type).

    ``max_examples`` defaults to the active hypothesis profile's;
    ``settings`` gives full control (its ``max_examples`` unless overridden).
    ``seed`` fixes hypothesis's random draws (as ``@hypothesis.seed``, which
    also leaves the example database unused): the same seed, examples,
    strategies and hypothesis version draw the same cases. Deadlines are
    off, one failure is reported (no explain phase). Raises AssertionError
    with the shrunk counterexample.

    Returns the :class:`CaseTally`. With ``min_accepted`` (e.g.
    :data:`MIN_ACCEPTED`, 0.2, as ``opgraph check-op`` does), a check where
    the reference accepted less than that share of the cases (both sides
    rejecting everything included) raises :class:`VacuousCheckError`: its
    agreement would be false confidence. The default, 0, leaves the mix to
    the caller (a test of rejections may want mostly invalid cases)."""
    if not 0.0 <= min_accepted <= 1.0:
        raise ValueError(f"min_accepted is a share of the cases, in [0, 1], got {min_accepted!r}")
    definition, op_type = checked_op_type(op)
    cases = op_cases(
        definition,
        shapes=shapes,
        attrs=attrs,
        dtypes=dtypes,
        value_inputs=value_inputs,
        unknown_dims=unknown_dims,
        dynamic_sizes=dynamic_sizes,
    )
    base = settings if settings is not None else hypothesis.settings()
    chosen = hypothesis.settings(
        base,
        max_examples=max_examples if max_examples is not None else base.max_examples,
        deadline=None,
        report_multiple_bugs=False,
        phases=[phase for phase in base.phases if phase != Phase.explain],
        suppress_health_check=[*base.suppress_health_check, HealthCheck.too_slow],
    )

    tally = CaseTally()

    def check_one(case: OpCase) -> None:
        check_case(definition, op_type, reference, case, sound_only=unknown_dims, tally=tally)

    # Keeps hypothesis's example database and seed apart per op and reference.
    qualname = getattr(reference, "__qualname__", type(reference).__name__)
    check_one._hypothesis_internal_add_digest = f"{op_type}:{qualname}".encode()  # type: ignore[attr-defined]
    test = chosen(given(cases)(check_one))
    if seed is not None:
        test = hypothesis.seed(seed)(test)
    test()
    check_case_mix(definition.op_type, tally, min_accepted)
    return tally


__all__ = [
    "MIN_ACCEPTED",
    "PRIVATE_SUFFIX",
    "CaseTally",
    "Outcome",
    "Reference",
    "VacuousCheckError",
    "build_graph",
    "check_case",
    "check_case_mix",
    "check_inference",
    "checked_op_type",
    "compare",
    "failure_message",
    "run_opgraph",
    "run_reference",
]
