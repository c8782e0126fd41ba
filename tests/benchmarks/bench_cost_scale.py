"""Benchmark: ``estimate_cost`` on large graphs, per node.

Three graph shapes built with the Python graph builder, at 10k, 100k and 1M
nodes: a chain of Identity views between two Relus (the shape that was
quadratic in the L2 model), √n parallel chains of √n Identity views, and a
residual DAG ``x[i+1] = Add(x[i], Relu(x[i]))``. Per shape and size: the
time of ``estimate_cost`` (the core, its columns and the Python report) in
µs per node (best of ``--runs``), the bytes per node the report holds
(Python objects by tracemalloc, plus the numpy column buffers), the peak
RSS growth during the first estimate per node (Linux; 0 when freed memory
was reused), and the time of ``CostReport.node(name)``: building the name
index on the first call, then per lookup.

The peer, measured in the same run on the same rows: the JSON crossing the
report used before, i.e. ``json.loads`` of the report's JSON text and one
``NodeCost`` object per row (its Python side only: the Rust serialization
is not counted, so the ratio understates the old cost). It runs on at most
``--peer-rows`` rows and is reported per node.

Needs a release build for meaningful times (``maturin develop --release``)::

    python tests/benchmarks/bench_cost_scale.py [--sizes 10000 100000 1000000]
        [--shapes chain parallel residual] [--peer-rows 100000]

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

import opgraph
from opgraph import CostReport, DataType, Graph, NodeCost

T = TypeVar("T")
SHAPE = [1024]  # fp16 elements of every tensor: 2 KiB, so activations fit in L2


def chain(n: int) -> Graph:
    """``x -> Relu -> (n - 3) Identity -> Relu``: n nodes."""
    g = Graph("chain")
    at = g.add_node("Relu", "first", [g.add_input("x", DataType.FLOAT16, SHAPE)])
    for i in range(n - 3):
        at = g.add_node("Identity", f"v{i}", [at])
    g.set_outputs([g.add_node("Relu", "last", [at])])
    return g


def parallel(n: int) -> Graph:
    """√n chains of √n Identity views from one input, each ending in a Relu."""
    side = max(1, math.isqrt(n))
    g = Graph("parallel")
    x = g.add_input("x", DataType.FLOAT16, SHAPE)
    outputs = []
    for c in range(side):
        at = x
        for i in range(side - 1):
            at = g.add_node("Identity", f"c{c}/v{i}", [at])
        outputs.append(g.add_node("Relu", f"c{c}/out", [at]))
    g.set_outputs(outputs)
    return g


def residual(n: int) -> Graph:
    """``x[i+1] = Add(x[i], Relu(x[i]))``: n // 2 blocks of two nodes."""
    g = Graph("residual")
    at = g.add_input("x", DataType.FLOAT16, SHAPE)
    for i in range(n // 2):
        r = g.add_node("Relu", f"r{i}", [at])
        at = g.add_node("Add", f"a{i}", [at, r])
    g.set_outputs([at])
    return g


SHAPES: dict[str, Callable[[int], Graph]] = {"chain": chain, "parallel": parallel, "residual": residual}


def rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def reset_peak_rss() -> bool:
    """Resets VmHWM to the current RSS (Linux); False where unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def timed(f: Callable[[], T], runs: int) -> tuple[T, float]:
    """``f()``'s result and its best time over ``runs`` runs (tracemalloc off)."""
    best = math.inf
    result: T | None = None
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        result = f()
        best = min(best, time.perf_counter() - started)
        if _ < runs - 1:
            del result
            result = None
    assert result is not None
    return result, best


def held_bytes(f: Callable[[], object]) -> int:
    """Bytes that ``f()``'s result holds: its Python objects (tracemalloc)
    plus the buffers of a report's numpy columns, which the core allocated
    (so tracemalloc does not see them)."""
    gc.collect()
    tracemalloc.start()
    result = f()
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    if isinstance(result, CostReport):
        held += sum(v.nbytes for v in vars(result.columns).values() if isinstance(v, np.ndarray))
    del result
    return held


def measure(name: str, n: int, peer_rows: int, runs: int) -> None:
    started = time.perf_counter()
    g = SHAPES[name](n)
    opgraph.infer(g)
    built = time.perf_counter() - started
    nodes = len(g)
    gc.collect()
    has_peak = reset_peak_rss()
    rss_before = rss_kib("VmRSS")
    report, took = timed(lambda: opgraph.estimate_cost(g, "Ascend310"), runs)
    peak_growth = (rss_kib("VmHWM") - rss_before) * 1024 if has_peak else float("nan")
    held = held_bytes(lambda: opgraph.estimate_cost(g, "Ascend310"))
    # Lookups by name, after the first one built the index.
    probes = report.columns.names[:: max(1, nodes // 10_000)]
    _, index_build = timed(lambda: report.node(probes[0]), 1)
    # With the collector paused: a collection triggered by the new rows
    # walks the whole heap, which grows with n but is not the lookup's cost.
    gc.disable()
    _, lookups = timed(lambda: [report.node(p) for p in probes], runs)
    gc.enable()
    # The peer: the JSON crossing of the same rows (at most peer_rows).
    rows = min(peer_rows, nodes)
    data = report.to_dict()
    data["nodes"] = data["nodes"][:rows]
    text = json.dumps(data)
    del data

    def cross_as_json() -> list[NodeCost]:
        return [NodeCost(**row) for row in json.loads(text)["nodes"]]

    _, peer_s = timed(cross_as_json, runs)
    peer_held = held_bytes(cross_as_json)
    us_per_node = took / nodes * 1e6
    peer_us = peer_s / rows * 1e6
    print(
        f"{name:>9} {nodes:>9,} nodes | build+infer {built / nodes * 1e6:5.2f} us/node | "
        f"estimate_cost {took:7.3f} s = {us_per_node:5.2f} us/node, "
        f"report {held / nodes:6.1f} B/node held, RSS peak +{peak_growth / nodes:6.1f} B/node | "
        f"node(): index {index_build * 1e3:6.1f} ms, then {lookups / len(probes) * 1e6:4.2f} us | "
        f"peer JSON crossing {peer_us:5.2f} us/node, {peer_held / rows:6.1f} B/node "
        f"-> peer/new {peer_us / us_per_node:5.2f}x time, "
        f"{peer_held / rows / max(held / nodes, 1e-9):5.1f}x bytes",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    parser.add_argument("--peer-rows", type=int, default=100_000, help="rows the JSON peer crosses")
    parser.add_argument("--runs", type=int, default=3, help="timed runs (the best is kept)")
    args = parser.parse_args()
    for name in args.shapes:
        for n in args.sizes:
            measure(name, n, args.peer_rows, args.runs)


if __name__ == "__main__":
    main()
