"""The ONNX reference implementation as ground truth for the IR ops that
serve ONNX (rust/core/src/ops/onnx_form): run one ONNX node on numpy
arrays with ``onnx.reference.ReferenceEvaluator``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

OPSET = 18


def onnx_run(
    op_type: str,
    inputs: Sequence[npt.NDArray[Any] | None],
    attrs: dict[str, Any] | None = None,
    opset: int = OPSET,
) -> npt.NDArray[Any]:
    """Output 0 of ONNX ``op_type`` on ``inputs`` (None: an absent optional)."""
    names = [f"in{i}" if a is not None else "" for i, a in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op_type, names, ["out"], **(attrs or {}))
    graph_inputs = [
        helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape))
        for name, a in zip(names, inputs, strict=False)
        if a is not None and name
    ]
    graph = helper.make_graph([node], "g", graph_inputs, [helper.make_empty_tensor_value_info("out")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = onnx.IR_VERSION
    feeds = {name: a for name, a in zip(names, inputs, strict=False) if a is not None and name}
    (out,) = ReferenceEvaluator(model).run(None, feeds)
    return np.asarray(out)
