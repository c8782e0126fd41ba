"""ONNX models quantized with QuantizeLinear / DequantizeLinear pairs (QDQ,
as onnxruntime's quantizer and PyTorch's QAT export write them). ATC does
not convert them: Huawei's AMCT first rewrites the pairs into CANN's form
(`convert_qat_model`: AscendQuant on the input, INT8 weights quantized
offline, AscendDequant on the output of each Conv, Gemm, ConvTranspose and
single-input MatMul). opgraph compiles the graph as written, so the
command says what its plan and estimate are of."""

from __future__ import annotations

from collections import Counter

from .._core import Graph

QDQ_OPS = ("QuantizeLinear", "DequantizeLinear")


def _qdq_counts(graph: Graph) -> Counter[str]:
    """QuantizeLinear / DequantizeLinear nodes of ``graph`` and its bodies."""
    counts: Counter[str] = Counter()
    for node in graph.nodes():
        if node.op_type in QDQ_OPS:
            counts[node.op_type] += 1
        for body in node.subgraph_names:
            counts += _qdq_counts(graph.subgraph(node.name, body))
    return counts


def qdq_warning(graph: Graph) -> str | None:
    """The warning for a graph with QDQ pairs (bodies included), or ``None``."""
    counts = _qdq_counts(graph)
    if not counts:
        return None
    found = " and ".join(f"{counts[op]} {op}" for op in QDQ_OPS if counts[op])
    return (
        f"the model is quantized with ONNX QuantizeLinear/DequantizeLinear pairs ({found}): "
        "ATC does not convert such models until AMCT's convert_qat_model rewrites them "
        "(AscendQuant, INT8 weights, AscendDequant); the plan and estimate here are of the graph "
        "as written (float ops between quantize steps), not of the INT8 model ATC would build"
    )
