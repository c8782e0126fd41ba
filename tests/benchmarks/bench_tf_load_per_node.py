"""Benchmark: ``load_tensorflow`` time per node on the real TensorFlow models
the tests use (frozen Keras applications, an LSTM, TF1 graphs), against the
``protobuf`` package's ``GraphDef.ParseFromString`` of the same bytes (its C
decoder, on opgraph's schema) in the same process.

opgraph's load is decode + scope passes + every node through its parser
plugin into the IR (no inference); the peer only decodes. Best of ``--runs``
for each (or more, see ``timing.py``), µs per node, the ratio, and the worst model last (target: ≤ 1 µs
per node)::

    pip install grpcio-tools && python tests/benchmarks/bench_tf_load_per_node.py [--runs 7]

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from large_graphs import graph_def_class
from timing import best

import opgraph

DATA = Path(__file__).resolve().parents[1] / "tensorflow" / "data"
TARGET_US_PER_NODE = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    graph_def = graph_def_class()

    def parse_fresh(data: bytes) -> object:
        """The peer: a fresh GraphDef parsed from ``data`` (protobuf's C parser)."""
        return graph_def().ParseFromString(data)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for source in sorted([*DATA.glob("model_*.pb"), *DATA.glob("model_*.pb.gz")]):
            data = gzip.decompress(source.read_bytes()) if source.suffix == ".gz" else source.read_bytes()
            path = Path(tmp) / source.name.removesuffix(".gz")
            path.write_bytes(data)
            message = graph_def()
            message.ParseFromString(data)
            nodes = len(message.node) + sum(len(f.node_def) for f in message.library.function)
            ours = best(args.runs, functools.partial(opgraph.load_tensorflow, path, infer=False))
            peer = best(args.runs, functools.partial(parse_fresh, data))
            rows.append((path.stem, nodes, len(data), ours, peer))
    print(f"{'model':<22} {'nodes':>6} {'MB':>6} {'load us/node':>13} {'protobuf us/node':>17} {'ratio':>6}")
    worst = max(rows, key=lambda r: r[3] / r[1])
    for name, nodes, size, ours, peer in rows:
        print(
            f"{name:<22} {nodes:>6} {size / 1e6:>6.1f} {ours / nodes * 1e6:>13.2f} "
            f"{peer / nodes * 1e6:>17.2f} {ours / peer:>6.2f}"
        )
    name, nodes, _, ours, _ = worst
    print(f"worst: {name} at {ours / nodes * 1e6:.2f} us per node (target <= {TARGET_US_PER_NODE:.1f})")


if __name__ == "__main__":
    main()
