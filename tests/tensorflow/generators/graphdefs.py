"""What the fixture generators share: graphs built in graph mode, tf.functions
and Keras models frozen into GraphDefs, GraphDefs written as ``.pb`` /
``.pbtxt``, and TensorFlow's own static shape and dtype of a tensor.

Imported by the ``make_*.py`` scripts beside it (run as scripts, so this
folder is on ``sys.path``); it needs TensorFlow, like they do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import tensorflow as tf
from google.protobuf import text_format
from tensorflow.core.framework import graph_pb2
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

if TYPE_CHECKING:
    import keras

REPO = Path(__file__).resolve().parents[3]
# Where every fixture model and TensorFlow shape record lives.
DATA = REPO / "tests" / "tensorflow" / "data"

Record = dict[str, Any]


def graph_of(build: Callable[[], object]) -> tf.Graph:
    """The graph-mode (TF1-style) graph ``build`` makes: placeholders,
    ``tf.compat.v1`` layers and raw ops, Python-side shapes as TensorFlow
    infers them while building."""
    graph = tf.Graph()
    with graph.as_default():
        build()
    return graph


def import_fresh(graph_def: graph_pb2.GraphDef) -> tf.Graph:
    """``graph_def`` imported into a new graph: every tensor then has the
    static shape TensorFlow's C++ shape refiner gives it."""
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    return graph


def freeze(fn: Callable[..., Any], specs: list[tf.TensorSpec]) -> graph_pb2.GraphDef:
    """A frozen GraphDef of ``fn`` traced with ``specs``: variables become
    Const nodes; functional If/While stay functional (not lowered to v1
    Switch/Merge frames)."""
    concrete = tf.function(fn).get_concrete_function(*specs)
    frozen = convert_variables_to_constants_v2(concrete, lower_control_flow=False)
    graph_def: graph_pb2.GraphDef = frozen.graph.as_graph_def()
    return graph_def


def freeze_keras(model: keras.Model, spec: tf.TensorSpec, zero_weights: bool = False) -> graph_pb2.GraphDef:
    """The frozen inference graph (``training=False``) of a one-input Keras
    model fed ``spec``. ``zero_weights`` sets every weight to zero first
    (shapes and dtypes are unaffected; the file then compresses to almost
    nothing)."""
    if zero_weights:
        model.set_weights([np.zeros_like(w) for w in model.get_weights()])
    return freeze(lambda x: model(x, training=False), [spec])


def graph_bytes(graph_def: graph_pb2.GraphDef, suffix: str) -> bytes:
    """``graph_def`` as a ``.pb`` (deterministic serialisation) or ``.pbtxt``
    file holds it."""
    if suffix == ".pbtxt":
        return text_format.MessageToString(graph_def).encode()
    if suffix == ".pb":
        data: bytes = graph_def.SerializeToString(deterministic=True)
        return data
    raise ValueError(f"a GraphDef is written as .pb or .pbtxt, not {suffix}")


def write_graph(graph_def: graph_pb2.GraphDef, path: Path) -> None:
    """Writes ``graph_def`` as binary or text by the file's suffix."""
    path.write_bytes(graph_bytes(graph_def, path.suffix))


def tf_dims(shape: tf.TensorShape) -> list[int] | None:
    """A static shape as dims, ``-1`` for an unknown dim; None for an
    unknown rank."""
    return None if shape.rank is None else [-1 if d is None else int(d) for d in shape.as_list()]


def describe(tensor: tf.Tensor) -> Record:
    """``{"shape": dims or None, "dtype": name}``: TensorFlow's static view."""
    return {"shape": tf_dims(tensor.shape), "dtype": tensor.dtype.name}


def static_shapes(graph: tf.Graph) -> dict[str, Record]:
    """``describe`` of every output of every op, keyed ``"node:i"``."""
    return {t.name: describe(t) for op in graph.get_operations() for t in op.outputs}
