"""Benchmark: the whole pipeline on million-node graphs against ONNX's shape
inference on the same graphs.

For each graph shape of ``tests/large_graphs.py`` (a Relu chain, and a
residual DAG of ``Add(h, Relu(h))`` blocks) and each size, it writes the
graph as a binary TensorFlow ``.pb`` and builds the same graph as an ONNX
model, then, each side in its own fresh subprocess (so its memory is its own):

- opgraph: ``load_tensorflow`` (decode + plugins), ``infer``, ``prepare``
  (storage formats), ``plan_memory`` and ``estimate_cost``, each timed;
- ONNX: ``onnx.shape_inference.infer_shapes`` alone (model built untimed).

Each side runs ``--repeats`` times (default 3) in fresh processes, the two
sides alternating and taking turns to go first; each side's fastest run is
kept. On a virtual machine the first touch of memory the host has not yet
backed costs up to ten times more kernel time than a warm one (on a
million-node chain, opgraph's whole pipeline took 3.4 to 7.5 s over eight
runs, its kernel time 0.35 to 4.1 s), and a process started right after
another inherits its warm pages; one run per side measures mostly which
went first.

It prints µs per node for every stage (of opgraph's fastest run), opgraph's
total against ONNX's (the target: opgraph's whole pipeline faster than
ONNX's inference alone, ratio > 1), the spread of both sides' runs, and
opgraph's peak RSS growth per node over the pipeline (the largest of its
runs; target ≤ 1 KiB), the worst row last::

    pip install onnx grpcio-tools
    python tests/benchmarks/bench_scale.py [--sizes 100000 1000000] [--repeats 3]

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from large_graphs import SHAPES, X_DIMS, write_graphdef

TARGET_RSS_PER_NODE = 1024
STAGES = ("load", "infer", "prepare", "plan_memory", "estimate_cost")

OPGRAPH_CHILD = """
import json, sys, time
from pathlib import Path
import opgraph

def hwm_kib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM")

base = hwm_kib()
times = {}
stages = [
    ("load", lambda: opgraph.load_tensorflow(sys.argv[1], infer=False)),
    ("infer", lambda: opgraph.infer(g)),
    ("prepare", lambda: opgraph.prepare(g, "Ascend310")),
    ("plan_memory", lambda: opgraph.plan_memory(g)),
    ("estimate_cost", lambda: opgraph.estimate_cost(g, "Ascend310")),
]
for name, run in stages:
    t = time.perf_counter()
    result = run()
    times[name] = time.perf_counter() - t
    if name == "load":
        g = result
print(json.dumps({"times": times, "peak_bytes": (hwm_kib() - base) * 1024}))
"""

ONNX_CHILD = """
import json, sys, time
import onnx
from onnx import TensorProto, helper, shape_inference

shape, n, dims = sys.argv[1], int(sys.argv[2]), [int(d) for d in sys.argv[3].split(",")]
nodes, prev = [], "x"
if shape == "chain":
    for i in range(n):
        nodes.append(helper.make_node("Relu", [prev], [f"r{i}"]))
        prev = f"r{i}"
else:
    for i in range(n // 2):
        nodes.append(helper.make_node("Relu", [prev], [f"r{i}"]))
        nodes.append(helper.make_node("Add", [prev, f"r{i}"], [f"a{i}"]))
        prev = f"a{i}"
graph = helper.make_graph(
    nodes, shape,
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
    [helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
t = time.perf_counter(); inferred = shape_inference.infer_shapes(model); elapsed = time.perf_counter() - t
last = next(v for v in [*inferred.graph.value_info, *inferred.graph.output] if v.name == prev)
print(json.dumps({"time": elapsed, "last": [d.dim_value for d in last.type.tensor_type.shape.dim]}))
"""


def run_child(code: str, *args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure(shape: str, n: int, pb: Path, repeats: int) -> tuple[list[dict[str, Any]], list[float]]:
    """opgraph's runs and ONNX's inference times on one graph, alternating
    which side goes first."""
    ours: list[dict[str, Any]] = []
    theirs: list[float] = []
    dims = ",".join(map(str, X_DIMS))
    for rep in range(repeats):
        for side in ("opgraph", "onnx") if rep % 2 == 0 else ("onnx", "opgraph"):
            if side == "opgraph":
                ours.append(run_child(OPGRAPH_CHILD, str(pb)))
            else:
                onnx = run_child(ONNX_CHILD, shape, str(n), dims)
                assert onnx["last"] == list(X_DIMS), onnx["last"]
                theirs.append(onnx["time"])
    return ours, theirs


def total(run: dict[str, Any]) -> float:
    return float(sum(run["times"].values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3, help="runs per side (default 3)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for shape in SHAPES:
            for n in args.sizes:
                pb = write_graphdef(shape, n, Path(tmp) / f"{shape}_{n}.pb")
                rows.append((shape, n, *measure(shape, n, pb, max(1, args.repeats))))
                pb.unlink()
    header = " ".join(f"{s:>13}" for s in STAGES)
    print(
        f"{'graph':>9} {'nodes':>9} {header} {'total':>8} {'onnx':>8} {'ratio':>6} {'B/node':>7}"
        f"  runs: opgraph / onnx us/node"
    )
    print(
        f"{'':>9} {'':>9} " + " ".join(f"{'us/node':>13}" for _ in STAGES) + f" {'us/node':>8} {'us/node':>8}"
    )
    worst_ratio, worst_bytes = float("inf"), 0.0
    for shape, n, ours, theirs in rows:
        fastest = min(ours, key=total)
        stages = " ".join(f"{fastest['times'][s] / n * 1e6:>13.2f}" for s in STAGES)
        ratio = min(theirs) / total(fastest)
        per_node = max(run["peak_bytes"] for run in ours) / n
        worst_ratio, worst_bytes = min(worst_ratio, ratio), max(worst_bytes, per_node)
        spread = (
            f"{total(fastest) / n * 1e6:.2f}-{max(map(total, ours)) / n * 1e6:.2f} / "
            f"{min(theirs) / n * 1e6:.2f}-{max(theirs) / n * 1e6:.2f}"
        )
        print(
            f"{shape:>9} {n:>9} {stages} {total(fastest) / n * 1e6:>8.2f} {min(theirs) / n * 1e6:>8.2f} "
            f"{ratio:>6.2f} {per_node:>7.0f}  {spread}"
        )
    print(
        f"worst: opgraph's pipeline is {worst_ratio:.2f}x ONNX's inference alone (target > 1); "
        f"peak {worst_bytes:.0f} B/node (target <= {TARGET_RSS_PER_NODE})"
    )


if __name__ == "__main__":
    main()
