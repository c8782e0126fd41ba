"""Hypothesis draws of shape programs: the integer arithmetic exporters
wrap around shapes, on one float input whose dims are static or symbolic.

PyTorch writes ``x.view(x.size(0), -1)`` as Shape → Gather → Unsqueeze →
Concat → Reshape, ``expand`` as ``Where(Equal(shape, -1), ones, shape)``,
an interpolation size as Cast → Mul → Floor → Cast. A drawn program chains
such steps at random; every value it computes is a graph output, so
onnxruntime reports each one. The draw tracks what each value will be
(numpy) only to pick steps that stay valid (a Reshape whose sizes divide,
an Expand that broadcasts); the judge trusts onnxruntime alone."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx_node_draws import i64

#: Opsets drawn: Shape took start/end at 15, ReduceProd's axes became an
#: input at 18.
OPSETS = (13, 15, 17, 18)
#: The most elements a drawn tensor may have (keeps onnxruntime quick).
MAX_ELEMENTS = 2000
#: Integer values stay below this magnitude: opgraph leaves an overflowing
#: element unknown where onnxruntime wraps (INT32 casts, int64 products),
#: and a static program must fold every value.
MAX_MAGNITUDE = 2**31
#: The most elements opgraph folds in a float value (its FLOAT_FOLD_LIMIT).
FLOAT_FOLD_LIMIT = 256


@dataclass
class Program:
    """An ONNX graph under construction, with what each value will hold."""

    opset: int
    dims: list[int | str]  # the input's declared dims: a size or a symbol
    x: np.ndarray  # the input fed to onnxruntime
    constant_nodes: bool  # constants as Constant nodes (TorchScript) or initializers
    nodes: list[onnx.NodeProto] = field(default_factory=list)
    initializers: list[onnx.TensorProto] = field(default_factory=list)
    #: Value name → what it holds on ``x`` (numpy's reading of the op).
    values: dict[str, np.ndarray] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    #: Integer outputs computed from the input's data, not its shape
    #: (TopK's indices): no step reads them, and nothing folds them.
    data_dependent: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.values["x"] = self.x

    @property
    def symbolic(self) -> bool:
        return any(isinstance(d, str) for d in self.dims)

    def const(self, array: np.ndarray) -> str:
        name = f"c{len(self.values)}"
        if self.constant_nodes:
            self.nodes.append(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array)))
        else:
            self.initializers.append(numpy_helper.from_array(array, name))
        self.values[name] = array
        return name

    def op(self, op_type: str, inputs: list[str], result: np.ndarray, **attrs: Any) -> str:
        name = f"v{len(self.values)}"
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=f"n{len(self.nodes)}", **attrs))
        self.values[name] = result
        self.outputs.append(name)
        return name

    def ints(self, rank: int | None = None) -> list[str]:
        """The int64 values computed so far (of ``rank`` when given)."""
        return [
            n
            for n, v in self.values.items()
            if n in self.outputs
            and n not in self.data_dependent
            and v.dtype == np.int64
            and (rank is None or v.ndim == rank)
        ]

    def tensors(self) -> list[str]:
        return ["x", *(n for n in self.outputs if self.values[n].dtype == np.float32)]

    def model(self) -> onnx.ModelProto:
        declared = helper.make_tensor_value_info("x", TensorProto.FLOAT, self.dims)
        # Outputs without a type: onnxruntime refuses UNDEFINED element types.
        outputs = [onnx.ValueInfoProto(name=o) for o in self.outputs]
        graph = helper.make_graph(self.nodes, "program", [declared], outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        return model

    @property
    def id(self) -> str:
        steps = " ".join(n.op_type for n in self.nodes if n.op_type != "Constant")
        return f"x{list(self.dims)}@{self.opset}: {steps}"


Step = Callable[[Program, st.DataObject], bool]
STEPS: dict[str, Step] = {}


def _step(draw: Step) -> Step:
    STEPS[draw.__name__] = draw
    return draw


def _count(sizes: Any) -> int:
    """The product of ``sizes`` in Python integers (numpy's int64 wraps)."""
    return math.prod(int(n) for n in sizes)


def _fits(sizes: Any) -> bool:
    """Whether a tensor of ``sizes`` may be drawn: no size negative, and the
    product of the non-zero ones at most :data:`MAX_ELEMENTS` (a 0 among
    them empties the tensor, but numpy still refuses a shape whose other
    sizes overflow its byte count)."""
    return all(int(n) >= 0 for n in sizes) and _count(n for n in sizes if n) <= MAX_ELEMENTS


def _small(values: np.ndarray) -> bool:
    """Whether every element is below :data:`MAX_MAGNITUDE`."""
    return bool((np.abs(values) < MAX_MAGNITUDE).all())


def _partners(p: Program, a: str) -> list[str]:
    """The other integer values an element-wise op may pair with ``a``:
    scalars, and values of ``a``'s shape."""
    return [n for n in p.ints() if n != a and p.values[n].shape in ((), p.values[a].shape)]


def _pick(d: st.DataObject, names: list[str]) -> str | None:
    return d.draw(st.sampled_from(names)) if names else None


@_step
def shape(p: Program, d: st.DataObject) -> bool:
    t = d.draw(st.sampled_from(p.tensors()))
    rank = p.values[t].ndim
    attrs: dict[str, int] = {}
    if p.opset >= 15:
        for key in ("start", "end"):
            if d.draw(st.booleans()):
                attrs[key] = d.draw(st.integers(-rank - 1, rank + 1))
    dims = p.values[t].shape[attrs.get("start", 0) : attrs.get("end", rank)]
    p.op("Shape", [t], i64(dims), **attrs)
    return True


@_step
def gather(p: Program, d: st.DataObject) -> bool:
    v = _pick(d, p.ints(1))
    if v is None or len(p.values[v]) == 0:
        return False
    n = len(p.values[v])
    index = i64(d.draw(st.integers(-n, n - 1)))
    if d.draw(st.booleans()):
        index = i64(d.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
    p.op("Gather", [v, p.const(index)], p.values[v][index], axis=0)
    return True


@_step
def slice_(p: Program, d: st.DataObject) -> bool:
    v = _pick(d, p.ints(1))
    if v is None:
        return False
    n = len(p.values[v])
    start, end = (d.draw(st.integers(-n - 2, n + 2)) for _ in range(2))
    step = d.draw(st.sampled_from([1, 1, 2, -1]))
    inputs = [v, p.const(i64([start])), p.const(i64([end]))]
    if step != 1 or d.draw(st.booleans()):
        inputs += [p.const(i64([0])), p.const(i64([step]))]
    p.op("Slice", inputs, p.values[v][slice(start, end, step)])
    return True


@_step
def unsqueeze(p: Program, d: st.DataObject) -> bool:
    s = _pick(d, p.ints(0))
    if s is None:
        return False
    p.op("Unsqueeze", [s, p.const(i64([0]))], p.values[s].reshape(1))
    return True


@_step
def concat(p: Program, d: st.DataObject) -> bool:
    a = _pick(d, p.ints(1))
    if a is None:
        return False
    b = _pick(d, p.ints(1)) if d.draw(st.booleans()) else None
    if b is None:
        b = p.const(i64(d.draw(st.lists(st.integers(1, 4), min_size=1, max_size=2))))
    first, second = (a, b) if d.draw(st.booleans()) else (b, a)
    p.op("Concat", [first, second], np.concatenate([p.values[first], p.values[second]]), axis=0)
    return True


#: Integer arithmetic as onnxruntime does it (Div truncates toward zero).
ARITHMETIC: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Div": lambda a, b: np.trunc(a / b).astype(np.int64),
    "Max": np.maximum,
    "Min": np.minimum,
}


@_step
def arithmetic(p: Program, d: st.DataObject) -> bool:
    a = _pick(d, p.ints())
    if a is None:
        return False
    op_type = d.draw(st.sampled_from(sorted(ARITHMETIC)))
    low = 1 if op_type == "Div" else -2
    value = p.values[a]
    partners = _partners(p, a)
    b = _pick(d, partners) if d.draw(st.booleans()) else None
    if b is None or (op_type == "Div" and (p.values[b] == 0).any()):
        shape = () if d.draw(st.booleans()) else value.shape
        b = p.const(np.full(shape, d.draw(st.integers(low, 4)), np.int64))
    first, second = (a, b) if op_type == "Div" or d.draw(st.booleans()) else (b, a)
    with np.errstate(all="ignore"):
        result = ARITHMETIC[op_type](p.values[first], p.values[second])
    if not _small(result):  # operands below 2**31: an int64 product cannot wrap
        return False
    p.op(op_type, [first, second], i64(result))
    return True


@_step
def scaled(p: Program, d: st.DataObject) -> bool:
    """An interpolation size: ``floor(size * scale)`` done in float."""
    a = _pick(d, [n for n in p.ints() if p.values[n].size <= FLOAT_FOLD_LIMIT])
    if a is None:
        return False
    scale = np.float32(d.draw(st.sampled_from([0.5, 0.75, 1.5, 2.0])))
    op_type = d.draw(st.sampled_from(["Mul", "Div"]))
    if not _small(p.values[a].astype(np.float64) * 2):
        return False
    as_float = p.op("Cast", [a], p.values[a].astype(np.float32), to=TensorProto.FLOAT)
    product = p.values[as_float] * scale if op_type == "Mul" else p.values[as_float] / scale
    scaled_value = p.op(
        op_type, [as_float, p.const(np.asarray(scale, np.float32))], product.astype(np.float32)
    )
    rounding = d.draw(st.sampled_from(["Floor", "Ceil"]))
    rounded = p.op(rounding, [scaled_value], getattr(np, rounding.lower())(product).astype(np.float32))
    p.op("Cast", [rounded], p.values[rounded].astype(np.int64), to=TensorProto.INT64)
    return True


@_step
def reduce_prod(p: Program, d: st.DataObject) -> bool:
    v = _pick(d, p.ints(1))
    if v is None:
        return False
    keepdims = d.draw(st.sampled_from([0, 1]))
    product = _count(p.values[v])
    if abs(product) >= MAX_MAGNITUDE:
        return False
    result = i64(product).reshape(1) if keepdims else i64(product)
    # "All axes" either way: no axes, or axis 0 (an attribute before 18).
    if not d.draw(st.booleans()):
        p.op("ReduceProd", [v], result, keepdims=keepdims)
    elif p.opset >= 18:
        p.op("ReduceProd", [v, p.const(i64([0]))], result, keepdims=keepdims)
    else:
        p.op("ReduceProd", [v], result, keepdims=keepdims, axes=[0])
    return True


@_step
def where_minus_one(p: Program, d: st.DataObject) -> bool:
    """PyTorch's ``expand``: -1 entries of a shape become another's entry."""
    v = _pick(d, p.ints(1))
    if v is None:
        return False
    value = p.values[v]
    mark = d.draw(st.sampled_from([-1, 1, 2]))
    equal = p.op("Equal", [v, p.const(i64(mark))], value == mark)
    # The entries to fill in: ones, or another shape of the same length.
    fill = _pick(d, [n for n in p.ints(1) if n != v and p.values[n].shape == value.shape])
    if fill is None or d.draw(st.booleans()):
        fill = p.const(np.ones_like(value))
    p.op("Where", [equal, fill, v], np.where(value == mark, p.values[fill], value))
    return True


#: Comparisons as numpy does them.
COMPARISONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "Equal": np.equal,
    "Less": np.less,
    "Greater": np.greater,
    "LessOrEqual": np.less_equal,
    "GreaterOrEqual": np.greater_equal,
}


@_step
def compare_select(p: Program, d: st.DataObject) -> bool:
    """``torch.where(a < b, a, b)`` and the like, on two computed values."""
    a = _pick(d, p.ints())
    if a is None:
        return False
    b = _pick(d, _partners(p, a))
    if b is None:
        return False
    op_type = d.draw(st.sampled_from(sorted(COMPARISONS)))
    condition = COMPARISONS[op_type](p.values[a], p.values[b])
    compared = p.op(op_type, [a, b], condition)
    if d.draw(st.booleans()):
        compared = p.op("Not", [compared], ~condition)
        condition = ~condition
    first, second = (a, b) if d.draw(st.booleans()) else (b, a)
    p.op("Where", [compared, first, second], np.where(condition, p.values[first], p.values[second]))
    return True


@_step
def range_(p: Program, d: st.DataObject) -> bool:
    s = _pick(d, [n for n in p.ints(0) if 0 <= p.values[n] <= 64])
    if s is None:
        return False
    start, delta = d.draw(st.integers(0, 2)), d.draw(st.integers(1, 2))
    result = np.arange(start, int(p.values[s]), delta, dtype=np.int64)
    p.op("Range", [p.const(i64(start)), s, p.const(i64(delta))], result)
    return True


@_step
def reshape(p: Program, d: st.DataObject) -> bool:
    """``x.view(*sizes, -1)`` with sizes that divide x's."""
    t = d.draw(st.sampled_from(p.tensors()))
    size = p.values[t].size

    def divides(n: str) -> bool:
        sizes = p.values[n]
        return bool((sizes > 0).all()) and _fits(sizes) and size % max(1, _count(sizes)) == 0

    v = _pick(d, [n for n in p.ints(1) if divides(n)])
    if v is None:
        return False
    target = p.op("Concat", [v, p.const(i64([-1]))], np.append(p.values[v], -1), axis=0)
    p.op("Reshape", [t, target], p.values[t].reshape(p.values[target]))
    return True


@_step
def expand(p: Program, d: st.DataObject) -> bool:
    t = d.draw(st.sampled_from(p.tensors()))

    def broadcasts(n: str) -> bool:
        try:
            out = np.broadcast_shapes(p.values[t].shape, tuple(p.values[n]))
        except ValueError:
            return False
        return _fits(out)

    v = _pick(d, [n for n in p.ints(1) if (p.values[n] >= 0).all() and broadcasts(n)])
    if v is None:
        return False
    # Expand broadcasts both ways: a 1 in the shape keeps x's dim.
    out = np.broadcast_shapes(p.values[t].shape, tuple(p.values[v]))
    p.op("Expand", [t, v], np.broadcast_to(p.values[t], out).copy())
    return True


@_step
def constant_of_shape(p: Program, d: st.DataObject) -> bool:
    v = _pick(d, [n for n in p.ints(1) if _fits(p.values[n])])
    if v is None:
        return False
    p.op("ConstantOfShape", [v], np.zeros(tuple(p.values[v]), np.float32))
    return True


@_step
def tile(p: Program, d: st.DataObject) -> bool:
    t = d.draw(st.sampled_from([n for n in p.tensors() if p.values[n].ndim >= 1]))
    value = p.values[t]

    def fits(n: str) -> bool:
        repeats = p.values[n]
        return (
            len(repeats) == value.ndim
            and bool((repeats >= 0).all())
            and _fits([s * int(r) for s, r in zip(value.shape, repeats, strict=True)])
        )

    v = _pick(d, [n for n in p.ints(1) if fits(n)])
    if v is None:
        return False
    p.op("Tile", [t, v], np.tile(value, tuple(p.values[v])))
    return True


@_step
def squeeze(p: Program, d: st.DataObject) -> bool:
    v = _pick(d, [n for n in p.ints(1) if len(p.values[n]) == 1])
    if v is None:
        return False
    inputs = [v, p.const(i64([0]))] if d.draw(st.booleans()) else [v]
    p.op("Squeeze", inputs, p.values[v].reshape(()))
    return True


@_step
def int32_round_trip(p: Program, d: st.DataObject) -> bool:
    """TorchScript's casts of sizes to INT32 and back."""
    v = _pick(d, p.ints())
    if v is None:
        return False
    narrow = p.op("Cast", [v], p.values[v].astype(np.int32), to=TensorProto.INT32)
    p.op("Cast", [narrow], p.values[v], to=TensorProto.INT64)
    return True


@_step
def size(p: Program, d: st.DataObject) -> bool:
    t = d.draw(st.sampled_from(p.tensors()))
    p.op("Size", [t], i64(p.values[t].size))
    return True


@_step
def neg_abs(p: Program, d: st.DataObject) -> bool:
    v = _pick(d, p.ints())
    if v is None:
        return False
    op_type = d.draw(st.sampled_from(["Neg", "Abs"]))
    p.op(op_type, [v], -p.values[v] if op_type == "Neg" else np.abs(p.values[v]))
    return True


@_step
def clip(p: Program, d: st.DataObject) -> bool:
    v = _pick(d, p.ints())
    if v is None:
        return False
    low, high = sorted(d.draw(st.integers(-1, 5)) for _ in range(2))
    result = np.clip(p.values[v], low, high)
    p.op("Clip", [v, p.const(i64(low)), p.const(i64(high))], result)
    return True


@_step
def split(p: Program, d: st.DataObject) -> bool:
    """A shape vector split in two (onnxruntime's outputs come one per value)."""
    v = _pick(d, [n for n in p.ints(1) if len(p.values[n]) >= 2])
    if v is None:
        return False
    value = p.values[v]
    cut = d.draw(st.integers(1, len(value) - 1))
    names = [f"v{len(p.values)}", f"v{len(p.values) + 1}"]
    p.nodes.append(
        helper.make_node(
            "Split", [v, p.const(i64([cut, len(value) - cut]))], names, name=f"n{len(p.nodes)}", axis=0
        )
    )
    for name, part in zip(names, (value[:cut], value[cut:]), strict=True):
        p.values[name] = part
        p.outputs.append(name)
    return True


@_step
def slice_tensor(p: Program, d: st.DataObject) -> bool:
    """``x[..., :n]`` with ``n`` a computed scalar (``x.narrow``)."""
    t = d.draw(st.sampled_from([n for n in p.tensors() if p.values[n].ndim >= 1]))
    ends = _pick(d, p.ints(1) if d.draw(st.booleans()) else [])
    axis = d.draw(st.integers(0, p.values[t].ndim - 1))
    if ends is None:
        s = _pick(d, p.ints(0))
        if s is None:
            return False
        ends = p.op("Unsqueeze", [s, p.const(i64([0]))], p.values[s].reshape(1))
    if len(p.values[ends]) != 1:
        return False
    end = int(p.values[ends][0])
    index = [slice(None)] * p.values[t].ndim
    index[axis] = slice(0, end)
    p.op("Slice", [t, p.const(i64([0])), ends, p.const(i64([axis]))], p.values[t][tuple(index)])
    return True


@_step
def pad(p: Program, d: st.DataObject) -> bool:
    """Zero padding whose amounts are computed sizes."""
    t = d.draw(st.sampled_from([n for n in p.tensors() if p.values[n].ndim >= 1]))
    value = p.values[t]

    def fits(n: str) -> bool:
        pads = p.values[n]
        if len(pads) != 2 * value.ndim or (pads < 0).any():
            return False
        padded = [s + int(pads[i]) + int(pads[i + value.ndim]) for i, s in enumerate(value.shape)]
        return _fits(padded)

    v = _pick(d, [n for n in p.ints(1) if fits(n)])
    if v is None:
        return False
    amounts = p.values[v]
    widths = [(int(amounts[i]), int(amounts[i + value.ndim])) for i in range(value.ndim)]
    p.op("Pad", [t, v], np.pad(value, widths))
    return True


@_step
def top_k(p: Program, d: st.DataObject) -> bool:
    """TopK along the last axis with a computed ``k``."""
    t = d.draw(st.sampled_from([n for n in p.tensors() if p.values[n].ndim >= 1]))
    last = p.values[t].shape[-1]
    k = _pick(d, [n for n in p.ints(1) if len(p.values[n]) == 1 and 0 <= p.values[n][0] <= last])
    if k is None:
        return False
    kept = int(p.values[k][0])
    values, indices = f"v{len(p.values)}", f"v{len(p.values) + 1}"
    p.nodes.append(helper.make_node("TopK", [t, k], [values, indices], name=f"n{len(p.nodes)}", axis=-1))
    out_shape = (*p.values[t].shape[:-1], kept)
    p.values[values] = np.zeros(out_shape, np.float32)
    p.values[indices] = np.zeros(out_shape, np.int64)
    p.outputs += [values, indices]
    p.data_dependent.add(indices)
    return True


def draw_program(d: st.DataObject) -> Program:
    """A program that starts from the input's shape and takes up to 8
    more steps: it draws 1 to 8 and tries four times as many step kinds (a
    kind whose operands are not there yet takes no step)."""
    rank = d.draw(st.integers(1, 4), label="rank")
    sizes = d.draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank), label="sizes")
    symbolic = d.draw(st.lists(st.booleans(), min_size=rank, max_size=rank), label="symbolic")
    dims: list[int | str] = [
        f"d{i}" if s else n for i, (n, s) in enumerate(zip(sizes, symbolic, strict=True))
    ]
    seed = d.draw(st.integers(0, 2**32 - 1), label="data seed")
    x = np.random.default_rng(seed).standard_normal(sizes).astype(np.float32)
    p = Program(d.draw(st.sampled_from(OPSETS), label="opset"), dims, x, d.draw(st.booleans()))
    shape(p, d)
    wanted = d.draw(st.integers(1, 8), label="steps")
    taken = 0
    for _ in range(4 * wanted):
        name = d.draw(st.sampled_from(sorted(STEPS)))
        taken += STEPS[name](p, d)
        if taken == wanted:
            break
    return p
