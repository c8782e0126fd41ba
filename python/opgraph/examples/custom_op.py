"""Defines an operator in Python, builds a small network around it and prints
every inferred shape.

    python -m opgraph.examples.custom_op
"""

from __future__ import annotations

import numpy as np

import opgraph
from opgraph import DataType, Format, InferShapeContext, OpDef

# A space-to-depth style op written by a user: NCHW in, channels x block²,
# spatial dims / block out. The prototype mirrors GE's REG_OP.
space_to_depth = OpDef("ExampleSpaceToDepth")
space_to_depth.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16], formats=[Format.NCHW])
space_to_depth.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16], follow=("x", opgraph.FollowType.FORMAT))
space_to_depth.attr("block_size", int, default=2)


@space_to_depth.infer_shape
def infer_space_to_depth(ctx: InferShapeContext) -> None:
    n, c, h, w = ctx.input_shape(0)
    block = ctx.attr_int("block_size")
    if block < 1:
        raise ValueError(f"block_size must be >= 1, got {block}")
    for name, dim in (("height", h), ("width", w)):
        if dim >= 0 and dim % block:
            raise ValueError(f"{name} {dim} is not a multiple of block_size {block}")

    def scale(dim: int, by: int) -> int:
        return dim if dim < 0 else dim * by

    def shrink(dim: int) -> int:
        return dim if dim < 0 else dim // block

    ctx.set_output_shape(0, (n, scale(c, block * block), shrink(h), shrink(w)))


def build() -> opgraph.Graph:
    g = opgraph.Graph("example")
    image = g.add_input("image", DataType.FLOAT, (-1, 3, 224, 224), Format.NCHW)
    filters = g.add_const("conv1/weights", np.zeros((32, 3, 3, 3), np.float32), Format.NCHW)
    conv = g.add_node(
        "Conv2D",
        "conv1",
        [image, filters],
        {"strides": [1, 1, 2, 2], "pads": [1, 1, 1, 1], "data_format": "NCHW"},
    )
    s2d = g.add_node("ExampleSpaceToDepth", "s2d", [conv], {"block_size": 4})
    residual = g.add_node("Add", "residual", [s2d, s2d])
    flat_shape = g.add_const("flat/shape", np.array([-1, 512 * 28 * 28], np.int64))
    flat = g.add_node("Reshape", "flat", [residual, flat_shape])
    g.set_outputs([flat])
    return g


def main() -> None:
    opgraph.register(space_to_depth, override=True)
    graph = build()
    opgraph.infer(graph)
    width = max(len(n.name) for n in graph.nodes())
    print(f"{'node':<{width}}  {'op type':<20}  output")
    for node in graph.nodes():
        for out in node.outputs:
            shape = list(out.shape)
            print(f"{node.name:<{width}}  {node.op_type:<20}  {out.dtype.name} {shape} {out.format.name}")


if __name__ == "__main__":
    main()
