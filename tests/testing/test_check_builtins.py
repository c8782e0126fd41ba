"""check_inference on the built-in ops that have numpy references: Add vs
``np.add`` (equal dtypes from the parallel lists, broadcasting shapes),
Identity, Reshape with a constant target vs ``np.reshape`` (TensorFlow's rules
for the target), and Conv2D (NCHW, explicit pads) vs a direct numpy convolution.

Example counts come from the hypothesis profile in tests/conftest.py (``ci``:
300 per check) unless a test passes ``max_examples``."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from helpers import reference_conv2d_nchw
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from opgraph import DataType
from opgraph.testing import check_inference

Array = npt.NDArray[Any]


def test_add_matches_numpy() -> None:
    check_inference("Add", np.add)


def test_add_matches_numpy_on_broadcastable_shapes() -> None:
    check_inference("Add", np.add, shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=5))


def test_add_is_sound_with_unknown_dims() -> None:
    check_inference("Add", np.add, unknown_dims=True)


def test_identity_matches_numpy() -> None:
    check_inference("Identity", lambda x: x.copy())


# ---- Reshape ---------------------------------------------------------------------


@st.composite
def reshape_targets(draw: st.DrawFn, shape: tuple[int, ...]) -> Array:
    """Mostly valid targets for ``shape`` (same dims, flattened, one -1),
    sometimes arbitrary (usually invalid: wrong count, two -1, negatives)."""
    dims = list(shape)
    kind = draw(st.sampled_from(["same", "flat", "minus_one", "split", "arbitrary"]))
    if kind == "same":
        target = dims
    elif kind == "flat":
        target = [int(np.prod(dims))]
    elif kind == "minus_one":
        target = [*dims, 1]
        target[draw(st.integers(0, len(target) - 1))] = -1
    elif kind == "split":
        target = [*dims, 1, 1] if draw(st.booleans()) else [d for d in dims if d != 1]
    else:
        target = draw(st.lists(st.integers(-2, 6), max_size=5))
    return np.array(target, dtype=np.int64)


def reshape_reference(x: Array, shape: Array, *, axis: int, num_axes: int, allowzero: int = 1) -> Array:
    """``np.reshape`` with TensorFlow's target rules (numpy reads any negative
    dim as -1; TensorFlow rejects all but one -1); with ``allowzero`` 0,
    ONNX's rule first: a 0 copies the input dim at its position."""
    assert (axis, num_axes) == (0, -1)
    if shape.ndim != 1 or (shape < -1).any() or (shape == -1).sum() > 1:
        raise ValueError(f"bad target {shape}")
    dims = [int(d) for d in shape]
    if allowzero == 0:
        if any(d == 0 and i >= x.ndim for i, d in enumerate(dims)):
            raise ValueError(f"target {dims} copies a dim the input of rank {x.ndim} lacks")
        dims = [x.shape[i] if d == 0 else d for i, d in enumerate(dims)]
    return np.reshape(x, tuple(dims))


def test_reshape_matches_numpy_with_constant_target() -> None:
    check_inference(
        "Reshape",
        reshape_reference,
        attrs={"axis": 0, "num_axes": -1},
        value_inputs={"shape": lambda arrays: reshape_targets(arrays["x"].shape)},
    )


def test_reshape_rejects_what_numpy_rejects_for_random_targets() -> None:
    # the default value strategy for a value-depend input: small ints, rank 0 or 1
    check_inference("Reshape", reshape_reference, attrs={"axis": 0, "num_axes": -1})


def test_reshape_copies_zero_dims_when_allowzero_is_0() -> None:
    check_inference(
        "Reshape",
        reshape_reference,
        attrs={"axis": 0, "num_axes": -1, "allowzero": 0},
        value_inputs={"shape": lambda arrays: reshape_targets(arrays["x"].shape)},
    )


# ---- Conv2D ----------------------------------------------------------------------

CONV_OUTPUT = {
    np.dtype(np.float16): np.float16,
    np.dtype(np.float32): np.float32,
    np.dtype(np.int8): np.int32,
}


@st.composite
def conv_shapes(draw: st.DrawFn) -> dict[str, tuple[int, ...] | None]:
    """NCHW x and filter whose channels fit some groups count in 1..3; a bias
    of the right length, a wrong one, or none."""
    groups = draw(st.integers(1, 3))
    cin_g = draw(st.integers(1, 2))
    cout = groups * draw(st.integers(1, 2))
    side = st.integers(1, 6)
    x = (draw(st.integers(0, 2)), cin_g * groups, draw(side), draw(side))
    kernel = st.integers(1, 3)
    w = (cout, cin_g, draw(kernel), draw(kernel))
    bias = draw(st.sampled_from([None, (cout,), (cout + 1,)]))
    return {"x": x, "filter": w, "bias": bias, "offset_w": None}


def conv_reference(
    x: Array,
    filter: Array,
    bias: Array | None,
    offset_w: Array | None,
    *,
    strides: list[int],
    pads: list[int],
    dilations: list[int],
    groups: int,
    **_: object,
) -> Array:
    if groups < 1 or min(strides) < 1 or min(dilations) < 1 or min(pads) < 0:
        raise ValueError("non-positive strides / dilations / groups or negative pads")
    if strides[:2] != [1, 1] or dilations[:2] != [1, 1]:
        raise ValueError("strides / dilations must be 1 in N and C")
    if bias is not None and bias.shape != (filter.shape[0],):
        raise ValueError("bias length differs from the output channels")
    out = reference_conv2d_nchw(
        x.astype(np.float64),
        filter.astype(np.float64),
        strides=(strides[2], strides[3]),
        pads=(pads[0], pads[1], pads[2], pads[3]),
        dilations=(dilations[2], dilations[3]),
        groups=groups,
    )
    return out.astype(CONV_OUTPUT[x.dtype])


def test_conv2d_nchw_matches_a_numpy_convolution() -> None:
    spatial = st.sampled_from([1, 1, 2, 3, 0])  # mostly valid strides
    check_inference(
        "Conv2D",
        conv_reference,
        shapes=conv_shapes(),
        dtypes=[DataType.FLOAT, DataType.FLOAT16, DataType.INT8, DataType.INT32],
        attrs={
            "data_format": "NCHW",
            # mostly the groups the shapes were drawn for, sometimes any
            "groups": lambda arrays: st.one_of(
                st.just(arrays["x"].shape[1] // arrays["filter"].shape[1]), st.integers(1, 3)
            ),
            "strides": st.tuples(st.just(1), st.just(1), spatial, spatial).map(list),
            "pads": st.lists(st.integers(0, 2), min_size=4, max_size=4),
            "dilations": st.tuples(st.just(1), st.just(1), st.integers(1, 2), st.integers(1, 2)).map(list),
        },
        max_examples=200,
    )
