"""The real models the memory-planner tests and benchmark plan: the
TensorFlow fixture models (static input shapes from their records; the
gzipped ones decompressed into a given directory), the Caffe fixtures and
the shared Caffe networks (``../shared/models``, absent on some machines).
Reuses the TensorFlow and Caffe test helpers."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
for _dir in (TESTS, TESTS / "tensorflow", TESTS / "caffe", TESTS / "onnx"):
    if str(_dir) not in sys.path:
        sys.path.append(str(_dir))

from caffe_helpers import DATA as CAFFE_DATA  # noqa: E402
from caffe_helpers import MODELS  # noqa: E402
from onnx_model_records import DATA as ONNX_DATA  # noqa: E402
from onnx_model_records import fixed_input_shapes  # noqa: E402
from onnx_model_records import load_record as load_onnx_record  # noqa: E402
from onnx_model_records import model_file as onnx_model_file  # noqa: E402
from onnx_model_records import model_names as onnx_model_names  # noqa: E402
from tf_fixtures import DATA as TF_DATA  # noqa: E402
from tf_model_records import load_record, model_file, model_names  # noqa: E402

import opgraph  # noqa: E402
from opgraph import Graph  # noqa: E402

SHARED_CAFFE = MODELS / "caffe"
SHARED_NETS = ["lenet", "alexnet", "googlenet", "squeezenet_v1_1", "mobilenet_v1"]
# Caffe fixtures that load and infer as they are (the others test errors or
# need plugins registered by their tests).
CAFFE_FIXTURES = [
    "decode_inplace",
    "decode_input_shape",
    "decode_phases",
    "decode_slice",
    "decode_v1",
    "plugin_chain",
]


def tensorflow_names() -> list[str]:
    names: list[str] = model_names()
    return names


def load_tensorflow_model(name: str, workdir: Path) -> Graph:
    """Fixture model ``name`` with its recorded static input shapes, inferred."""
    shapes = load_record(name)["fixed"]["input_shapes"]
    graph = opgraph.load_tensorflow(str(model_file(name, "pb", workdir)), input_shapes=shapes)
    opgraph.infer(graph)
    return graph


def load_caffe_net(path: Path) -> Graph:
    graph = opgraph.load_caffe(path)
    opgraph.infer(graph)
    return graph


def load_onnx_model(name: str, workdir: Path) -> Graph:
    """ONNX corpus model ``name`` (its weights recreated beside it) at the
    input shapes of its onnxruntime record (run A), inferred."""
    directory = workdir / f"onnx_{name}"
    directory.mkdir(exist_ok=True)
    path = onnx_model_file(name, directory)
    return opgraph.load_onnx(path, fixed_input_shapes(load_onnx_record(name)))


def onnx_models(workdir: Path) -> Iterator[tuple[str, Callable[[], Graph]]]:
    """``(label, loader)`` for every model of the ONNX corpus."""
    for name in onnx_model_names():
        yield f"onnx/{name}", partial(load_onnx_model, name, workdir)


def all_models(workdir: Path) -> Iterator[tuple[str, Callable[[], Graph]]]:
    """``(label, loader)`` for every TensorFlow and Caffe model available here."""
    for name in tensorflow_names():
        yield f"tf/{name}", partial(load_tensorflow_model, name, workdir)
    for name in CAFFE_FIXTURES:
        yield f"caffe/{name}", partial(load_caffe_net, CAFFE_DATA / f"{name}.prototxt")
    for name in SHARED_NETS:
        path = SHARED_CAFFE / f"{name}.prototxt"
        if path.exists():
            yield f"shared/{name}", partial(load_caffe_net, path)


__all__ = [
    "CAFFE_DATA",
    "CAFFE_FIXTURES",
    "ONNX_DATA",
    "SHARED_CAFFE",
    "SHARED_NETS",
    "TF_DATA",
    "all_models",
    "load_caffe_net",
    "load_onnx_model",
    "load_tensorflow_model",
    "onnx_models",
    "tensorflow_names",
]
