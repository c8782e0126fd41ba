"""Benchmark (b): per-node overhead of a Python infer function.

Infers a 100,000-node chain of a Python-registered op, and calls the same
infer function 100,000 times in a plain Python loop on a standalone context;
the difference per node is what the engine adds around a Python function
(context creation, the call from Rust, GIL handling, output bookkeeping).
Target: <= 1 us per node.

    python tests/benchmarks/bench_python_infer.py
"""

from __future__ import annotations

import time

import opgraph
from opgraph import DataType, InferShapeContext, OpDef, TensorDesc

NODES = 100_000
TARGET_US = 1.0

scale = OpDef("BenchPythonScale")
scale.input("x", dtypes=[DataType.FLOAT])
scale.output("y", dtypes=[DataType.FLOAT])


@scale.infer_shape
def infer_scale(ctx: InferShapeContext) -> None:
    ctx.set_output_shape(0, ctx.input_shape(0))


def build_chain(op_type: str) -> opgraph.Graph:
    g = opgraph.Graph("chain")
    prev = g.add_input("x", DataType.FLOAT, (8, 16))
    for i in range(NODES):
        prev = g.add_node(op_type, f"n{i}", [prev])
    return g


def best_of(runs: int, fn: object) -> float:
    assert callable(fn)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    opgraph.register(scale, override=True)
    graph = build_chain("BenchPythonScale")
    rust_only = build_chain("Identity")

    t_graph = best_of(3, lambda: opgraph.infer(graph))
    t_rust = best_of(3, lambda: opgraph.infer(rust_only))

    ctx = InferShapeContext.standalone("BenchPythonScale", [TensorDesc(DataType.FLOAT, (8, 16))])

    def loop() -> None:
        for _ in range(NODES):
            infer_scale(ctx)

    t_loop = best_of(3, loop)
    overhead_us = (t_graph - t_loop) / NODES * 1e6
    print(f"infer of {NODES} Python-op nodes: {t_graph * 1e3:.1f} ms ({t_graph / NODES * 1e6:.3f} us/node)")
    print(
        f"same function x{NODES} in a Python loop: {t_loop * 1e3:.1f} ms ({t_loop / NODES * 1e6:.3f} us/call)"
    )
    print(
        f"engine overhead per Python node: {overhead_us:.3f} us; target <= {TARGET_US:.1f} us; "
        f"ratio to target {overhead_us / TARGET_US:.2f}x"
    )
    print(f"(for scale: {NODES} built-in Identity nodes infer in {t_rust * 1e3:.1f} ms)")


if __name__ == "__main__":
    main()
