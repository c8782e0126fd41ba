"""Benchmark: loading ONNX models with opgraph against the onnx package, on
every model of the conformance corpus (``tests/onnx/data``), in the same run.

For each model (its weights recreated as a zero-filled sparse file beside it):

- **load + infer**: ``opgraph.onnx.load_onnx`` (decode, plugins, inference)
  against ``onnx.load`` + ``onnx.shape_inference.infer_shapes`` on the same
  file (target: opgraph >= 10x faster);
- **inference alone**: ``opgraph.infer`` on a loaded, uninferred graph
  against ``infer_shapes`` on the model loaded without its external data, so
  that onnx does not serialise the weights first (target: >= 2x faster);
- **peak RSS growth** of a fresh process loading the largest model with
  opgraph, against the model's size with its external data (target: <= 1.2x).

Best of ``--runs`` per measurement, or of more (up to 200) while they take
under 0.2 s together, for both sides alike; the worst model is printed last::

    python tests/benchmarks/bench_onnx_load.py [--runs 5] [--only NAME ...]

Needs the ``onnx`` package. Not part of the test suite. A model over 2 GiB
with its weights loaded cannot be serialised by protobuf, so ``onnx.load`` +
``infer_shapes`` fails on it; its peer is then ``infer_shapes_path`` (onnx's
advice for large models), marked ``*``.
"""

from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx
from google.protobuf.message import EncodeError
from onnx import shape_inference

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onnx"))
import onnx_model_records as records
from timing import best

import opgraph
from opgraph.onnx import load_onnx

LOAD_TARGET, INFER_TARGET, RSS_TARGET = 10.0, 2.0, 1.2


def infer_loaded(path: Path) -> onnx.ModelProto:
    """onnx's own path: load the model, then infer its shapes."""
    return shape_inference.infer_shapes(onnx.load(path))


def peak_rss_growth(path: Path) -> int:
    """Bytes the peak RSS of a fresh process grows by while opgraph loads ``path``."""
    script = (
        "import resource, sys, opgraph.onnx as o\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "g = o.load_onnx(sys.argv[1])\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True
    )
    return int(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    names = args.only or records.model_names()
    rows = []
    largest: tuple[int, str] = (0, "")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            directory = Path(tmp) / name
            directory.mkdir()
            path = records.model_file(name, directory)
            record = records.load_record(name)
            size = path.stat().st_size + int(record["weights_bytes"])
            largest = max(largest, (size, name))
            try:
                ours = best(args.runs, functools.partial(load_onnx, path))
            except opgraph.OpgraphError as error:
                print(f"{name}: opgraph cannot load it ({type(error).__name__}); skipped", file=sys.stderr)
                continue
            # The peers are slow on the big models: fewer runs there.
            peer_runs = max(1, args.runs if size < 200_000_000 else 1)
            try:
                peer = best(peer_runs, functools.partial(infer_loaded, path))
            except EncodeError as error:  # protobuf's 2 GiB message limit
                # onnx cannot serialise the model with its weights loaded;
                # its own advice is infer_shapes_path, which leaves them out.
                print(
                    f"{name}: onnx.load + infer_shapes fails ({error}); peer: infer_shapes_path",
                    file=sys.stderr,
                )
                out = directory / "inferred.onnx"
                peer = best(
                    peer_runs, functools.partial(shape_inference.infer_shapes_path, str(path), str(out))
                )
                name += " *"
            infer_only = best(args.runs, opgraph.infer, setup=functools.partial(load_onnx, path, infer=False))
            stripped = onnx.load(path, load_external_data=False)
            peer_infer = best(peer_runs, functools.partial(shape_inference.infer_shapes, stripped))
            nodes = len(stripped.graph.node)
            rows.append((name, nodes, size, ours, peer, infer_only, peer_infer))
        rss = peak_rss_growth(records.model_file(largest[1], Path(tmp) / largest[1]))
    print(
        f"{'model':<42} {'nodes':>6} {'MB':>8} {'load+infer ms':>14} {'onnx ms':>9} {'x':>6}"
        f" {'infer ms':>9} {'onnx ms':>9} {'x':>6}"
    )
    for name, nodes, size, ours, peer, infer_only, peer_infer in rows:
        print(
            f"{name:<42} {nodes:>6} {size / 1e6:>8.1f} {ours * 1e3:>14.2f} {peer * 1e3:>9.2f}"
            f" {peer / ours:>6.1f} {infer_only * 1e3:>9.2f} {peer_infer * 1e3:>9.2f}"
            f" {peer_infer / infer_only:>6.1f}"
        )
    worst_load = min(rows, key=lambda r: r[4] / r[3])
    worst_infer = min(rows, key=lambda r: r[6] / r[5])
    print(
        f"worst load+infer: {worst_load[0]} at {worst_load[4] / worst_load[3]:.1f}x "
        f"(target >= {LOAD_TARGET:.0f}x); worst inference alone: {worst_infer[0]} at "
        f"{worst_infer[6] / worst_infer[5]:.1f}x (target >= {INFER_TARGET:.0f}x)"
    )
    print("* onnx cannot serialise the model with its weights (2 GiB limit): the peer is infer_shapes_path")
    print(
        f"peak RSS growth loading {largest[1]} ({largest[0] / 1e9:.2f} GB with its weights): "
        f"{rss / 1e6:.1f} MB = {rss / largest[0]:.3f}x the model (target <= {RSS_TARGET}x)"
    )


if __name__ == "__main__":
    main()
