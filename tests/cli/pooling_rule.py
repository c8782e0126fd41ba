"""A pooling op whose shape rule has a bug, and a numpy reference: the case
``opgraph check-op`` must catch (issue 18 item 6). Used by
test_cli_check_op_case_mix.py and tests/benchmarks/check_op_catch_rate.py.

The bug: the rule rounds up where pooling without padding rounds down (the
window must fit), so it is wrong only when pad is 0 and the stride does not
divide the span. With default attribute draws (ints -4..4) few cases are
valid at all, so the bug is rarely hit."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from opgraph import DataType, InferShapeContext, OpDef

pool = OpDef("CheckOpBuggyPool")
pool.input("x", dtypes=[DataType.FLOAT])
pool.output("y", dtypes=[DataType.FLOAT])
pool.attr("kernel", int)
pool.attr("stride", int, default=1)
pool.attr("pad", int, default=0)


def _check(rank: int, kernel: int, stride: int, pad: int, height: int, width: int) -> None:
    if rank != 4:
        raise ValueError(f"pool takes NCHW, got rank {rank}")
    if kernel < 1 or stride < 1 or not 0 <= pad < kernel:
        raise ValueError(f"bad window kernel={kernel} stride={stride} pad={pad}")
    if min(height, width) + 2 * pad < kernel:
        raise ValueError("the window is larger than the padded input")


@pool.infer_shape
def infer_pool(ctx: InferShapeContext) -> None:
    shape = ctx.input_shape(0)
    kernel, stride, pad = ctx.attr_int("kernel"), ctx.attr_int("stride"), ctx.attr_int("pad")
    _check(len(shape), kernel, stride, pad, *(shape[2:] if len(shape) == 4 else (0, 0)))
    n, c, h, w = shape

    def out(dim: int) -> int:
        span = dim + 2 * pad - kernel
        if pad == 0:
            return -(-span // stride) + 1  # BUG: rounds up; the window must fit
        return span // stride + 1

    ctx.set_output_shape(0, (n, c, out(h), out(w)))


fixed_pool = OpDef("CheckOpFixedPool")
fixed_pool.input("x", dtypes=[DataType.FLOAT])
fixed_pool.output("y", dtypes=[DataType.FLOAT])
fixed_pool.attr("kernel", int)
fixed_pool.attr("stride", int, default=1)
fixed_pool.attr("pad", int, default=0)


@fixed_pool.infer_shape
def infer_fixed_pool(ctx: InferShapeContext) -> None:
    shape = ctx.input_shape(0)
    kernel, stride, pad = ctx.attr_int("kernel"), ctx.attr_int("stride"), ctx.attr_int("pad")
    _check(len(shape), kernel, stride, pad, *(shape[2:] if len(shape) == 4 else (0, 0)))
    n, c, h, w = shape
    ctx.set_output_shape(0, (n, c, *((d + 2 * pad - kernel) // stride + 1 for d in (h, w))))


def reference(x: np.ndarray, kernel: int, stride: int, pad: int) -> np.ndarray:
    _check(x.ndim, kernel, stride, pad, *(x.shape[2:] if x.ndim == 4 else (0, 0)))
    n, c, h, w = x.shape
    oh, ow = ((d + 2 * pad - kernel) // stride + 1 for d in (h, w))
    return np.zeros((n, c, oh, ow), x.dtype)


STRATEGIES = {"kernel": st.integers(1, 5), "stride": st.integers(1, 3), "pad": st.integers(0, 3)}
"""The strategies a ``--strategies`` option can name."""

SHAPES = st.fixed_dictionaries(
    {"x": st.tuples(st.integers(1, 2), st.integers(1, 3), st.integers(1, 8), st.integers(1, 8))}
)
"""NCHW inputs, what ``--shape x=1..2,1..3,1..8,1..8`` draws."""
