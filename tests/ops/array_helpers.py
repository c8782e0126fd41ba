"""Shared builders for the array-op tests: run one node on real arrays and
compare with numpy, both as a folded value (inputs are Consts) and as an
inferred shape (the data input is a graph input without a value)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from helpers import Feed, desc, one_node_graph

import opgraph
from opgraph import DataType, TensorDesc

Array = npt.NDArray[Any]


def run(
    op_type: str,
    inputs: Sequence[Feed],
    attrs: dict[str, Any] | None = None,
    outputs: int | None = None,
    fold_limit: int | None = None,
) -> list[TensorDesc]:
    """Infers a one-node graph; ``outputs`` gives a dynamic output count."""
    kwargs: dict[str, Any] = {}
    if outputs is not None:
        kwargs["dynamic_outputs"] = [("y", outputs)]
    graph, _ = one_node_graph(op_type, inputs, attrs, **kwargs)
    opgraph.infer(graph, fold_limit=fold_limit)
    return [graph.desc(graph.tensor("node", i)) for i in range(outputs or 1)]


def as_input(a: Array) -> TensorDesc:
    """A graph input with ``a``'s dtype and shape but no value."""
    return desc(a.shape, DataType.from_numpy(a.dtype))


def check(
    op_type: str,
    inputs: Sequence[Feed],
    expected: Array | Sequence[Array],
    attrs: dict[str, Any] | None = None,
    data: Sequence[int] = (0,),
    outputs: int | None = None,
) -> None:
    """The op on Const inputs folds to ``expected`` (numpy's result), and
    with the inputs at positions ``data`` as graph inputs it infers
    ``expected``'s shapes and dtypes."""
    want = [expected] if isinstance(expected, np.ndarray) else list(expected)
    folded = run(op_type, inputs, attrs, outputs, fold_limit=1 << 20)
    assert [d.shape for d in folded] == [w.shape for w in want]
    for d, w in zip(folded, want, strict=True):
        assert d.dtype == DataType.from_numpy(w.dtype)
        assert d.value is not None, f"{op_type} did not fold"
        np.testing.assert_array_equal(d.value, w)
    fed: list[Feed] = [
        as_input(f) if i in data and isinstance(f, np.ndarray) else f for i, f in enumerate(inputs)
    ]
    if any(isinstance(f, list) for f in fed):
        fed = [
            [as_input(a) if isinstance(a, np.ndarray) else a for a in f]
            if isinstance(f, list) and 0 in data
            else f
            for f in fed
        ]
    inferred = run(op_type, fed, attrs, outputs)
    assert [d.shape for d in inferred] == [w.shape for w in want]
    assert [d.dtype for d in inferred] == [DataType.from_numpy(w.dtype) for w in want]


def i32(values: Any) -> Array:
    return np.array(values, np.int32)


def i64(values: Any) -> Array:
    return np.array(values, np.int64)
