"""The hostile-input classes for the ONNX frontend (issues 12 and 14): models
built with the ``onnx`` package (an independent encoder), and truncated or
bit-flipped real models of the ONNX corpus. Each is a class, not a single
case: recursion through subgraphs and functions, name collisions at scale,
external data outside the model's directory or past its file, cycles,
dims and attributes that overflow, constants that would expand to GiBs."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onnx"))
import onnx_model_records as records

# The Case type lives in generate.py, which imports this module.
CaseFactory = Callable[..., Any]

#: Corpus models whose bytes are truncated and bit-flipped (weights beside them).
SEEDS = ("resnet18_ts11", "scripted_loop_if_ts13", "lstm_gru_tagger_ts13", "bert_dynamo")
OPSET = 17


def _value(name: str, dims: list[int | str] | None, elem: int = TensorProto.FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, dims)


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[str],
    initializers: Sequence[onnx.TensorProto] = (),
    functions: Sequence[onnx.FunctionProto] = (),
    opsets: list[onnx.OperatorSetIdProto] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "hostile", inputs, [_value(o, None) for o in outputs], list(initializers)
    )
    model = helper.make_model(
        graph,
        opset_imports=opsets or [helper.make_opsetid("", OPSET), helper.make_opsetid("local", 1)],
        functions=list(functions),
    )
    model.ir_version = 9
    return model


def _int64(name: str, values: list[int]) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def _nested_if(depth: int) -> onnx.ModelProto:
    """If inside If inside If ... ``depth`` levels (the else branches are
    leaves, so the file grows linearly): a bound on recursion."""
    leaf = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["inner"])], "leaf", [], [_value("inner", None)]
    )
    body = leaf
    for level in range(depth):
        node = helper.make_node("If", ["cond"], [f"y{level}"], then_branch=body, else_branch=leaf)
        body = helper.make_graph([node], f"level{level}", [], [_value(f"y{level}", None)])
    top = helper.make_node("If", ["cond"], ["y"], then_branch=body, else_branch=leaf)
    return _model([top], [_value("x", [2]), _value("cond", [], TensorProto.BOOL)], ["y"])


def _doubling_functions(depth: int, recursive: bool = False) -> onnx.ModelProto:
    """f0 … f_depth, each calling the next twice: a body copied per call
    site doubles per level (2^depth nodes)."""
    functions = []
    for i in range(depth):
        callee = "f0" if recursive and i == depth - 1 else f"f{i + 1}"
        nodes = [
            helper.make_node(callee, ["x"], ["a"], domain="local"),
            helper.make_node(callee, ["a"], ["y"], domain="local"),
        ]
        functions.append(
            helper.make_function("local", f"f{i}", ["x"], ["y"], nodes, [helper.make_opsetid("", OPSET)])
        )
    if not recursive:
        leaf = [helper.make_node("Relu", ["x"], ["y"])]
        functions.append(
            helper.make_function("local", f"f{depth}", ["x"], ["y"], leaf, [helper.make_opsetid("", OPSET)])
        )
    call = helper.make_node("f0", ["x"], ["y"], domain="local")
    return _model([call], [_value("x", [4])], ["y"], functions=functions)


def _function_calls(body: list[onnx.NodeProto], calls: int) -> onnx.ModelProto:
    """A chain of ``calls`` calls of one function f(x) -> y with ``body``."""
    f = helper.make_function("local", "f", ["x"], ["y"], body, [helper.make_opsetid("", OPSET)])
    nodes = [
        helper.make_node("f", ["x" if i == 0 else f"h{i - 1}"], [f"h{i}"], domain="local")
        for i in range(calls)
    ]
    return _model(nodes, [_value("x", [4])], [f"h{calls - 1}"], functions=[f])


def _function_with_big_branch(branch_nodes: int, calls: int) -> onnx.ModelProto:
    """A function whose If branch holds ``branch_nodes`` nodes: every call
    copies the branch, though the call's top level is two nodes."""
    steps = [
        helper.make_node("Relu", ["x" if i == 0 else f"r{i - 1}"], [f"r{i}"]) for i in range(branch_nodes)
    ]
    then_branch = helper.make_graph(steps, "then", [], [_value(f"r{branch_nodes - 1}", None)])
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])], "else", [], [_value("e", None)]
    )
    cond = helper.make_node(
        "Constant", [], ["c"], value=helper.make_tensor("c", TensorProto.BOOL, [], [True])
    )
    choose = helper.make_node("If", ["c"], ["y"], then_branch=then_branch, else_branch=else_branch)
    return _function_calls([cond, choose], calls)


def _function_with_a_name_of_counts(parts: int, calls: int) -> onnx.ModelProto:
    """A function value named "#1/#1/…/t" (``parts`` parts): the names the
    inliner checks its counts against must not grow with the square of a
    name's length."""
    long = "#1/" * parts + "t"
    return _function_calls(
        [helper.make_node("Neg", ["x"], [long]), helper.make_node("Identity", [long], ["y"])], calls
    )


def _shared_names(count: int) -> onnx.ModelProto:
    """``count`` nodes all named "n": unique names must not cost O(n^2)."""
    nodes = [
        helper.make_node("Relu", ["x" if i == 0 else f"v{i - 1}"], [f"v{i}"], name="n") for i in range(count)
    ]
    return _model(nodes, [_value("x", [2])], [f"v{count - 1}"])


def _external(location: str, offset: int = 0, length: int = 16) -> onnx.ModelProto:
    weight = onnx.TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4])
    weight.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    node = helper.make_node("Add", ["x", "w"], ["y"])
    return _model([node], [_value("x", [4])], ["y"], [weight])


def _cycle() -> onnx.ModelProto:
    nodes = [helper.make_node("Add", ["x", "b"], ["a"]), helper.make_node("Relu", ["a"], ["b"])]
    return _model(nodes, [_value("x", [2])], ["b"])


def _one_node(op: str, inputs: list[str], constants: list[onnx.TensorProto], **attrs: Any) -> onnx.ModelProto:
    node = helper.make_node(op, inputs, ["y"], **attrs)
    given = {c.name for c in constants}
    graph_inputs = [_value(name, [1, 4, 8, 8]) for name in inputs if name and name not in given]
    return _model([node], graph_inputs, ["y"], constants)


def _cases() -> Iterator[tuple[str, Callable[[], onnx.ModelProto], dict[str, Any]]]:
    big = 1 << 40
    # 30 levels: protobuf encoders and decoders stop at 100 nested messages
    # (3 per level); deeper files are refused by the decoder itself.
    yield "onnx_nested_if_30", lambda: _nested_if(30), {}
    yield "onnx_doubling_functions_24", lambda: _doubling_functions(24), {"must_fail": True}
    yield "onnx_recursive_functions", lambda: _doubling_functions(3, recursive=True), {"must_fail": True}
    yield "onnx_function_branch_copies", lambda: _function_with_big_branch(5_000, 100), {"must_fail": True}
    yield "onnx_function_name_of_counts", lambda: _function_with_a_name_of_counts(300_000, 50), {}
    yield "onnx_shared_names_200k", lambda: _shared_names(200_000), {"heavy": True}
    yield "onnx_external_dotdot", lambda: _external("../outside.bin"), {"must_fail": True}
    yield "onnx_external_absolute", lambda: _external("/etc/hostname"), {"must_fail": True}
    yield "onnx_external_missing", lambda: _external("absent.bin"), {"must_fail": True}
    yield "onnx_external_huge_offset", lambda: _external("w.bin", offset=1 << 62), {"must_fail": True}
    yield "onnx_cycle", _cycle, {"must_fail": True}
    yield (
        "onnx_constant_of_shape_1tib",
        lambda: _one_node("ConstantOfShape", ["s"], [_int64("s", [big, big])]),
        {},
    )
    yield (
        "onnx_expand_scalar_1g",
        lambda: _one_node(
            "Expand",
            ["c", "s"],
            [numpy_helper.from_array(np.array(1.0, np.float32), "c"), _int64("s", [1 << 15] * 2)],
        ),
        {},
    )
    yield (
        "onnx_range_2e62",
        lambda: _one_node(
            "Range", ["a", "b", "d"], [_scalar("a", 0), _scalar("b", 1 << 62), _scalar("d", 1)]
        ),
        {},
    )
    yield (
        "onnx_reshape_overflow",
        lambda: _one_node("Reshape", ["x", "s"], [_int64("s", [1 << 62, 1 << 62])]),
        {"must_fail": True},
    )
    yield (
        "onnx_conv_kernel_is_a_string",
        lambda: _one_node("Conv", ["x", "w"], [_weights(4, 4, 3, 3)], kernel_shape="3x3"),
        {"must_fail": True},
    )
    yield (
        "onnx_conv_huge_dilation",
        lambda: _one_node("Conv", ["x", "w"], [_weights(4, 4, 3, 3)], dilations=[1 << 62, 1]),
        {"must_fail": True},
    )
    yield (
        "onnx_resize_nan_scales",
        lambda: _one_node(
            "Resize",
            ["x", "", "s"],
            [numpy_helper.from_array(np.array([1, 1, np.nan, np.inf], np.float32), "s")],
        ),
        {"must_fail": True},
    )
    yield (
        "onnx_depth_to_space_block_2e32",
        lambda: _one_node("DepthToSpace", ["x"], [], blocksize=1 << 32),
        {"must_fail": True},
    )
    yield (
        "onnx_maxunpool_huge_stride",
        lambda: _one_node(
            "MaxUnpool", ["x", "i"], [_int64("i", [0] * 256)], kernel_shape=[2, 2], strides=[1 << 62, 1]
        ),
        {"must_fail": True},
    )
    yield "onnx_opset_2e62", lambda: _opset_huge(), {}


def _scalar(name: str, value: int) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def _weights(*dims: int) -> onnx.TensorProto:
    return numpy_helper.from_array(np.zeros(dims, np.float32), "w")


def _opset_huge() -> onnx.ModelProto:
    node = helper.make_node("Relu", ["x"], ["y"])
    return _model([node], [_value("x", [2])], ["y"], opsets=[helper.make_opsetid("", 1 << 62)])


def onnx_cases(out: Path, case: CaseFactory, *, write_big: bool = True) -> list[Any]:
    """Writes the built ONNX cases and the corpus mutations into ``out``."""
    cases = []
    for name, build, options in _cases():
        if write_big:
            onnx.save(build(), out / f"{name}.onnx")
        cases.append(case(name, "onnx", f"{name}.onnx", **options))
    for seed in SEEDS:
        data = b""
        if write_big:
            directory = out / f"seed_{seed}"
            directory.mkdir(exist_ok=True)
            data = records.model_file(seed, directory).read_bytes()
        for mutated_name, mutated in _mutations(seed, data):
            # Beside the seed, so its external weights are found.
            relative = f"seed_{seed}/{mutated_name}.onnx"
            if write_big:
                (out / relative).write_bytes(mutated)
            cases.append(case(mutated_name, "onnx", relative))
    return cases


def _mutations(seed: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    """Two truncations and two bit-flipped copies of a real model's bytes."""
    rng = random.Random(f"hostile:onnx:{seed}")
    for fraction in (0.33, 0.71):
        yield f"truncated{int(fraction * 100)}_onnx_{seed}", data[: int(len(data) * fraction)]
    for k in range(2):
        flipped = bytearray(data)
        for _ in range(1 + k * 4):
            if flipped:
                i = rng.randrange(len(flipped))
                flipped[i] ^= 1 << rng.randrange(8)
        yield f"bitflip{k}_onnx_{seed}", bytes(flipped)
