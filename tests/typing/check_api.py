"""Exercises the public API with precise annotations; must pass
``mypy --strict tests/typing/check_api.py`` (run from the repository root, so
the pyproject's ``mypy_path = "python"`` applies). ``main()`` also runs it, from
tests/test_typing_examples.py, so every line here is real, working code.

It writes an op the way the README's quickstart does (OpDef + decorators +
register), builds a graph, infers it, reads nodes and descriptors, and drives
each context kind, including standalone contexts for unit-testing functions.
"""

from __future__ import annotations

import uuid
from typing import Final

import numpy as np
import numpy.typing as npt

import opgraph
from opgraph import (
    DYNAMIC,
    OPTIONAL,
    DataType,
    FollowType,
    Format,
    Graph,
    InferDataTypeContext,
    InferShapeContext,
    Node,
    OpDef,
    OpgraphError,
    Shape,
    TensorDesc,
    TensorRef,
    ValueDepend,
    VerifyContext,
)

SCALE_AXIS: Final = "axis"


def define_tile_op(op_type: str) -> OpDef:
    """``y = tile(x, multiples)`` with ``multiples`` value-depend, an optional
    ``bias`` and a dynamic ``extras`` input (ignored, to exercise the index rules)."""
    op = OpDef(op_type)
    op.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16])
    op.input("multiples", dtype_list=[DataType.INT32, DataType.INT64], value_depend=ValueDepend.REQUIRED)
    op.input("bias", param_type=OPTIONAL, dtypes=[DataType.FLOAT, DataType.FLOAT16])
    op.input("extras", param_type=DYNAMIC)
    op.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16], follow=("x", FollowType.FORMAT))
    op.attr("note", str, default="")
    op.attr("limits", list[int], default=[])
    op.attr("table", list[list[int]], default=[[1], [2, 3]])
    op.attr(SCALE_AXIS, int, default=0)

    @op.verify
    def verify(ctx: VerifyContext) -> bool:
        multiples: Shape = ctx.input_shape(1)
        return len(multiples) == 1

    @op.infer_dtype
    def infer_dtype(ctx: InferDataTypeContext) -> None:
        dtype: DataType = ctx.input_dtype(0)
        ctx.set_output_dtype(0, dtype)

    @op.infer_shape
    def infer_shape(ctx: InferShapeContext) -> None:
        x: Shape = ctx.input_shape(0)
        multiples: npt.NDArray[np.int64] | None = ctx.input_tensor(1)
        bias: Shape | None = ctx.optional_input_shape(2)
        extras: list[Shape] = [ctx.dynamic_input_shape(3, k) for k in range(ctx.dynamic_input_count(3))]
        limits: list[int] = ctx.attr_list_int("limits")
        axis: int = ctx.attr_int(SCALE_AXIS)
        note: str = ctx.attr_str("note")
        del bias, extras, limits, axis, note
        if multiples is None:
            ctx.set_output_shape(0, [-1] * len(x))
            return
        factors: list[int] = [int(m) for m in multiples.tolist()]
        if len(factors) != len(x):
            raise ValueError(f"multiples has {len(factors)} entries for a rank-{len(x)} input")
        ctx.set_output_shape(0, [d * m if d >= 0 else -1 for d, m in zip(x, factors, strict=True)])

    return op


def build_graph(op_type: str) -> tuple[Graph, TensorRef]:
    graph = Graph("typed")
    x: TensorRef = graph.add_input("x", DataType.FLOAT, [2, 3], Format.NCHW)
    multiples: TensorRef = graph.add_const("multiples", np.array([2, 1], dtype=np.int64))
    extra: TensorRef = graph.add_input("extra", DataType.INT8, (4,))
    tiled: TensorRef = graph.add_node(op_type, "tile", [x, multiples, None, [extra, extra]], {"note": "hi"})
    total: TensorRef = graph.add_node("Add", "total", {"x1": tiled, "x2": tiled})
    graph.set_outputs([total])
    return graph, total


def read_graph(graph: Graph, out: TensorRef) -> Shape:
    node: Node = graph.node("tile")
    name: str = node.name
    op_type: str = node.op_type
    note: object = node.attrs["note"]
    inputs: list[TensorDesc | None] = node.inputs
    sources: list[tuple[str, int] | None] = node.input_sources
    outputs: list[TensorDesc] = node.outputs
    assert name == "tile" and op_type and note == "hi"
    assert inputs[2] is None and sources[0] == ("x", 0)
    d: TensorDesc = graph.desc(out)
    dtype: DataType = d.dtype
    shape: Shape = d.shape
    fmt: Format = d.format
    storage_format: Format = d.storage_format
    storage_shape: Shape = d.storage_shape
    assert (dtype, fmt, storage_format) == (DataType.FLOAT, Format.NCHW, Format.NCHW)
    assert storage_shape == shape == outputs[0].shape
    names: list[str] = [n.name for n in graph.nodes()]
    assert names == ["x", "multiples", "extra", "tile", "total"] and len(graph) == 5 and "tile" in graph
    return shape


def standalone_contexts(op_type: str) -> Shape:
    """Unit-testing a function without a graph."""

    def broadcast(ctx: InferShapeContext) -> None:
        ctx.set_output_shape(0, np.broadcast_shapes(ctx.input_shape(0), ctx.input_shape(1)))

    add = InferShapeContext.standalone(
        "Add", [TensorDesc(DataType.FLOAT, [2, 1]), TensorDesc(DataType.FLOAT, [3])]
    )
    broadcast(add)
    result: Shape = add.output_desc(0).shape

    inputs: list[TensorDesc | list[TensorDesc] | None] = [
        TensorDesc(DataType.FLOAT16, [5]),
        TensorDesc(DataType.INT32, [1], value=np.array([3], dtype=np.int32)),
        None,
        [],
    ]
    verify_ctx: VerifyContext = VerifyContext.standalone(op_type, inputs, name="unit")
    dtype_ctx: InferDataTypeContext = InferDataTypeContext.standalone(op_type, inputs)
    shape_ctx: InferShapeContext = InferShapeContext.standalone(op_type, inputs, {"limits": [1, 2]})
    node_name: str = verify_ctx.node_name
    assert node_name == "unit" and verify_ctx.op_type == op_type
    dtype_ctx.set_output_dtype(0, dtype_ctx.input_dtype(0))
    assert dtype_ctx.output_desc(0).dtype is DataType.FLOAT16
    shape_ctx.set_output_shape(0, (15,))
    shape_ctx.set_output_shape_range(0, [(15, 15)])
    shape_ctx.set_output_format(0, Format.ND)
    ranges: list[tuple[int, int]] | None = shape_ctx.output_desc(0).shape_range
    assert ranges == [(15, 15)] and shape_ctx.attr_list_int("limits") == [1, 2]
    has: bool = shape_ctx.has_attr("note")
    by_index: object = shape_ctx.attr(0)
    assert has and by_index == ""
    return result


def main() -> None:
    op_type = f"TypedTile_{uuid.uuid4().hex[:8]}"
    op = define_tile_op(op_type)
    opgraph.register(op)
    assert op_type in opgraph.registered_op_types()
    inspected: OpDef = opgraph.op_def(op_type)
    assert [p.name for p in inspected.inputs] == ["x", "multiples", "bias", "extras"]
    assert [a.name for a in inspected.attrs] == ["note", "limits", "table", SCALE_AXIS]

    graph, out = build_graph(op_type)
    errors: list[OpgraphError] = opgraph.infer(graph, collect_errors=True)
    assert errors == []
    assert read_graph(graph, out) == (4, 3)
    assert standalone_contexts(op_type) == (2, 3)


if __name__ == "__main__":
    main()
