"""Builds the hostile-input suite (issue 12): every class of hostile model,
as files in a directory, with the options to load each.

Models are built as protobuf messages with the ``protobuf`` package and
opgraph's own schemas (``rust/core/proto``, compiled to descriptor sets with
``grpc_tools.protoc``), never as hand-written wire bytes; the only raw byte
edits are truncations and bit flips of real model files, which are the
point of those cases. Run as a script to write the cases somewhere to look
at them::

    python tests/hostile/generate.py OUT_DIR
"""

from __future__ import annotations

import builtins
import functools
import json
import random
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import text_format

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from onnx_hostile import onnx_cases
from schema_messages import message_classes

REPO = Path(__file__).resolve().parents[2]
# ../shared/models beside the checkout (or beside the folder holding a
# worktree of it), as the Caffe tests find it; absent, those seeds are skipped.
SHARED_MODELS = next(
    (c for c in (REPO.parent / "shared" / "models", REPO.parent.parent / "shared" / "models") if c.is_dir()),
    REPO.parent / "shared" / "models",
)

# TensorFlow DataType numbers (types.proto).
DT_FLOAT, DT_INT32, DT_STRING, DT_BOOL, DT_FLOAT_REF = 1, 3, 7, 10, 101


@dataclass
class Case:
    """One hostile model and how to load it. ``input_shapes`` go to the
    Python API, ``cli_input_shape`` to ``opgraph compile --input-shape``
    (ATC's syntax; a 23-digit dim only fits there). ``must_fail`` marks
    models TensorFlow or Caffe reject: they must end in a typed error."""

    name: str
    framework: str
    model: str
    weights: str | None = None
    custom_protos: list[str] = field(default_factory=list)
    input_shapes: dict[str, list[int]] | None = None
    cli_input_shape: str | None = None
    must_fail: bool = False
    # Big or deep: run first so the suite's wall time is not one long tail.
    heavy: bool = False


# ---------------------------------------------------------------- schemas


class TF:
    """Builders for GraphDef messages."""

    def __init__(self) -> None:
        m = message_classes(
            "tensorflow/graph.proto",
            ["tensorflow.GraphDef", "tensorflow.AttrValue", "tensorflow.FunctionDef"],
        )
        self.GraphDef = m["tensorflow.GraphDef"]
        self.AttrValue = m["tensorflow.AttrValue"]

    def graph(self) -> Any:
        g = self.GraphDef()
        g.versions.producer = 1087
        return g

    def node(self, parent: Any, name: str, op: str, inputs: tuple[str, ...] = (), **attrs: Any) -> Any:
        n = parent.node.add() if hasattr(parent, "versions") else parent.node_def.add()
        n.name, n.op = name, op
        n.input.extend(inputs)
        for key, value in attrs.items():
            n.attr[key].CopyFrom(value)
        return n

    def type(self, dtype: int) -> Any:
        return self.AttrValue(type=dtype)

    def types(self, *dtypes: int) -> Any:
        a = self.AttrValue()
        a.list.type.extend(dtypes)
        return a

    def int(self, value: builtins.int) -> Any:
        return self.AttrValue(i=value)

    def ints(self, *values: builtins.int) -> Any:
        a = self.AttrValue()
        a.list.i.extend(values)
        return a

    def str(self, value: builtins.str) -> Any:
        return self.AttrValue(s=value.encode())

    def shape(self, dims: list[builtins.int]) -> Any:
        a = self.AttrValue()
        for d in dims:
            a.shape.dim.add(size=d)
        return a

    def func(self, name: builtins.str) -> Any:
        a = self.AttrValue()
        a.func.name = name
        return a

    def tensor(self, dtype: builtins.int, dims: list[builtins.int], **values: Any) -> Any:
        a = self.AttrValue()
        a.tensor.dtype = dtype
        for d in dims:
            a.tensor.tensor_shape.dim.add(size=d)
        for key, value in values.items():
            if isinstance(value, list):
                getattr(a.tensor, key).extend(value)
            else:
                setattr(a.tensor, key, value)
        return a

    def placeholder(
        self, g: Any, name: builtins.str, dims: list[builtins.int], dtype: builtins.int = DT_FLOAT
    ) -> Any:
        return self.node(g, name, "Placeholder", dtype=self.type(dtype), shape=self.shape(dims))

    def const(
        self, g: Any, name: builtins.str, dtype: builtins.int, dims: list[builtins.int], **values: Any
    ) -> Any:
        return self.node(g, name, "Const", dtype=self.type(dtype), value=self.tensor(dtype, dims, **values))

    def function(
        self,
        g: Any,
        name: builtins.str,
        inputs: list[tuple[builtins.str, builtins.int]],
        outputs: list[tuple[builtins.str, builtins.int]],
    ) -> Any:
        f = g.library.function.add()
        f.signature.name = name
        for arg, dtype in inputs:
            f.signature.input_arg.add(name=arg, type=dtype)
        for arg, dtype in outputs:
            f.signature.output_arg.add(name=arg, type=dtype)
        return f


# ------------------------------------------------------ TensorFlow classes


def _one_op(
    tf: TF, op: str, x_dims: list[int], extra: Callable[[Any], list[str]] | None = None, **attrs: Any
) -> Any:
    """``x`` (a Placeholder) → ``op`` → the graph output."""
    g = tf.graph()
    tf.placeholder(g, "x", x_dims)
    inputs = ["x", *(extra(g) if extra else [])]
    tf.node(g, "op", op, tuple(inputs), **attrs)
    return g


def _doubling_library(tf: TF, depth: int, via_if: bool) -> Any:
    """f0 … f{depth}: each f_i calls f_{i+1} twice (two nested calls, or
    an If whose branches are both f_{i+1}); the main graph calls f0 once."""
    g = tf.graph()
    tf.placeholder(g, "x", [1, 8])
    tf.node(
        g, "call", "PartitionedCall", ("x",), Tin=tf.types(DT_FLOAT), Tout=tf.types(DT_FLOAT), f=tf.func("f0")
    )
    for i in range(depth):
        f = tf.function(g, f"f{i}", [("x", DT_FLOAT)], [("y", DT_FLOAT)])
        callee = tf.func(f"f{i + 1}")
        if via_if:
            tf.const(f, "c", DT_BOOL, [], bool_val=[True])
            tf.node(
                f,
                "branch",
                "If",
                ("c:output:0", "x"),
                Tcond=tf.type(DT_BOOL),
                Tin=tf.types(DT_FLOAT),
                Tout=tf.types(DT_FLOAT),
                then_branch=callee,
                else_branch=callee,
            )
            f.ret["y"] = "branch:output:0"
        else:
            io = {"Tin": tf.types(DT_FLOAT), "Tout": tf.types(DT_FLOAT), "f": callee}
            tf.node(f, "a", "PartitionedCall", ("x",), **io)
            tf.node(f, "b", "PartitionedCall", ("a:output:0",), **io)
            f.ret["y"] = "b:output:0"
    leaf = tf.function(g, f"f{depth}", [("x", DT_FLOAT)], [("y", DT_FLOAT)])
    tf.node(leaf, "id", "Identity", ("x",), T=tf.type(DT_FLOAT))
    leaf.ret["y"] = "id:output:0"
    return g


def _call_chain(tf: TF, length: int, recursive: bool = False) -> Any:
    """f0 calls f1 … calls f{length-1} (or f0 calls itself)."""
    g = tf.graph()
    tf.placeholder(g, "x", [1, 8])
    io = {"Tin": tf.types(DT_FLOAT), "Tout": tf.types(DT_FLOAT)}
    tf.node(g, "call", "PartitionedCall", ("x",), f=tf.func("f0"), **io)
    for i in range(1 if recursive else length):
        f = tf.function(g, f"f{i}", [("x", DT_FLOAT)], [("y", DT_FLOAT)])
        if recursive or i + 1 < length:
            tf.node(f, "c", "PartitionedCall", ("x",), f=tf.func("f0" if recursive else f"f{i + 1}"), **io)
        else:
            tf.node(f, "c", "Identity", ("x",), T=tf.type(DT_FLOAT))
        f.ret["y"] = "c:output:0"
    return g


def _identity_chains(tf: TF, chains: int, length: int, op: str = "Identity", cycle: bool = False) -> Any:
    """``chains`` chains of ``length`` view ops from one Placeholder (the
    first node reads the last when ``cycle``)."""
    g = tf.graph()
    tf.placeholder(g, "x", [1, 8])
    for c in range(chains):
        prev = f"c{c}_{length - 1}" if cycle else "x"
        for i in range(length):
            node = g.node.add()
            node.name, node.op = f"c{c}_{i}", op
            node.input.append(prev)
            node.attr["T"].type = DT_FLOAT
            prev = node.name
    return g


def _tf_cases(tf: TF) -> Iterator[tuple[Case, Callable[[], Any]]]:
    """(case, GraphDef builder) for every TensorFlow class of issue 12; the
    builders run only when the files are written."""

    def case(name: str, graph: Callable[[], Any], **kw: Any) -> tuple[Case, Callable[[], Any]]:
        heavy = any(mark in name for mark in ("doubling", "_100k", "1000x1000", "_1m", "splat", "recursive"))
        return Case(name, "tensorflow", f"{name}.pb", heavy=heavy, **kw), graph

    # 1. Function bodies copied per call site: memory doubles per level.
    yield case("doubling_if_depth20", lambda: _doubling_library(tf, 20, via_if=True))
    yield case("doubling_call_depth20", lambda: _doubling_library(tf, 20, via_if=False))
    yield case("recursive_function", lambda: _call_chain(tf, 1, recursive=True), must_fail=True)
    # 2. A 100,000-function call chain (beyond the nesting-depth limit).
    yield case("function_chain_100k", lambda: _call_chain(tf, 100_000), must_fail=True)
    # 3. View chains: estimate_cost must stay near linear.
    for op in ("Identity", "StopGradient", "Snapshot"):
        yield case(f"{op.lower()}_chain_100k", functools.partial(_identity_chains, tf, 1, 100_000, op))
    yield case("identity_chains_1000x1000", lambda: _identity_chains(tf, 1000, 1000))
    # 4. Unchecked arithmetic on attributes and dims.
    for op in ("DepthToSpace", "SpaceToDepth"):
        for block in (2**32, 2**61 + 4, 0, -3):
            yield case(
                f"{op.lower()}_block_{block}".replace("-", "neg"),
                functools.partial(
                    _one_op, tf, op, [1, 4, 4, 16], T=tf.type(DT_FLOAT), block_size=tf.int(block)
                ),
                must_fail=True,
            )

    def filt(dims: list[int]) -> Callable[[Any], list[str]]:
        return lambda g: [tf.const(g, "w", DT_FLOAT, dims, float_val=[1.0]).name]

    conv = {"T": tf.type(DT_FLOAT), "padding": tf.str("VALID")}
    yield case(
        "conv2d_huge_strides",
        lambda: _one_op(
            tf, "Conv2D", [1, 8, 8, 3], filt([3, 3, 3, 4]), strides=tf.ints(1, 2**62, 2**62, 1), **conv
        ),
    )
    yield case(
        "conv2d_huge_dilations",
        lambda: _one_op(
            tf,
            "Conv2D",
            [1, 8, 8, 3],
            filt([3, 3, 3, 4]),
            strides=tf.ints(1, 1, 1, 1),
            dilations=tf.ints(1, 2**62, 2**62, 1),
            **conv,
        ),
    )
    yield case(
        "placeholder_huge_dims", lambda: _one_op(tf, "Relu", [2**62, 2**62, 2**62], T=tf.type(DT_FLOAT))
    )
    # 5. Invalid input_shapes (the model is fine).
    base = _one_op(tf, "Relu", [-1, 8, 8, 3], T=tf.type(DT_FLOAT))
    yield case(
        "input_shape_negative",
        lambda: base,
        input_shapes={"x": [-7, 8, 8, 3]},
        cli_input_shape="x:-5,8,8,3",
        must_fail=True,
    )
    yield case(
        "input_shape_int64_overflow",
        lambda: base,
        input_shapes={"x": [2**70, 8, 8, 3]},
        cli_input_shape="x:" + "9" * 23 + ",8,8,3",
        must_fail=True,
    )
    yield case(
        "input_shape_misplaced_unknown_rank",
        lambda: base,
        input_shapes={"x": [-2, 3]},
        cli_input_shape="x:-2,3",
        must_fail=True,
    )
    yield case(
        "input_shape_rank_300",
        lambda: base,
        input_shapes={"x": [1] * 300},
        cli_input_shape="x:" + ",".join(["1"] * 300),
        must_fail=True,
    )
    # 7. Accepted without error today (each is an error in TensorFlow).
    yield case(
        "conv2d_zero_channel_filter",
        lambda: _one_op(tf, "Conv2D", [1, 8, 8, 0], filt([3, 3, 0, 4]), strides=tf.ints(1, 1, 1, 1), **conv),
        must_fail=True,
    )
    yield case(
        "conv2d_zero_window_filter",
        lambda: _one_op(tf, "Conv2D", [1, 8, 8, 3], filt([0, 0, 3, 4]), strides=tf.ints(1, 1, 1, 1), **conv),
        must_fail=True,
    )
    yield case(
        "conv2d_without_padding",
        lambda: _one_op(
            tf, "Conv2D", [1, 8, 8, 3], filt([3, 3, 3, 4]), strides=tf.ints(1, 1, 1, 1), T=tf.type(DT_FLOAT)
        ),
        must_fail=True,
    )
    yield case(
        "cast_to_float_ref",
        lambda: _one_op(tf, "Cast", [2, 3], SrcT=tf.type(DT_FLOAT), DstT=tf.type(DT_FLOAT_REF)),
        must_fail=True,
    )
    g = tf.graph()
    tf.const(g, "c", DT_FLOAT_REF, [2], float_val=[1.0, 2.0])
    yield case("const_float_ref", lambda: g, must_fail=True)
    g = tf.graph()
    tf.node(g, "c", "Const", dtype=tf.type(DT_FLOAT), value=tf.tensor(DT_INT32, [2], int_val=[1, 2]))
    yield case("const_dtype_mismatch", lambda: g, must_fail=True)
    g = tf.graph()
    # Two strings whose varint lengths claim more bytes than the content holds.
    tf.const(g, "c", DT_STRING, [2], tensor_content=bytes([0x7F, 0x7F, 0x61]))
    yield case("const_bad_string_content", lambda: g, must_fail=True)

    # 8. Unbounded messages.
    def rank_1m() -> Any:
        g = tf.graph()
        tf.placeholder(g, "x", [1] * 1_000_000)
        return g

    yield case("placeholder_rank_1m", rank_1m, must_fail=True)
    yield case("cycle_100k", lambda: _identity_chains(tf, 1, 100_000, cycle=True), must_fail=True)
    g = tf.graph()
    tf.placeholder(g, "a", [2, 3])
    tf.placeholder(g, "b", [3, 4])
    tf.node(g, "e", "Einsum", ("a", "b"), T=tf.type(DT_FLOAT), N=tf.int(2), equation=tf.str("éj,jk->ék"))
    yield case("einsum_non_ascii", lambda: g)
    # 9. A tiny splat Const that expands to 1 GiB.
    g = tf.graph()
    tf.const(g, "c", DT_FLOAT, [2**28], float_val=[1.5])
    tf.node(g, "r", "Relu", ("c",), T=tf.type(DT_FLOAT))
    yield case("splat_const_1gib", lambda: g)


# ------------------------------------------------------------ Caffe classes

CONV_NET = """\
name: "hostile"
input: "data"
input_shape {{ dim: 1 dim: 3 dim: 8 dim: 8 }}
{layers}
"""


def _caffe_cases(out: Path) -> Iterator[Case]:
    net_cls = message_classes("caffe/caffe.proto", ["caffe.NetParameter"])["caffe.NetParameter"]

    def net(name: str, layers: str, **kw: Any) -> Case:
        text = CONV_NET.format(layers=layers)
        text_format.Parse(text, net_cls())  # a valid NetParameter by protobuf's own parser
        (out / f"{name}.prototxt").write_text(text)
        return Case(name, "caffe", f"{name}.prototxt", **kw)

    yield net(
        "global_pooling_with_kernel_size",
        'layer { name: "p" type: "Pooling" bottom: "data" top: "p"'
        " pooling_param { pool: MAX global_pooling: true kernel_size: 3 } }",
        must_fail=True,
    )
    relu = 'layer { name: "r" type: "ReLU" bottom: "data" top: "r" }'
    yield net(
        "caffe_input_shape_negative",
        relu,
        input_shapes={"data": [1, -3, 8, 8]},
        cli_input_shape="data:1,-3,8,8",
        must_fail=True,
    )
    yield net(
        "caffe_input_shape_23_digits",
        relu,
        input_shapes={"data": [1, 3, 2**75, 8]},
        cli_input_shape="data:1,3," + "1" * 23 + ",8",
        must_fail=True,
    )
    # custom.proto: one message defined twice; a stock field number reused.
    (out / "custom_twice.proto").write_text(
        'syntax = "proto2";\npackage caffe;\n'
        "message MyParameter { optional int32 a = 1; }\n"
        "message MyParameter { optional int32 b = 2; }\n"
        "message LayerParameter { optional MyParameter my_param = 9001; }\n"
    )
    yield net("custom_proto_message_twice", relu, custom_protos=["custom_twice.proto"], must_fail=True)
    (out / "custom_stock_number.proto").write_text(
        'syntax = "proto2";\npackage caffe;\nmessage LayerParameter { optional string my_name = 1; }\n'
    )
    yield net(
        "custom_proto_stock_field_number", relu, custom_protos=["custom_stock_number.proto"], must_fail=True
    )
    # An overlong packed blob: a real caffemodel cut inside its last blob's
    # packed data (the length prefix then claims bytes that are not there).
    weights = net_cls()
    layer = weights.layer.add(name="conv", type="Convolution")
    blob = layer.blobs.add()
    blob.shape.dim.extend([4, 3, 3, 3])
    blob.data.extend([0.5] * 108)
    data = weights.SerializeToString()
    (out / "overlong_blob.caffemodel").write_bytes(data[: len(data) - 40])
    yield net(
        "caffemodel_overlong_packed_blob",
        'layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"'
        " convolution_param { num_output: 4 kernel_size: 3 } }",
        weights="overlong_blob.caffemodel",
        must_fail=True,
    )


# --------------------------------------------------------- mutated real files


def _seeds() -> list[tuple[Path, str]]:
    """Real model files to truncate and bit-flip, with their framework."""
    tf_data = REPO / "tests" / "tensorflow" / "data"
    caffe_data = REPO / "tests" / "caffe" / "data"
    seeds = [
        (tf_data / n, "tensorflow")
        for n in ("decode_conv_cond.pb", "model_convnet.pb", "model_control_flow.pb")
    ]
    seeds += [(tf_data / "decode_conv_cond.pbtxt", "tensorflow")]
    seeds += [
        (caffe_data / n, "caffe")
        for n in ("decode_v1.prototxt", "decode_inplace.prototxt", "layers_zoo.prototxt")
    ]
    seeds += [(caffe_data / "decode_v1.caffemodel", "caffe")]
    shared = SHARED_MODELS / "caffe"
    if shared.is_dir():
        seeds += [(p, "caffe") for p in sorted(shared.glob("*.prototxt"))[:3]]
    return seeds


def _mutations(seed: Path, framework: str, out: Path) -> Iterator[Case]:
    data = seed.read_bytes()
    rng = random.Random(f"hostile:{seed.name}")
    stem = f"{seed.parent.parent.name}_{seed.stem}_{seed.suffix[1:]}"
    for fraction in (0.33, 0.71):
        cut = int(len(data) * fraction)
        yield _mutated(out, seed, framework, f"truncated{int(fraction * 100)}_{stem}", data[:cut])
    for k in range(2):
        flipped = bytearray(data)
        for _ in range(1 + k * 4):
            i = rng.randrange(len(flipped))
            flipped[i] ^= 1 << rng.randrange(8)
        yield _mutated(out, seed, framework, f"bitflip{k}_{stem}", bytes(flipped))


def _mutated(out: Path, seed: Path, framework: str, name: str, data: bytes) -> Case:
    if seed.suffix == ".caffemodel":
        # A mutated weights file with the net it belongs to.
        net = seed.with_suffix(".prototxt")
        (out / f"{name}.caffemodel").write_bytes(data)
        return Case(name, framework, str(net), weights=f"{name}.caffemodel")
    (out / f"{name}{seed.suffix}").write_bytes(data)
    return Case(name, framework, f"{name}{seed.suffix}")


# --------------------------------------------------------------------- all


def case_names() -> list[str]:
    """Every case's name (the test ids), without building anything big."""
    with tempfile.TemporaryDirectory() as tmp:
        return [c.name for c in generate(Path(tmp), write_big=False)]


def generate(out: Path, *, write_big: bool = True) -> list[Case]:
    """Writes every case's files into ``out``; returns the cases with their
    file names made absolute. ``write_big=False`` lists them only."""
    out.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []
    tf = TF()
    for case, build in _tf_cases(tf):
        if write_big:
            (out / case.model).write_bytes(build().SerializeToString())
        cases.append(case)
    cases += _caffe_cases(out)
    for seed, framework in _seeds():
        cases += _mutations(seed, framework, out)
    cases += onnx_cases(out, Case, write_big=write_big)
    for case in cases:
        case.model = str(out / case.model)
        case.weights = None if case.weights is None else str(out / case.weights)
        case.custom_protos = [str(out / p) for p in case.custom_protos]
    return cases


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("hostile_cases")
    built = generate(target)
    (target / "cases.json").write_text(json.dumps([asdict(c) for c in built], indent=1))
    print(f"wrote {len(built)} cases to {target}")
