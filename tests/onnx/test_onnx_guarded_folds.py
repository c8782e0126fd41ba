"""A value opgraph cannot fold (an integer remainder by zero) in an ONNX body
that may not run, judged by onnxruntime running the same model.

An ``If`` branch its condition does not pick, or a ``Loop`` body that runs
no iteration, never computes its remainder: onnxruntime runs the model, so
opgraph must load it (the remainder left for run time, as GE's constant
folding leaves what its kernel cannot compute) and give the output's
shape. The same remainder in the main graph is an error naming the node
(onnxruntime is not asked: an integer division by zero may kill it).

(`Mod`, not `Div`: opgraph leaves an integer `Div` it cannot fold unknown
wherever it is, as GE does.)"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from onnx_cases import run_onnxruntime

import opgraph
from opgraph.onnx import load_onnx

INT = TensorProto.INT32


def _constant(name: str, value: int) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=helper.make_tensor(name, INT, [], [value]))


def _dividing(prefix: str, x: str, out: str) -> list[onnx.NodeProto]:
    """``out = x + 7 % (7 - 7)``, its nodes named after ``prefix`` (the zero
    computed: onnxruntime refuses a constant zero divisor when it builds
    the kernel, in a branch that never runs too; opgraph folds it)."""
    return [
        _constant(f"{prefix}seven", 7),
        helper.make_node("Sub", [f"{prefix}seven", f"{prefix}seven"], [f"{prefix}zero"]),
        helper.make_node("Mod", [f"{prefix}seven", f"{prefix}zero"], [f"{prefix}rest"], name=f"{prefix}mod"),
        helper.make_node("Add", [x, f"{prefix}rest"], [out]),
    ]


def _model(kind: str) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", INT, [4])
    y = helper.make_tensor_value_info("y", INT, [4])
    if kind == "if":
        p = helper.make_tensor_value_info("p", TensorProto.BOOL, [])
        then = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [], [y_of("t")])
        otherwise = helper.make_graph(_dividing("e_", "x", "e"), "else", [], [y_of("e")])
        nodes = [helper.make_node("If", ["p"], ["y"], then_branch=then, else_branch=otherwise)]
        inputs = [x, p]
    elif kind == "loop":
        n = helper.make_tensor_value_info("n", TensorProto.INT64, [])
        body = helper.make_graph(
            [*_dividing("b_", "v", "v_next"), helper.make_node("Identity", ["cond"], ["cond_next"])],
            "body",
            [
                helper.make_tensor_value_info("i", TensorProto.INT64, []),
                helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
                helper.make_tensor_value_info("v", INT, [4]),
            ],
            [helper.make_tensor_value_info("cond_next", TensorProto.BOOL, []), y_of("v_next")],
        )
        go = helper.make_tensor("go", TensorProto.BOOL, [], [True])
        nodes = [
            helper.make_node("Constant", [], ["go"], value=go),
            helper.make_node("Loop", ["n", "go", "x"], ["y"], body=body),
        ]
        inputs = [x, n]
    else:
        nodes = _dividing("", "x", "y")
        inputs = [x]
    graph = helper.make_graph(nodes, kind, inputs, [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def y_of(name: str) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, INT, [4])


@pytest.mark.parametrize("kind", ["if", "loop"])
def test_a_remainder_by_zero_in_a_body_that_may_not_run_loads(kind: str, tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="onnxruntime runs the models opgraph is judged against")
    model = _model(kind)
    onnx.checker.check_model(model, full_check=True)
    x = np.arange(4, dtype=np.int32)
    guard = np.asarray(True) if kind == "if" else np.asarray(0, np.int64)
    feeds = {"x": x, "p" if kind == "if" else "n": guard}
    # As written: onnxruntime's own constant folding would divide by zero.
    ran = run_onnxruntime(model, feeds, optimized=False)
    assert ran is not None, "onnxruntime refuses the model"
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    graph = load_onnx(path)
    out = graph.desc(graph.outputs[0])
    assert (out.dtype.name, tuple(out.shape)) == ("INT32", ran[0].shape)


def test_a_remainder_by_zero_that_surely_runs_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx"
    onnx.save(_model("main"), path)
    with pytest.raises(opgraph.InferShapeError, match=r"'mod' \(FloorMod\).*division by zero"):
        load_onnx(path)
