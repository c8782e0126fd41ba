"""Real ONNX models exported by their own tools (PyTorch's TorchScript and
dynamo exporters, tf2onnx; ``generators/``) with their weights zeroed:
``opgraph.onnx.load_onnx_reported`` must give every value of the main
graph onnxruntime's dtype and shape, leaving a dim unknown only where it
really varies (free input dims, data), both with the free dims left free and
with ``input_shapes`` fixing them (ATC's ``--input_shape``).

The buckets are in ``onnx_model_records.py``. The files' own consistency
is checked without opgraph's ONNX frontend; neither torch nor onnxruntime
is needed."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

import pytest
from onnx_model_records import (
    DATA,
    Comparison,
    compare,
    dead_values,
    fixed_input_shapes,
    load_record,
    model_file,
    model_names,
    opgraph_load,
    opgraph_values,
)

MODELS = model_names()

#: Every corpus model loads (issue 14 gave scripted_sequences_ts13's sequence
#: ops their plugins); test_onnx_frontend checks that missing plugins are
#: listed at once.
SUPPORTED = MODELS


def _has_frontend() -> bool:
    try:
        return importlib.util.find_spec("opgraph.onnx") is not None
    except ImportError:  # opgraph itself is not installed
        return False


needs_frontend = pytest.mark.skipif(
    not _has_frontend(), reason="opgraph.onnx (the ONNX frontend) is not in this opgraph build yet"
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the models are decompressed next to their sparse weights files."""
    return tmp_path_factory.mktemp("onnx_corpus")


def report(name: str, mode: str, result: Comparison) -> None:
    problems = result.problems()
    shown = "\n  ".join(problems[:25])
    more = f"\n  … and {len(problems) - 25} more" if len(problems) > 25 else ""
    assert not problems, f"{name} ({mode}): {len(problems)} values differ from onnxruntime:\n  {shown}{more}"


@needs_frontend
@pytest.mark.parametrize("name", SUPPORTED)
def test_every_value_has_onnxruntimes_dtype_and_shape(name: str, workdir: Path) -> None:
    record = load_record(name)
    path = model_file(name, workdir)
    got, pruned = opgraph_load(path, None)
    dead = dead_values(path)
    assert set(pruned) == dead, (
        f"{name}: pruned {sorted(set(pruned) - dead)[:5]}, dead {sorted(dead - set(pruned))[:5]}"
    )
    result = compare(record, got, fixed=False, dead=dead)
    report(name, "free input dims", result)
    # Every value of a model with a free batch may be unknown-justified, so
    # equal alone may be empty; but something must have been compared.
    assert result.equal or result.unknown_justified, "nothing was compared"
    # A dim left unknown although it did not vary must be one the free
    # input dims fix: exact once input_shapes gives them.
    if result.unknown_free_only:
        fixed = compare(
            record, opgraph_values(model_file(name, workdir), fixed_input_shapes(record)), fixed=True
        )
        settled = set(fixed.equal) | set(fixed.unknown_justified) | set(fixed.unknown_unverified)
        unsettled = sorted(set(result.unknown_free_only) - settled)
        assert not unsettled, (
            f"{name}: unknown at free input dims and not exact once they are fixed: {unsettled[:10]}"
        )


@needs_frontend
@pytest.mark.parametrize("name", SUPPORTED)
def test_fixed_input_shapes_leave_only_data_dependent_dims_unknown(name: str, workdir: Path) -> None:
    record = load_record(name)
    path = model_file(name, workdir)
    got = opgraph_values(path, fixed_input_shapes(record))
    result = compare(record, got, fixed=True, dead=dead_values(path))
    report(name, "fixed input shapes", result)


# ---- the corpus files themselves (need no ONNX frontend) ----------------------


@pytest.mark.parametrize("name", MODELS)
def test_the_record_is_complete(name: str) -> None:
    record = load_record(name)
    assert record["name"] == name
    assert record["exporter"] in ("torchscript", "dynamo", "tf2onnx", "ultralytics", "paddle2onnx")
    assert (DATA / record["file"]).exists()
    assert not (DATA / record["weights_file"]).exists(), "weights files are made by the tests, not committed"
    assert record["tensors"], "onnxruntime recorded no value"
    assert set(record["onnx_inference"]) == set(record["tensors"])
    assert set(record["run_a_inputs"]) == set(record["inputs"])
    for value in record["tensors"].values():
        rank = len(value["shape"])
        assert len(value["varies"]) == rank and len(value["data_varies"]) == rank
        assert value["dtype"].isupper() and value["op_type"]
        assert isinstance(value["after_data_dependent"], bool)


@pytest.mark.parametrize("name", MODELS)
def test_the_free_input_dims_are_symbols_and_run_a_sized_them(name: str) -> None:
    record = load_record(name)
    for input_name, declared_value in record["inputs"].items():
        declared = declared_value["shape"]
        real = record["run_a_inputs"][input_name]
        assert len(real) == len(declared)
        for want, got in zip(declared, real, strict=True):
            assert got == want if isinstance(want, int) else got > 0


@pytest.mark.parametrize("name", MODELS)
def test_the_stored_model_keeps_its_weights_outside(name: str, tmp_path: Path) -> None:
    """The stored .onnx is small, and its weights file (recreated sparse)
    has the recorded length; parsed with onnx when it is installed."""
    record = load_record(name)
    path = model_file(name, tmp_path)
    assert path.stat().st_size < 8_000_000
    if record["weights_bytes"]:
        assert (tmp_path / record["weights_file"]).stat().st_size == record["weights_bytes"]
    onnx = pytest.importorskip("onnx")
    model = onnx.load(str(path), load_external_data=False)
    ends = [
        int(dict((e.key, e.value) for e in t.external_data)["offset"])
        + int(dict((e.key, e.value) for e in t.external_data)["length"])
        for t in model.graph.initializer
        if t.data_location == onnx.TensorProto.EXTERNAL
    ]
    assert max(ends, default=0) == record["weights_bytes"]
    assert len(model.graph.node) == record["nodes"]


def test_the_corpus_has_the_models_the_issue_asks_for() -> None:
    records = [load_record(n) for n in MODELS]
    exporters = {r["exporter"] for r in records}
    assert len(records) >= 40
    assert exporters == {"torchscript", "dynamo", "tf2onnx", "ultralytics", "paddle2onnx"}
    assert len({r["opset"] for r in records if r["exporter"] == "torchscript"}) >= 3


def test_the_data_is_compact() -> None:
    total = sum(p.stat().st_size for p in DATA.iterdir())
    assert total < 20_000_000
    for p in DATA.glob("*.onnx"):
        assert p.stat().st_size <= 300 * 1024, f"{p.name} should be stored gzip-compressed"
    for p in DATA.glob("*.onnx.gz"):
        assert gzip.decompress(p.read_bytes())[:2]  # a real gzip stream


# ---- the buckets themselves (a comparison that cannot fail proves nothing) ----


def _value(shape: list[int], varies: list[bool], data_varies: list[bool] | None = None) -> dict[str, object]:
    return {
        "dtype": "FLOAT",
        "shape": shape,
        "varies": varies,
        "data_varies": data_varies or [False] * len(shape),
        "op_type": "Conv",
        "producer": "conv",
    }


def _record(value: dict[str, object], inferred: dict[str, object] | None = None) -> dict[str, object]:
    return {"tensors": {"y": value}, "onnx_inference": {"y": inferred}}


@pytest.mark.parametrize(
    ("shape", "fixed", "bucket"),
    [
        ((2, 64, 56, 56), False, "equal"),
        ((-1, 64, 56, 56), False, "unknown_justified"),
        ((-1, 64, 56, 56), True, "wrong"),  # the batch is fixed: it must be known
        ((2, -1, 56, 56), True, "wrong"),  # the channels never vary
        # At free input dims: left to the fixed-shape check (see the test above).
        ((2, -1, 56, 56), False, "unknown_free_only"),
        ((3, 64, 56, 56), False, "wrong"),
        ((2, 64, 56), False, "wrong"),
        ((-2,), False, "wrong"),  # the rank does not vary
    ],
)
def test_a_value_lands_in_the_bucket_the_rules_say(shape: tuple[int, ...], fixed: bool, bucket: str) -> None:
    record = _record(_value([2, 64, 56, 56], [True, False, False, False]))
    result = compare(record, {"y": ("FLOAT", shape)}, fixed=fixed)
    kinds = ("equal", "unknown_justified", "unknown_unverified", "unknown_free_only", "wrong", "missing")
    buckets = {k: getattr(result, k) for k in kinds}
    assert {k for k, v in buckets.items() if v} == {bucket}


def test_a_data_dependent_dim_may_stay_unknown_at_fixed_shapes() -> None:
    record = _record(_value([57, 4], [True, False], [True, False]))
    assert compare(record, {"y": ("FLOAT", (-1, 4))}, fixed=True).unknown_justified == ["y"]


@pytest.mark.parametrize("fixed", [False, True])
def test_below_a_data_dependent_op_an_unknown_steady_dim_is_unverified_not_wrong(fixed: bool) -> None:
    value = _value([0, 4], [False, False])
    value["after_data_dependent"] = True
    result = compare(_record(value), {"y": ("FLOAT", (-1, 4))}, fixed=fixed)
    assert result.unknown_unverified == ["y"] and not result.wrong
    # The static dim is still checked.
    assert compare(_record(value), {"y": ("FLOAT", (-1, 5))}, fixed=fixed).wrong


def test_another_dtype_or_no_tensor_is_reported() -> None:
    record = _record(_value([2, 3], [False, False]))
    assert compare(record, {"y": ("FLOAT16", (2, 3))}, fixed=False).wrong
    assert compare(record, {}, fixed=False).missing == ["y"]
    assert compare(record, {}, fixed=False, dead=frozenset({"y"})).pruned == ["y"]
    assert not compare(record, {}, fixed=False, dead=frozenset({"y"})).problems()


def test_precision_is_counted_both_ways_against_onnx_inference() -> None:
    value = _value([2, 3], [True, False])
    onnx_knows_batch = _record(value, {"dtype": "FLOAT", "shape": [2, None]})
    assert compare(onnx_knows_batch, {"y": ("FLOAT", (-1, 3))}, fixed=False).onnx_more_precise == ["y"]
    onnx_knows_nothing = _record(value, None)
    result = compare(onnx_knows_nothing, {"y": ("FLOAT", (-1, 3))}, fixed=False)
    assert result.opgraph_more_precise == ["y"] and not result.onnx_more_precise
    symbolic = _record(value, {"dtype": "FLOAT", "shape": ["batch", 3]})
    result = compare(symbolic, {"y": ("FLOAT", (-1, 3))}, fixed=False)
    assert not result.opgraph_more_precise and not result.onnx_more_precise
