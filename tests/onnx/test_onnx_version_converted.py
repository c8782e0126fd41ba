"""The conformance corpus at every other opset, converted by ONNX's own
version converter (``onnx.version_converter``), must keep onnxruntime's
dtype and shape for every value.

Issue 14 asks for the standard operator set from opset 7 to the newest
release, including the changes that break naive converters (attributes that
became inputs: Squeeze/Unsqueeze and ReduceX axes at 13 and 18, Split's
split and num_outputs, Pad, Clip, Resize). The corpus was exported at a few
opsets only; the converter rewrites each model for every opset it has
adapters for (1,231 models from 87 with onnx 1.23.2), and the semantics do not change,
so the corpus's onnxruntime records stay the oracle. Each converted model
must also give, value for value, the dtype and shape opgraph gives the
original: no opset may lose a dim.

Needs the ``onnx`` package (the test dependency group has it); neither torch
nor onnxruntime. ``python tests/onnx/test_onnx_version_converted.py`` prints
the counts per opset the README gives."""

from __future__ import annotations

import importlib.util
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from onnx_model_records import compare, dead_values, load_record, model_file, model_names, opgraph_values

onnx = pytest.importorskip("onnx", reason="the onnx package converts the models between opsets")
from onnx import ModelProto, version_converter  # noqa: E402  (after the importorskip)

MODELS = model_names()
#: Every opset the installed onnx knows, from the oldest issue 14 supports.
TARGETS = range(7, onnx.defs.onnx_opset_version() + 1)
#: A converted model may rename a value (an adapter inserting a node); the
#: corpus loses at most one value in 240 that way.
MIN_COMPARED = 0.99

needs_frontend = pytest.mark.skipif(
    importlib.util.find_spec("opgraph") is None, reason="opgraph is not installed"
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx_versions")


def _opset(model: ModelProto) -> int:
    return int(next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")))


def converted_models(name: str, workdir: Path) -> Iterator[tuple[int, Path]]:
    """(opset, file) for every other opset the converter takes the corpus
    model ``name`` to, each file written beside the original so that its
    external weights file resolves."""
    source = model_file(name, workdir)
    model = onnx.load(str(source), load_external_data=False)
    for target in TARGETS:
        if target == _opset(model):
            continue
        try:
            rewritten = version_converter.convert_version(model, target)
        except RuntimeError:
            continue  # no adapter for some op of the model between the two opsets
        path = workdir / f"{source.stem}.opset{target}.onnx"
        onnx.save(rewritten, str(path))
        yield target, path


def problems(name: str, path: Path, original: dict[str, tuple[str, tuple[int, ...]]]) -> list[str]:
    """What opgraph gets wrong on the converted model at ``path``: values
    onnxruntime's record disagrees with, and values inferred differently
    from ``original`` (opgraph's values for the model as exported)."""
    record = load_record(name)
    got = opgraph_values(path, None)
    shared = {k: v for k, v in record["tensors"].items() if k in got}
    # Values no output needs are pruned (the corpus test checks which).
    live = len(set(record["tensors"]) - dead_values(path))
    if len(shared) < MIN_COMPARED * live:
        return [f"only {len(shared)} of {live} values kept their names"]
    wrong = compare({**record, "tensors": shared}, got, fixed=False).problems()
    changed = [f"{k}: {original[k]} as exported, {got[k]} here" for k in shared if got[k] != original[k]]
    return wrong + changed


@needs_frontend
@pytest.mark.parametrize("name", MODELS)
def test_every_opset_the_converter_reaches_keeps_every_shape(name: str, workdir: Path) -> None:
    original = opgraph_values(model_file(name, workdir), None)
    converted = []
    for target, path in converted_models(name, workdir):
        found = problems(name, path, original)
        assert not found, f"{name} at opset {target}: {len(found)} values wrong: {found[:10]}"
        converted.append(target)
    # Every corpus model converts at least to the newest opsets (21 and up).
    assert converted, f"{name}: the version converter reached no other opset"


def main() -> None:
    """Prints, per target opset, how many corpus models the converter
    reaches and how many of those opgraph infers right (the README's
    figures)."""
    reached: Counter[int] = Counter()
    right: Counter[int] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in MODELS:
            workdir = Path(tmp) / name
            workdir.mkdir()
            original = opgraph_values(model_file(name, workdir), None)
            for target, path in converted_models(name, workdir):
                reached[target] += 1
                right[target] += not problems(name, path, original)
    print(f"onnx {onnx.__version__}, {len(MODELS)} corpus models")
    print("| opset | " + " | ".join(str(t) for t in TARGETS) + " | all |")
    print("| --- |" + " ---: |" * (len(TARGETS) + 1))
    print("| converted | " + " | ".join(str(reached[t]) for t in TARGETS) + f" | {reached.total()} |")
    print("| inferred right | " + " | ".join(str(right[t]) for t in TARGETS) + f" | {right.total()} |")


if __name__ == "__main__":
    main()
