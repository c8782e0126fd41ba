"""Small builders shared by the tests: unique op type names, one-node graphs,
shape helpers for the built-in ops, an independent numpy Conv2D, and what the
TensorFlow and Caffe frontend tests share (renaming a fixture's op types,
checking the "no parser plugin" error), and checking what opgraph knows of a
value against a peer's computed value."""

from __future__ import annotations

import os
import re
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import opgraph
from opgraph import DataType, Format, Graph, OpDef, ParseError, TensorDesc, TensorRef
from opgraph.errors import InternalError, OpgraphError, UnsupportedOp

Feed: TypeAlias = (
    TensorDesc
    | npt.NDArray[Any]
    | list[TensorDesc]
    | list[npt.NDArray[Any]]
    | list[TensorDesc | npt.NDArray[Any]]
    | None
)
"""One prototype input of a one-node graph: a graph input described by a
TensorDesc, a Const holding an array, None (absent optional), or a list
(a dynamic input)."""


#: numpy dtype → opgraph DataType name.
NP_TO_OPGRAPH = {
    np.dtype(np.float32): "FLOAT",
    np.dtype(np.float16): "FLOAT16",
    np.dtype(np.float64): "DOUBLE",
    np.dtype(np.int64): "INT64",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int16): "INT16",
    np.dtype(np.int8): "INT8",
    np.dtype(np.uint8): "UINT8",
    np.dtype(np.uint16): "UINT16",
    np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint64): "UINT64",
    np.dtype(np.bool_): "BOOL",
}


def unique_name(prefix: str = "Op") -> str:
    """An op type / node name no other test uses (the registry is global)."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def copy_with_unique_types(source: Path, target: Path, key: str, *op_types: str) -> dict[str, str]:
    """Copies model text ``source`` to ``target`` with every ``key: "T"``
    (``op`` in a GraphDef, ``type`` in a prototxt) for each of ``op_types``
    renamed to a fresh type; returns old → new type names."""
    text = source.read_text()
    renamed = {op_type: unique_name(op_type) for op_type in op_types}
    for old, new in renamed.items():
        text, count = re.subn(rf'{key}: "{re.escape(old)}"', f'{key}: "{new}"', text)
        assert count, f"{source.name} has no {old}"
    target.write_text(text)
    return renamed


def assert_lists_unsupported(
    error: ParseError, twice: str, twice_nodes: set[str], once: str, once_node: str
) -> None:
    """``error`` reports exactly two op types without a plugin: ``twice``
    (two nodes, one of ``twice_nodes`` named as the example) and ``once``
    (node ``once_node``), in ``error.unsupported`` and in its message."""
    listed = {op.op_type: op for op in error.unsupported}
    assert set(listed) == {twice, once}
    assert listed[once] == UnsupportedOp(once, 1, once_node)
    assert listed[twice].node_count == 2 and listed[twice].example_node in twice_nodes
    message = str(error)
    assert message.startswith("no parser plugin for 2 op types: ")
    assert f"{twice} (2 nodes, e.g. '{listed[twice].example_node}')" in message
    assert f"{once} (1 node, e.g. '{once_node}')" in message


def identity_like(op_type: str) -> OpDef:
    """``x -> y`` with ``y`` following ``x`` entirely (not registered)."""
    op = OpDef(op_type)
    op.input("x")
    op.output("y", follow="x")
    return op


def _feed(graph: Graph, name: str, feed: TensorDesc | npt.NDArray[Any]) -> TensorRef:
    if isinstance(feed, TensorDesc):
        return graph.add_input(name, feed.dtype, feed.shape, feed.format)
    return graph.add_const(name, feed)


def one_node_graph(
    op_type: str, inputs: Sequence[Feed], attrs: dict[str, Any] | None = None, **kwargs: Any
) -> tuple[Graph, TensorRef]:
    """A graph of one ``op_type`` node (named ``node``) fed by ``inputs``."""
    graph = Graph("test")
    ports: list[TensorRef | list[TensorRef] | None] = []
    for i, feed in enumerate(inputs):
        if feed is None:
            ports.append(None)
        elif isinstance(feed, list):
            ports.append([_feed(graph, f"in{i}_{k}", f) for k, f in enumerate(feed)])
        else:
            ports.append(_feed(graph, f"in{i}", feed))
    return graph, graph.add_node(op_type, "node", ports, attrs, **kwargs)


def infer_output(
    op_type: str, inputs: Sequence[Feed], attrs: dict[str, Any] | None = None, **kwargs: Any
) -> TensorDesc:
    """Infers a one-node graph and returns the node's first output."""
    graph, out = one_node_graph(op_type, inputs, attrs, **kwargs)
    opgraph.infer(graph)
    return graph.desc(out)


def desc(shape: Sequence[int], dtype: DataType = DataType.FLOAT, fmt: Format = Format.ND) -> TensorDesc:
    return TensorDesc(dtype, shape, fmt)


def add_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """The inferred output shape of ``Add(a, b)`` on float inputs."""
    return infer_output("Add", [desc(a), desc(b)]).shape


def reshape_shape(
    x: Sequence[int], target: Sequence[int] | None, target_len: int | None = None
) -> tuple[int, ...]:
    """The inferred shape of ``Reshape(x, target)``; with ``target=None`` the
    shape input is a graph input of length ``target_len`` (no value)."""
    shape_feed: Feed
    if target is None:
        shape_feed = desc([-1 if target_len is None else target_len], DataType.INT64)
    else:
        shape_feed = np.array(target, dtype=np.int64)
    return infer_output("Reshape", [desc(x), shape_feed]).shape


def conv2d_output(
    x: Sequence[int],
    filter: Sequence[int],
    *,
    strides: Sequence[int] = (1, 1, 1, 1),
    pads: Sequence[int] = (0, 0, 0, 0),
    dilations: Sequence[int] = (1, 1, 1, 1),
    groups: int = 1,
    data_format: str = "NCHW",
    filter_format: Format = Format.NCHW,
    padding: str | None = None,
    bias: Sequence[int] | None = None,
) -> TensorDesc:
    """The inferred output of a float Conv2D."""
    attrs: dict[str, Any] = {
        "strides": list(strides),
        "pads": list(pads),
        "dilations": list(dilations),
        "groups": groups,
        "data_format": data_format,
    }
    if padding is not None:
        attrs["padding"] = padding
    x_format = Format.__members__.get(data_format, Format.ND)
    inputs: list[Feed] = [desc(x, fmt=x_format), desc(filter, fmt=filter_format)]
    if bias is not None:
        inputs.append(desc(bias))
    return infer_output("Conv2D", inputs, attrs)


def reference_conv2d_nchw(
    x: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    *,
    strides: tuple[int, int],
    pads: tuple[int, int, int, int],
    dilations: tuple[int, int],
    groups: int,
) -> npt.NDArray[np.float64]:
    """A direct grouped, dilated, strided, padded 2-D convolution in numpy.

    ``x`` is ``(N, C, H, W)``, ``w`` is ``(Cout, C / groups, kh, kw)``, pads
    are ``(top, bottom, left, right)``. Raises ValueError when the window does
    not fit the padded input or the channels do not match."""
    n, c, _, _ = x.shape
    cout, cin_g, kh, kw = w.shape
    if c != cin_g * groups or cout % groups:
        raise ValueError("channels do not match the groups")
    top, bottom, left, right = pads
    padded = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    extent = (dilations[0] * (kh - 1) + 1, dilations[1] * (kw - 1) + 1)
    windows = np.lib.stride_tricks.sliding_window_view(padded, extent, axis=(2, 3))
    taps = windows[:, :, :: strides[0], :: strides[1], :: dilations[0], :: dilations[1]]
    ho, wo = taps.shape[2], taps.shape[3]
    taps = taps.reshape(n, groups, cin_g, ho, wo, kh, kw)
    weights = w.reshape(groups, cout // groups, cin_g, kh, kw)
    out: npt.NDArray[np.float64] = np.einsum("ngchwij,gocij->ngohw", taps, weights)
    return out.reshape(n, cout, ho, wo)


MAX_ERROR_MESSAGE_BYTES = 8192
"""What a test accepts as one error message: the core caps messages at 4096
bytes (rust/core/src/message.rs) and the Python layer adds a few words."""


def assert_typed_error(error: BaseException, expected: type[OpgraphError] = OpgraphError) -> None:
    """``error`` is the typed error bad input must give: an ``expected``
    (an OpgraphError), never an InternalError (opgraph's own bug, which a
    hostile input must not reach), with a bounded message."""
    assert not isinstance(error, InternalError), f"an internal error, not a typed one: {error}"
    assert isinstance(error, expected), f"expected {expected.__name__}, got {type(error).__name__}: {error}"
    size = len(str(error).encode())
    assert size <= MAX_ERROR_MESSAGE_BYTES, f"a {size}-byte message: {str(error)[:200]}..."


def check_value(
    desc: TensorDesc, theirs: np.ndarray, where: str, tally: Counter[str], *, peer: str, rtol: float = 0.0
) -> None:
    """What opgraph knows of a value is the peer's value: a folded value
    (floats within ``rtol``; exactly by default, where both compute in
    float32 on small whole numbers), a partial shape value element by
    element, value ranges."""
    value = desc.value
    if value is not None:
        tally["folded values checked"] += 1
        close = (
            np.allclose(value, theirs, rtol=rtol, atol=rtol * 1e-2, equal_nan=True)
            if rtol and np.issubdtype(theirs.dtype, np.floating)
            else np.array_equal(value, theirs)
        )
        assert value.shape == theirs.shape and close, (
            f"{where}: opgraph folds {value.tolist()}, {peer} computes {theirs.tolist()}"
        )
    flat = theirs.reshape(-1).tolist()
    partial = desc.shape_value
    if partial is not None:
        tally["partial shape values checked"] += 1
        assert len(partial) == len(flat), f"{where}: opgraph knows {len(partial)} elements of {len(flat)}"
        assert all(o in (-1, t) for o, t in zip(partial, flat, strict=True)), (
            f"{where}: opgraph knows {list(partial)} (-1 unknown), {peer} computes {flat}"
        )
    ranges = desc.value_range
    if ranges is not None:
        tally["value ranges checked"] += 1
        assert len(ranges) == len(flat), f"{where}: {len(ranges)} value ranges for {len(flat)} elements"
        # (0, -1) claims nothing: the element may even be negative.
        inside = all(
            (lo, hi) == (0, -1) or (lo <= t and (hi == -1 or t <= hi))
            for (lo, hi), t in zip(ranges, flat, strict=True)
        )
        assert inside, f"{where}: {peer} computes {flat}, outside opgraph's value ranges {ranges}"


def report_draws(
    title: str,
    groups: Sequence[str],
    judge_one: Callable[[str, st.DataObject, Path, Counter[str]], None],
    columns: Sequence[str],
    examples: int,
) -> None:
    """Prints a README table of a differential test: per group of drawn
    cases, derandomized, how many came out in each of ``columns``."""
    import tempfile

    totals: Counter[str] = Counter()
    print(f"{title}, {examples} draws per group")
    print("| group | " + " | ".join(columns) + " |")
    with tempfile.TemporaryDirectory() as tmp:
        for group in groups:
            tally: Counter[str] = Counter()

            @settings(max_examples=examples, database=None, derandomize=True, deadline=None)
            @given(data=st.data())
            def check(data: st.DataObject) -> None:
                judge_one(group, data, Path(tmp), tally)  # noqa: B023  (run at once)

            check()
            totals.update(tally)
            print(f"| {group} | " + " | ".join(str(tally[c]) for c in columns) + " |")
    print("| all | " + " | ".join(f"{totals[c]:,}" for c in columns) + " |")


def dead_nodes(plan: opgraph.MemoryPlan) -> set[str]:
    """The nodes whose every output ``plan`` leaves out as dead code
    (region ``dead``: GE deletes them before it assigns memory)."""
    regions: dict[str, set[str]] = {}
    for name, region in zip(plan.names, plan.regions, strict=True):
        regions.setdefault(name.rsplit(":", 1)[0], set()).add(region)
    return {node for node, found in regions.items() if found == {"dead"}}


def import_tensorflow(reason: str) -> Any:
    """TensorFlow, or a skip of the calling test module, for ``reason``,
    where it is not installed: then ``import tensorflow`` finds the
    ``tests/tensorflow`` folder (``tests/`` is on the path) as a namespace
    package, which is a skip too. Quiets TensorFlow's C++ logging first."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = pytest.importorskip("tensorflow", reason=reason)
    if not hasattr(tf, "Graph"):
        pytest.skip(f"TensorFlow is not installed: {reason}", allow_module_level=True)
    return tf
