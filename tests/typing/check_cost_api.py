"""Exercises the cost model's public API with precise annotations; must pass
``mypy --strict`` (run from the repository root, so the pyproject's
``mypy_path = "python"`` applies). ``main()`` also runs it on a small
convolution graph and a device description written from a preset."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import opgraph
from opgraph import BatchCost, CostError, CostReport, DeviceSpec, DeviceSpecError, NodeCost
from opgraph.cost import BOUNDS, PRECISION_MODES, CostColumns, NodeCosts


def check(graph: opgraph.Graph, path: Path) -> None:
    presets: list[DeviceSpec] = DeviceSpec.presets()
    spec: DeviceSpec = DeviceSpec.load(path)
    peak: float = presets[0].peak_fp16_flops + spec.sustained_bytes_per_s
    sources: dict[str, str] = spec.sources
    validated: bool = spec.validated and presets[0].validated
    validation: str = spec.validation
    report: CostReport = opgraph.estimate_cost(graph, "Ascend310", precision="allow_fp32_to_fp16", fuse=False)
    report = opgraph.estimate_cost(graph, spec, loop_trip_count=3, l2_residency=False)
    total: float = report.total_us + report.critical_path_us + peak
    path_names: Sequence[str] = report.critical_path
    rows: list[NodeCost] = report.breakdown()
    by_type: dict[str, float] = report.time_by_op_type()
    text: str = report.to_json()
    again: CostReport = CostReport.from_json(text)
    png: Path = again.plot(path.with_suffix(".png"), spec=spec, top=10)
    row: NodeCost = report.node("conv")
    fused: str | None = row.fused_into
    columns: CostColumns = report.columns
    times: npt.NDArray[np.float64] = columns.time_us + columns.bytes
    codes: npt.NDArray[np.uint8] = columns.bound_codes
    op_types: list[str] = [columns.op_types[k] for k in columns.op_type_codes]
    at: int = columns.index("conv")
    nodes: NodeCosts = report.nodes
    first: NodeCost = nodes[0]
    some: list[NodeCost] = nodes[1:]
    data: dict[str, Any] = report.to_dict()
    same: bool = columns.row(at) == first and len(nodes) == len(columns)
    cube_vector: npt.NDArray[np.float64] = columns.cube_us + columns.vector_us
    split: float = first.cube_us + first.vector_us
    sweep: list[BatchCost] = report.batch_sweep
    rate: float = sum(b.throughput for b in sweep) + BatchCost(4, 10.0).throughput
    print(times, codes, op_types, some, data, same, cube_vector, split, rate)
    modes: tuple[str, ...] = PRECISION_MODES + BOUNDS
    try:
        DeviceSpec.preset("Ascend999")
    except DeviceSpecError:
        pass
    except CostError as e:
        node: str | None = e.node
        print(node)
    print(total, path_names, rows, by_type, png, fused, modes, sources, validated, validation)


def main() -> None:
    graph = opgraph.Graph("conv")
    x = graph.add_input("x", opgraph.DataType.FLOAT, [1, 32, 32, 3], "NHWC")
    w = graph.add_const("w", np.zeros((3, 3, 3, 16), "float32"), "HWCN")
    attrs = {"strides": [1, 1, 1, 1], "pads": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "data_format": "NHWC"}
    graph.set_outputs([graph.add_node("Conv2D", "conv", [x, w], attrs)])
    opgraph.infer(graph)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "device.toml"
        path.write_text(DeviceSpec.preset("Ascend310P3").to_toml())
        check(graph, path)


if __name__ == "__main__":
    main()
