"""Profiles of ATC's dynamic shapes: ``--dynamic_batch_size`` (every input's
batch), ``--dynamic_image_size`` (the ``-1`` H and W of ``--input_shape``)
and ``--dynamic_dims`` (every ``-1`` dim of ``--input_shape``, in order).
Each profile is the model compiled by the same pipeline with its own input
shapes; a :class:`Profile` keeps its memory plan and cost."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._core import Graph
from ..cost import BatchCost
from ..memory import MemoryPlan
from .usage import UsageError

if TYPE_CHECKING:
    from .compile import CompileOptions

MAX_PROFILE_DIM = 1 << 20


@dataclass(frozen=True)
class ProfileSpec:
    """What one profile compiles: ``label`` (``batch 4``, ``image 224x224``,
    ``dims 1,128``), the input shapes, and the batch for batch profiles."""

    label: str
    input_shapes: dict[str, list[int]]
    batch: int | None = None


@dataclass(frozen=True)
class Profile:
    """One compiled profile: its input shapes, memory plan and cost
    (``None`` where that stage was skipped); ``batch`` for batch profiles."""

    label: str
    input_shapes: dict[str, list[int]]
    batch: int | None
    memory: MemoryPlan | None
    cost: BatchCost | None


def _number(option: str, text: str, example: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{option}: {text!r} is not a whole number (give e.g. {example})") from None
    if not 1 <= value <= MAX_PROFILE_DIM:
        raise UsageError(f"{option}: {value} is not between 1 and {MAX_PROFILE_DIM}")
    return value


def parse_profile_dims(option: str, text: str, example: str, width: int | None = None) -> list[list[int]]:
    """``"a,b;c,d"``: one list of dims per ``;``-separated profile (each of
    ``width`` dims when given)."""
    profiles = []
    for part in filter(None, (p.strip() for p in text.strip().strip('"').split(";"))):
        dims = [_number(option, d.strip(), example) for d in part.split(",")]
        if width is not None and len(dims) != width:
            raise UsageError(
                f"{option}: profile {part!r} has {len(dims)} values; expected {width} (e.g. {example})"
            )
        profiles.append(dims)
    if not profiles:
        raise UsageError(f"{option}: no profile given (give e.g. {example})")
    if width is None and len({len(p) for p in profiles}) > 1:
        raise UsageError(f"{option}: every profile needs the same number of values (e.g. {example})")
    return profiles


def batched_shapes(
    graph: Graph, batch: int, model_shapes: Mapping[str, list[int]] | None = None
) -> dict[str, list[int]]:
    """Every graph input's shape (as inferred, or as ``model_shapes`` gives
    it: the model's own shape of an input an AIPP stage feeds) with its
    first dim set to ``batch``; rank-0 inputs stay as they are."""
    shapes = {}
    for ref in graph.inputs:
        dims = list((model_shapes or {}).get(ref.node) or graph.node(ref.node).outputs[ref.index].shape)
        shapes[ref.node] = [batch, *dims[1:]] if dims else dims
    return shapes


def _fill_unknown(shapes: dict[str, list[int]], values: list[int]) -> dict[str, list[int]]:
    """``shapes`` with their ``-1`` dims set to ``values`` in order."""
    it = iter(values)
    return {name: [next(it) if d == -1 else d for d in dims] for name, dims in shapes.items()}


def _unknown_count(shapes: dict[str, list[int]]) -> int:
    return sum(d == -1 for dims in shapes.values() for d in dims)


def profile_specs(
    options: CompileOptions, graph: Graph, model_shapes: Mapping[str, list[int]] | None = None
) -> list[ProfileSpec]:
    """The profiles the options ask for (none without a dynamic option);
    ``model_shapes``: see :func:`batched_shapes`."""
    specs = [
        ProfileSpec(f"batch {b}", batched_shapes(graph, b, model_shapes), b)
        for b in sorted(set(options.batch_sizes))
    ]
    given = options.input_shapes
    if options.image_sizes:
        unknown = {name: sum(d == -1 for d in dims) for name, dims in given.items()}
        if not any(unknown.values()) or any(n not in (0, 2) for n in unknown.values()):
            raise UsageError(
                "--dynamic_image_size needs --input_shape with -1 for H and W of each image input "
                '(e.g. --input_shape="data:1,3,-1,-1" --dynamic_image_size="224,224;448,448")'
            )
        for h, w in options.image_sizes:
            shapes = {
                name: _fill_unknown({name: dims}, [h, w] * (unknown[name] // 2))[name]
                for name, dims in given.items()
            }
            specs.append(ProfileSpec(f"image {h}x{w}", shapes))
    if options.dynamic_dims:
        count = _unknown_count(given)
        width = len(options.dynamic_dims[0])
        if count == 0 or count != width:
            raise UsageError(
                f"--dynamic_dims gives {width} value(s) per profile but --input_shape has {count} -1 dim(s); "
                'give one value per -1 dim (e.g. --input_shape="x:1,-1" --dynamic_dims="32;64")'
            )
        for values in options.dynamic_dims:
            specs.append(ProfileSpec(f"dims {','.join(map(str, values))}", _fill_unknown(given, values)))
    return specs
