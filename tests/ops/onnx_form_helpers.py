"""One-node ONNX models run through ``onnx.reference.ReferenceEvaluator``:
the independent reference for the ONNX-form IR ops' shapes and values."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

from opgraph import DataType

ONNX_OPSET = 22
"""The default opset of the reference models."""


def run_onnx(
    op_type: str,
    inputs: Sequence[npt.NDArray[Any] | None],
    attrs: dict[str, Any] | None = None,
    n_outputs: int = 1,
    opset: int = ONNX_OPSET,
) -> list[npt.NDArray[Any]]:
    """Runs ONNX ``op_type`` on ``inputs`` (None: an absent optional input)
    with ``attrs`` and returns its ``n_outputs`` outputs."""
    names = [f"in{i}" if x is not None else "" for i, x in enumerate(inputs)]
    outputs = [f"out{i}" for i in range(n_outputs)]
    node = helper.make_node(op_type, names, outputs, **(attrs or {}))
    graph_inputs = [
        helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
        for name, x in zip(names, inputs, strict=True)
        if x is not None
    ]
    graph_outputs = [helper.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None) for o in outputs]
    graph = helper.make_graph([node], "g", graph_inputs, graph_outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    feeds = {name: x for name, x in zip(names, inputs, strict=True) if x is not None}
    with warnings.catch_warnings():
        if op_type == "AveragePool":
            # A window lying wholly in the padding (dilations, ceil_mode) averages no values in
            # onnx.reference: numpy warns and the value is NaN, which a value comparison still
            # catches; the shape is right.
            warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
            warnings.filterwarnings("ignore", "invalid value encountered in divide", RuntimeWarning)
        results = ReferenceEvaluator(model).run(None, feeds)
    assert isinstance(results, list)  # the outputs in order (not intermediate=True's dict)
    return [np.asarray(r) for r in results]


NP_TO_DTYPE: dict[type, DataType] = {
    np.float32: DataType.FLOAT,
    np.float64: DataType.DOUBLE,
    np.float16: DataType.FLOAT16,
    np.int64: DataType.INT64,
    np.int32: DataType.INT32,
    np.int8: DataType.INT8,
    np.uint8: DataType.UINT8,
}


def dtype_of(x: npt.NDArray[Any]) -> DataType:
    return NP_TO_DTYPE[x.dtype.type]
