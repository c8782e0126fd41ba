"""Function libraries at scale (issue 12, items 1 and 2): a library whose
functions each call the next twice is converted once per function and
inferred once per input signature, or refused by the expansion budget with
a ParseError; a long call chain is refused at the depth limit quickly.

Each case runs in a subprocess under an address-space cap, so a regression
(bodies copied per call path) fails the test instead of exhausting the
machine. Times are asserted loosely: these are not benchmarks.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
# The address space a case may use: ample for what the pipeline should need.
MEMORY_CAP = 2 << 30
# Loose bound per case; the copying code took minutes or aborted.
TIME_LIMIT_S = 20.0


def run_capped(body: str, tmp_path: Path, memory_cap: int = MEMORY_CAP) -> dict[str, Any]:
    """Runs ``body`` (Python with ``fl``, ``opgraph``, ``np`` and ``tmp``
    bound; it sets ``result``, a JSON-able dict) in a subprocess whose
    address space is capped; returns ``result`` with ``elapsed_s`` added."""
    script = textwrap.dedent(
        f"""
        import json, resource, sys, time
        from pathlib import Path
        resource.setrlimit(resource.RLIMIT_AS, ({memory_cap}, {memory_cap}))
        sys.path.insert(0, {str(HERE)!r})
        import numpy as np
        import function_libraries as fl
        import opgraph
        tmp = Path({str(tmp_path)!r})
        start = time.perf_counter()
        result = {{}}
        """
    )
    script += textwrap.dedent(body)
    script += "\nresult['elapsed_s'] = time.perf_counter() - start\nprint(json.dumps(result))\n"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=10 * TIME_LIMIT_S,
    )
    assert done.returncode == 0, (
        f"the case failed (exit status {done.returncode}; negative is a signal, e.g. -6 an abort)\n"
        f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-4000:]}"
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


PIPELINE = """
path = fl.doubling_library(tmp / "library.pbtxt", DEPTH, via=VIA, inputs=SHAPES)
try:
    graph = opgraph.load_tensorflow(path, infer=False)
except opgraph.ParseError as error:
    result["refused"] = str(error)
else:
    opgraph.infer(graph)
    result["shapes"] = [list(graph.desc(graph.tensor(f"y{k}")).shape) for k in range(len(SHAPES))]
    opgraph.prepare(graph)
    plan = opgraph.plan_memory(graph)
    result["planned"] = plan.arena_bytes > 0
    opgraph.estimate_cost(graph)
"""


def pipeline(tmp_path: Path, depth: int, via: str, shapes: Sequence[tuple[int, ...]]) -> dict[str, Any]:
    body = f"DEPTH = {depth}\nVIA = {via!r}\nSHAPES = {shapes!r}\n" + PIPELINE
    return run_capped(body, tmp_path)


def expected_shape(via: str, shape: tuple[int, ...]) -> list[int]:
    """What the library computes, by numpy: Mean over axis 0 at the end of
    every If path; Relu (shape-preserving) through the nested calls."""
    x = np.zeros(shape, dtype=np.float32)
    out = np.mean(x, axis=0) if via == "If" else np.maximum(x, 0)
    return list(out.shape)


def assert_refused_by_budget(message: str) -> None:
    assert "MAX_EXPANDED_NODES" in message, message
    assert "function 'f" in message, message
    # The limit and the (larger) size it would have.
    numbers = [int(w) for w in message.replace(",", " ").split() if w.isdigit()]
    assert len(numbers) >= 2 and max(numbers) > min(numbers), message


@pytest.mark.parametrize("via", ["If", "PartitionedCall"])
@pytest.mark.parametrize("depth", [20, 30])
def test_doubling_library_runs_the_pipeline_or_is_refused(tmp_path: Path, depth: int, via: str) -> None:
    shapes = [(2, 3, 4)]
    result = pipeline(tmp_path, depth, via, shapes)
    assert result["elapsed_s"] < TIME_LIMIT_S, result
    if "refused" in result:
        assert_refused_by_budget(result["refused"])
    else:
        assert result["shapes"] == [expected_shape(via, s) for s in shapes]
        assert result["planned"]


SIGNATURES = """
path = fl.doubling_library(tmp / "library.pbtxt", DEPTH, inputs=SHAPES)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
graph = opgraph.load_tensorflow(path)
result["shapes"] = [list(graph.desc(graph.tensor(f"y{k}")).shape) for k in range(len(SHAPES))]
inner = graph.subgraph("y1", "then_branch")
result["inner"] = list(inner.desc(inner.tensor("call")).shape)
result["grew_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
# Within the budget, so the passes that lay bodies out per call site run.
opgraph.prepare(graph)
result["planned"] = opgraph.plan_memory(graph).arena_bytes > 0
opgraph.estimate_cost(graph)
"""


def test_a_function_called_with_two_shapes_infers_each(tmp_path: Path) -> None:
    # f0 is called with two shapes and calls f1 twice per level down to
    # f12: one body per function, inferred once per input signature.
    shapes = [(2, 3, 4), (5, 6)]
    result = run_capped(f"DEPTH = 13\nSHAPES = {shapes!r}\n" + SIGNATURES, tmp_path)
    assert result["shapes"] == [expected_shape("If", s) for s in shapes]
    assert result["inner"] == expected_shape("If", shapes[1])
    # Loading and inferring copied bodies per call path: about 2 KB per
    # inlined node (~115,000 here, within MAX_EXPANDED_NODES). Shared
    # bodies take next to nothing.
    assert result["grew_kb"] < 50_000, result
    assert result["planned"]
    assert result["elapsed_s"] < TIME_LIMIT_S, result


CHAIN = """
def load(call):
    path = fl.call_chain(tmp / f"{call}.pbtxt", LENGTH, call=call)
    began = time.perf_counter()
    try:
        graph = opgraph.load_tensorflow(path)
    except opgraph.ParseError as error:
        return str(error), time.perf_counter() - began
    return list(graph.desc(graph.outputs[0]).shape), time.perf_counter() - began

result["shallow"], result["shallow_s"] = load("leaf")
result["deep"], result["deep_s"] = load("f0")
"""


def test_a_long_call_chain_is_refused_at_the_depth_limit_quickly(tmp_path: Path) -> None:
    # 100,000 functions each calling the next. Decoding the 27 MB of text
    # is the same work whichever function the graph calls, so the chain is
    # timed against the same library called shallowly (through its last
    # function): the depth error must cost no more than that load, not a
    # walk (with a lookup per call) through the whole chain.
    result = run_capped("LENGTH = 100_000\n" + CHAIN, tmp_path, memory_cap=4 << 30)
    assert result["shallow"] == [2, 3], result  # Relu keeps the shape
    assert result["deep"] == (
        "node 'call' attribute 'f' calls function 'f64' nested 65 deep; opgraph converts at most 64 levels"
    ), result
    assert result["deep_s"] < 2 * result["shallow_s"] + 5, result
