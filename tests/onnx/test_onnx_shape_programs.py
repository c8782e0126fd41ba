"""opgraph's ONNX frontend against onnxruntime on drawn shape programs
(:mod:`shape_programs`): the Shape → Gather → arithmetic → Concat →
Reshape / Expand / ConstantOfShape chains exporters write, on an input whose
dims are static or symbolic.

Every value of a program is a graph output, so onnxruntime computes each
one. opgraph must give every output's dtype, and every dim it gives must be
onnxruntime's; every value it folds (integer, boolean or float) must be
onnxruntime's, every element of a partial shape value it knows too, and
every value range must hold onnxruntime's value. Where the input is static,
nothing may be left unknown: every dim is given and every integer and
boolean value is folded (all of them are computed from shapes alone, except
TopK's indices)."""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx_cases import NP_TO_OPGRAPH, UNKNOWN_RANK, check_value, run_onnxruntime, shape_fits, value_desc
from shape_programs import Program, draw_program

from opgraph.onnx import load_onnx_reported

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the peer these models run on")

#: Drawn programs per test; each takes a few milliseconds.
EXAMPLES = 300


def onnxruntime_values(program: Program) -> dict[str, np.ndarray] | None:
    """Every output onnxruntime computes, by name, or None when it refuses the model."""
    results = run_onnxruntime(program.model(), {"x": program.x})
    return None if results is None else dict(zip(program.outputs, results, strict=True))


def onnx_dims(program: Program) -> dict[str, tuple[int | None, ...] | None] | None:
    """Each output's dims by onnx's shape inference with data propagation
    (None for a dim or a shape it does not give); None when it fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = onnx.shape_inference.infer_shapes(program.model(), data_prop=True)
        except Exception:  # onnx raises several error classes
            return None
    found: dict[str, tuple[int | None, ...] | None] = {}
    for output in model.graph.output:
        tensor = output.type.tensor_type
        if not tensor.HasField("shape"):
            found[output.name] = None
            continue
        found[output.name] = tuple(d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim)
    return found


def _compare_with_onnx(
    ours: tuple[int, ...], by_onnx: tuple[int | None, ...] | None, tally: Counter[str]
) -> None:
    """Tallies which of opgraph and onnx's shape inference knows more."""
    if ours == UNKNOWN_RANK:
        tally["ranks onnx gives and opgraph does not" if by_onnx is not None else "ranks neither gives"] += 1
        return
    for axis, dim in enumerate(ours):
        onnx_dim = by_onnx[axis] if by_onnx is not None and axis < len(by_onnx) else None
        if dim == -1 and onnx_dim is not None:
            tally["dims onnx gives and opgraph does not"] += 1
        elif dim != -1 and onnx_dim is None:
            tally["dims opgraph gives and onnx does not"] += 1


def judge(program: Program, workdir: Path, tally: Counter[str], refused: list[str]) -> None:
    tally["drawn"] += 1
    expected = onnxruntime_values(program)
    if expected is None:
        refused.append(program.id)
        return
    tally["run by onnxruntime"] += 1
    path = workdir / "program.onnx"
    onnx.save(program.model(), path)
    graph, report = load_onnx_reported(path)
    by_onnx = onnx_dims(program) if program.symbolic else None
    if program.symbolic and by_onnx is None:
        tally["symbolic programs onnx's shape inference fails on"] += 1
    tally["with symbolic dims" if program.symbolic else "static"] += 1
    tally["outputs judged"] += len(expected)
    for name, theirs in expected.items():
        desc = value_desc(graph, report, name)
        where = f"{program.id}: {name}"
        assert desc.dtype.name == NP_TO_OPGRAPH[theirs.dtype], (
            f"{where} is {desc.dtype.name}, not {theirs.dtype}"
        )
        ours = tuple(desc.shape)
        assert shape_fits(ours, theirs.shape), f"{where} has shape {ours}; onnxruntime's is {theirs.shape}"
        check_value(desc, theirs, where, tally)
        if not program.symbolic:
            assert -1 not in ours and ours != UNKNOWN_RANK, (
                f"{where}: the input is static, yet opgraph leaves shape {ours} open"
            )
            # Integers and booleans here are computed from shapes alone.
            from_shapes = theirs.dtype != np.float32 and name not in program.data_dependent
            assert desc.value is not None or not from_shapes, (
                f"{where}: the input is static, yet opgraph does not fold it"
            )
        elif by_onnx is not None:
            _compare_with_onnx(ours, by_onnx.get(name), tally)
    tally["agree"] += 1


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shape_programs")


@pytest.mark.timeout(300)  # a few hundred programs, each run by onnxruntime and opgraph
def test_shape_programs_match_onnxruntime(workdir: Path) -> None:
    tally: Counter[str] = Counter()
    refused: list[str] = []

    @settings(max_examples=EXAMPLES, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        judge(draw_program(data), workdir, tally, refused)

    check()
    # The draw keeps each step valid, so onnxruntime runs (nearly) every
    # program: a step kind that made invalid models would judge nothing.
    assert len(refused) <= tally["drawn"] // 50, f"onnxruntime refuses {refused}"
    assert tally["folded values checked"] >= tally["drawn"], dict(tally)


def report(examples: int = 2000) -> None:
    """The README's figures: how the drawn programs came out."""
    import tempfile

    tally: Counter[str] = Counter()
    refused: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:

        @settings(max_examples=examples, database=None, derandomize=True, deadline=None)
        @given(data=st.data())
        def check(data: st.DataObject) -> None:
            judge(draw_program(data), Path(tmp), tally, refused)

        check()
    print(f"onnxruntime {ort.__version__}, onnx {onnx.__version__}, {examples} programs")
    for key, count in sorted(tally.items()):
        print(f"{key}: {count:,}")
    for program in refused:
        print(f"refused by onnxruntime: {program}")


if __name__ == "__main__":
    report()
