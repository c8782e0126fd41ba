"""Runs one hostile case through the Python API (load with inference →
prepare → plan_memory → estimate_cost) and prints the outcome as one JSON
line. Run in a subprocess by test_hostile_suite.py, under a memory cap::

    python tests/hostile/run_case.py CASE_JSON
"""

from __future__ import annotations

import json
import sys
from typing import Any


def run(case: dict[str, Any]) -> dict[str, Any]:
    import opgraph
    from opgraph.caffe import load_caffe
    from opgraph.errors import InternalError, OpgraphError
    from opgraph.onnx import load_onnx
    from opgraph.tensorflow import load_tensorflow

    soc = "Ascend910B2"
    try:
        if case["framework"] == "tensorflow":
            graph = load_tensorflow(case["model"], case["input_shapes"])
        elif case["framework"] == "onnx":
            graph = load_onnx(case["model"], case["input_shapes"])
        else:
            graph = load_caffe(case["model"], case["weights"], case["custom_protos"], case["input_shapes"])
        opgraph.prepare(graph, soc)
        opgraph.plan_memory(graph, allow_dynamic=True)
        opgraph.estimate_cost(graph, soc)
    except OpgraphError as error:
        return {
            "outcome": "error",
            "class": type(error).__name__,
            "internal": isinstance(error, InternalError),
            "message_bytes": len(str(error).encode()),
            "message": str(error)[:300],
        }
    except Exception as error:  # an untyped error is a finding, reported as such
        return {"outcome": "untyped", "class": type(error).__name__, "message": str(error)[:300]}
    return {"outcome": "ok"}


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))
