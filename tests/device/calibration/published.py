"""The published Ascend throughput figures of
``../shared/calibration/ascend_published.tsv`` and the networks they were
measured on, prepared as ``opgraph compile`` prepares them.

Each row is one (model, SoC, batch) measurement. Its network comes from this
directory (``graphs.json``: ONNX exports made by ``make_graphs.py``) or, for
the Keras rows, from the zero-weight Keras fixtures of the TensorFlow
conformance corpus. The graph is loaded with the row's ATC input shape at the
row's batch, prepared for the SoC (``prepare_for_precision``: TransData where
storage formats meet; under ``force_fp16`` ATC casts once at the input) and
costed with ``precision="force_fp16"``, the precision of the measured OM
models.
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

import opgraph
from opgraph import CostReport, DeviceSpec, Graph
from opgraph.cli.compile import prepare_for_precision
from opgraph.cost import BOUNDS, PrecisionMode

HERE = Path(__file__).resolve().parent
TSV = HERE.parents[2].parent / "shared" / "calibration" / "ascend_published.tsv"
TF_DATA = HERE.parents[1] / "tensorflow" / "data"
PRECISION: PrecisionMode = "force_fp16"
"""ATC's precision mode of the measured offline models (its default)."""

KERAS_FIXTURES = {"keras:ResNet50": "model_resnet50", "keras:MobileNetV2": "model_mobilenet_v2"}
"""Keras rows: the TensorFlow corpus fixture with the same network (input ``input_1``)."""


@dataclass(frozen=True)
class Row:
    """One published measurement: ``images_per_s`` at ``batch`` on ``soc``."""

    model: str
    graph: str
    input: str
    soc: str
    batch: int
    images_per_s: float
    source: str

    @property
    def measured_us(self) -> float:
        """Latency of one batch: ``batch / images_per_s``."""
        return 1e6 * self.batch / self.images_per_s

    @property
    def group(self) -> str:
        """The model x SoC group: the unit left out in leave-one-model-out."""
        return f"{self.model}@{self.soc}"

    def input_shapes(self) -> dict[str, list[int]]:
        """The ATC ``--input_shape`` of the row with ``B`` set to its batch."""
        shapes: dict[str, list[int]] = {}
        for part in self.input.split(";"):
            name, dims = part.rsplit(":", 1)
            shapes[name] = [self.batch if d == "B" else int(d) for d in dims.split(",")]
        return shapes


def available() -> bool:
    return TSV.exists()


def rows(path: Path = TSV) -> list[Row]:
    """Every row of the published table, in file order."""
    lines = [line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    out = []
    for fields in csv.reader(lines, delimiter="\t"):
        model, graph, shape, soc, batch, ips, source = fields
        out.append(Row(model, graph, shape, soc, int(batch), float(ips), source))
    return out


def onnx_file(model: str, directory: Path) -> Path:
    entry = json.loads((HERE / "graphs.json").read_text())[model]
    target: Path = directory / entry["file"].removesuffix(".gz")
    if not target.exists():
        with gzip.open(HERE / entry["file"], "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
        with open(directory / entry["weights_file"], "wb") as weights:
            weights.truncate(entry["weights_bytes"])
    return target


def _keras_file(fixture: str, directory: Path) -> Path:
    target = directory / f"{fixture}.pb"
    if not target.exists():
        with gzip.open(TF_DATA / f"{fixture}.pb.gz", "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return target


def load(row: Row, directory: Path) -> Graph:
    """The row's network at its input shape, prepared for its SoC."""
    fixture = KERAS_FIXTURES.get(row.graph.split(" ")[0])
    if fixture is not None:
        (shape,) = row.input_shapes().values()
        graph = opgraph.load_tensorflow(_keras_file(fixture, directory), input_shapes={"input_1": shape})
    else:
        graph = opgraph.load_onnx(onnx_file(row.model, directory), input_shapes=row.input_shapes())
    prepare_for_precision(graph, row.soc, PRECISION)
    return graph


FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Terms:
    """A row's estimate split into the parts the calibrated constants scale:
    per kernel, Cube, vector and memory time at efficiency 1 (so
    ``max(cube / e_cube, vector / e_vector, memory / e_memory)`` is its busy
    time), plus the number of AI Core tasks (each pays the launch overhead)
    and the AI CPU time, which no constant scales."""

    cube: FloatArray
    vector: FloatArray
    memory: FloatArray
    tasks: float
    ai_cpu_us: float

    def total_us(self, cube: float, vector: float, memory: float, launch_us: float) -> float:
        busy = np.maximum(np.maximum(self.cube / cube, self.vector / vector), self.memory / memory)
        return float(busy.sum()) + self.tasks * launch_us + self.ai_cpu_us


def unit_spec(soc: str) -> DeviceSpec:
    """The SoC's preset with every efficiency 1 and no launch overhead."""
    return calibrated(DeviceSpec.preset(soc), cube=1.0, vector=1.0, memory=1.0, launch_us=0.0)


def calibrated(
    spec: DeviceSpec, *, cube: float, vector: float, memory: float, launch_us: float
) -> DeviceSpec:
    """``spec`` with these efficiencies and task launch overhead."""
    data = json.loads(spec.to_json())
    data["efficiency"] = {"cube": cube, "vector": vector, "memory": memory}
    data["task_launch_us"] = launch_us
    return DeviceSpec.from_json(json.dumps(data))


def terms(graph: Graph, soc: str, *, l2_residency: bool = True) -> Terms:
    report = opgraph.estimate_cost(graph, unit_spec(soc), precision=PRECISION, l2_residency=l2_residency)
    return terms_of(report)


def terms_of(report: CostReport) -> Terms:
    c = report.columns
    bound = np.asarray(c.bound_codes)
    ai_cpu = bound == BOUNDS.index("ai_cpu")
    kernel = np.isin(bound, [BOUNDS.index(b) for b in ("cube", "vector", "memory", "overhead")])
    return Terms(
        cube=c.cube_us[kernel],
        vector=c.vector_us[kernel],
        memory=c.memory_us[kernel],
        tasks=float(c.count[kernel].sum()),
        ai_cpu_us=float(c.time_us[ai_cpu].sum()),
    )


def efficiencies(spec: DeviceSpec) -> dict[str, float]:
    """The preset's calibrated efficiencies (``cube``, ``vector``, ``memory``)."""
    data: dict[str, float] = json.loads(spec.to_json())["efficiency"]
    return data
