"""The Ascend cost model: per-op and whole-graph latency estimates.

:func:`estimate_cost` times every node of an inferred graph on a device
(:class:`DeviceSpec`: a preset such as ``"Ascend310"`` or a description
loaded from TOML / JSON) and returns a :class:`CostReport`: per node its
time, what bounds it (cube, vector, memory, overhead, AI CPU), its FLOPs
and bytes; the single-stream total, the critical path over parallel
streams, a JSON form and matplotlib plots (a roofline and the time by op
type). The rows come from the core as columns (:class:`CostColumns`:
numpy arrays and name tables); a :class:`NodeCost` is built only when a
row is read."""

from __future__ import annotations

import json
import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt

from . import _core
from ._core import DeviceSpec, Graph
from ._plot_path import image_path
from ._str_column import StrColumn

__all__ = [
    "BOUNDS",
    "PRECISION_MODES",
    "BatchCost",
    "CostColumns",
    "CostReport",
    "DeviceSpec",
    "NodeCost",
    "NodeCosts",
    "estimate_cost",
]

Bound = Literal["cube", "vector", "memory", "overhead", "ai_cpu", "fused", "free"]
BOUNDS: tuple[Bound, ...] = ("cube", "vector", "memory", "overhead", "ai_cpu", "fused", "free")
PrecisionMode = Literal["force_fp16", "allow_fp32_to_fp16", "must_keep_origin_dtype"]
PRECISION_MODES: tuple[PrecisionMode, ...] = ("force_fp16", "allow_fp32_to_fp16", "must_keep_origin_dtype")
Float64Array = npt.NDArray[np.float64]
Int32Array = npt.NDArray[np.int32]
UInt8Array = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class NodeCost:
    """The estimate for one node over all its executions (``count``)."""

    name: str
    op_type: str
    time_us: float
    bound: Bound
    flops: float
    padded_flops: float
    bytes: float
    l2_bytes: float
    compute_us: float
    memory_us: float
    overhead_us: float
    count: float
    fused_into: str | None = None
    note: str | None = None
    cube_us: float = 0.0
    """Cube time (``compute_us`` is the larger of this and ``vector_us``)."""
    vector_us: float = 0.0
    """Vector time, fused members' included."""

    @property
    def arithmetic_intensity(self) -> float:
        """FLOPs per off-chip byte (``inf`` for an op that moves nothing)."""
        return self.flops / self.bytes if self.bytes > 0 else float("inf")


class CostColumns:
    """Every row of a :class:`CostReport` as columns, in row order (single
    stream execution order, bodies after their caller): ``names`` (a
    :class:`StrColumn`: each name is made when read), float64
    arrays ``time_us``, ``flops``, ``padded_flops``, ``bytes``, ``l2_bytes``,
    ``compute_us``, ``memory_us``, ``overhead_us``, ``count``, ``cube_us`` and
    ``vector_us``, and small
    integer codes into name tables: ``bound_codes`` (uint8) into
    :data:`BOUNDS`, ``op_type_codes`` into ``op_types``, ``fused_into_codes``
    into ``fused_into`` (a :class:`StrColumn` too) and ``note_codes`` into ``notes`` (int32, -1 for
    none). :meth:`row` builds one :class:`NodeCost`; :meth:`index` finds a
    row by name in O(1)."""

    FLOAT_FIELDS: tuple[str, ...] = (
        "time_us",
        "flops",
        "padded_flops",
        "bytes",
        "l2_bytes",
        "compute_us",
        "memory_us",
        "overhead_us",
        "count",
        "cube_us",
        "vector_us",
    )

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.names: StrColumn = column(raw, "names")
        self.op_types: list[str] = raw["op_types"]
        self.op_type_codes: Int32Array = raw["op_type_codes"]
        self.bound_codes: UInt8Array = raw["bound_codes"]
        self.time_us: Float64Array = raw["time_us"]
        self.flops: Float64Array = raw["flops"]
        self.padded_flops: Float64Array = raw["padded_flops"]
        self.bytes: Float64Array = raw["bytes"]
        self.l2_bytes: Float64Array = raw["l2_bytes"]
        self.compute_us: Float64Array = raw["compute_us"]
        self.memory_us: Float64Array = raw["memory_us"]
        self.overhead_us: Float64Array = raw["overhead_us"]
        self.count: Float64Array = raw["count"]
        # Reports saved before these columns existed read as zeros.
        zeros = np.zeros(len(self.time_us))
        self.cube_us: Float64Array = raw.get("cube_us", zeros)
        self.vector_us: Float64Array = raw.get("vector_us", zeros)
        self.fused_into: StrColumn = column(raw, "fused_into")
        self.fused_into_codes: Int32Array = raw["fused_into_codes"]
        self.notes: list[str] = raw["notes"]
        self.note_codes: Int32Array = raw["note_codes"]

    @classmethod
    def from_nodes(cls, nodes: Iterable[NodeCost]) -> CostColumns:
        """The columns of ``nodes`` (rows as objects)."""
        rows = list(nodes)
        tables: dict[str, dict[str, int]] = {"op_types": {}, "fused_into": {}, "notes": {}}

        def codes(table: str, values: Iterable[str | None]) -> Int32Array:
            seen = tables[table]
            return np.fromiter(
                (-1 if v is None else seen.setdefault(v, len(seen)) for v in values),
                dtype=np.int32,
                count=len(rows),
            )

        bound_code = {b: i for i, b in enumerate(BOUNDS)}
        raw: dict[str, Any] = {
            "names": StrColumn.of(n.name for n in rows),
            "op_type_codes": codes("op_types", (n.op_type for n in rows)),
            "fused_into_codes": codes("fused_into", (n.fused_into for n in rows)),
            "note_codes": codes("notes", (n.note for n in rows)),
            "bound_codes": np.fromiter((bound_code[n.bound] for n in rows), dtype=np.uint8, count=len(rows)),
        }
        for name in cls.FLOAT_FIELDS:
            raw[name] = np.fromiter((getattr(n, name) for n in rows), dtype=np.float64, count=len(rows))
        raw.update({table: list(seen) for table, seen in tables.items()})
        raw["fused_into"] = StrColumn.of(raw["fused_into"])
        return cls(raw)

    def __len__(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        """The row of node ``name`` (the first, if a name repeats); raises
        :class:`KeyError` for a name not in the report."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no node named {name!r} in this report") from None

    def row(self, i: int) -> NodeCost:
        """Row ``i`` as a :class:`NodeCost`."""
        fused, note = self.fused_into_codes.item(i), self.note_codes.item(i)
        return NodeCost(
            self.names[i],
            self.op_types[self.op_type_codes.item(i)],
            self.time_us.item(i),
            BOUNDS[self.bound_codes.item(i)],
            self.flops.item(i),
            self.padded_flops.item(i),
            self.bytes.item(i),
            self.l2_bytes.item(i),
            self.compute_us.item(i),
            self.memory_us.item(i),
            self.overhead_us.item(i),
            self.count.item(i),
            None if fused < 0 else self.fused_into[fused],
            None if note < 0 else self.notes[note],
            self.cube_us.item(i),
            self.vector_us.item(i),
        )

    def rows(self) -> Iterator[NodeCost]:
        """Every row as a :class:`NodeCost`, built one at a time."""
        floats = [getattr(self, name).tolist() for name in self.FLOAT_FIELDS]
        op_types, bounds = self.op_types, BOUNDS
        fused_names, notes = self.fused_into, self.notes
        for name, op_code, bound, fused, note, *values in zip(
            self.names,
            self.op_type_codes.tolist(),
            self.bound_codes.tolist(),
            self.fused_into_codes.tolist(),
            self.note_codes.tolist(),
            *floats,
            strict=True,
        ):
            time_us, flops, padded, nbytes, l2, compute, memory, overhead, count, cube, vector = values
            yield NodeCost(
                name,
                op_types[op_code],
                time_us,
                bounds[bound],
                flops,
                padded,
                nbytes,
                l2,
                compute,
                memory,
                overhead,
                count,
                None if fused < 0 else fused_names[fused],
                None if note < 0 else notes[note],
                cube,
                vector,
            )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CostColumns):
            return NotImplemented
        return list(self.rows()) == list(other.rows())

    __hash__ = None  # type: ignore[assignment]


def column(raw: Mapping[str, Any], key: str) -> StrColumn:
    """The :class:`StrColumn` the core sent as ``key_data`` and
    ``key_offsets`` (or a built one under ``key``)."""
    if key in raw:
        built: StrColumn = raw[key]
        return built
    return StrColumn(raw[f"{key}_data"], raw[f"{key}_offsets"])


class NodeCosts(Sequence[NodeCost]):
    """The rows of a report as a read-only sequence of :class:`NodeCost`,
    each built when it is read."""

    def __init__(self, columns: CostColumns) -> None:
        self._columns = columns

    def __len__(self) -> int:
        return len(self._columns)

    @overload
    def __getitem__(self, i: int) -> NodeCost: ...
    @overload
    def __getitem__(self, i: slice) -> list[NodeCost]: ...
    def __getitem__(self, i: int | slice) -> NodeCost | list[NodeCost]:
        if isinstance(i, slice):
            return [self._columns.row(k) for k in range(*i.indices(len(self)))]
        n = len(self)
        k = operator.index(i)
        if not -n <= k < n:
            raise IndexError(f"row {i} out of range for a report of {n} nodes")
        return self._columns.row(k % n if k < 0 else k)

    def __iter__(self) -> Iterator[NodeCost]:
        return self._columns.rows()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<NodeCosts: {len(self)} rows>"


@dataclass(frozen=True)
class BatchCost:
    """The single-stream estimate of the same model at another batch size
    (``opgraph compile --batch-sizes``)."""

    batch: int
    total_us: float

    @property
    def throughput(self) -> float:
        """Samples per second."""
        return 1e6 * self.batch / self.total_us if self.total_us > 0 else float("inf")


class CostReport:
    """The whole-graph estimate on ``device``: totals, the critical path, and
    per node a row, as columns (:attr:`columns`) or as :class:`NodeCost`
    objects built on access (:attr:`nodes`, :meth:`node`). ``batch_sweep``
    holds the estimates at other batch sizes when the compile asked for them."""

    def __init__(
        self,
        device: str,
        precision: str,
        nodes: Iterable[NodeCost] | CostColumns,
        total_us: float,
        critical_path_us: float,
        critical_path: Sequence[str],
        task_count: int,
        flags: list[str] | None = None,
    ) -> None:
        self.device = device
        self.precision = precision
        self.columns: CostColumns = nodes if isinstance(nodes, CostColumns) else CostColumns.from_nodes(nodes)
        self.total_us = total_us
        self.critical_path_us = critical_path_us
        self.critical_path: Sequence[str] = critical_path
        """The top-level nodes on the critical path, in order."""
        self.batch_sweep: list[BatchCost] = []
        """The model's estimate per batch size, smallest first (empty unless asked for)."""
        self.task_count = task_count
        self.flags: list[str] = flags if flags is not None else []

    @property
    def nodes(self) -> NodeCosts:
        """Every node's row, in single-stream execution order (bodies follow
        their caller); each :class:`NodeCost` is built when read."""
        return NodeCosts(self.columns)

    @property
    def total_ms(self) -> float:
        """The estimated device time in milliseconds."""
        return self.total_us / 1000.0

    @property
    def throughput(self) -> float:
        """Single-stream executions per second (images/s at batch 1)."""
        return 1e6 / self.total_us if self.total_us > 0 else float("inf")

    def breakdown(self) -> list[NodeCost]:
        """Nodes that take time, slowest first."""
        times, names = self.columns.time_us.tolist(), self.columns.names
        timed = np.flatnonzero(self.columns.time_us > 0).tolist()
        timed.sort(key=lambda i: (-times[i], names[i]))
        return [self.columns.row(i) for i in timed]

    def _time_by(self, codes: npt.NDArray[np.integer[Any]], labels: Sequence[str]) -> dict[str, float]:
        """Microseconds per label of the timed rows, in first-seen order
        (added row by row, as a running sum would)."""
        timed = self.columns.time_us > 0
        timed_codes = codes[timed]
        sums = np.bincount(timed_codes, weights=self.columns.time_us[timed], minlength=len(labels))
        present, first = np.unique(timed_codes, return_index=True)
        ordered = present[np.argsort(first, kind="stable")]
        return {labels[c]: float(sums[c]) for c in ordered.tolist()}

    def time_by_op_type(self) -> dict[str, float]:
        """Microseconds per op type, largest first."""
        totals = self._time_by(self.columns.op_type_codes, self.columns.op_types)
        return dict(sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])))

    def time_by_bound(self) -> dict[str, float]:
        """Microseconds per bound label."""
        return self._time_by(self.columns.bound_codes, BOUNDS)

    def node(self, name: str) -> NodeCost:
        """The row of node ``name`` (qualified inside bodies), found in O(1);
        raises :class:`KeyError` for a name not in the report."""
        return self.columns.row(self.columns.index(name))

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data (what :meth:`to_json` writes)."""
        return {
            "device": self.device,
            "precision": self.precision,
            "nodes": [dict(vars(n)) for n in self.columns.rows()],  # flat rows: asdict would deep-copy
            "total_us": self.total_us,
            "critical_path_us": self.critical_path_us,
            "critical_path": list(self.critical_path),
            "task_count": self.task_count,
            "flags": list(self.flags),
            "batch_sweep": [
                {"batch": b.batch, "total_us": b.total_us, "throughput": b.throughput}
                for b in self.batch_sweep
            ],
        }

    def to_json(self) -> str:
        """The report as JSON (:meth:`to_dict`'s contents); :meth:`from_json` reads it back."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> CostReport:
        """A report from the JSON :meth:`to_json` wrote; a ValueError saying
        what is missing or wrong for any other text."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a cost report: the text is not JSON ({exc})") from None
        if not isinstance(data, Mapping):
            raise ValueError(f"not a cost report: the JSON is a {type(data).__name__}, not an object")
        try:
            return cls._from_dict(data)
        except KeyError as exc:
            raise ValueError(f"not a cost report written by CostReport.to_json: no {exc} field") from None
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a cost report written by CostReport.to_json: {exc}") from None

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any]) -> CostReport:
        report = cls(
            device=data["device"],
            precision=data["precision"],
            nodes=(NodeCost(**n) for n in data["nodes"]),
            total_us=float(data["total_us"]),
            critical_path_us=float(data["critical_path_us"]),
            critical_path=list(data["critical_path"]),
            task_count=int(data["task_count"]),
            flags=list(data["flags"]),
        )
        report.batch_sweep = [
            BatchCost(int(b["batch"]), float(b["total_us"])) for b in data.get("batch_sweep", [])
        ]
        return report

    @classmethod
    def _from_core(cls, raw: Mapping[str, Any]) -> CostReport:
        if tuple(raw["bound_names"]) != BOUNDS:
            raise AssertionError(f"the core's bounds {raw['bound_names']} are not {BOUNDS}")
        return cls(
            device=raw["device"],
            precision=raw["precision"],
            nodes=CostColumns(raw),
            total_us=raw["total_us"],
            critical_path_us=raw["critical_path_us"],
            critical_path=column(raw, "critical_path"),
            task_count=raw["task_count"],
            flags=raw["flags"],
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CostReport):
            return NotImplemented
        scalars = (
            "device",
            "precision",
            "total_us",
            "critical_path_us",
            "critical_path",
            "task_count",
            "flags",
            "batch_sweep",
        )
        return all(getattr(self, k) == getattr(other, k) for k in scalars) and self.columns == other.columns

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<CostReport on {self.device} ({self.precision}): {len(self.columns)} nodes, "
            f"{self.total_us:.3f} us, critical path {self.critical_path_us:.3f} us, {self.task_count} tasks>"
        )

    def plot(self, path: str | PathLike[str], *, spec: DeviceSpec | str | None = None, top: int = 15) -> Path:
        """Writes a PNG with two charts: a roofline (each op's FLOP/s
        against its FLOPs per byte, under the device's Cube and memory
        ceilings; ``spec``, a DeviceSpec or preset name, defaults to the
        report's device) and the time by op type (the ``top`` largest).
        Returns the file written (``.png`` added to a name without a
        suffix). Needs matplotlib (the ``plot`` extra)."""
        from ._cost_plot import plot_report

        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise ValueError(f"top is how many op types the chart shows, at least 1, got {top!r}")
        if isinstance(spec, str):
            spec = DeviceSpec.preset(spec)
        elif spec is not None and not isinstance(spec, DeviceSpec):
            raise TypeError(f"spec is a DeviceSpec or a SoC name, got {type(spec).__name__} {spec!r}")
        device = spec if spec is not None else DeviceSpec.preset(self.device)
        return plot_report(self, device, image_path(path), top)


def estimate_cost(
    graph: Graph,
    soc: str | DeviceSpec = "Ascend310",
    *,
    precision: PrecisionMode = "force_fp16",
    fuse: bool = True,
    loop_trip_count: int | None = None,
    l2_residency: bool = True,
    at_upper_bounds: bool = False,
) -> CostReport:
    """Estimates the latency of ``graph`` (inferred, static shapes) on ``soc``.

    ``precision`` is ATC's ``--precision_mode``: ``force_fp16`` (the default
    for inference) computes every float op in fp16; ``allow_fp32_to_fp16``
    only the Cube ops; ``must_keep_origin_dtype`` none. ``fuse`` merges
    element-wise ops into the kernel that feeds them, as ATC's UB fusion
    does. ``loop_trip_count`` is the iteration count of While loops
    (unknown: bodies counted once, and flagged). ``l2_residency`` keeps
    activations passed between kernels in the on-chip L2 when the live
    ones fit there. ``at_upper_bounds`` costs every unknown dim at its
    shape range's upper bound (sizes known only at run time, after NonZero,
    TopK or NonMaxSuppression: the worst case), with a flag saying how many
    tensors were. On a preset no published measurement validates
    (``DeviceSpec.validated`` false: Ascend910A, Ascend910B2, Ascend310B1),
    the report's ``flags`` open with a warning saying so.

    Raises :class:`~opgraph.errors.CostError` naming the node when a size
    is unknown (load the model with ``input_shapes=``) and, with
    ``at_upper_bounds``, has no upper bound; and
    :class:`~opgraph.errors.DeviceSpecError` for a ``soc`` without a preset."""
    if not isinstance(soc, str | DeviceSpec):
        raise TypeError(f"soc is a SoC name or a DeviceSpec, got {type(soc).__name__} {soc!r}")
    spec = soc if isinstance(soc, DeviceSpec) else DeviceSpec.preset(soc)
    if precision not in PRECISION_MODES:
        raise ValueError(
            f"unknown precision mode {precision!r}; expected one of {', '.join(PRECISION_MODES)}"
        )
    if loop_trip_count is not None and (
        isinstance(loop_trip_count, bool) or not isinstance(loop_trip_count, int)
    ):
        raise TypeError(f"loop_trip_count is a whole number of iterations, got {loop_trip_count!r}")
    if loop_trip_count is not None and not 0 <= loop_trip_count < 2**64:
        raise ValueError(f"loop_trip_count is {loop_trip_count}, expected >= 0 and below 2**64")
    raw = _core.estimate_cost(graph, spec, precision, fuse, loop_trip_count, l2_residency, at_upper_bounds)
    return CostReport._from_core(raw)
