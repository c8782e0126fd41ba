"""MatMul, BatchMatMul, BatchMatMulV2 and Einsum against numpy on real arrays."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import desc
from hypothesis import given
from hypothesis import strategies as st
from nn_helpers import shape_of

import opgraph
from opgraph import DataType

dims = st.integers(1, 4)


def _matmul(op: str, a: tuple[int, ...], b: tuple[int, ...], ta: bool, tb: bool) -> tuple[int, ...]:
    names = ("transpose_a", "transpose_b") if op == "MatMul" else ("adj_x", "adj_y")
    return shape_of(op, [desc(a), desc(b)], {names[0]: ta, names[1]: tb})


@given(m=dims, k=dims, k2=dims, n=dims, ta=st.booleans(), tb=st.booleans())
def test_matmul_matches_numpy(m: int, k: int, k2: int, n: int, ta: bool, tb: bool) -> None:
    a = np.zeros((k, m) if ta else (m, k))
    b = np.zeros((n, k2) if tb else (k2, n))
    ref_a, ref_b = (a.T if ta else a), (b.T if tb else b)
    if k == k2:
        assert _matmul("MatMul", a.shape, b.shape, ta, tb) == np.matmul(ref_a, ref_b).shape
    else:
        with pytest.raises(ValueError):
            np.matmul(ref_a, ref_b)
        with pytest.raises(opgraph.NodeError, match="contracted"):
            _matmul("MatMul", a.shape, b.shape, ta, tb)


batch = st.lists(st.integers(1, 3), max_size=3)


@given(ba=batch, bb=batch, m=dims, k=dims, n=dims, ta=st.booleans(), tb=st.booleans())
def test_batch_matmul_v2_broadcasts_like_numpy(
    ba: list[int], bb: list[int], m: int, k: int, n: int, ta: bool, tb: bool
) -> None:
    a = np.zeros((*ba, k, m) if ta else (*ba, m, k))
    b = np.zeros((*bb, n, k) if tb else (*bb, k, n))
    ref_a, ref_b = (np.swapaxes(a, -1, -2) if ta else a), (np.swapaxes(b, -1, -2) if tb else b)
    try:
        expected = np.matmul(ref_a, ref_b).shape
    except ValueError:
        with pytest.raises(opgraph.NodeError, match="broadcast"):
            _matmul("BatchMatMulV2", a.shape, b.shape, ta, tb)
    else:
        assert _matmul("BatchMatMulV2", a.shape, b.shape, ta, tb) == expected


@given(b=batch, m=dims, k=dims, n=dims)
def test_batch_matmul_needs_equal_batch_dims(b: list[int], m: int, k: int, n: int) -> None:
    assert _matmul("BatchMatMul", (*b, m, k), (*b, k, n), False, False) == (*b, m, n)
    with pytest.raises(opgraph.NodeError, match="equal batch dims"):
        _matmul("BatchMatMul", (*b, 5, m, k), (*b, 6, k, n), False, False)


def test_matmul_edge_cases() -> None:
    # Unknown dims propagate; an unknown contracted dim matches anything.
    assert _matmul("MatMul", (-1, 3), (-1, 5), False, False) == (-1, 5)
    assert _matmul("BatchMatMulV2", (-2,), (3, 5), False, False) == (-2,)
    assert _matmul("BatchMatMulV2", (-1, 2, 3), (1, 3, 5), False, False) == (-1, 2, 5)
    # GE's attribute names transpose as well.
    assert shape_of("MatMul", [desc((3, 2)), desc((3, 4))], {"transpose_x1": True}) == (2, 4)
    assert shape_of("BatchMatMul", [desc((7, 3, 2)), desc((7, 3, 4))], {"adj_x1": True}) == (7, 2, 4)
    with pytest.raises(opgraph.NodeError, match="2-D"):
        _matmul("MatMul", (2, 3, 4), (4, 5), False, False)
    with pytest.raises(opgraph.NodeError, match="at least 2-D"):
        _matmul("BatchMatMul", (3,), (3, 5), False, False)
    # GE's BatchMatMulV2 (and ONNX's MatMul) promote a vector and drop its dim.
    assert _matmul("BatchMatMulV2", (3,), (2, 3, 5), False, False) == (2, 5)
    assert _matmul("BatchMatMulV2", (2, 4, 3), (3,), False, False) == (2, 4)
    assert _matmul("BatchMatMulV2", (3,), (3,), False, False) == ()
    with pytest.raises(opgraph.NodeError, match="at least 1-D"):
        _matmul("BatchMatMulV2", (), (3, 5), False, False)
    # bias: [N] or [1]; anything else is rejected.
    assert shape_of("MatMul", [desc((2, 3)), desc((3, 4)), desc((4,))]) == (2, 4)
    with pytest.raises(opgraph.NodeError, match="bias"):
        shape_of("MatMul", [desc((2, 3)), desc((3, 4)), desc((5,))])
    # dtypes must agree (one combination for x1, x2, y).
    with pytest.raises(opgraph.VerifyError):
        shape_of("MatMul", [desc((2, 3)), desc((3, 4), DataType.FLOAT16)])


# ---- Einsum --------------------------------------------------------------------------

EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("...ij,...jk->...ik", [(6, 1, 2, 3), (5, 3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ij->i", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ii->i", [(3, 3)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("Ba,ab", [(2, 3), (3, 4)]),
    ("ij->...ij", [(3, 4)]),
    ("...i,...i->...", [(2, 1, 3), (4, 3)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    (" ij , jk -> ik ", [(2, 3), (3, 4)]),
]


def _einsum(equation: str, shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    return shape_of("Einsum", [[desc(s) for s in shapes]], {"equation": equation})


@pytest.mark.parametrize(("equation", "shapes"), EQUATIONS)
def test_einsum_matches_numpy(equation: str, shapes: list[tuple[int, ...]]) -> None:
    expected = np.einsum(equation, *[np.zeros(s) for s in shapes]).shape
    assert _einsum(equation, shapes) == expected


REJECTED = [
    ("ij,jk->ik", [(2, 3), (4, 5)], "label 'j'"),
    ("ii->i", [(3, 4)], "repeated label"),
    ("i->ii", [(2,)], "repeats"),
    ("ij->k", [(2, 3)], "appears in no input"),
    ("...ij->ij", [(2, 3, 4)], "drops"),
    ("ij", [(2, 3, 4)], "rank"),
    ("ij,jk->ik", [(2, 3)], "operands"),
    ("i1->i", [(2,)], "only letters"),
]


def test_einsum_labels_do_not_broadcast_as_in_tensorflow() -> None:
    # numpy lets a size-1 label stretch; TensorFlow (the spec) gives a label
    # one size and broadcasts only the '...' dims.
    assert np.einsum("ij,jk->ik", np.zeros((2, 1)), np.zeros((3, 4))).shape == (2, 4)
    with pytest.raises(opgraph.NodeError, match="label 'j'"):
        _einsum("ij,jk->ik", [(2, 1), (3, 4)])


@pytest.mark.parametrize(("equation", "shapes", "message"), REJECTED)
def test_einsum_rejects_what_numpy_rejects(
    equation: str, shapes: list[tuple[int, ...]], message: str
) -> None:
    if len(shapes) == equation.split("->")[0].count(",") + 1 and "1" not in equation:
        with pytest.raises(ValueError):
            np.einsum(equation, *[np.zeros(s) for s in shapes])
    with pytest.raises(opgraph.NodeError, match=message):
        _einsum(equation, shapes)


@given(b=batch, m=dims, k=dims, n=dims)
def test_einsum_batch_matmul_property(b: list[int], m: int, k: int, n: int) -> None:
    shapes = [(*b, m, k), (*b, k, n)]
    expected = np.einsum("...ij,...jk->...ik", *[np.zeros(s) for s in shapes]).shape
    assert _einsum("...ij,...jk->...ik", shapes) == expected


def test_einsum_unknown_dims() -> None:
    assert _einsum("ij,jk->ik", [(-1, 3), (3, -1)]) == (-1, -1)
    assert _einsum("ij,jk->ik", [(-1, 3), (-2,)]) == (-1, -1)
    assert _einsum("...ij->...ji", [(-2,)]) == (-2,)
