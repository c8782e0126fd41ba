"""Shared pieces of the math op tests: shape strategies, one-node inference
returning every output, and the dtype of a numpy array as a DataType."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from helpers import Feed, one_node_graph
from hypothesis import strategies as st

import opgraph
from opgraph import DataType, TensorDesc

# Small dims (0 and 1 included: they are where broadcasting and reductions
# have their edge cases) and ranks up to 4 keep the real arrays tiny.
dims = st.integers(min_value=0, max_value=4)
shapes = st.lists(dims, min_size=0, max_size=4).map(tuple)
nonempty_shapes = st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=4).map(tuple)


def infer_outputs(
    op_type: str, inputs: Sequence[Feed], attrs: dict[str, Any] | None = None
) -> list[TensorDesc]:
    """Infers a one-node graph and returns all of the node's outputs."""
    graph, _ = one_node_graph(op_type, inputs, attrs)
    opgraph.infer(graph)
    return graph.node("node").outputs


def dtype_of(array: npt.NDArray[Any]) -> DataType:
    return DataType.from_numpy(array.dtype)


def blur(shape: Sequence[int], mask: Sequence[bool]) -> tuple[int, ...]:
    """``shape`` with the dims where ``mask`` is set made unknown (-1)."""
    return tuple(-1 if hide else d for d, hide in zip(shape, mask, strict=False))


def agrees(inferred: Sequence[int], actual: Sequence[int]) -> bool:
    """Whether an inferred shape (with -1 / [-2] unknowns) admits ``actual``."""
    if tuple(inferred) == (-2,):
        return True
    return len(inferred) == len(actual) and all(i in (-1, a) for i, a in zip(inferred, actual, strict=True))


def sample(shape: Sequence[int], dtype: type[np.generic] = np.float32, seed: int = 0) -> npt.NDArray[Any]:
    """A real array of ``shape`` (values matter for ArgMax / TopK / sort)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(tuple(shape)).astype(dtype)
