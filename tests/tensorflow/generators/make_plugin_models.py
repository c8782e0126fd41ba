"""Writes the parser-plugin test models ``data/plugin_*.pbtxt`` and
``data/plugin_shapes.json`` (TensorFlow's own static shape and dtype of every
output of every real TensorFlow op in them).

Run with a Python that has TensorFlow (the test suite never imports it)::

    python tests/tensorflow/generators/make_plugin_models.py

Most models are built with TensorFlow ops. Where a plugin feature needs an
op TensorFlow does not have (a bool attribute that says whether an input
matters, every attribute kind on one node, inputs in an unusual order), the
node is written with TensorFlow's own protobuf classes (``NodeDef``,
``AttrValue``) as a custom op, the way a model with user ops looks; those
nodes' expected shapes are computed by hand in the tests.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import tensorflow as tf
from graphdefs import DATA, graph_of, static_shapes, write_graph
from tensorflow.core.framework import attr_value_pb2, graph_pb2, node_def_pb2


def placeholder(graph_def: graph_pb2.GraphDef, name: str, shape: list[int], dtype: tf.DType) -> None:
    node = graph_def.node.add(name=name, op="Placeholder")
    node.attr["dtype"].type = dtype.as_datatype_enum
    node.attr["shape"].shape.CopyFrom(tf.TensorShape(shape).as_proto())


def const(graph_def: graph_pb2.GraphDef, name: str, value: np.ndarray[Any, Any]) -> None:
    node = graph_def.node.add(name=name, op="Const")
    node.attr["dtype"].type = tf.as_dtype(value.dtype).as_datatype_enum
    node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value))


def custom(
    graph_def: graph_pb2.GraphDef, name: str, op: str, inputs: list[str], **attrs: attr_value_pb2.AttrValue
) -> node_def_pb2.NodeDef:
    node = graph_def.node.add(name=name, op=op, input=inputs)
    for key, value in attrs.items():
        node.attr[key].CopyFrom(value)
    return node


def topk() -> None:
    """x[2, 10] → TopKV2(k=3): the README's TopKV2 → TopK example."""
    x = tf.compat.v1.placeholder(tf.float32, [2, 10], name="x")
    tf.math.top_k(x, k=3, name="topk")


def chain() -> None:
    """x → Relu → Sigmoid → Relu: two op types, one used twice."""
    x = tf.compat.v1.placeholder(tf.float32, [4, 8], name="x")
    tf.nn.relu(tf.sigmoid(tf.nn.relu(x, name="relu1"), name="sigmoid"), name="relu2")


def dynamic() -> None:
    """ConcatV2 of three inputs (attr N) and IdentityN of two (attr T)."""
    a = tf.compat.v1.placeholder(tf.float32, [2, 3], name="a")
    b = tf.compat.v1.placeholder(tf.float32, [2, 4], name="b")
    c = tf.compat.v1.placeholder(tf.float32, [2, 5], name="c")
    tf.concat([a, b, c], axis=1, name="concat")
    i = tf.compat.v1.placeholder(tf.int32, [7], name="i")
    tf.identity_n([a, i], name="idn")


def squared_difference() -> None:
    """SquaredDifference with broadcasting, expanded by a one-to-many plugin."""
    a = tf.compat.v1.placeholder(tf.float32, [2, 1, 3], name="a")
    b = tf.compat.v1.placeholder(tf.float32, [4, 3], name="b")
    tf.math.squared_difference(a, b, name="sqdiff")


def fusion() -> None:
    """x / (1 + |x|) in scope ``softsign`` (fused many-to-one by a test's
    scope pass), between a Relu and an Identity outside the scope."""
    x = tf.compat.v1.placeholder(tf.float32, [4, 8], name="x")
    r = tf.nn.relu(x, name="relu")
    with tf.name_scope("softsign"):
        y = r / (1.0 + tf.abs(r))
    tf.identity(y, name="out")


def attrs() -> graph_pb2.GraphDef:
    """One custom ``AttrZoo`` node carrying every attribute kind, and the
    function its ``func`` attribute names."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])  # type: ignore[untyped-decorator]  # TensorFlow has no type information
    def zoo_fn(v: tf.Tensor) -> tf.Tensor:
        return v * 2.0

    function_def = zoo_fn.get_concrete_function().function_def
    # TensorFlow numbers traced functions per process; a fixed name keeps the
    # fixture stable across runs.
    function_def.signature.name = "zoo_fn"
    graph_def = graph_pb2.GraphDef()
    graph_def.library.function.add().CopyFrom(function_def)
    placeholder(graph_def, "x", [1, 3, 4, 5], tf.float32)
    av, lv = attr_value_pb2.AttrValue, attr_value_pb2.AttrValue.ListValue
    func = attr_value_pb2.NameAttrList(name=function_def.signature.name, attr={"scale": av(i=2)})
    custom(
        graph_def,
        "zoo",
        "AttrZoo",
        ["x"],
        padding=av(s=b"SAME"),
        data_format=av(s=b"NCHW"),
        axis=av(i=-1),
        alpha=av(f=0.25),
        flag=av(b=True),
        T=av(type=tf.float32.as_datatype_enum),
        DstT=av(type=tf.int64.as_datatype_enum),
        shape=av(shape=tf.TensorShape([2, None, 3]).as_proto()),
        value=av(tensor=tf.make_tensor_proto(np.array([[1, 2], [3, 4]], dtype=np.int32))),
        f=av(func=func),
        names=av(list=lv(s=[b"a", b"b"])),
        strides=av(list=lv(i=[1, 1, 2, 2])),
        scales=av(list=lv(f=[0.5, 2.0])),
        masks=av(list=lv(b=[True, False])),
        Tlist=av(list=lv(type=[tf.float32.as_datatype_enum, tf.int32.as_datatype_enum])),
        shapes=av(list=lv(shape=[tf.TensorShape([2, 3]).as_proto(), tf.TensorShape([4]).as_proto()])),
    )
    return graph_def


def del_cond() -> graph_pb2.GraphDef:
    """``MaybeBias(x, bias)`` whose bool ``has_bias`` says if ``bias`` is used."""
    graph_def = graph_pb2.GraphDef()
    placeholder(graph_def, "x", [2, 3], tf.float32)
    placeholder(graph_def, "bias", [2, 3], tf.float32)
    av = attr_value_pb2.AttrValue
    custom(graph_def, "with_bias", "MaybeBias", ["x", "bias"], has_bias=av(b=True))
    custom(graph_def, "without_bias", "MaybeBias", ["x", "bias"], has_bias=av(b=False))
    return graph_def


def del_type() -> graph_pb2.GraphDef:
    """``Offset(x, offset)`` twice: once fed by a Const, once by a Placeholder."""
    graph_def = graph_pb2.GraphDef()
    placeholder(graph_def, "x", [2, 3], tf.float32)
    placeholder(graph_def, "fed", [2, 3], tf.float32)
    const(graph_def, "folded", np.zeros([2, 3], np.float32))
    custom(graph_def, "from_const", "Offset", ["x", "folded"])
    custom(graph_def, "from_placeholder", "Offset", ["x", "fed:0"])
    return graph_def


def reorder() -> graph_pb2.GraphDef:
    """``ShapeFirstReshape(shape, tensor)``: Reshape with its inputs swapped."""
    graph_def = graph_pb2.GraphDef()
    placeholder(graph_def, "x", [2, 3, 4], tf.float32)
    const(graph_def, "target", np.array([4, 6], np.int32))
    custom(graph_def, "reshape", "ShapeFirstReshape", ["target", "x"])
    return graph_def


def main() -> None:
    shapes: dict[str, dict[str, list[Any]]] = {}
    for name, build in [
        ("topk", topk),
        ("chain", chain),
        ("dynamic", dynamic),
        ("squared_difference", squared_difference),
        ("fusion", fusion),
    ]:
        graph = graph_of(build)
        write_graph(graph.as_graph_def(), DATA / f"plugin_{name}.pbtxt")
        shapes[f"plugin_{name}.pbtxt"] = {
            tensor: [static["dtype"], static["shape"]] for tensor, static in static_shapes(graph).items()
        }
    for name, make in [
        ("attrs", attrs),
        ("del_cond", del_cond),
        ("del_type", del_type),
        ("reorder", reorder),
    ]:
        write_graph(make(), DATA / f"plugin_{name}.pbtxt")
    # One line per tensor: small, and readable in a diff.
    files = [
        f"  {json.dumps(model)}: {{\n"
        + ",\n".join(f"    {json.dumps(t)}: {json.dumps(v)}" for t, v in sorted(tensors.items()))
        + "\n  }"
        for model, tensors in sorted(shapes.items())
    ]
    (DATA / "plugin_shapes.json").write_text("{\n" + ",\n".join(files) + "\n}\n")


if __name__ == "__main__":
    main()
