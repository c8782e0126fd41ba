"""opgraph's Caffe frontend against OpenCV's Caffe importer, an independent
implementation of Caffe's layers, on drawn one-layer nets
(:mod:`caffe_layer_draws`).

For each group, hypothesis draws layers (parameters in their several
spellings, input shapes, and zero-filled weights of the shapes the layer
needs); OpenCV sizes every top of each net it accepts
(``Net.getLayersShapes``), and opgraph, loading the same prototxt and
.caffemodel, must give every top that shape. A net opgraph refuses must be
one OpenCV computes an empty or non-positive shape for, or a refusal listed
in :data:`REFUSALS` with the reason it is right. Where OpenCV departs from
Caffe (a dilated Deconvolution, whose dilation it leaves out of the output
size; a pooling padded in one dim only, where Caffe trims the last window of
every dim and OpenCV only of the padded one), the formula in Caffe's source
decides (``LayerCase.caffe_rule``).

OpenCV's importer does not size every form Caffe takes (a Slice without
slice points, a Reshape with ``num_axes: 0``, some paddings): those draws
are skipped, and each group must still have a third of its draws judged."""

from __future__ import annotations

import re
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from caffe_layer_draws import DRAWS, LayerCase
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opgraph
from opgraph.errors import OpgraphError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from schema_messages import message_classes

cv2 = pytest.importorskip("cv2", reason="OpenCV's Caffe importer is the peer these nets run on")
if not hasattr(cv2.dnn, "readNetFromCaffe"):
    pytest.skip("this OpenCV has no Caffe importer (OpenCV 5 dropped it)", allow_module_level=True)
cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)  # a refusal is an answer here

#: What opgraph refuses that OpenCV sizes: message pattern → why that is right.
REFUSALS = {
    r"pad \[[\d, ]+\] must be smaller than the window": "Caffe's PoolingLayer checks pad < kernel",
    # Caffe's (in + 2 pad - extent) / stride + 1 truncates toward zero, so a
    # kernel longer than its padded input by less than the stride still
    # gives 1; GE's and TensorFlow's convolutions refuse a kernel that does
    # not fit, and so does opgraph.
    r"the padded input size \d+ is smaller than the effective kernel size \d+": "GE's rule",
}
#: Drawn nets per group; each takes a few milliseconds.
EXAMPLES = 80


@cache
def _net_class() -> Any:
    return message_classes("caffe/caffe.proto", ["caffe.NetParameter"])["caffe.NetParameter"]


def write_case(case: LayerCase, directory: Path) -> tuple[Path, Path]:
    """The case's prototxt and a .caffemodel with its zero-filled blobs."""
    prototxt, weights = directory / "case.prototxt", directory / "case.caffemodel"
    prototxt.write_text(case.prototxt())
    net = _net_class()()
    layer = net.layer.add()
    layer.name = "layer"
    for shape in case.blobs:
        blob = layer.blobs.add()
        blob.shape.dim.extend(shape)
        blob.data.extend(np.zeros(int(np.prod(shape)), np.float32).tolist())
    weights.write_bytes(net.SerializeToString())
    return prototxt, weights


def opencv_shapes(prototxt: Path, weights: Path, case: LayerCase) -> list[tuple[int, ...]] | None:
    """The shape of each of the layer's tops by OpenCV, or None when it
    refuses the net."""
    try:
        net = cv2.dnn.readNetFromCaffe(str(prototxt), str(weights))
        ids, _, outputs = net.getLayersShapes([list(s) for s in case.inputs])
    except cv2.error:
        return None
    # The net's one layer (id 0 is the inputs; OpenCV may rename the layer
    # after its top). OpenCV's MAX pooling sizes its argmax mask too, a top
    # the net does not have.
    layers = [tops for layer_id, tops in zip(np.asarray(ids).ravel(), outputs, strict=True) if layer_id > 0]
    if len(layers) != 1:
        return None
    return [tuple(int(n) for n in np.asarray(top).ravel()) for top in layers[0]][: case.tops]


def judge(case: LayerCase, workdir: Path, tally: Counter[str]) -> None:
    tally["drawn"] += 1
    prototxt, weights = write_case(case, workdir)
    expected = opencv_shapes(prototxt, weights, case)
    if expected is None:
        return
    tally["sized by OpenCV"] += 1
    degenerate = any(n <= 0 for shape in expected for n in shape)
    try:
        graph = opgraph.load_caffe(prototxt, weights)
    except OpgraphError as error:
        message = str(error)
        listed = [p for p in REFUSALS if re.search(p, message)]
        assert degenerate or listed, f"{case.id}: refused: {message}"
        tally["refused (degenerate in OpenCV)" if degenerate else "refused (see REFUSALS)"] += 1
        return
    assert not degenerate, f"{case.id}: OpenCV computes {expected}; opgraph accepts it"
    ours = [tuple(graph.desc(graph.tensor("layer", i)).shape) for i in range(case.tops)]
    if case.caffe_rule is not None and case.caffe_rule != expected:
        assert ours == case.caffe_rule, f"{case.id}: opgraph {ours}, Caffe's formula {case.caffe_rule}"
        tally["OpenCV departs from Caffe"] += 1
        return
    assert ours == expected, f"{case.id}: opgraph {ours}, OpenCV {expected}"
    tally["agree"] += 1


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vs_opencv")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("group", sorted(DRAWS))
def test_matches_opencv(group: str, workdir: Path) -> None:
    tally: Counter[str] = Counter()

    @settings(max_examples=EXAMPLES, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        judge(DRAWS[group](data), workdir, tally)

    check()
    assert tally["sized by OpenCV"] >= tally["drawn"] // 3, dict(tally)
    assert tally["agree"] >= tally["sized by OpenCV"] // 2, dict(tally)


def report(examples: int = 400) -> None:
    """The README's figures: per group, how the drawn nets came out."""
    import tempfile

    totals: Counter[str] = Counter()
    columns = [
        "drawn",
        "sized by OpenCV",
        "agree",
        "OpenCV departs from Caffe",
        "refused (degenerate in OpenCV)",
        "refused (see REFUSALS)",
    ]
    print(f"OpenCV {cv2.__version__}, {examples} draws per group")
    print("| group | " + " | ".join(columns) + " |")
    with tempfile.TemporaryDirectory() as tmp:
        for group in sorted(DRAWS):
            tally: Counter[str] = Counter()

            @settings(max_examples=examples, database=None, derandomize=True, deadline=None)
            @given(data=st.data())
            def check(data: st.DataObject) -> None:
                judge(DRAWS[group](data), Path(tmp), tally)  # noqa: B023  (run at once)

            check()
            totals.update(tally)
            print(f"| {group} | " + " | ".join(str(tally[c]) for c in columns) + " |")
    print("| all | " + " | ".join(f"{totals[c]:,}" for c in columns) + " |")


if __name__ == "__main__":
    report()
