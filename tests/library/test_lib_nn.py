"""Built-in nn ops checked against numpy with ``opgraph.testing.check_inference``:
MatMul / BatchMatMul / BatchMatMulV2 against ``np.matmul``, Einsum against
``np.einsum`` on a table of equations, BiasAdd, MaxPool / AvgPool (VALID / SAME,
NHWC / NCHW) against TensorFlow's windowed output size, and Caffe's Eltwise.
(SoftmaxV2 and ConcatD are in test_lib_math.py and test_lib_array.py.)

Example counts: ``EXAMPLES`` (100) per op and check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import strategies as st

from opgraph.testing import check_inference, shapes

Array = npt.NDArray[Any]
EXAMPLES = 100


# ---- matrix products ---------------------------------------------------------------


@st.composite
def matmul_shapes(draw: st.DrawFn, batched: bool) -> dict[str, Any]:
    """x1 [.., m, k], x2 [.., k, n] (transposed as drawn later, so any order),
    sometimes unrelated; batch dims equal, broadcastable or not; a bias of
    [n], [1], a wrong length or none."""
    dim = st.integers(0, 3)
    m, k, n = draw(dim), draw(dim), draw(dim)
    if batched:
        batch = draw(shapes(max_rank=2, max_side=3))
        other = draw(st.sampled_from(["same", "ones", "drop", "any"]))
        if other == "same":
            batch2 = batch
        elif other == "ones":
            batch2 = tuple(1 for _ in batch)
        elif other == "drop":
            batch2 = batch[1:]
        else:
            batch2 = draw(shapes(max_rank=2, max_side=3))
    else:
        batch = batch2 = ()
    x1 = (*batch, *draw(st.permutations([m, k])))
    x2 = (*batch2, *draw(st.permutations([k, n])))
    if draw(st.integers(0, 5)) == 0:
        x1, x2 = draw(shapes(max_rank=4, max_side=3)), draw(shapes(max_rank=4, max_side=3))
    bias = draw(st.sampled_from([None, None, (n,), (1,), (n + 1,), (n, 1)]))
    return {"x1": x1, "x2": x2, "bias": bias}


def matmul_reference(kind: str) -> Callable[..., Array]:
    def reference(x1: Array, x2: Array, bias: Array | None, **attrs: bool) -> Array:
        names = ("transpose_a", "transpose_x1") if kind == "MatMul" else ("adj_x", "adj_x1")
        names_b = ("transpose_b", "transpose_x2") if kind == "MatMul" else ("adj_y", "adj_x2")
        ta = any(attrs[a] for a in names)
        tb = any(attrs[b] for b in names_b)
        if kind == "MatMul" and (x1.ndim != 2 or x2.ndim != 2):
            raise ValueError("MatMul takes matrices")
        # GE's BatchMatMulV2 promotes a vector, x1 to a row and x2 to a column,
        # before any adjoint, and drops the promoted dim from the product.
        row = kind == "BatchMatMulV2" and x1.ndim == 1
        column = kind == "BatchMatMulV2" and x2.ndim == 1
        if (row and ta) or (column and tb):
            raise ValueError("a vector has no adjoint")
        x1 = x1[None, :] if row else x1
        x2 = x2[:, None] if column else x2
        if x1.ndim < 2 or x2.ndim < 2:
            raise ValueError("at least matrices")
        if kind == "BatchMatMul" and x1.shape[:-2] != x2.shape[:-2]:
            raise ValueError("BatchMatMul needs equal batch dims")
        a = np.swapaxes(x1, -1, -2) if ta else x1
        b = np.swapaxes(x2, -1, -2) if tb else x2
        y: Array = np.matmul(a, b)
        if column:
            y = y[..., 0]
        if row:
            y = y[..., 0] if column else y[..., 0, :]
        if bias is not None and y.ndim == 0:
            raise ValueError("a bias has no last dim to add to when two vectors multiply to a scalar")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] not in (1, y.shape[-1])):
            raise ValueError("bias must be [N] or [1]")
        return y

    reference.__qualname__ = f"matmul_{kind}"
    return reference


@pytest.mark.parametrize("op_type", ["MatMul", "BatchMatMul", "BatchMatMulV2"])
def test_matmul_matches_numpy(op_type: str) -> None:
    check_inference(
        op_type,
        matmul_reference(op_type),
        shapes=matmul_shapes(op_type != "MatMul"),
        max_examples=EXAMPLES,
    )


@pytest.mark.parametrize("k", [0, 3])
def test_a_vector_has_no_adjoint(k: int) -> None:
    """BatchMatMulV2 promotes a vector operand to a row or a column; an
    adjoint of one would contract the promoted dim, which no framework
    defines (hypothesis found the empty case, where numpy's reading fails)."""
    import opgraph

    g = opgraph.Graph()
    x1 = g.add_input("x1", opgraph.DataType.FLOAT, [k])
    x2 = g.add_input("x2", opgraph.DataType.FLOAT, [k, 2])
    g.add_node("BatchMatMulV2", "mm", [x1, x2], {"adj_x1": True})
    with pytest.raises(opgraph.InferShapeError, match="'x1' is a vector, which has no adjoint"):
        opgraph.infer(g)
    plain = opgraph.Graph()
    y1 = plain.add_input("x1", opgraph.DataType.FLOAT, [k])
    y2 = plain.add_input("x2", opgraph.DataType.FLOAT, [k, 2])
    mm = plain.add_node("BatchMatMulV2", "mm", [y1, y2])
    opgraph.infer(plain)
    assert plain.desc(mm).shape == (2,)


@pytest.mark.parametrize("bias", [[0], [1]])
def test_a_bias_needs_a_last_dim(bias: list[int]) -> None:
    """Two vectors multiply to a scalar, which a bias (``[N]`` or ``[1]``,
    added along the last dim) cannot be added to without changing its
    shape (hypothesis found it: the reference failed, opgraph accepted)."""
    import opgraph

    g = opgraph.Graph()
    x1 = g.add_input("x1", opgraph.DataType.FLOAT, [3])
    x2 = g.add_input("x2", opgraph.DataType.FLOAT, [3])
    b = g.add_input("b", opgraph.DataType.FLOAT, bias)
    g.add_node("BatchMatMulV2", "mm", [x1, x2, b])
    with pytest.raises(opgraph.InferShapeError, match="two vectors multiply to a scalar"):
        opgraph.infer(g)


# ---- Einsum ------------------------------------------------------------------------

EQUATIONS = [
    "ij,jk->ik",
    "bij,bjk->bik",
    "ij->ji",
    "ij->",
    "i,i->",
    "i,j->ij",
    "bhqd,bhkd->bhqk",
    "ij,kl->ijkl",
    "ii->i",
    "ij,jk",
    "...ij,...jk->...ik",
]


@pytest.mark.parametrize("equation", EQUATIONS)
def test_einsum_equation_matches_numpy(equation: str) -> None:
    operands = equation.split("->")[0].split(",")

    @st.composite
    def operand_shapes(draw: st.DrawFn) -> dict[str, Any]:
        sizes = {letter: draw(st.integers(0, 3)) for letter in "bhijklqd"}
        ellipsis = draw(shapes(max_rank=2, max_side=2))
        x = []
        for term in operands:
            shape = [*ellipsis] if term.startswith("...") else []
            shape += [sizes[c] for c in term.replace("...", "")]
            x.append(tuple(shape))
        if draw(st.integers(0, 4)) == 0:  # one dim off, or an operand dropped
            i = draw(st.integers(0, len(x) - 1))
            if len(x[i]) > 0 and draw(st.booleans()):
                j = draw(st.integers(0, len(x[i]) - 1))
                x[i] = tuple(d + 1 if k == j else d for k, d in enumerate(x[i]))
            else:
                x = x[:i] + x[i + 1 :]
        return {"x": x}

    def einsum(x: list[Array], *, equation: str) -> Array:
        # numpy broadcasts a size-1 dim against a label's other dims; TensorFlow
        # wants a label's dims equal (only ellipsis dims broadcast)
        if len(x) == len(operands):
            sizes: dict[str, int] = {}
            for term, array in zip(operands, x, strict=True):
                labels = term.replace("...", "")
                for label, dim in zip(labels, array.shape[array.ndim - len(labels) :], strict=False):
                    if sizes.setdefault(label, dim) != dim:
                        raise ValueError(f"label {label} has dims {sizes[label]} and {dim}")
        result: Array = np.einsum(equation, *x)
        return result

    check_inference(
        "Einsum",
        einsum,
        shapes=operand_shapes(),
        attrs={"equation": equation},
        max_examples=EXAMPLES // 2,
    )


# ---- BiasAdd -----------------------------------------------------------------------


def bias_add(x: Array, bias: Array, *, data_format: str) -> Array:
    """TensorFlow's BiasAdd: x at least 2-D (3-D for NCHW), bias [C] with C
    the last dim (NHWC) or dim 1 (NCHW)."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("unknown data_format")
    if bias.ndim != 1 or x.ndim < (3 if data_format == "NCHW" else 2):
        raise ValueError("bias must be a vector, x at least 2-D (3-D for NCHW)")
    channels = x.shape[1] if data_format == "NCHW" else x.shape[-1]
    if bias.shape[0] != channels:
        raise ValueError("bias length differs from the channels")
    return x + np.zeros(x.shape, x.dtype)


@st.composite
def bias_shapes(draw: st.DrawFn) -> dict[str, Any]:
    x = draw(shapes(max_rank=4))
    channel = draw(st.sampled_from([-1, 1])) if len(x) > 1 else -1
    c = x[channel] if x else 0
    bias = draw(st.sampled_from([(c,), (c,), (c + 1,), (), (c, 1)]))
    return {"x": x, "bias": bias}


def test_bias_add_matches_tensorflow() -> None:
    check_inference(
        "BiasAdd",
        bias_add,
        shapes=bias_shapes(),
        attrs={"data_format": st.sampled_from(["NHWC", "NCHW"])},
        max_examples=EXAMPLES,
    )


# ---- pooling -----------------------------------------------------------------------


def window_size(size: int, k: int, s: int, padding: str) -> int:
    """TensorFlow's shape functions' output size (GetWindowedOutputSizeFromDims,
    dilation 1): a VALID window larger than the input is an error."""
    if padding == "SAME":
        return -(-size // s)
    if size < k:
        raise ValueError("negative dimension size caused by subtracting the window from the input")
    return (size - k) // s + 1


def pool(
    x: Array,
    *,
    ksize: list[int],
    strides: list[int],
    padding: str,
    data_format: str,
    explicit_paddings: list[int],
) -> Array:
    if padding not in ("VALID", "SAME"):
        raise ValueError("padding must be VALID or SAME here")
    if explicit_paddings:
        raise ValueError("explicit_paddings are for EXPLICIT padding only")
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("unknown data_format")
    if x.ndim != 4 or len(ksize) != 4 or len(strides) != 4:
        raise ValueError("4-D x, ksize and strides")
    if min(ksize) < 1 or min(strides) < 1:
        raise ValueError("ksize and strides must be positive")
    spatial = (1, 2) if data_format == "NHWC" else (2, 3)
    channel = 3 if data_format == "NHWC" else 1
    if ksize[0] != 1 or strides[0] != 1 or ksize[channel] != 1 or strides[channel] != 1:
        raise ValueError("pooling over the batch or channel dim is not supported")
    shape = list(x.shape)
    for d in spatial:
        shape[d] = window_size(x.shape[d], ksize[d], strides[d], padding)
    return np.empty(shape, x.dtype)


@st.composite
def windows(draw: st.DrawFn, data_format: str) -> list[int]:
    """Window / stride lists with 1 on the batch and channel dims (mostly)."""
    spatial = st.integers(1, 3) if draw(st.integers(0, 5)) else st.integers(0, 3)
    h, w = draw(spatial), draw(spatial)
    values = [1, h, w, 1] if data_format == "NHWC" else [1, 1, h, w]
    if draw(st.integers(0, 9)) == 0:
        values[draw(st.integers(0, 3))] = 2
    return values


@pytest.mark.parametrize("op_type", ["MaxPool", "AvgPool"])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("min_side", [0, 3], ids=["any_size", "window_fits"])
def test_pooling_matches_tensorflow_window_sizes(op_type: str, data_format: str, min_side: int) -> None:
    # min_side=0 includes inputs smaller than the window, which TensorFlow's VALID
    # refuses; min_side=3 keeps every window inside
    check_inference(
        op_type,
        pool,
        shapes=st.fixed_dictionaries(
            {"x": shapes(min_rank=3 if min_side == 0 else 4, max_rank=5, min_side=min_side, max_side=5)}
        ),
        attrs={
            "ksize": windows(data_format),
            "strides": windows(data_format),
            "padding": st.sampled_from(["VALID", "SAME"]),
            "data_format": data_format,
        },
        max_examples=EXAMPLES // 2,
    )


# ---- Eltwise -----------------------------------------------------------------------


def eltwise(x: list[Array], *, N: int, mode: int, coeff: list[float]) -> Array:
    """Caffe's Eltwise: PROD (0), SUM (1) or MAX (2) of equal shapes; coeff
    (SUM only) has one entry per input or none."""
    if not x or len(x) != N:
        raise ValueError("N must count the (non-zero) inputs")
    if mode not in (0, 1, 2):
        raise ValueError("mode must be 0, 1 or 2")
    if coeff and (mode != 1 or len(coeff) != len(x)):
        raise ValueError("coeff is for SUM, one per input")
    if any(a.shape != x[0].shape for a in x):
        raise ValueError("Eltwise takes equal shapes")
    result: Array = x[0].copy()
    return result


def test_eltwise_matches_caffe() -> None:
    check_inference(
        "Eltwise",
        eltwise,
        attrs={
            "N": lambda arrays: st.one_of(st.just(len(arrays)), st.integers(0, 3)),
            "mode": st.integers(-1, 3),
            "coeff": lambda arrays: st.one_of(
                st.just([]), st.lists(st.floats(-2, 2, width=32), min_size=len(arrays), max_size=len(arrays))
            ),
        },
        max_examples=EXAMPLES,
    )
