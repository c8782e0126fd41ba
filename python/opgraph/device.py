"""Device preparation for Ascend targets: the storage formats the device
holds each tensor in (GE's format selection and TransData insertion).

:func:`prepare` sets every tensor's ``storage_format`` / ``storage_shape``
(and, with ``allow_fp32_to_fp16``, the dtype of cube ops) on an inferred
graph, inserting ``TransData`` nodes where formats meet; :func:`check_formats`
checks a prepared graph; :func:`storage_shape` is GE's shape formula for one
tensor. Targets are ATC's ``--soc_version`` names or family names
(:data:`SOC_VERSIONS`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from . import _core
from ._core import Graph
from .dtype import DataType
from .format import Format

SOC_VERSIONS: tuple[str, ...] = tuple(_core.soc_versions())
"""The targets :func:`prepare` accepts: the families ``Ascend310``,
``Ascend310P``, ``Ascend310B``, ``Ascend910``, ``Ascend910B``, then ATC's
soc_versions (``Ascend310P3``, ``Ascend310B1``, ``Ascend910A``, ``Ascend910B1``
...). Names match without regard to case. Not every target has a cost preset
(:meth:`opgraph.DeviceSpec.presets`)."""

DEFAULT_SOC = "Ascend910B"


@dataclass(frozen=True)
class PrepareReport:
    """What :func:`prepare` did. Counts include every body (If / While / call)."""

    soc: str
    """The target as named in the soc table (e.g. ``Ascend910B1``)."""
    family: str
    """Its family: ``Ascend310``, ``Ascend310P``, ``Ascend310B``, ``Ascend910`` or ``Ascend910B``."""
    allow_fp32_to_fp16: bool
    trans_data_inserted: int
    """TransData nodes inserted (one per tensor and target format, shared by its consumers)."""
    casts_inserted: int
    """Cast nodes inserted by the precision policy."""
    weights_converted: int
    """Constants (weights) stored in a device format in place, without TransData."""
    weights_cast_to_fp16: int
    """Constants stored in fp16 in place by the precision policy."""
    graphs: int
    """Graphs prepared: the graph and each body."""
    conds_replaced: int
    """If / Case nodes replaced by the body their known condition or index
    takes (GE's CondRemovePass): the body's nodes, named
    ``{node}/{body}/{name}``, take the node's place before formats are chosen."""
    tensors_by_format: Mapping[Format, int] = field(hash=False)
    """Node outputs per storage format after the pass."""

    def tensors_in(self, storage_format: Format) -> int:
        """How many node outputs are stored as ``storage_format``."""
        return self.tensors_by_format.get(storage_format, 0)


def prepare(graph: Graph, soc: str = DEFAULT_SOC, *, allow_fp32_to_fp16: bool = False) -> PrepareReport:
    """Chooses the storage format of every tensor of the inferred ``graph`` for
    target ``soc``, in place: NC1HWC0 activations and FRACTAL_Z weights for
    convolutions, pooling and batch norm, FRACTAL_NZ for matrix multiplies,
    element-wise ops following agreeing inputs, ND elsewhere. ``TransData``
    nodes go where a producer's storage differs from what a consumer needs and
    before graph outputs; weights are converted in place. First, as GE's
    CondRemovePass does, an If / Case whose condition or branch index is known
    is replaced by the branch it takes: the node is gone, and the branch's
    nodes are in the graph as ``{node}/{branch}/{name}``.

    With ``allow_fp32_to_fp16`` (ATC's ``precision_mode=allow_fp32_to_fp16``)
    cube ops compute in fp16: Casts go where dtypes meet, and weights only cube
    ops read are stored in fp16. By default every dtype stays as inferred.

    Raises :class:`~opgraph.errors.DeviceError` for an unknown soc, a graph
    that is not inferred or already prepared; the graph is then unchanged.
    The pass works in place (a copy would double the memory of the largest
    graphs), so a DeviceError found later (a storage shape that overflows)
    leaves the graph partly prepared: every later use of it raises
    DeviceError until it is rebuilt or reloaded."""
    (
        name,
        family,
        fp16,
        trans_data,
        casts,
        converted,
        cast,
        graphs,
        conds,
        by_format,
    ) = _core.prepare(graph, soc, allow_fp32_to_fp16)
    return PrepareReport(
        soc=name,
        family=family,
        allow_fp32_to_fp16=fp16,
        trans_data_inserted=trans_data,
        casts_inserted=casts,
        weights_converted=converted,
        weights_cast_to_fp16=cast,
        graphs=graphs,
        conds_replaced=conds,
        tensors_by_format=MappingProxyType({Format(f): n for f, n in by_format}),
    )


def check_formats(graph: Graph, soc: str = DEFAULT_SOC) -> list[str]:
    """Every place (one message each, naming the node) where a prepared graph's
    storage does not fit: an edge delivering a tensor in another storage than
    its consumer needs, an output not stored as its op stores it, a TransData
    whose attributes do not match, a graph output not in its origin format.
    Empty when the storage is consistent. Bodies are checked too."""
    return _core.check_formats(graph, soc)


def storage_shape(
    shape: Sequence[int],
    origin_format: Format | str,
    storage_format: Format | str,
    dtype: DataType,
    *,
    groups: int = 1,
    soc: str = DEFAULT_SOC,
) -> tuple[int, ...]:
    """GE's storage shape of a ``dtype`` tensor of ``shape`` in ``origin_format``
    stored as ``storage_format``: NC1HWC0 ``[N, ceil(C/C0), H, W, C0]`` of a 4-D
    tensor; FRACTAL_Z of a 4-D filter (``groups`` packed as GE does) or of a 2-D
    ``[K, N]`` matrix; FRACTAL_NZ ``[..., ceil(n/C0), ceil(m/16), 16, C0]``;
    the origin format itself (unchanged). C0 is 16 for fp16 / fp32, 32 for
    int8, 64 for int4. Unknown dims (-1) stay unknown. Raises
    :class:`~opgraph.errors.DeviceError` when the shape cannot be stored so."""
    return tuple(_core.storage_shape(shape, origin_format, storage_format, dtype, groups, soc))
