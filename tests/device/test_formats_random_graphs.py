"""``opgraph.prepare`` on random small networks (convolutions, element-wise
ops with broadcast constants, pooling, concatenation, a matrix-multiply
head, inputs in NCHW or NHWC, dynamic batch): whatever the mix, the
prepared graph passes the validity check, its outputs keep their origin
dtype and format, and conversions are shared."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from formats_models import assert_valid_storage
from hypothesis import given
from hypothesis import strategies as st

import opgraph
from opgraph import DataType, Format, Graph, TensorRef


@dataclass
class Activation:
    tensor: TensorRef
    channels: int


def weights(g: Graph, name: str, shape: list[int], fmt: Format) -> TensorRef:
    return g.add_const(name, np.zeros(shape, dtype=np.float32), fmt)


@st.composite
def networks(draw: st.DrawFn) -> Graph:
    layout = draw(st.sampled_from([Format.NCHW, Format.NHWC]))
    nhwc = layout == Format.NHWC
    batch = draw(st.sampled_from([1, 2, -1]))
    channels = draw(st.integers(1, 40))
    size = draw(st.integers(2, 6))
    g = Graph("random")
    shape = [batch, size, size, channels] if nhwc else [batch, channels, size, size]
    acts = [Activation(g.add_input("x", DataType.FLOAT, shape, layout), channels)]
    ones = [1, 1, 1, 1]
    data_format = layout.name

    def channel_shape(c: int) -> list[int]:
        return [1, 1, 1, c] if nhwc else [1, c, 1, 1]

    for i in range(draw(st.integers(1, 7))):
        src = draw(st.sampled_from(acts))
        kind = draw(st.sampled_from(["conv", "relu", "scale", "add", "concat", "pool", "vector"]))
        name = f"{kind}{i}"
        if kind == "conv":
            cout, k = draw(st.integers(1, 40)), draw(st.sampled_from([1, 3]))
            filt = [k, k, src.channels, cout] if nhwc else [cout, src.channels, k, k]
            w = weights(g, f"{name}/w", filt, Format.HWCN if nhwc else Format.NCHW)
            pad = (k - 1) // 2
            attrs = {"strides": ones, "pads": [pad] * 4, "data_format": data_format}
            acts.append(Activation(g.add_node("Conv2D", name, [src.tensor, w], attrs), cout))
        elif kind == "relu":
            acts.append(Activation(g.add_node("Relu", name, [src.tensor]), src.channels))
        elif kind == "scale":
            # A per-channel constant, broadcast.
            c = weights(g, f"{name}/c", channel_shape(src.channels), layout)
            acts.append(Activation(g.add_node("Mul", name, [src.tensor, c]), src.channels))
        elif kind == "vector":
            # A [C] vector, broadcast along the last dim.
            last = src.channels if nhwc else size
            c = weights(g, f"{name}/c", [last], Format.ND)
            acts.append(Activation(g.add_node("Add", name, [src.tensor, c]), src.channels))
        elif kind == "add":
            other = draw(st.sampled_from([a for a in acts if a.channels == src.channels]))
            acts.append(Activation(g.add_node("Add", name, [src.tensor, other.tensor]), src.channels))
        elif kind == "concat":
            other = draw(st.sampled_from(acts))
            axis = g.add_const(f"{name}/axis", np.array(3 if nhwc else 1, dtype=np.int32))
            joined = g.add_node("ConcatV2", name, [[src.tensor, other.tensor], axis])
            acts.append(Activation(joined, src.channels + other.channels))
        else:
            attrs = {"ksize": ones, "strides": ones, "padding": "VALID", "data_format": data_format}
            acts.append(Activation(g.add_node("MaxPool", name, [src.tensor], attrs), src.channels))
    final = acts[-1]
    outputs = [final.tensor]
    if draw(st.booleans()):
        # A classifier head: flatten, matrix multiply.
        features = final.channels * size * size
        flat_shape = g.add_const("flat/shape", np.array([-1, features], np.int32))
        flat = g.add_node("Reshape", "flat", [final.tensor, flat_shape])
        head = g.add_node("MatMul", "head", [flat, weights(g, "head/w", [features, 10], Format.ND)])
        outputs.append(head)
    outputs += draw(st.lists(st.sampled_from([a.tensor for a in acts]), max_size=2))
    g.set_outputs(outputs)
    return g


@given(networks(), st.booleans())
def test_random_networks_are_prepared_consistently(graph: Graph, fp16: bool) -> None:
    opgraph.infer(graph)
    outputs = [(graph.desc(t).dtype, graph.desc(t).format, graph.desc(t).shape) for t in graph.outputs]
    report = opgraph.prepare(graph, allow_fp32_to_fp16=fp16)
    assert_valid_storage(graph)
    assert [
        (graph.desc(t).dtype, graph.desc(t).format, graph.desc(t).shape) for t in graph.outputs
    ] == outputs
    # One TransData per (tensor, target format): no two read the same tensor
    # into the same storage.
    seen = set()
    for node in graph.nodes():
        if node.op_type == "TransData":
            key = (node.input_sources[0], node.attrs["dst_format"], node.outputs[0].format)
            assert key not in seen, f"{node.name} duplicates a conversion"
            seen.add(key)
    assert report.trans_data_inserted == len(seen)
    if not fp16:
        assert report.casts_inserted == 0


def test_an_nd_output_stored_in_a_device_layout_leaves_the_graph_nd() -> None:
    """A concat of two NC1HWC0 pooling outputs is stored NC1HWC0 (its origin
    relabelled NCHW to give the layout); the graph output still leaves plain
    in the origin format inference gave it (found by the property above)."""
    g = Graph("concat_of_pools")
    x = g.add_input("x", DataType.FLOAT, [1, 16, 2, 2], Format.NCHW)
    attrs = {"ksize": [1, 1, 1, 1], "strides": [1, 1, 1, 1], "padding": "VALID", "data_format": "NCHW"}
    pool = g.add_node("MaxPool", "pool", [x], attrs)
    axis = g.add_const("axis", np.array(1, np.int32))
    g.set_outputs([g.add_node("ConcatV2", "concat", [[pool, pool], axis])])
    opgraph.infer(g)
    before = g.desc(g.outputs[0])
    opgraph.prepare(g)
    assert_valid_storage(g)
    after = g.desc(g.outputs[0])
    assert (after.dtype, after.format, after.shape) == (before.dtype, before.format, before.shape)
