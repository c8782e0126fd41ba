"""Builds the tf2onnx part of the ONNX conformance corpus: Keras
applications with seeded random weights (``weights=None``), traced as a
``tf.function`` with a free batch and converted by tf2onnx, recorded and
stored by ``onnx_record.write_entry``::

    TF_CPP_MIN_LOG_LEVEL=2 /work/venv_tf2onnx/bin/python \
        tests/onnx/generators/make_tf2onnx_models.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import tensorflow as tf
import tf2onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from onnx_record import write_entry

# name -> (keras.applications constructor, image size, opset)
APPS: dict[str, tuple[str, int, int]] = {
    "keras_mobilenet_v2_tf2onnx13": ("MobileNetV2", 224, 13),
    "keras_resnet50_tf2onnx13": ("ResNet50", 224, 13),
    "keras_efficientnet_b0_tf2onnx15": ("EfficientNetB0", 224, 15),
    "keras_densenet121_tf2onnx17": ("DenseNet121", 160, 17),
}


def build_one(name: str, app: str, size: int, opset: int) -> dict[str, Any]:
    tf.keras.utils.set_random_seed(0)
    model = getattr(tf.keras.applications, app)(weights=None, input_shape=(size, size, 3))
    spec = (tf.TensorSpec((None, size, size, 3), tf.float32, name="input"),)

    @tf.function(input_signature=spec)  # type: ignore[untyped-decorator]  # TensorFlow has no type information
    def forward(x: tf.Tensor) -> tf.Tensor:
        return model(x, training=False)

    proto, _ = tf2onnx.convert.from_function(forward, input_signature=spec, opset=opset)
    # tf2onnx names the free batch dim itself (unk__N): size it as "batch".
    batch = proto.graph.input[0].type.tensor_type.shape.dim[0].dim_param
    versions = {
        "torch_version": None,
        "tensorflow_version": tf.__version__,
        "tf2onnx_version": tf2onnx.__version__,
    }
    return write_entry(
        proto,
        name,
        "tf2onnx",
        f"keras.applications.{app}",
        versions,
        dims={batch: (2, 3)},
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args()
    for name, (app, size, opset) in APPS.items():
        if args.only and name not in args.only:
            continue
        start = time.time()
        record = build_one(name, app, size, opset)
        print(
            f"{name}: {record['nodes']} nodes, {len(record['tensors'])} tensors, {time.time() - start:.0f}s"
        )


if __name__ == "__main__":
    main()
