"""Writes ``cnn.pbtxt``, the bundled small TensorFlow CNN (a frozen GraphDef).

Needs TensorFlow (opgraph itself never imports it). A developer's script, kept
out of the wheel; run it from the checkout::

    python scripts/make_cnn.py

Raw TF ops: Conv2D, BiasAdd, Relu, MaxPool, Reshape, MatMul, Softmax, on a
``[batch, 28, 28, 1]`` input named ``x`` (batch unknown: compile it with
``--input-shape x:1,28,28,1``, as ``opgraph compile --example cnn`` does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "python" / "opgraph" / "examples" / "models" / "cnn.pbtxt"


def build() -> Any:
    import numpy as np
    import tensorflow as tf
    from google.protobuf import text_format
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    rng = np.random.default_rng(0)
    w1 = tf.Variable(rng.normal(size=(3, 3, 1, 4)).astype(np.float32))
    b1 = tf.Variable(np.zeros(4, np.float32))
    w2 = tf.Variable(rng.normal(size=(3, 3, 4, 8)).astype(np.float32))
    b2 = tf.Variable(np.zeros(8, np.float32))
    wd = tf.Variable(rng.normal(size=(7 * 7 * 8, 10)).astype(np.float32) * 0.01)
    bd = tf.Variable(np.zeros(10, np.float32))

    def net(x: Any) -> Any:
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w1, 1, "SAME"), b1))
        y = tf.nn.max_pool2d(y, 2, 2, "VALID")
        y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(y, w2, 1, "SAME"), b2))
        y = tf.nn.max_pool2d(y, 2, 2, "SAME")
        y = tf.reshape(y, [-1, 7 * 7 * 8])
        return tf.nn.softmax(tf.nn.bias_add(tf.matmul(y, wd), bd))

    spec = tf.TensorSpec([None, 28, 28, 1], tf.float32, name="x")
    concrete = tf.function(net).get_concrete_function(spec)
    frozen = convert_variables_to_constants_v2(concrete, lower_control_flow=False)
    return text_format.MessageToString(frozen.graph.as_graph_def())


def main() -> None:
    OUT.write_text(build())
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
