"""One-node ONNX models built with the onnx package and run with its
reference evaluator (``onnx.reference``): the ground truth for opgraph's
ONNX plugins and the IR ops behind them."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from opgraph import Graph, TensorDesc
from opgraph.onnx import OnnxReport, load_onnx_reported

# tests/ holds the shared helpers: pytest puts it on the path, a script run directly does not.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import helpers

#: opgraph's shape of unknown rank (GE's).
UNKNOWN_RANK = (-2,)
#: numpy dtype → opgraph DataType name (shared with the TensorFlow judges).
NP_TO_OPGRAPH = helpers.NP_TO_OPGRAPH


@dataclass
class OpCase:
    """``op_type`` applied to ``inputs``: each a numpy array; those named in
    ``constants`` are initializers (opgraph can read their values), the
    rest graph inputs. ``None`` is an absent optional input."""

    op_type: str
    inputs: list[np.ndarray | None]
    attrs: dict[str, Any] = field(default_factory=dict)
    opset: int = 17
    constants: tuple[int, ...] = ()
    outputs: int = 1

    @property
    def id(self) -> str:
        shapes = ",".join("-" if a is None else "x".join(map(str, a.shape)) for a in self.inputs)
        attrs = ",".join(f"{k}={v}" for k, v in sorted(self.attrs.items()))
        return f"{self.op_type}@{self.opset}({shapes};{attrs})"

    def model(self) -> onnx.ModelProto:
        names = ["" if a is None else f"in{i}" for i, a in enumerate(self.inputs)]
        outputs = [f"out{i}" for i in range(self.outputs)]
        node = helper.make_node(self.op_type, names, outputs, **self.attrs)
        graph_inputs, initializers = [], []
        for i, array in enumerate(self.inputs):
            if array is None:
                continue
            if i in self.constants:
                initializers.append(numpy_helper.from_array(array, names[i]))
            else:
                elem = helper.np_dtype_to_tensor_dtype(array.dtype)
                graph_inputs.append(helper.make_tensor_value_info(names[i], elem, array.shape))
        graph = helper.make_graph(
            [node],
            "case",
            graph_inputs,
            [helper.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None) for o in outputs],
            initializers,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        return model

    def reference(self) -> list[np.ndarray]:
        """What onnx's reference evaluator computes."""
        feeds = {f"in{i}": a for i, a in enumerate(self.inputs) if a is not None and i not in self.constants}
        result = ReferenceEvaluator(self.model()).run(None, feeds)
        return [np.asarray(r) for r in result]


def value_desc(graph: Graph, report: OnnxReport, value: str) -> TensorDesc:
    """What opgraph infers for ONNX value ``value`` of a loaded model."""
    node, index = report.tensors[value].rsplit(":", 1)
    return graph.desc(graph.tensor(node, int(index)))


def run_onnxruntime(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], *, optimized: bool = True
) -> list[np.ndarray] | None:
    """The outputs onnxruntime computes for ``model``, or None when it
    refuses the model. Callers skip first where onnxruntime is absent.

    ``optimized=False`` runs the model as written, without onnxruntime's
    graph rewrites. onnxruntime 1.32's constant folding of an If with a
    constant condition inside another If returns None, not the empty
    tensor, for an empty value, and gives some other values the wrong
    shape (a ReduceProd's ``(1,)`` as ``()``)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        return [np.asarray(r) for r in session.run(None, feeds)]
    except Exception:  # onnxruntime raises its own error classes
        return None


def inferred_descs(case: OpCase, directory: Path) -> list[TensorDesc]:
    """What opgraph infers for each of the case's outputs."""
    path = directory / "case.onnx"
    onnx.save(case.model(), path)
    graph, report = load_onnx_reported(path)
    return [value_desc(graph, report, f"out{i}") for i in range(case.outputs)]


def inferred(case: OpCase, directory: Path) -> list[tuple[str, tuple[int, ...]]]:
    """The dtype name and shape opgraph infers for each of the case's outputs."""
    return [(desc.dtype.name, tuple(desc.shape)) for desc in inferred_descs(case, directory)]


def expected(case: OpCase) -> list[tuple[str, tuple[int, ...]]]:
    return [(NP_TO_OPGRAPH[r.dtype], tuple(r.shape)) for r in case.reference()]


def shape_fits(ours: tuple[int, ...], theirs: tuple[int, ...]) -> bool:
    """Every dim opgraph gives is onnxruntime's (an unknown rank gives none)."""
    if ours == UNKNOWN_RANK:
        return True
    return len(ours) == len(theirs) and all(o in (-1, t) for o, t in zip(ours, theirs, strict=True))


def check_value(
    desc: TensorDesc, theirs: np.ndarray, where: str, tally: Counter[str], *, rtol: float = 0.0
) -> None:
    """:func:`helpers.check_value` with onnxruntime as the peer: exactly by
    default, where both compute in float32 on small whole numbers."""
    helpers.check_value(desc, theirs, where, tally, peer="onnxruntime", rtol=rtol)
