"""Hypothesis strategies derived from an op prototype (:class:`~opgraph.OpDef`).

- :func:`dtype_choices` — one dtype per input port: a whole parallel-list
  combination, an independent pick for ``dtype_list`` ports, and a pick from
  :data:`DEFAULT_DTYPES` for ports that take any dtype;
- :func:`shapes` / :func:`related_shapes` — shapes with rank-0 and zero-size
  cases; groups of shapes that are equal, mutually broadcastable or unrelated;
- :func:`attr_values` — values of the declared attribute types, optional
  attributes sometimes left out (so the default is exercised);
- :func:`op_cases` — whole cases (:class:`~opgraph.testing.OpCase`): optional
  inputs present or absent, dynamic inputs with varying instance counts,
  value-depend inputs fed as constants, arrays of the drawn shapes and dtypes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..dtype import DataType
from ..format import Format
from ..opdef import NO_DEFAULT, AttrSpec, OpDef, ParamType, PortSpec, op_def
from ..shape import Shape
from .cases import OpCase, PortCase, TensorCase

DEFAULT_DTYPES: tuple[DataType, ...] = (
    DataType.FLOAT,
    DataType.FLOAT16,
    DataType.DOUBLE,
    DataType.INT8,
    DataType.INT32,
    DataType.INT64,
    DataType.UINT8,
    DataType.BOOL,
)
"""What a port that accepts any dtype is drawn from (all have numpy equivalents)."""

INDEX_DTYPES: tuple[DataType, ...] = (DataType.INT32, DataType.INT64)
"""What a value-depend port that accepts any dtype is drawn from."""

ShapeSpec: TypeAlias = "Shape | Sequence[Shape] | None"
"""A port's shape in a ``shapes=`` override: a shape; ``None`` for an absent
optional input; a sequence of shapes for a dynamic input (its length is the
instance count)."""

ShapesOverride: TypeAlias = (
    "st.SearchStrategy[Sequence[ShapeSpec]] | st.SearchStrategy[Mapping[str, ShapeSpec]]"
)
"""A strategy of shapes by port position (a sequence, e.g. what
``mutually_broadcastable_shapes`` draws — its ``input_shapes`` are used) or
by port name (a mapping). Ports it does not cover are drawn as usual."""

InputsToStrategy: TypeAlias = Callable[[Mapping[str, npt.NDArray[Any]]], st.SearchStrategy[Any]]
"""A function of the non-constant inputs' arrays, by name, returning a strategy."""

ValueSource: TypeAlias = "st.SearchStrategy[Any] | InputsToStrategy"
"""The value of a constant input: a strategy of array-likes, or a function of
the other (non-constant) inputs' arrays, by name, returning such a strategy
(e.g. a Reshape target that depends on ``x``'s shape). The value is cast to
the port's drawn dtype; its shape is the input's shape."""

AttrOverride: TypeAlias = "st.SearchStrategy[Any] | InputsToStrategy | object"
"""A strategy for an attribute; a function of the inputs' arrays (by name)
returning one, for an attribute that must fit the inputs (e.g. Conv2D's
``groups``); or a plain value to use in every case."""

_OMIT = object()


def has_numpy(dtype: DataType) -> bool:
    """True when ``dtype`` has a numpy equivalent (so a reference can run)."""
    try:
        dtype.to_numpy()
    except ValueError:
        return False
    return True


def resolve_op(op: OpDef | str) -> OpDef:
    """An :class:`OpDef`, looking a string up in the registry."""
    return op_def(op) if isinstance(op, str) else op


# ---- dtypes ------------------------------------------------------------------------


def _in_combinations(port: PortSpec) -> bool:
    return bool(port.dtypes) and not port.dtype_list


def dtype_choices(
    op: OpDef | str, allowed: Collection[DataType] | None = None
) -> st.SearchStrategy[dict[str, DataType]]:
    """One dtype per input port (by name), always a valid choice for the
    prototype: ports with parallel ``dtypes`` lists take one combination
    together; ``dtype_list`` ports pick independently; ports without dtypes
    pick from :data:`DEFAULT_DTYPES` (:data:`INDEX_DTYPES` when value-depend).
    Dtypes without a numpy equivalent (BF16, ...) and, when ``allowed`` is
    given, dtypes outside it are never drawn; raises ValueError when that
    leaves a port nothing to draw."""
    op = resolve_op(op)
    keep = set(allowed) if allowed is not None else None

    def usable(dtype: DataType) -> bool:
        return has_numpy(dtype) and (keep is None or dtype in keep)

    combo_ports = [p for p in op.inputs if _in_combinations(p)]
    combos: list[tuple[DataType, ...]] = []
    if combo_ports:
        length = min(len(p.dtypes) for p in combo_ports)
        for k in range(length):
            combo = tuple(p.dtypes[k] for p in combo_ports)
            if all(usable(d) for d in combo) and combo not in combos:
                combos.append(combo)
        if not combos:
            raise ValueError(
                f"{op.op_type}: no dtype combination of inputs "
                f"{', '.join(p.name for p in combo_ports)} has numpy dtypes"
                + ("" if keep is None else " within the allowed dtypes")
            )
    independent: dict[str, st.SearchStrategy[DataType]] = {}
    for port in op.inputs:
        if _in_combinations(port):
            continue
        if port.dtypes:
            candidates = tuple(port.dtypes)
        else:
            candidates = INDEX_DTYPES if port.value_depend is not None else DEFAULT_DTYPES
        picks = [d for d in dict.fromkeys(candidates) if usable(d)]
        if not picks:
            raise ValueError(f"{op.op_type}: input {port.name!r} has no dtype to draw")
        independent[port.name] = st.sampled_from(picks)

    names = [p.name for p in combo_ports]

    @st.composite
    def draw_dtypes(draw: st.DrawFn) -> dict[str, DataType]:
        chosen: dict[str, DataType] = {}
        if combos:
            chosen.update(zip(names, draw(st.sampled_from(combos)), strict=True))
        for name, strategy in independent.items():
            chosen[name] = draw(strategy)
        return {p.name: chosen[p.name] for p in op.inputs}

    return draw_dtypes()


# ---- shapes ------------------------------------------------------------------------


def shapes(
    *, min_rank: int = 0, max_rank: int = 4, min_side: int = 0, max_side: int = 4
) -> st.SearchStrategy[Shape]:
    """Shapes of rank ``min_rank..max_rank`` with dims ``min_side..max_side``
    (rank 0 and zero-size shapes included by default)."""
    return hnp.array_shapes(min_dims=min_rank, max_dims=max_rank, min_side=min_side, max_side=max_side)


def related_shapes(
    count: int, *, max_rank: int = 4, max_side: int = 4
) -> st.SearchStrategy[tuple[Shape, ...]]:
    """``count`` shapes that are all equal, mutually broadcastable, or drawn
    independently (mostly incompatible) — the mix an elementwise op needs."""
    if count == 0:
        return st.just(())
    same = shapes(max_rank=max_rank, max_side=max_side).map(lambda s: (s,) * count)
    broadcast = hnp.mutually_broadcastable_shapes(
        num_shapes=count, min_dims=0, max_dims=max_rank, max_side=max_side
    ).map(lambda b: tuple(b.input_shapes))
    independent = st.tuples(*[shapes(max_rank=max_rank, max_side=max_side)] * count)
    return st.one_of(same, broadcast, independent)


def _unknown(shape: Shape) -> st.SearchStrategy[Shape]:
    """``shape`` as declared with unknown dims: as is, one dim -1, all dims
    -1, some dims -1, or unknown rank."""
    # Draws of a fixed size (an index, a fixed-length mask) rather than one per
    # dim keep the choices aligned while hypothesis shrinks the rank, so
    # counterexamples shrink to few dims.
    mask = st.lists(st.booleans(), min_size=_MASK_SIZE, max_size=_MASK_SIZE)

    def declare(kind: str, index: int, hide: list[bool]) -> Shape:
        rank = len(shape)
        if kind == "rank":
            return (-2,)
        if kind == "one" and rank:
            return tuple(-1 if i == index % rank else d for i, d in enumerate(shape))
        if kind == "all":
            return (-1,) * rank
        if kind == "some":
            return tuple(-1 if hide[i % _MASK_SIZE] else d for i, d in enumerate(shape))
        return shape

    kinds = st.sampled_from(["known", "one", "all", "some", "rank"])
    return st.builds(declare, kinds, st.integers(0, _MASK_SIZE - 1), mask)


_MASK_SIZE = 6


# ---- attributes --------------------------------------------------------------------

_SMALL_INT = st.integers(-4, 4)
_SMALL_FLOAT = st.floats(-4.0, 4.0, allow_nan=False, width=32)
_NAME = st.text(alphabet="abcdefNCHW", min_size=0, max_size=4)

_ATTR_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "int": _SMALL_INT,
    "float": _SMALL_FLOAT,
    "bool": st.booleans(),
    "DataType": st.sampled_from(DEFAULT_DTYPES),
    "list[int]": st.lists(_SMALL_INT, max_size=4),
    "list[float]": st.lists(_SMALL_FLOAT, max_size=4),
    "list[bool]": st.lists(st.booleans(), max_size=4),
    "list[DataType]": st.lists(st.sampled_from(DEFAULT_DTYPES), max_size=4),
    "list[list[int]]": st.lists(st.lists(_SMALL_INT, max_size=4), max_size=3),
}
# Drawn only when the attribute is required: random strings, tensors or
# function references rarely mean anything, so an optional one keeps its default.
_REQUIRED_ONLY: dict[str, st.SearchStrategy[Any]] = {
    "str": _NAME,
    "list[str]": st.lists(_NAME, max_size=3),
    "tensor": hnp.arrays(np.float32, shapes(max_rank=2, max_side=3), elements=_SMALL_FLOAT),
}


def attr_strategy(attr: AttrSpec) -> st.SearchStrategy[Any] | None:
    """The default strategy for one attribute's values; None when its type is
    not drawn by default (optional str / list[str] / tensor attributes keep
    their default; NamedAttrs are never drawn)."""
    if attr.type_name in _ATTR_STRATEGIES:
        return _ATTR_STRATEGIES[attr.type_name]
    if attr.required and attr.type_name in _REQUIRED_ONLY:
        return _REQUIRED_ONLY[attr.type_name]
    return None


def attr_values(
    op: OpDef | str, overrides: Mapping[str, AttrOverride] | None = None
) -> st.SearchStrategy[dict[str, object]]:
    """Attribute values to set on a node, by name. An overridden attribute
    (a strategy, or a plain value) is always set; other optional attributes
    are sometimes left out so the default applies. Raises ValueError for an
    override naming no attribute, or a required attribute with no default
    strategy (NamedAttrs). Overrides that are functions of the inputs are
    left out here; :func:`op_cases` draws them."""
    op = resolve_op(op)
    overrides = dict(overrides or {})
    names = {a.name for a in op.attrs}
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise ValueError(f"{op.op_type} has no attribute {', '.join(map(repr, unknown))}")
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for attr in op.attrs:
        if attr.name in overrides:
            value = overrides[attr.name]
            if _depends_on_inputs(value):
                continue  # drawn by op_cases once the inputs exist
            fields[attr.name] = value if isinstance(value, st.SearchStrategy) else st.just(value)
            continue
        strategy = attr_strategy(attr)
        if strategy is None:
            if attr.required:
                raise ValueError(
                    f"{op.op_type}: required attribute {attr.name!r} ({attr.type_name}) needs a "
                    f"strategy: attrs={{{attr.name!r}: ...}}"
                )
            continue
        fields[attr.name] = strategy if attr.required else st.one_of(st.just(_OMIT), strategy)
    return st.fixed_dictionaries(fields).map(lambda d: {k: v for k, v in d.items() if v is not _OMIT})


def _depends_on_inputs(value: object) -> bool:
    return callable(value) and not isinstance(value, st.SearchStrategy | type)


def attr_defaults(op: OpDef | str) -> dict[str, object]:
    """The prototype's default values of the optional attributes."""
    op = resolve_op(op)
    return {a.name: a.default for a in op.attrs if a.default is not NO_DEFAULT}


# ---- arrays ------------------------------------------------------------------------


def random_array(rng: np.random.Generator, dtype: DataType, shape: Shape) -> npt.NDArray[Any]:
    """Small random values of ``dtype`` (ints in -3..3, unsigned 0..3)."""
    np_dtype = dtype.to_numpy()
    if np_dtype.kind == "b":
        return rng.random(shape) < 0.5
    if np_dtype.kind in "iu":
        low = 0 if np_dtype.kind == "u" else -3
        return rng.integers(low, 4, size=shape).astype(np_dtype)
    if np_dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np_dtype)
    return rng.standard_normal(shape).astype(np_dtype)


def _value_elements(dtype: DataType) -> st.SearchStrategy[Any]:
    kind = dtype.to_numpy().kind
    if kind == "b":
        return st.booleans()
    if kind == "u":
        return st.integers(0, 6)
    if kind == "i":
        return st.integers(-1, 6)
    return st.floats(-4.0, 4.0, allow_nan=False, width=16)


# ---- whole cases -------------------------------------------------------------------


def _shape_specs(raw: object, op: OpDef) -> dict[str, object]:
    if isinstance(raw, Mapping):
        known = {p.name for p in op.inputs}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ValueError(f"shapes= names no input {', '.join(map(repr, unknown))} of {op.op_type}")
        return dict(raw)
    items = getattr(raw, "input_shapes", raw)  # BroadcastableShapes
    if not isinstance(items, Sequence):
        raise TypeError(f"shapes= must draw a sequence or a mapping of shapes, got {raw!r}")
    if len(items) > len(op.inputs):
        raise ValueError(f"shapes= drew {len(items)} shapes for the {len(op.inputs)} inputs of {op.op_type}")
    return {p.name: items[i] for i, p in enumerate(op.inputs[: len(items)])}


def _given_shapes(port: PortSpec, spec: object) -> list[Shape]:
    """A port's instance shapes from a ``shapes=`` entry."""
    if spec is None:
        if port.param_type != ParamType.OPTIONAL:
            raise ValueError(f"shapes= gives None for input {port.name!r}, which is not optional")
        return []
    if not isinstance(spec, Sequence):
        raise TypeError(f"shapes= gives {spec!r} for input {port.name!r}; expected a shape")
    if port.param_type == ParamType.DYNAMIC:
        return [_given_shape(port, shape) for shape in spec]
    return [_given_shape(port, spec)]


def _given_shape(port: PortSpec, shape: object) -> Shape:
    """One shape a ``shapes=`` entry gives: a sequence of sizes (ints >= 0),
    for the arrays the reference runs on."""
    dims = tuple(shape) if isinstance(shape, Sequence) and not isinstance(shape, str) else None
    if dims is None or not all(isinstance(d, int | np.integer) and not isinstance(d, bool) for d in dims):
        raise TypeError(f"shapes= gives {shape!r} for input {port.name!r}; a shape is a sequence of ints")
    if any(d < 0 for d in dims):
        raise ValueError(f"shapes= gives {shape!r} for input {port.name!r}; dims are sizes (>= 0)")
    return tuple(int(d) for d in dims)


def op_cases(
    op: OpDef | str,
    *,
    shapes: ShapesOverride | None = None,
    attrs: Mapping[str, AttrOverride] | None = None,
    dtypes: st.SearchStrategy[Mapping[str, DataType]] | Collection[DataType] | None = None,
    value_inputs: Mapping[str, ValueSource] | None = None,
    unknown_dims: bool = False,
    dynamic_sizes: tuple[int, int] = (0, 3),
) -> st.SearchStrategy[OpCase]:
    """Whole cases of ``op`` (a registered op type or an :class:`OpDef`).

    - ``shapes``: a strategy of shapes by port position or name
      (:data:`ShapesOverride`) for inputs that relate in a way the prototype
      does not say; by default all non-constant inputs are drawn together
      with :func:`related_shapes`.
    - ``attrs``: per-attribute strategies, functions of the inputs' arrays
      returning strategies, or fixed values (:data:`AttrOverride`), replacing
      :func:`attr_strategy`'s defaults.
    - ``dtypes``: a collection restricts :func:`dtype_choices`; a strategy of
      ``{port: dtype}`` replaces it.
    - ``value_inputs``: inputs fed as ``Const`` with a drawn value
      (:data:`ValueSource`); value-depend inputs are always constants, with
      small values (ints -1..6) of rank 0 or 1 unless given here.
    - ``unknown_dims``: declare graph inputs with some dims ``-1`` or
      unknown rank (the arrays stay concrete).
    - ``dynamic_sizes``: instance counts drawn for dynamic inputs (inclusive).
    """
    op = resolve_op(op)
    if shapes is not None and not isinstance(shapes, st.SearchStrategy):
        raise TypeError(
            f"shapes= is one strategy drawing a sequence or a mapping of shapes (e.g. "
            f"st.just({{'x': (2, 3)}})), got {type(shapes).__name__}"
        )
    value_sources = dict(value_inputs or {})
    unknown = sorted(set(value_sources) - {p.name for p in op.inputs})
    if unknown:
        raise ValueError(f"value_inputs= names no input {', '.join(map(repr, unknown))} of {op.op_type}")
    for name, source in value_sources.items():
        if not isinstance(source, st.SearchStrategy) and not callable(source):
            raise TypeError(
                f"value_inputs[{name!r}] is a strategy of arrays or a function of the inputs' arrays "
                f"returning one, got {type(source).__name__}"
            )
    if isinstance(dtypes, st.SearchStrategy):
        dtype_strategy: st.SearchStrategy[Mapping[str, DataType]] = dtypes
    else:
        dtype_strategy = dtype_choices(op, dtypes)
    attr_strategy_ = attr_values(op, attrs)
    dependent_attrs = {
        name: cast(InputsToStrategy, value)
        for name, value in (attrs or {}).items()
        if _depends_on_inputs(value)
    }
    defaults = attr_defaults(op)
    low, high = dynamic_sizes

    @st.composite
    def draw_case(draw: st.DrawFn) -> OpCase:
        port_dtypes = draw(dtype_strategy)
        specs = _shape_specs(draw(shapes), op) if shapes is not None else {}
        const = {p.name for p in op.inputs if p.value_depend is not None or p.name in value_sources}
        # instance counts and shapes: from the shapes override, else drawn
        given = {p.name: _given_shapes(p, specs[p.name]) for p in op.inputs if p.name in specs}
        counts: dict[str, int] = {}
        for port in op.inputs:
            if port.name in given:
                counts[port.name] = len(given[port.name])
            elif port.param_type == ParamType.DYNAMIC:
                counts[port.name] = draw(st.integers(low, high))
            elif port.param_type == ParamType.OPTIONAL:
                counts[port.name] = int(draw(st.booleans()))
            else:
                counts[port.name] = 1
        # shapes of data inputs not given by the override, drawn together
        free = [
            (p.name, k)
            for p in op.inputs
            if p.name not in given and p.name not in const
            for k in range(counts[p.name])
        ]
        drawn = iter(draw(related_shapes(len(free))))
        port_shapes: dict[str, list[Shape]] = {p.name: list(given.get(p.name, [])) for p in op.inputs}
        for name, _k in free:
            port_shapes[name].append(tuple(next(drawn)))

        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        arrays: dict[str, npt.NDArray[Any]] = {}
        tensors: dict[str, list[TensorCase]] = {p.name: [] for p in op.inputs}
        for port in op.inputs:
            if port.name in const:
                continue
            dtype = port_dtypes[port.name]
            for k, shape in enumerate(port_shapes[port.name]):
                name = _instance_name(port, k)
                array = random_array(rng, dtype, shape)
                arrays[name] = array
                declared = draw(_unknown(shape)) if unknown_dims else shape
                tensors[port.name].append(TensorCase(name, dtype, array, declared, _format(draw, port)))
        for port in op.inputs:
            if port.name not in const:
                continue
            dtype = port_dtypes[port.name]
            for k in range(counts[port.name]):
                fixed = port_shapes[port.name][k] if k < len(port_shapes[port.name]) else None
                source = value_sources.get(port.name)
                if source is None:
                    shape = fixed if fixed is not None else draw(hnp.array_shapes(min_dims=0, max_dims=1))
                    value = draw(hnp.arrays(dtype.to_numpy(), shape, elements=_value_elements(dtype)))
                else:
                    strategy = source if isinstance(source, st.SearchStrategy) else source(dict(arrays))
                    value = draw(strategy)
                array = np.asarray(value).astype(dtype.to_numpy())
                name = _instance_name(port, k)
                tensors[port.name].append(
                    TensorCase(name, dtype, array, tuple(array.shape), _format(draw, port), const=True)
                )
        ports = tuple(PortCase(p.name, p.param_type, tuple(tensors[p.name])) for p in op.inputs)
        node_attrs = draw(attr_strategy_)
        for name, source in dependent_attrs.items():
            node_attrs[name] = draw(source(dict(arrays)))
        node_attrs = {a.name: node_attrs[a.name] for a in op.attrs if a.name in node_attrs}
        left_out = {k: v for k, v in defaults.items() if k not in node_attrs}
        return OpCase(op.op_type, ports, node_attrs, left_out)

    return draw_case()


def _instance_name(port: PortSpec, k: int) -> str:
    return f"{port.name}{k}" if port.param_type == ParamType.DYNAMIC else port.name


def _format(draw: st.DrawFn, port: PortSpec) -> Format:
    return draw(st.sampled_from(port.formats)) if port.formats else Format.ND


__all__ = [
    "DEFAULT_DTYPES",
    "INDEX_DTYPES",
    "AttrOverride",
    "InputsToStrategy",
    "ShapeSpec",
    "ShapesOverride",
    "ValueSource",
    "attr_defaults",
    "attr_strategy",
    "attr_values",
    "dtype_choices",
    "has_numpy",
    "op_cases",
    "random_array",
    "related_shapes",
    "resolve_op",
    "shapes",
]
