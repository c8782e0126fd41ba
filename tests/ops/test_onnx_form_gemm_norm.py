"""MatMulV2 (ONNX Gemm) and BatchNorm / InstanceNormalization /
GroupNormalization (ONNX) against onnx.reference on real arrays."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import desc, one_node_graph
from hypothesis import given
from hypothesis import strategies as st
from onnx_form_helpers import run_onnx

import opgraph
from opgraph import DataType, TensorDesc

dims = st.integers(1, 4)


def _bias_shape(m: int, n: int) -> st.SearchStrategy[tuple[int, ...]]:
    return st.sampled_from([(), (1,), (n,), (1, n), (m, 1), (m, n), (1, 1)])


@given(
    m=dims,
    k=dims,
    n=dims,
    ta=st.booleans(),
    tb=st.booleans(),
    data=st.data(),
    dtype=st.sampled_from(["f", "i"]),
)
def test_gemm_matches_reference(
    m: int, k: int, n: int, ta: bool, tb: bool, data: st.DataObject, dtype: str
) -> None:
    np_type = np.float32 if dtype == "f" else np.int64
    a = np.ones((k, m) if ta else (m, k), dtype=np_type)
    b = np.ones((n, k) if tb else (k, n), dtype=np_type)
    bias = data.draw(st.none() | _bias_shape(m, n))
    c = None if bias is None else np.ones(bias, dtype=np_type)
    expected = run_onnx("Gemm", [a, b, c], {"transA": int(ta), "transB": int(tb), "alpha": 2.0}, opset=13)[0]
    attrs = {"transpose_x1": ta, "transpose_x2": tb, "alpha": 2.0}
    dt = DataType.FLOAT if dtype == "f" else DataType.INT64
    graph, out = one_node_graph("MatMulV2", [desc(a.shape, dt), desc(b.shape, dt), c], attrs)
    opgraph.infer(graph)
    y = graph.desc(out)
    assert y.shape == expected.shape and y.dtype == dt


@pytest.mark.parametrize(
    ("a", "b", "bias", "attrs", "match"),
    [
        ((2, 3), (4, 5), None, {}, "contracted dims"),
        ((3, 2), (3, 5), None, {}, "contracted dims"),
        ((2, 3, 1), (3, 5), None, {}, "x1 must be 2-D"),
        ((2, 3), (3,), None, {}, "x2 must be 2-D"),
        ((2, 3), (3, 5), (4,), {}, "does not broadcast"),
        ((2, 3), (3, 5), (3, 5), {}, "does not broadcast"),
        ((2, 3), (3, 5), (1, 2, 5), {}, "rank <= 2"),
    ],
)
def test_gemm_errors(
    a: tuple[int, ...], b: tuple[int, ...], bias: tuple[int, ...] | None, attrs: dict[str, Any], match: str
) -> None:
    inputs = [desc(a), desc(b), None if bias is None else desc(bias)]
    graph, _ = one_node_graph("MatMulV2", inputs, attrs)
    with pytest.raises(opgraph.NodeError, match=match):
        opgraph.infer(graph)


def test_gemm_unknown_dims() -> None:
    graph, out = one_node_graph("MatMulV2", [desc((-1, 3)), desc((-2,)), desc((-1,))], {"transpose_x2": True})
    opgraph.infer(graph)
    assert graph.desc(out).shape == (-1, -1)


def _batch_norm(
    x: tuple[int, ...], c: tuple[int, ...], attrs: dict[str, Any] | None = None, running: int = 0
) -> list[TensorDesc]:
    inputs = [desc(x), *(desc(c) for _ in range(4))]
    outputs = [("running_mean", running), ("running_var", running)]
    graph, out = one_node_graph("BatchNorm", inputs, attrs, dynamic_outputs=outputs)
    opgraph.infer(graph)
    return [graph.desc(out.output(i)) for i in range(1 + 2 * running)]


@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=5), training=st.booleans())
def test_batch_norm_matches_reference(shape: list[int], training: bool) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    c = shape[1]
    params = [
        np.ones(c, np.float32),
        np.zeros(c, np.float32),
        np.zeros(c, np.float32),
        np.ones(c, np.float32),
    ]
    n_out = 3 if training else 1
    expected = run_onnx("BatchNormalization", [x, *params], {"training_mode": int(training)}, n_out, opset=15)
    got = _batch_norm(tuple(shape), (c,), {"training_mode": int(training)}, running=int(training))
    assert [g.shape for g in got] == [e.shape for e in expected]
    assert all(g.dtype == DataType.FLOAT for g in got)


def test_batch_norm_spatial_zero_and_errors() -> None:
    assert _batch_norm((2, 3, 4), (3, 4), {"spatial": 0})[0].shape == (2, 3, 4)
    assert _batch_norm((2, 3, 4), (3, 4), {"spatial": 0}, running=1)[1].shape == (3, 4)
    assert _batch_norm((-2,), (-1,), running=1)[2].shape == (-1,)
    assert _batch_norm((-1, -1, 5), (7,), running=1)[1].shape == (7,)
    for x, c, attrs, match in [
        ((2, 3, 4), (4,), {}, "scale has a length other than the channels of x: 4 != 3"),
        ((2, 3, 4), (3, 1), {}, "scale must be 1-D"),
        ((3,), (3,), {}, "rank >= 2"),
        ((2, 3, 4), (3,), {"spatial": 0}, "with spatial 0"),
        ((2, 3, 4), (3,), {"training_mode": 2}, "training_mode is 2"),
    ]:
        with pytest.raises(opgraph.NodeError, match=match):
            _batch_norm(x, c, attrs)


def _norm(
    op: str, x: tuple[int, ...], scale: tuple[int, ...], attrs: dict[str, Any] | None = None
) -> TensorDesc:
    graph, out = one_node_graph(op, [desc(x), desc(scale), desc(scale)], attrs)
    opgraph.infer(graph)
    return graph.desc(out)


@given(shape=st.lists(st.integers(1, 4), min_size=3, max_size=5))
def test_instance_norm_matches_reference(shape: list[int]) -> None:
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    c = shape[1]
    expected = run_onnx("InstanceNormalization", [x, np.ones(c, np.float32), np.zeros(c, np.float32)])[0]
    assert _norm("InstanceNormalization", tuple(shape), (c,)).shape == expected.shape
    with pytest.raises(opgraph.NodeError, match="b has a length other than the channels"):
        graph, _ = one_node_graph("InstanceNormalization", [desc(shape), desc((c,)), desc((c + 1,))])
        opgraph.infer(graph)


@given(groups=st.integers(1, 3), per_group=st.integers(1, 3), rest=st.lists(dims, min_size=0, max_size=2))
def test_group_norm_matches_reference(groups: int, per_group: int, rest: list[int]) -> None:
    c = groups * per_group
    x = np.random.default_rng(0).standard_normal((2, c, *rest)).astype(np.float32)
    ones = np.ones(c, np.float32)
    expected = run_onnx("GroupNormalization", [x, ones, ones], {"num_groups": groups}, opset=21)[0]
    assert _norm("GroupNormalization", x.shape, (c,), {"num_groups": groups}).shape == expected.shape
    # Opset 18's per-group scale and bias.
    assert _norm("GroupNormalization", x.shape, (groups,), {"num_groups": groups}).shape == x.shape


@pytest.mark.parametrize(
    ("x", "scale", "groups", "match"),
    [
        ((2, 6, 3), (6,), 4, "not a multiple of num_groups"),
        ((2, 6, 3), (5,), 3, "C \\(6\\) or num_groups \\(3\\)"),
        ((2, 6, 3), (6,), 0, "num_groups is 0"),
    ],
)
def test_group_norm_errors(x: tuple[int, ...], scale: tuple[int, ...], groups: int, match: str) -> None:
    with pytest.raises(opgraph.NodeError, match=match):
        _norm("GroupNormalization", x, scale, {"num_groups": groups})
