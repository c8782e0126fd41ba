"""Scan (opset 8's batched form and opset 9's): final states and scan
outputs stacked along their axis, against onnx's reference evaluator.

The evaluator scans axis 0 only, in opset 9's form only; for other axes its
oracle is the equivalent model that transposes the scanned axis to the
front and the stacked one back, and for opset 8 it runs opset 9's Scan once
per batch row and stacks the results (what opset 8 defines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_cases import NP_TO_OPGRAPH

import opgraph
from opgraph.onnx import load_onnx, load_onnx_reported

rng = np.random.default_rng(9)
FLOAT = TensorProto.FLOAT


def info(name: str, shape: list[int | str] | None = None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, FLOAT, shape)


def cumulative_body() -> onnx.GraphProto:
    """(state, x_t) -> (state + x_t, state + x_t)."""
    return helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
            helper.make_node("Identity", ["s_out"], ["y_t"]),
        ],
        "body",
        [info("s_in"), info("x_t")],
        [info("s_out"), info("y_t")],
    )


def save(
    path: Path,
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[str],
    opset: int = 17,
    initializers: dict[str, np.ndarray] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        inputs,
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs],
        [numpy_helper.from_array(a, n) for n, a in (initializers or {}).items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.save(model, path)
    return model


def shapes(path: Path, outputs: list[str], **load: Any) -> list[tuple[str, tuple[int, ...]]]:
    graph, report = load_onnx_reported(path, **load)
    found = []
    for name in outputs:
        producer, index = report.tensors[name].rsplit(":", 1)
        desc = graph.desc(graph.tensor(producer, int(index)))
        found.append((desc.dtype.name, tuple(desc.shape)))
    return found


def reference_run(model: onnx.ModelProto | Path, feeds: dict[str, Any]) -> list[Any]:
    """The reference evaluator's outputs in order (a list, as without ``intermediate=True``)."""
    results = ReferenceEvaluator(model).run(None, feeds)
    assert isinstance(results, list)
    return results


def of(results: list[np.ndarray]) -> list[tuple[str, tuple[int, ...]]]:
    return [(NP_TO_OPGRAPH[np.asarray(r).dtype], np.asarray(r).shape) for r in results]


def test_states_and_scan_outputs_along_axis_0(tmp_path: Path) -> None:
    scan = helper.make_node("Scan", ["s0", "x"], ["s", "ys"], body=cumulative_body(), num_scan_inputs=1)
    path = tmp_path / "m.onnx"
    model = save(path, [scan], [info("s0", [2]), info("x", [5, 2])], ["s", "ys"])
    feeds = {"s0": np.zeros(2, np.float32), "x": rng.standard_normal((5, 2)).astype(np.float32)}
    want = of(reference_run(model, feeds))
    assert shapes(path, ["s", "ys"]) == want == [("FLOAT", (2,)), ("FLOAT", (5, 2))]
    assert load_onnx(path).node("s").op_type == "Scan"


@pytest.mark.parametrize(("in_axis", "out_axis"), [(1, 1), (1, -1), (2, 0), (-1, 2)])
def test_scanned_and_stacked_axes(tmp_path: Path, in_axis: int, out_axis: int) -> None:
    x = rng.standard_normal((3, 4, 6)).astype(np.float32)
    scan = helper.make_node(
        "Scan",
        ["s0", "x"],
        ["s", "ys"],
        body=cumulative_body(),
        num_scan_inputs=1,
        scan_input_axes=[in_axis],
        scan_output_axes=[out_axis],
    )
    a = in_axis % 3
    slice_shape = [d for i, d in enumerate(x.shape) if i != a]
    path = tmp_path / "m.onnx"
    save(path, [scan], [info("s0", slice_shape), info("x", list(x.shape))], ["s", "ys"])
    # The oracle: x with the scanned axis moved to the front, Scan on axis
    # 0, the stacked axis moved to out_axis.
    perm_in = [a] + [i for i in range(3) if i != a]
    b = out_axis % 3
    perm_out = list(range(1, 3))
    perm_out.insert(b, 0)
    oracle_nodes = [
        helper.make_node("Transpose", ["x"], ["x_front"], perm=perm_in),
        helper.make_node(
            "Scan", ["s0", "x_front"], ["s", "ys_front"], body=cumulative_body(), num_scan_inputs=1
        ),
        helper.make_node("Transpose", ["ys_front"], ["ys"], perm=perm_out),
    ]
    oracle = save(
        tmp_path / "oracle.onnx",
        oracle_nodes,
        [info("s0", slice_shape), info("x", list(x.shape))],
        ["s", "ys"],
    )
    feeds = {"s0": np.zeros(slice_shape, np.float32), "x": x}
    assert shapes(path, ["s", "ys"]) == of(reference_run(oracle, feeds))


def test_two_scan_inputs_no_state_and_an_outer_value(tmp_path: Path) -> None:
    # y_t = (a_t * w) + b_t with w read from the main graph.
    body = helper.make_graph(
        [helper.make_node("Mul", ["a_t", "w"], ["m"]), helper.make_node("Add", ["m", "b_t"], ["y_t"])],
        "body",
        [info("a_t"), info("b_t")],
        [info("y_t")],
    )
    scan = helper.make_node("Scan", ["a", "b"], ["ys"], body=body, num_scan_inputs=2)
    path = tmp_path / "m.onnx"
    w = rng.standard_normal((1, 3)).astype(np.float32)
    model = save(path, [scan], [info("a", [4, 2, 3]), info("b", [4, 1, 3])], ["ys"], initializers={"w": w})
    feeds = {
        "a": rng.standard_normal((4, 2, 3)).astype(np.float32),
        "b": rng.standard_normal((4, 1, 3)).astype(np.float32),
    }
    assert shapes(path, ["ys"]) == of(reference_run(model, feeds)) == [("FLOAT", (4, 2, 3))]


def test_the_iteration_count_is_unknown_until_the_scanned_axis_is(tmp_path: Path) -> None:
    scan = helper.make_node("Scan", ["s0", "x"], ["s", "ys"], body=cumulative_body(), num_scan_inputs=1)
    path = tmp_path / "m.onnx"
    model = save(path, [scan], [info("s0", [2]), info("x", ["steps", 2])], ["s", "ys"])
    x = rng.standard_normal((7, 2)).astype(np.float32)
    want = of(reference_run(model, {"s0": np.zeros(2, np.float32), "x": x}))
    assert want == [("FLOAT", (2,)), ("FLOAT", (7, 2))]
    assert shapes(path, ["s", "ys"]) == [("FLOAT", (2,)), ("FLOAT", (-1, 2))]
    assert shapes(path, ["s", "ys"], input_shapes={"x": [7, 2]}) == want


def test_a_state_that_grows_widens_to_unknown_dims(tmp_path: Path) -> None:
    # s_out = Concat(s_in, x_t): the state's length changes every iteration.
    body = helper.make_graph(
        [
            helper.make_node("Concat", ["s_in", "x_t"], ["s_out"], axis=0),
            helper.make_node("Identity", ["x_t"], ["y_t"]),
        ],
        "body",
        [info("s_in"), info("x_t")],
        [info("s_out"), info("y_t")],
    )
    scan = helper.make_node("Scan", ["s0", "x"], ["s", "ys"], body=body, num_scan_inputs=1)
    path = tmp_path / "m.onnx"
    model = save(path, [scan], [info("s0", [1]), info("x", [3, 2])], ["s", "ys"])
    feeds = {"s0": np.zeros(1, np.float32), "x": rng.standard_normal((3, 2)).astype(np.float32)}
    (state, ys) = of(reference_run(model, feeds))
    (got_state, got_ys) = shapes(path, ["s", "ys"])
    assert got_ys == ys
    # Without running the loop, the state's length is unknown.
    assert got_state == ("FLOAT", (-1,)) and state == ("FLOAT", (7,))


def test_opset_8_scans_each_batch_row(tmp_path: Path) -> None:
    batch, steps = 3, 5
    scan8 = helper.make_node("Scan", ["", "s0", "x"], ["s", "ys"], body=cumulative_body(), num_scan_inputs=1)
    path = tmp_path / "m8.onnx"
    save(path, [scan8], [info("s0", [batch, 2]), info("x", [batch, steps, 2])], ["s", "ys"], opset=8)
    s0 = rng.standard_normal((batch, 2)).astype(np.float32)
    x = rng.standard_normal((batch, steps, 2)).astype(np.float32)
    # The oracle: opset 9's Scan on each row, stacked.
    scan9 = helper.make_node("Scan", ["s0", "x"], ["s", "ys"], body=cumulative_body(), num_scan_inputs=1)
    row = save(tmp_path / "row.onnx", [scan9], [info("s0", [2]), info("x", [steps, 2])], ["s", "ys"], opset=9)
    runs = [reference_run(row, {"s0": s0[b], "x": x[b]}) for b in range(batch)]
    want = of([np.stack([r[k] for r in runs]) for k in range(2)])
    assert shapes(path, ["s", "ys"]) == want == [("FLOAT", (3, 2)), ("FLOAT", (3, 5, 2))]


def test_a_scan_input_without_the_scanned_axis_names_the_node(tmp_path: Path) -> None:
    scan = helper.make_node(
        "Scan",
        ["s0", "x"],
        ["s", "ys"],
        body=cumulative_body(),
        num_scan_inputs=1,
        scan_input_axes=[3],
        name="scan",
    )
    path = tmp_path / "m.onnx"
    save(path, [scan], [info("s0", [2]), info("x", [5, 2])], ["s", "ys"])
    with pytest.raises(opgraph.OpgraphError, match=r"scan"):
        load_onnx(path)


def test_num_scan_inputs_past_the_inputs_is_a_parse_error(tmp_path: Path) -> None:
    scan = helper.make_node("Scan", ["x"], ["ys"], body=cumulative_body(), num_scan_inputs=2, name="scan")
    path = tmp_path / "m.onnx"
    save(path, [scan], [info("x", [5, 2])], ["ys"])
    with pytest.raises(opgraph.ParseError, match=r"scan.*num_scan_inputs is 2"):
        load_onnx(path)


def test_a_node_may_leave_trailing_scan_outputs_out(tmp_path: Path) -> None:
    scan = helper.make_node(
        "Scan", ["s0", "x"], ["s"], body=cumulative_body(), num_scan_inputs=1, scan_output_axes=[0]
    )
    path = tmp_path / "m.onnx"
    save(path, [scan], [info("s0", [2]), info("x", [5, 2])], ["s"])
    # The oracle names every output of the body.
    full = helper.make_node("Scan", ["s0", "x"], ["s", "ys"], body=cumulative_body(), num_scan_inputs=1)
    oracle = save(tmp_path / "oracle.onnx", [full], [info("s0", [2]), info("x", [5, 2])], ["s", "ys"])
    feeds = {"s0": np.zeros(2, np.float32), "x": rng.standard_normal((5, 2)).astype(np.float32)}
    assert shapes(path, ["s"]) == of(reference_run(oracle, feeds))[:1]
