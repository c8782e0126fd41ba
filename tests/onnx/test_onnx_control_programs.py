"""opgraph's ONNX frontend against onnxruntime on shape programs inside
``If`` branches, ``Loop`` bodies and ``Scan`` bodies (:mod:`control_programs`),
each maybe nested in an enclosing If or Loop: bodies that read the input and
constants from enclosing graphs, branches that return different shapes,
loops and scans that stack values.

onnxruntime runs the model; opgraph must give each output's dtype, every
dim it gives must be onnxruntime's (a condition fed at run time leaves
open the dims the branches disagree on), and whatever it knows of a value
must hold. Where the input is static and the condition, trip count or
slice count a constant, no dim may be left open (but the count a fed
enclosing Loop or a symbolic slice count gives); where, as well, the
branch of an If is known, every integer or boolean value it computes from
shapes alone is folded.

Then ``prepare`` runs, which replaces every If whose condition is known by
the branch it takes (GE's CondRemovePass, nested Ifs included): the graph's
outputs must still be onnxruntime's, in shape and dtype."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest
from control_programs import ControlProgram, draw_control_program
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx_cases import NP_TO_OPGRAPH, UNKNOWN_RANK, check_value, run_onnxruntime, shape_fits, value_desc

from opgraph import Graph, check_formats, prepare
from opgraph.onnx import load_onnx_reported

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the peer these models run on")

#: Drawn models per test; each takes a few milliseconds.
EXAMPLES = 300


def judge(case: ControlProgram, workdir: Path, tally: Counter[str], refused: list[str]) -> None:
    tally["drawn"] += 1
    # Unoptimized: onnxruntime's constant folding loses empty values of
    # nested Ifs (see run_onnxruntime).
    results = run_onnxruntime(case.model, case.feeds, optimized=False)
    if results is None:
        refused.append(case.id)
        return
    tally[f"{case.kind} run by onnxruntime"] += 1
    path = workdir / "control.onnx"
    onnx.save(case.model, path)
    graph, report = load_onnx_reported(path)
    tally["settled (static input, constant control)" if case.settled else "open"] += 1
    tally["outputs judged"] += len(results)
    if case.enclosed_in != "nothing":
        tally[f"in {case.enclosed_in} bodies"] += 1
    lead = case.leading
    ran_none = [
        name.startswith("out") and theirs.shape[lead : lead + 1] == (0,)
        for name, theirs in zip(case.outputs, results, strict=True)
    ]
    if case.kind == "Loop" and any(ran_none):
        tally["loops that ran no iteration"] += 1
    for name, theirs, none in zip(case.outputs, results, ran_none, strict=True):
        desc = value_desc(graph, report, name)
        where = f"{case.id}: {name}"
        assert desc.dtype.name == NP_TO_OPGRAPH[theirs.dtype], (
            f"{where} is {desc.dtype.name}, not {theirs.dtype}"
        )
        ours = tuple(desc.shape)
        if case.kind == "Loop" and none:
            # A loop that ran no iteration: its scan outputs' other dims are
            # the implementation's to choose; the count must not be claimed.
            assert ours == UNKNOWN_RANK or (
                shape_fits(ours[:lead], theirs.shape[:lead]) and ours[lead : lead + 1] in ((0,), (-1,))
            ), f"{where}: {ours} after no iteration"
            tally["scan outputs of loops that ran no iteration"] += 1
            continue
        assert shape_fits(ours, theirs.shape), f"{where} has shape {ours}; onnxruntime's is {theirs.shape}"
        check_value(desc, theirs, where, tally)
        if case.settled:
            may_open = case.open_axes.get(name, set())
            unknown = {a for a, n in enumerate(ours) if n == -1} - may_open
            assert ours != UNKNOWN_RANK and not unknown, f"{where}: everything is static, yet shape {ours}"
        if case.folds:
            # The branch that runs is known: its integers and booleans,
            # computed from shapes alone, fold as they do outside an If.
            from_shapes = theirs.dtype != np.float32
            assert desc.value is not None or not from_shapes, (
                f"{where}: everything is static, yet opgraph does not fold it"
            )
    check_prepared_outputs(case, graph, path, tally)
    tally["agree"] += 1


def check_prepared_outputs(case: ControlProgram, graph: Graph, path: Path, tally: Counter[str]) -> None:
    """After ``prepare`` (which may splice taken branches in), as it is and
    (on the model loaded again) with ``allow_fp32_to_fp16``: each graph
    output has the dtype and shape judged against onnxruntime above, and
    every tensor's storage is valid."""
    for fp16 in (False, True):
        if fp16:
            graph, _ = load_onnx_reported(path)
        before = [graph.desc(ref) for ref in graph.outputs]
        replaced = prepare(graph, allow_fp32_to_fp16=fp16).conds_replaced
        if not fp16:
            tally["Ifs replaced by their branch in prepare"] += replaced
        after = [graph.desc(ref) for ref in graph.outputs]
        assert len(after) == len(before), f"{case.id}: {len(after)} outputs after prepare, not {len(before)}"
        for name, old, new in zip(case.outputs, before, after, strict=True):
            where = f"{case.id}: {name} after prepare (fp16 {fp16})"
            assert new.dtype == old.dtype, f"{where} is {new.dtype.name}, was {old.dtype.name}"
            assert tuple(new.shape) == tuple(old.shape), f"{where} has shape {new.shape}, was {old.shape}"
        problems = check_formats(graph)
        assert not problems, f"{case.id}: invalid storage after prepare (fp16 {fp16}): {problems[:3]}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("control_programs")


@pytest.mark.timeout(300)  # a few hundred models, each run by onnxruntime and opgraph
def test_control_programs_match_onnxruntime(workdir: Path) -> None:
    tally: Counter[str] = Counter()
    refused: list[str] = []

    @settings(max_examples=EXAMPLES, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        judge(draw_control_program(data), workdir, tally, refused)

    check()
    assert len(refused) <= tally["drawn"] // 50, f"onnxruntime refuses {refused[:5]}"
    kinds = ("If", "Loop", "Scan")
    assert all(tally[f"{kind} run by onnxruntime"] for kind in kinds), dict(tally)
    assert tally["in If bodies"] and tally["in Loop bodies"], dict(tally)
    assert tally["Ifs replaced by their branch in prepare"], dict(tally)


def report(examples: int = 2000) -> None:
    """The README's figures: how the drawn models came out."""
    import tempfile

    tally: Counter[str] = Counter()
    refused: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:

        @settings(max_examples=examples, database=None, derandomize=True, deadline=None)
        @given(data=st.data())
        def check(data: st.DataObject) -> None:
            judge(draw_control_program(data), Path(tmp), tally, refused)

        check()
    print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, {examples} models")
    for key, count in sorted(tally.items()):
        print(f"{key}: {count:,}")
    for case in refused:
        print(f"refused by onnxruntime: {case}")


if __name__ == "__main__":
    report()
