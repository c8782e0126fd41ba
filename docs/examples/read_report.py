"""Compiles the bundled LeNet network with the ``opgraph`` command and reads
its report (the "Reading the report" guide includes this file).

    python docs/examples/read_report.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import jsonschema

from opgraph.cli.report import load_schema
from opgraph.cost import CostReport

with tempfile.TemporaryDirectory() as tmp:
    # The same as `opgraph compile --example lenet --out DIR -q` in a shell.
    command = [sys.executable, "-m", "opgraph", "compile", "--example", "lenet", "--out", tmp, "-q"]
    subprocess.run(command, check=True)
    written = sorted(p.name for p in Path(tmp).iterdir())
    report: dict[str, Any] = json.loads((Path(tmp) / "report.json").read_text())

assert {"report.json", "graph.dot", "memory.png", "cost.png"} <= set(written)
jsonschema.validate(report, load_schema())  # the schema ships in the package
assert report["errors"] == []

model = report["model"]
print(f"{model['name']}: {model['node_count']} nodes on {model['soc']} ({model['precision_mode']})")

# Memory: the arena the plan needs against the peak of live bytes (a lower
# bound no placement can beat), and the tensors that take the most room.
memory = report["memory"]
arena, bound = memory["arena_bytes"], memory["lower_bound_bytes"]
print(f"arena {arena} B, lower bound {bound} B ({memory['ratio']:.2f}x)")
activations = [t for t in memory["tensors"] if t["region"] == "activation"]
largest = sorted(activations, key=lambda t: t["size"], reverse=True)[:3]
for tensor in largest:
    print(f"  {tensor['name']:<28} {tensor['size']:>7} B at offset {tensor['offset']:>7}")

# Cost: the estimate per node, and what bounds it (cube, vector, memory ...).
cost = CostReport.from_json(json.dumps(report["cost"]))  # the section reads back as a CostReport
slowest = sorted(cost.nodes, key=lambda n: n.time_us, reverse=True)[:3]
print(f"{cost.total_ms * 1000:.1f} us on {cost.device}; slowest:")
for node in slowest:
    print(f"  {node.name:<16} {node.op_type:<16} {node.time_us:6.2f} us  {node.bound}")
assert abs(cost.total_us - report["cost"]["total_us"]) < 1e-9

# Warnings say what the numbers rest on (here: an uncalibrated preset).
for warning in report["warnings"]:
    print("warning:", warning)
