"""Value folding through the array ops: shape arithmetic chains fold on the
host into value-depend inputs, and partially known shape vectors keep their
known entries element by element."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from array_helpers import i32, i64, run
from helpers import desc

import opgraph
from opgraph import DataType, Graph, TensorRef


def const(g: Graph, name: str, value: Any, dtype: Any = np.int32) -> TensorRef:
    return g.add_const(name, np.array(value, dtype))


def test_shape_strided_slice_pack_reshape_keeps_the_known_dims() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 224, 224, 3))
    shape = g.add_node("Shape", "shape", [x])
    batch = g.add_node(
        "StridedSlice",
        "batch",
        [shape, const(g, "b", [0]), const(g, "e", [1]), const(g, "s", [1])],
        {"shrink_axis_mask": 1},
    )
    packed = g.add_node("Pack", "packed", [[batch, const(g, "n", 150528)]])
    y = g.add_node("Reshape", "y", [x, packed])
    opgraph.infer(g)
    assert g.desc(shape).shape_value == (-1, 224, 224, 3)
    assert g.desc(batch).value is None and g.desc(batch).shape == ()
    assert g.desc(packed).shape_value == (-1, 150528)
    assert g.desc(y).shape == (-1, 150528)


def test_static_chain_folds_to_whole_values() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (8, 224, 224, 3))
    shape = g.add_node("Shape", "shape", [x])
    batch = g.add_node(
        "StridedSlice",
        "batch",
        [shape, const(g, "b", [0]), const(g, "e", [1]), const(g, "s", [1])],
        {"shrink_axis_mask": 1},
    )
    packed = g.add_node("Pack", "packed", [[batch, const(g, "n", -1)]])
    y = g.add_node("Reshape", "y", [x, packed])
    opgraph.infer(g)
    np.testing.assert_array_equal(g.desc(shape).value, [8, 224, 224, 3])
    np.testing.assert_array_equal(g.desc(packed).value, [8, -1])
    assert g.desc(y).shape == (8, 150528)


@pytest.mark.parametrize("axis_dtype", [np.int32, np.int64])
def test_shape_gather_concat_reshape(axis_dtype: Any) -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 7, 5, 3))
    shape = g.add_node("Shape", "shape", [x], {"out_type": DataType.INT64})
    hw = g.add_node("GatherV2", "hw", [shape, const(g, "i", [1, 2], np.int64), const(g, "a", 0, axis_dtype)])
    target = g.add_node(
        "ConcatV2",
        "target",
        [[const(g, "m", [-1], np.int64), hw], const(g, "ax", 0, axis_dtype)],
    )
    y = g.add_node("Reshape", "y", [x, target])
    opgraph.infer(g)
    np.testing.assert_array_equal(g.desc(hw).value, [7, 5])
    np.testing.assert_array_equal(g.desc(target).value, [-1, 7, 5])
    assert g.desc(y).shape == (-1, 7, 5)


def test_partial_vectors_flow_through_gather_concat_squeeze_expand_and_cast() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 224, -1, 3))
    shape = g.add_node("Shape", "shape", [x])
    picked = g.add_node("Gather", "picked", [shape, const(g, "i", [3, 0, 1])])
    joined = g.add_node("ConcatV2", "joined", [[picked, const(g, "c", [9])], const(g, "ax", 0)])
    as64 = g.add_node("Cast", "as64", [joined], {"DstT": DataType.INT64})
    row = g.add_node("ExpandDims", "row", [as64, const(g, "ax0", 0)])
    back = g.add_node("Squeeze", "back", [row], {"axis": [0]})
    opgraph.infer(g)
    assert g.desc(picked).shape_value == (3, -1, 224)
    assert g.desc(joined).shape_value == (3, -1, 224, 9)
    assert g.desc(as64).dtype == DataType.INT64
    assert g.desc(as64).shape_value == (3, -1, 224, 9)
    assert g.desc(row).shape == (1, 4) and g.desc(row).shape_value is None
    assert g.desc(back).shape == (4,)


def test_fill_and_range_sizes_come_from_folded_values() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 6, 4))
    shape = g.add_node("Shape", "shape", [x])
    dims = g.add_node(
        "StridedSlice", "dims", [shape, const(g, "b", [1]), const(g, "e", [3]), const(g, "s", [1])]
    )
    filled = g.add_node("Fill", "filled", [dims, g.add_const("v", np.float32(0.5))])
    size = g.add_node("Size", "size", [filled])
    rank = g.add_node("Rank", "rank", [filled])
    r = g.add_node("Range", "r", [const(g, "zero", 0), size, const(g, "one", 1)])
    opgraph.infer(g)
    assert g.desc(filled).shape == (6, 4)
    np.testing.assert_array_equal(g.desc(filled).value, np.full((6, 4), 0.5, np.float32))
    size_value, rank_value = g.desc(size).value, g.desc(rank).value
    assert size_value is not None and rank_value is not None
    assert int(size_value) == 24
    assert int(rank_value) == 2 and g.desc(rank).dtype == DataType.INT32
    np.testing.assert_array_equal(g.desc(r).value, np.arange(24, dtype=np.int32))


def test_fill_with_a_partial_dims_vector() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 3))
    filled = g.add_node("Fill", "f", [g.add_node("Shape", "s", [x]), g.add_const("v", np.int8(1))])
    opgraph.infer(g)
    assert g.desc(filled).shape == (-1, 3)
    assert g.desc(filled).dtype == DataType.INT8


def test_shape_n_size_rank_of_unknowns() -> None:
    outs = run("ShapeN", [[desc([2, -1]), desc([]), desc([4])]], outputs=3)
    assert [o.shape for o in outs] == [(2,), (0,), (1,)]
    assert outs[0].shape_value == (2, -1) and outs[0].value is None
    assert outs[1].value is not None and outs[1].value.shape == (0,)
    np.testing.assert_array_equal(outs[2].value, [4])
    # An unknown rank makes that output's length unknown, which stops folding.
    outs = run("ShapeN", [[desc([2]), desc([-2])]], outputs=2)
    assert [o.shape for o in outs] == [(1,), (-1,)]
    assert outs[1].value is None and outs[1].shape_value is None
    assert run("Size", [desc([2, -1])])[0].value is None
    assert run("Rank", [desc([-2])])[0].value is None
    rank = run("Rank", [desc([-1, -1, 3])])[0].value
    assert rank is not None and int(rank) == 3


def test_shape_out_type_must_be_an_index_type() -> None:
    with pytest.raises(opgraph.InferDataTypeError, match="INT32 or INT64"):
        run("Shape", [desc([2])], {"out_type": DataType.FLOAT})
    with pytest.raises(opgraph.OpgraphError, match="ShapeN needs one output per input"):
        run("ShapeN", [[desc([2]), desc([3])]], outputs=1)


def test_shape_of_too_large_dims_for_int32_stays_unknown() -> None:
    out = run("Shape", [desc([2**31, 2])])[0]
    assert out.value is None and out.shape_value == (-1, 2)
    out = run("Shape", [desc([2**31, 2])], {"out_type": DataType.INT64})[0]
    np.testing.assert_array_equal(out.value, [2**31, 2])


def test_folding_is_bounded_by_the_fold_limit() -> None:
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (2, 3, 4))
    y = g.add_node("Reshape", "y", [x, g.add_node("Shape", "s", [x])])
    r = g.add_node("Range", "r", [const(g, "a", 0), const(g, "b", 10), const(g, "c", 1)])
    opgraph.infer(g, fold_limit=2)
    assert g.desc(y).shape == (-1, -1, -1)
    assert g.desc(r).shape == (10,) and g.desc(r).value is None
    opgraph.infer(g)
    assert g.desc(y).shape == (2, 3, 4)


@pytest.mark.parametrize(
    ("value", "dst", "expected"),
    [
        (i64([1, -2, 3]), DataType.INT32, np.array([1, -2, 3], np.int32)),
        (i32([0, 5]), DataType.BOOL, np.array([False, True])),
        (np.array([1.9, -1.9], np.float32), DataType.INT32, np.array([1, -1], np.int32)),
        (i32([7, -3]), DataType.FLOAT, np.array([7.0, -3.0], np.float32)),
        (i32([7, -3]), DataType.DOUBLE, np.array([7.0, -3.0], np.float64)),
    ],
)
def test_cast_folds_like_numpy_astype(value: Any, dst: DataType, expected: Any) -> None:
    for attrs in ({"DstT": dst}, {"dst_type": int(dst)}):
        out = run("Cast", [value], attrs)[0]
        assert out.dtype == dst and out.shape == expected.shape
        np.testing.assert_array_equal(out.value, expected)
        np.testing.assert_array_equal(out.value, value.astype(expected.dtype))


def test_cast_needs_a_target_dtype() -> None:
    with pytest.raises(opgraph.VerifyError, match="dst_type"):
        run("Cast", [i32([1])])


def test_cast_out_of_range_int_is_left_unknown() -> None:
    out = run("Cast", [i64([2**40])], {"DstT": DataType.INT32})[0]
    assert out.shape == (1,) and out.value is None


def test_value_ranges_follow_a_shape_vector_and_bound_a_fill() -> None:
    """GE's value range: Shape of an input with a shape range records the
    range of each element; slicing and concatenating carry it element by
    element; a Fill to that shape takes it as its shape range."""
    g = Graph("g")
    x = g.add_input("x", DataType.FLOAT, (-1, 16, -1), shape_range=[(1, 8), (16, 16), (2, 300)])
    shape = g.add_node("Shape", "shape", [x])
    picked = g.add_node("GatherV2", "picked", [shape, const(g, "i", [2, 0]), const(g, "axis", 0)])
    joined = g.add_node(
        "ConcatV2", "joined", {"x": [picked, const(g, "four", [4])], "concat_dim": const(g, "c", 0)}
    )
    filled = g.add_node("Fill", "filled", [joined, const(g, "zero", 0.0, np.float32)])
    opgraph.infer(g)
    assert g.desc(shape).value is None
    assert g.desc(shape).value_range == [(1, 8), (16, 16), (2, 300)]
    assert g.desc(picked).value_range == [(2, 300), (1, 8)]
    assert g.desc(joined).value_range == [(2, 300), (1, 8), (4, 4)]
    assert g.desc(filled).shape == (-1, -1, 4)
    assert g.desc(filled).shape_range == [(2, 300), (1, 8), (4, 4)]
    # A known value needs no bounds.
    assert g.desc(const(g, "known", [1, 2])).value_range is None
