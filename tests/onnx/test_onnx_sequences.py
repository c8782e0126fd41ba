"""ONNX sequence ops (SequenceEmpty / Construct / Insert / At / Erase /
Length, SplitToSequence, ConcatFromSequence) against onnx's reference
evaluator: few-node models ending in tensors, each output's dtype and shape
as the reference computes them.

opgraph infers without the data, so a dim the elements of a sequence
disagree on (uneven chunks, different inputs) is unknown (-1), as ONNX's
own shape inference leaves it; ``exact=False`` cases check that every dim
opgraph does know is the reference's, and the test names which dims stay
unknown."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_cases import NP_TO_OPGRAPH

import opgraph
from opgraph.onnx import load_onnx_reported

rng = np.random.default_rng(3)


def f32(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


def scalar(value: int) -> np.ndarray:
    return np.array(value, np.int64)


@dataclass
class SeqCase:
    """``nodes`` over graph inputs ``inputs`` and initializers ``constants``;
    ``outputs`` are tensors. ``unknown`` maps an output to the dims opgraph
    leaves unknown (the rest must equal the reference's)."""

    name: str
    nodes: list[onnx.NodeProto]
    inputs: dict[str, np.ndarray]
    outputs: list[str]
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    unknown: dict[str, tuple[int, ...]] = field(default_factory=dict)
    opset: int = 17

    def model(self) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            self.name,
            [
                helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                for n, a in self.inputs.items()
            ],
            [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in self.outputs],
            [numpy_helper.from_array(a, n) for n, a in self.constants.items()],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        return model


def node(op: str, inputs: list[str], outputs: list[str], **attrs: Any) -> onnx.NodeProto:
    return helper.make_node(op, inputs, outputs, **attrs)


A, B, C = f32(2, 3), f32(2, 3), f32(2, 3)

CASES = [
    SeqCase(
        "construct_at_length",
        [
            node("SequenceConstruct", ["a", "b", "c"], ["s"]),
            node("SequenceAt", ["s", "one"], ["item"]),
            node("SequenceLength", ["s"], ["n"]),
        ],
        {"a": A, "b": B, "c": C},
        ["item", "n"],
        {"one": scalar(1)},
    ),
    SeqCase(
        "construct_at_int32_negative_position",
        [node("SequenceConstruct", ["a", "b"], ["s"]), node("SequenceAt", ["s", "p"], ["item"])],
        {"a": A, "b": B},
        ["item"],
        {"p": np.array(-1, np.int32)},
    ),
    SeqCase(
        "construct_stack_new_axis",
        [
            node("SequenceConstruct", ["a", "b", "c"], ["s"]),
            node("ConcatFromSequence", ["s"], ["stacked"], axis=1, new_axis=1),
            node("ConcatFromSequence", ["s"], ["last"], axis=-1, new_axis=1),
            node("ConcatFromSequence", ["s"], ["joined"], axis=0),
        ],
        {"a": A, "b": B, "c": C},
        ["stacked", "last", "joined"],
    ),
    SeqCase(
        "construct_disagreeing_shapes",
        [
            node("SequenceConstruct", ["a", "d"], ["s"]),
            node("ConcatFromSequence", ["s"], ["joined"], axis=0),
            node("SequenceAt", ["s", "zero"], ["first"]),
        ],
        {"a": A, "d": f32(4, 3)},
        ["joined", "first"],
        {"zero": scalar(0)},
        unknown={"joined": (0,), "first": (0,)},
    ),
    SeqCase(
        "empty_insert_concat",
        [
            node("SequenceEmpty", [], ["e"], dtype=TensorProto.INT64),
            node("SequenceInsert", ["e", "x"], ["s1"]),
            node("SequenceInsert", ["s1", "y", "zero"], ["s2"]),
            node("SequenceLength", ["s2"], ["n"]),
            node("ConcatFromSequence", ["s2"], ["joined"], axis=0),
            node("SequenceAt", ["s2", "zero"], ["first"]),
        ],
        {"x": i64(1, 2, 3, 4), "y": i64(5, 6, 7, 8)},
        ["n", "joined", "first"],
        {"zero": scalar(0)},
    ),
    SeqCase(
        "empty_default_float",
        [
            node("SequenceEmpty", [], ["e"]),
            node("SequenceInsert", ["e", "x"], ["s"]),
            node("ConcatFromSequence", ["s"], ["stacked"], axis=0, new_axis=1),
        ],
        {"x": f32(3, 5)},
        ["stacked"],
    ),
    SeqCase(
        "insert_other_shape",
        [
            node("SequenceConstruct", ["a"], ["s"]),
            node("SequenceInsert", ["s", "w"], ["s2"]),
            node("ConcatFromSequence", ["s2"], ["joined"], axis=1),
        ],
        {"a": A, "w": f32(2, 5)},
        ["joined"],
        unknown={"joined": (1,)},
    ),
    SeqCase(
        "erase",
        [
            node("SequenceConstruct", ["a", "b", "c"], ["s"]),
            node("SequenceErase", ["s", "minus_one"], ["s2"]),
            node("SequenceErase", ["s2"], ["s3"]),
            node("SequenceLength", ["s2"], ["n2"]),
            node("SequenceLength", ["s3"], ["n3"]),
            node("ConcatFromSequence", ["s2"], ["joined"], axis=0),
        ],
        {"a": A, "b": B, "c": C},
        ["n2", "n3", "joined"],
        {"minus_one": scalar(-1)},
    ),
    SeqCase(
        "split_without_split_keepdims_0",
        [
            node("SplitToSequence", ["x"], ["s"], axis=1, keepdims=0),
            node("SequenceAt", ["s", "zero"], ["column"]),
            node("SequenceLength", ["s"], ["n"]),
            node("ConcatFromSequence", ["s"], ["back"], axis=1, new_axis=1),
        ],
        {"x": f32(6, 4)},
        ["column", "n", "back"],
        {"zero": scalar(0)},
    ),
    SeqCase(
        "split_without_split_keepdims_1",
        [
            node("SplitToSequence", ["x"], ["s"]),
            node("SequenceAt", ["s", "zero"], ["row"]),
            node("ConcatFromSequence", ["s"], ["back"], axis=0),
        ],
        {"x": f32(6, 4)},
        ["row", "back"],
        {"zero": scalar(0)},
    ),
    SeqCase(
        "split_scalar_even",
        [
            node("SplitToSequence", ["x", "two"], ["s"], axis=0),
            node("SequenceAt", ["s", "zero"], ["chunk"]),
            node("SequenceLength", ["s"], ["n"]),
        ],
        {"x": f32(6, 4)},
        ["chunk", "n"],
        {"two": scalar(2), "zero": scalar(0)},
    ),
    SeqCase(
        "split_scalar_uneven",
        [
            node("SplitToSequence", ["x", "two"], ["s"], axis=1),
            node("SequenceAt", ["s", "minus_one"], ["chunk"]),
            node("SequenceLength", ["s"], ["n"]),
        ],
        {"x": f32(3, 7)},
        ["chunk", "n"],
        {"two": scalar(2), "minus_one": scalar(-1)},
        unknown={"chunk": (1,)},
    ),
    SeqCase(
        "split_vector_equal",
        [
            node("SplitToSequence", ["x", "sizes"], ["s"], axis=0),
            node("SequenceAt", ["s", "zero"], ["chunk"]),
            node("ConcatFromSequence", ["s"], ["back"], axis=0),
        ],
        {"x": f32(6, 4)},
        ["chunk", "back"],
        {"sizes": i64(3, 3), "zero": scalar(0)},
    ),
    SeqCase(
        "split_vector_unequal",
        [
            node("SplitToSequence", ["x", "sizes"], ["s"], axis=-1),
            node("SequenceAt", ["s", "one"], ["chunk"]),
            node("SequenceLength", ["s"], ["n"]),
            node("ConcatFromSequence", ["s"], ["back"], axis=-1),
        ],
        {"x": f32(2, 6)},
        ["chunk", "n", "back"],
        {"sizes": i64(1, 5), "one": scalar(1)},
        unknown={"chunk": (1,), "back": (1,)},
    ),
    SeqCase(
        "split_runtime_sizes",
        [
            node("SplitToSequence", ["x", "sizes"], ["s"], axis=0),
            node("SequenceLength", ["s"], ["n"]),
            node("SequenceAt", ["s", "zero"], ["chunk"]),
        ],
        {"x": f32(6, 4), "sizes": i64(2, 4)},
        ["n", "chunk"],
        {"zero": scalar(0)},
        unknown={"chunk": (0,)},
    ),
]


def inferred(case: SeqCase, directory: Path) -> dict[str, tuple[str, tuple[int, ...]]]:
    path = directory / f"{case.name}.onnx"
    onnx.save(case.model(), path)
    graph, report = load_onnx_reported(path)
    found = {}
    for name in case.outputs:
        producer, index = report.tensors[name].rsplit(":", 1)
        desc = graph.desc(graph.tensor(producer, int(index)))
        found[name] = (desc.dtype.name, tuple(desc.shape))
    return found


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_sequence_ops_match_the_reference(case: SeqCase, tmp_path: Path) -> None:
    results = ReferenceEvaluator(case.model()).run(None, case.inputs)
    got = inferred(case, tmp_path)
    for name, result in zip(case.outputs, results, strict=True):
        want = np.asarray(result)
        dtype, shape = got[name]
        assert dtype == NP_TO_OPGRAPH[want.dtype], name
        unknown = case.unknown.get(name, ())
        expected = tuple(-1 if axis in unknown else d for axis, d in enumerate(want.shape))
        assert shape == expected, f"{name}: opgraph {shape}, reference {want.shape}"


def test_a_sequence_built_in_a_loop_is_stacked_after_it(tmp_path: Path) -> None:
    """TorchScript's list-in-a-loop: SequenceEmpty, a Loop inserting one
    row per iteration, ConcatFromSequence after it."""
    body = helper.make_graph(
        [
            node("Gather", ["x", "i"], ["row"], axis=0),
            node("SequenceInsert", ["seq_in", "row"], ["seq_out"]),
            node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_sequence_value_info("seq_in", TensorProto.FLOAT, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_sequence_value_info("seq_out", TensorProto.FLOAT, None),
        ],
    )
    case = SeqCase(
        "loop",
        [
            node("SequenceEmpty", [], ["empty"], dtype=TensorProto.FLOAT),
            node("Loop", ["trips", "yes", "empty"], ["rows"], body=body),
            node("ConcatFromSequence", ["rows"], ["stacked"], axis=0, new_axis=1),
            node("SequenceAt", ["rows", "zero"], ["first"]),
        ],
        {"x": f32(4, 5)},
        ["stacked", "first"],
        {"trips": scalar(4), "yes": np.array(True), "zero": scalar(0)},
    )
    results = ReferenceEvaluator(case.model()).run(None, case.inputs)
    assert isinstance(results, list)  # the outputs in order (not intermediate=True's dict)
    (stacked, first) = results
    got = inferred(case, tmp_path)
    assert got["stacked"][0] == got["first"][0] == "FLOAT"
    # The loop joins the empty initial sequence with the one each iteration
    # gives back: the element shape survives (an empty sequence constrains
    # nothing), the count does not.
    assert got["stacked"][1] == (-1, *stacked.shape[1:])
    assert got["first"][1] == first.shape


def test_inserting_another_dtype_names_the_node(tmp_path: Path) -> None:
    case = SeqCase(
        "bad_insert",
        [node("SequenceConstruct", ["a"], ["s"]), node("SequenceInsert", ["s", "k"], ["s2"], name="insert")],
        {"a": A, "k": i64(1, 2)},
        ["s2"],
    )
    path = tmp_path / "bad.onnx"
    onnx.save(case.model(), path)
    with pytest.raises(opgraph.OpgraphError, match=r"insert.*INT64.*FLOAT"):
        load_onnx_reported(path)


def test_concat_from_sequence_without_axis_is_a_parse_error(tmp_path: Path) -> None:
    case = SeqCase(
        "no_axis",
        [node("SequenceConstruct", ["a"], ["s"]), node("ConcatFromSequence", ["s"], ["y"], name="cat")],
        {"a": A},
        ["y"],
    )
    path = tmp_path / "no_axis.onnx"
    onnx.save(case.model(), path)
    with pytest.raises(opgraph.ParseError, match=r"cat.*axis"):
        load_onnx_reported(path)
