"""Where each op of a :class:`~opgraph.cost.CostReport` sits on a roofline,
computed as the cost model times it (the PNG and the HTML report draw these).

The cost model's memory time is the slower of two links
(``rust/core/src/device/cost/work.rs``): off-chip memory, which moves the
op's off-chip ``bytes``, and L2, which moves those bytes plus the ``l2_bytes``
kept on chip (L2-resident activations, operands re-read by several cores).
An op whose L2 link is the slower one is memory-bound at an intensity of
FLOPs per *L2* byte; placed by FLOPs per off-chip byte it lands right of the
off-chip ridge although memory bounds it. So each op is placed by the
intensity of the link that times it, under that link's ceiling: a
memory-bound op is then never right of its own ridge."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from ._core import DeviceSpec
    from .cost import CostReport

Link = Literal["off-chip", "L2"]
LINKS: tuple[Link, ...] = ("off-chip", "L2")
Float64Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Ceilings:
    """The sustained compute peak and the bandwidth of each link, as the
    cost model uses them (efficiencies applied)."""

    peak_flops: float
    bytes_per_s: dict[Link, float]

    def ridge(self, link: Link) -> float:
        """The intensity (FLOP per byte of ``link``) where memory stops bounding."""
        return self.peak_flops / self.bytes_per_s[link]


def ceilings(spec: DeviceSpec) -> Ceilings:
    """The roofline's ceilings on ``spec`` (its L2 bandwidth is read from
    its description: the bindings expose no getter for it)."""
    description = json.loads(spec.to_json())
    l2 = description["l2_gb_per_s"] * 1e9 * description["efficiency"]["memory"]
    return Ceilings(spec.sustained_fp16_flops, {"off-chip": spec.sustained_bytes_per_s, "L2": l2})


@dataclass(frozen=True)
class RooflinePoints:
    """One point per row of the report that does work (time, FLOPs and
    bytes all above zero): ``rows`` (indices into the report's columns),
    ``intensity`` (FLOP per byte of the op's binding link), ``achieved``
    (FLOP/s over the op's whole time) and ``links`` (index into
    :data:`LINKS`)."""

    rows: npt.NDArray[np.intp]
    intensity: Float64Array
    achieved: Float64Array
    links: npt.NDArray[np.int8]


def roofline_points(report: CostReport, limits: Ceilings) -> RooflinePoints:
    """Each working op at the intensity of the link its memory time comes from."""
    c = report.columns
    rows = np.flatnonzero((c.time_us > 0) & (c.flops > 0) & (c.bytes > 0))
    flops, dram = c.flops[rows], c.bytes[rows]
    through_l2 = dram + c.l2_bytes[rows]
    # The slower link sets the memory time (ties go to off-chip, as the model's max does).
    l2_slower = through_l2 / limits.bytes_per_s["L2"] > dram / limits.bytes_per_s["off-chip"]
    intensity = flops / np.where(l2_slower, through_l2, dram)
    achieved = flops / (c.time_us[rows] * 1e-6)
    return RooflinePoints(rows, intensity, achieved, l2_slower.astype(np.int8))
