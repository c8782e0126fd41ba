"""Large graphs: a binary GraphDef decodes node by node with the same result
as its text form, and loading under a memory cap ends in a result or a typed
MemoryLimitError / ParseError, never in an aborted process.

The graphs are written by ``tests/large_graphs.py`` (the protobuf package on
opgraph's schema); each capped load runs in its own subprocess.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("grpc_tools", reason="writing GraphDefs needs grpcio-tools (the test extra)")

from large_graphs import X_DIMS, graphdef, write_graphdef

import opgraph

CAPPED_PIPELINE = textwrap.dedent(
    """
    import resource, sys
    import opgraph
    cap = int(sys.argv[2]) << 20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    try:
        graph = opgraph.load_tensorflow(sys.argv[1], infer=False)
        opgraph.infer(graph)
        opgraph.prepare(graph)
        opgraph.plan_memory(graph)
        opgraph.estimate_cost(graph)
        print("done", len(graph.nodes()))
    except opgraph.OpgraphError as e:
        print("typed", type(e).__name__, str(e)[:300])
    """
)


@pytest.mark.parametrize("shape", ["chain", "residual"])
def test_binary_and_text_graphdefs_load_to_the_same_graph(tmp_path: Path, shape: str) -> None:
    from google.protobuf import text_format

    message = graphdef(shape, 500)
    pb = tmp_path / "g.pb"
    pb.write_bytes(message.SerializeToString())
    pbtxt = tmp_path / "g.pbtxt"
    pbtxt.write_text(text_format.MessageToString(message))
    binary, text = opgraph.load_tensorflow(pb), opgraph.load_tensorflow(pbtxt)
    assert [(n.name, n.op_type) for n in binary.nodes()] == [(n.name, n.op_type) for n in text.nodes()]
    assert len(binary.nodes()) == 501
    # Relu and Add keep x's shape and dtype all the way (numpy's elementwise rule).
    out = binary.desc(binary.outputs[0])
    assert out.shape == X_DIMS and out.dtype == opgraph.DataType.FLOAT


def test_a_truncated_node_is_a_parse_error_naming_its_index(tmp_path: Path) -> None:
    data = bytearray(graphdef("chain", 50).SerializeToString())
    # The outer message stays valid; node 3's own bytes are corrupted: its
    # first field tag becomes a varint of field 0, which no NodeDef has.
    encoded_nodes = graphdef("chain", 50).node
    start = bytes(data).index(encoded_nodes[3].SerializeToString())
    data[start] = 0x00
    path = tmp_path / "bad.pb"
    path.write_bytes(bytes(data))
    with pytest.raises(opgraph.ParseError, match="node 3 is not a NodeDef"):
        opgraph.load_tensorflow(path, infer=False)


def test_the_pipeline_under_a_memory_cap_never_aborts(tmp_path: Path) -> None:
    """From a cap too small to load to one that fits the whole pipeline
    (load, infer, prepare, plan_memory, estimate_cost, nodes()): every run
    ends with the result or a typed error, and some caps hit
    MemoryLimitError (the budget checks), where an allocation would
    otherwise fail and abort the process (SIGABRT)."""
    path = write_graphdef("chain", 300_000, tmp_path / "chain.pb")
    outcomes = []
    for cap_mib in (500, 800, 900, 1000, 1300, 4000):
        done = subprocess.run(
            [sys.executable, "-c", CAPPED_PIPELINE, str(path), str(cap_mib)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, (cap_mib, done.returncode, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, done.stderr[-2000:]
        outcomes.append(done.stdout.split()[:2])
    kinds = {tuple(o) for o in outcomes}
    assert ("done", "300001") in kinds, outcomes
    assert ("typed", "MemoryLimitError") in kinds, outcomes
