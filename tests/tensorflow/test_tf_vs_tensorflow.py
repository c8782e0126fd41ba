"""opgraph's TensorFlow frontend against TensorFlow on drawn one-op graphs.

For each group of ops in :mod:`tf_op_draws`, hypothesis draws graphs
(shapes, attributes, constant inputs); TensorFlow imports each GraphDef
with every input shape known — its C++ shape functions run then — and runs
it in a session. opgraph loads the same bytes and infers, and is judged on
TensorFlow's verdict:

- TensorFlow's shape functions refuse the graph: opgraph must refuse it
  too, with a typed error (accepting it is a silent wrong answer);
- TensorFlow runs it: opgraph must give every output's dtype, each dim it
  knows must be the one TensorFlow computed, it must know every dim
  TensorFlow's shape functions know, and whatever it claims of a value (a
  folded value — one draw in four makes every input a Const —, a partial
  shape value, value ranges) must hold for TensorFlow's output; a refusal
  must be listed in :data:`REFUSALS` with its reason;
- TensorFlow's kernel refuses a graph its shape functions accept (a value
  a Placeholder feeds, or a CPU kernel's limit): not judged, counted.

The fixed cases of ``tests/ops`` and the corpus models each try a few
points; these draws cross the attributes."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opgraph.errors import OpgraphError

# tests/ holds the shared helpers: pytest puts it on the path, a script run directly does not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers import check_value, import_tensorflow, report_draws

tf = import_tensorflow("TensorFlow is the peer these graphs run on")

from tf_op_cases import NP_TO_OPGRAPH, TfCase, opgraph_descs, run_tensorflow  # noqa: E402
from tf_op_draws import DRAWS, draw_case  # noqa: E402

#: opgraph's shape of unknown rank.
UNKNOWN_RANK = (-2,)
#: What opgraph refuses that TensorFlow runs, and why that is right
#: (message pattern → reason).
REFUSALS: dict[str, str] = {}
#: What TensorFlow's shape functions refuse and opgraph accepts, and why
#: (TensorFlow's message pattern → reason).
ACCEPTED: dict[str, str] = {}
#: How close a folded float must be to TensorFlow's, by dtype.
FOLD_RTOL = {np.dtype(np.float16): 1e-3, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-5}
#: Drawn graphs per group; each takes a few milliseconds.
EXAMPLES = 80


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vs_tensorflow")


def judge(case: TfCase, workdir: Path, tally: Counter[str]) -> None:
    tally["drawn"] += 1
    try:
        graph_def = case.graph_def()
    except (TypeError, ValueError):
        # An attribute TensorFlow's op registry refuses (num_split 0): no graph.
        tally["not built (attribute)"] += 1
        return
    verdict = run_tensorflow(case, graph_def)
    if verdict.refused == "import":
        tally["refused by TensorFlow's shape functions"] += 1
        try:
            opgraph_descs(graph_def, 1, workdir)
        except OpgraphError:
            tally["opgraph refuses too"] += 1
            return
        listed = [why for pattern, why in ACCEPTED.items() if re.search(pattern, verdict.reason)]
        assert listed, f"{case.id}: opgraph accepts what TensorFlow refuses: {verdict.reason}"
        tally["accepted (see ACCEPTED)"] += 1
        return
    if verdict.refused == "run":
        # A Placeholder's value may decide (indices out of range): opgraph
        # may accept, but what it claims must not contradict TensorFlow's
        # shape functions, which accepted the graph.
        tally["refused by TensorFlow's kernels"] += 1
        try:
            descs = opgraph_descs(graph_def, len(verdict.static), workdir)
        except OpgraphError:
            tally["opgraph refuses too"] += 1
            return
        for i, (desc, static) in enumerate(zip(descs, verdict.static, strict=True)):
            _as_precise(tuple(desc.shape), static, f"{case.id}: output {i}")
        return
    tally["run by TensorFlow"] += 1
    try:
        descs = opgraph_descs(graph_def, len(verdict.outputs), workdir)
    except OpgraphError as error:
        listed = [why for pattern, why in REFUSALS.items() if re.search(pattern, str(error))]
        assert listed, f"{case.id}: refused: {error}"
        tally["refused (see REFUSALS)"] += 1
        return
    for i, (desc, theirs, static) in enumerate(zip(descs, verdict.outputs, verdict.static, strict=True)):
        where = f"{case.id}: output {i}"
        dtype, shape = desc.dtype.name, tuple(desc.shape)
        assert dtype == NP_TO_OPGRAPH[theirs.dtype], f"{where} is {dtype}, TensorFlow's {theirs.dtype}"
        assert shape != UNKNOWN_RANK or static is None, (
            f"{where}: rank unknown, TensorFlow's shape is {static}"
        )
        if shape == UNKNOWN_RANK:
            continue
        assert len(shape) == theirs.ndim and all(
            o in (-1, t) for o, t in zip(shape, theirs.shape, strict=True)
        ), f"{where} has shape {shape}, TensorFlow computed {theirs.shape}"
        _as_precise(shape, static, where)
        check_value(desc, theirs, where, tally, peer="TensorFlow", rtol=FOLD_RTOL.get(theirs.dtype, 0.0))
    tally["agree"] += 1


def _as_precise(shape: tuple[int, ...], static: tuple[int, ...] | None, where: str) -> None:
    """opgraph's shape knows every dim TensorFlow's shape functions know,
    and gives each the same size."""
    if static is None:
        return
    known = len(shape) == len(static) and all(s in (-1, o) for o, s in zip(shape, static, strict=True))
    assert known, f"{where} has shape {shape}; TensorFlow's shape functions give {static}"


def _x(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.float32)


#: The draws that found each bug, kept as fixed cases (each failed before
#: its fix), with the outcome each must have: a VALID window larger than
#: its input gave an output dim of 0 for pooling and depthwise convolution,
#: which TensorFlow's shape functions refuse; where TensorFlow's shape
#: functions know dims opgraph did not, BiasAdd on an input of unknown
#: channels did not take them from the bias, EnsureShape lost the shape it
#: asserts, and on an input of unknown rank Slice did not take its dims
#: from constant sizes, FusedBatchNorm and LRN not the 4 dims they take.
FOUND = [
    (
        TfCase(
            "MaxPool",
            {"input": _x(1, 1, 1, 1)},
            {"ksize": [1, 1, 2, 1], "strides": [1] * 4, "padding": "VALID"},
        ),
        "opgraph refuses too",
    ),
    (
        TfCase(
            "AvgPool",
            {"value": _x(1, 1, 8, 1)},
            {"ksize": [1, 2, 1, 1], "strides": [1, 2, 1, 1], "padding": "VALID"},
        ),
        "opgraph refuses too",
    ),
    (
        TfCase(
            "DepthwiseConv2dNative",
            {"input": _x(1, 6, 1, 2), "filter": _x(2, 2, 2, 1)},
            {"strides": [1, 2, 2, 1], "padding": "VALID"},
            frozenset({"filter"}),
        ),
        "opgraph refuses too",
    ),
    (
        TfCase(
            "MaxPool3D",
            {"input": _x(1, 2, 4, 4, 1)},
            {"ksize": [1, 3, 1, 1, 1], "strides": [1] * 5, "padding": "VALID"},
        ),
        "opgraph refuses too",
    ),
    (
        TfCase(
            "BiasAdd",
            {"value": _x(1, 3, 4, 3), "bias": _x(3)},
            constants=frozenset({"bias"}),
            unknown={"value": (0, 3)},
        ),
        "agree",
    ),
    (TfCase("EnsureShape", {"input": _x(5, 4)}, {"shape": [5, None]}, unknown={"input": (0,)}), "agree"),
    (TfCase("EnsureShape", {"input": _x(2)}, {"shape": [2]}, unknown={"input": None}), "agree"),
    (
        TfCase(
            "Slice",
            {"input": _x(3, 3), "begin": np.asarray([1, 0], np.int32), "size": np.asarray([-1, 2], np.int32)},
            constants=frozenset({"begin", "size"}),
            unknown={"input": None},
        ),
        "agree",
    ),
    (
        TfCase(
            "FusedBatchNormV3",
            {"x": _x(1, 4, 4, 2), **{name: _x(2) for name in ("scale", "offset", "mean", "variance")}},
            {"is_training": False},
            frozenset({"scale", "offset", "mean", "variance"}),
            unknown={"x": None},
        ),
        "agree",
    ),
    (TfCase("LRN", {"input": _x(2, 1, 2, 1)}, {"depth_radius": 1}, unknown={"input": None}), "agree"),
]


@pytest.mark.parametrize(("case", "outcome"), FOUND, ids=[case.id for case, _ in FOUND])
def test_what_the_draws_found(case: TfCase, outcome: str, tmp_path: Path) -> None:
    tally: Counter[str] = Counter()
    judge(case, tmp_path, tally)
    assert tally[outcome] == 1, dict(tally)
    if outcome == "opgraph refuses too":
        assert tally["refused by TensorFlow's shape functions"] == 1, dict(tally)


def _judge_drawn(group: str, data: st.DataObject, workdir: Path, tally: Counter[str]) -> None:
    judge(draw_case(group, data), workdir, tally)


@pytest.mark.timeout(300)  # 80 graphs, each imported and run by TensorFlow and loaded by opgraph
@pytest.mark.parametrize("group", sorted(DRAWS))
def test_matches_tensorflow(group: str, workdir: Path) -> None:
    tally: Counter[str] = Counter()

    # No example database: every group's nested `check` would share one key.
    @settings(max_examples=EXAMPLES, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        _judge_drawn(group, data, workdir, tally)

    check()
    # Most draws must be graphs TensorFlow runs and opgraph is judged on.
    assert tally["run by TensorFlow"] >= tally["drawn"] // 2, dict(tally)


def report(examples: int = 400) -> None:
    """The README's figures: per group, how the drawn graphs came out."""
    columns = [
        "drawn",
        "run by TensorFlow",
        "agree",
        "refused by TensorFlow's shape functions",
        "opgraph refuses too",
        "refused by TensorFlow's kernels",
        "folded values checked",
    ]
    report_draws(f"TensorFlow {tf.__version__}", sorted(DRAWS), _judge_drawn, columns, examples)


if __name__ == "__main__":
    report()
