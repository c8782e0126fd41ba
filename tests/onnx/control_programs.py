"""Shape programs (:mod:`shape_programs`) moved into control-flow bodies:
the form PyTorch's scripted exports and tf2onnx give data-dependent
branches and loops.

A drawn program P on the input ``x`` becomes the body of

- an ``If`` whose branches each compute P and return some of its values,
  each branch its own choice (of the same dtypes, so that the model is
  valid): the outputs' shapes and values then depend on which branch runs.
  The condition is a graph input (fed true or false) or a constant.
- a ``Loop`` that runs P on every iteration and scans out some of its
  values (each output gains a leading trip-count dim); the trip count is a
  constant or a graph input, given as the Loop's count (with an initial
  condition absent, true, false or fed, and a body condition passed through
  or the constant true) or, in the while form, as a condition the body
  computes; the body may carry a counter.

The body reads ``x`` from the enclosing graph; P's constants are Constant
nodes inside the body, or initializers of the body or of the main graph
(outer-scope references). onnxruntime is the judge, as for the programs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper
from shape_programs import Program, draw_program


@dataclass
class ControlProgram:
    """A model with one If or Loop whose body runs a program, and the feeds
    onnxruntime runs it on."""

    kind: str  # "If" or "Loop"
    program: Program
    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    #: The If's or Loop's outputs, in order (all graph outputs).
    outputs: list[str]
    #: How the condition or trip count is given.
    control: str
    #: Whether opgraph can settle every dim: a static input, and a constant
    #: condition or a constant count that every iteration runs to.
    settled: bool

    @property
    def id(self) -> str:
        return f"{self.kind} ({self.control}; c = {self.feeds.get('c', 'constant')}) over {self.program.id}"


def _body(p: Program, name: str, inputs: list[onnx.ValueInfoProto], outputs: list[str]) -> onnx.GraphProto:
    """P's nodes as a subgraph returning ``outputs``; its initializers stay
    in the body unless the caller moved them out."""
    values = [onnx.ValueInfoProto(name=o) for o in outputs]
    return helper.make_graph(list(p.nodes), name, inputs, values, list(p.initializers))


def _chosen(d: st.DataObject, p: Program, count: int) -> list[str]:
    """``count`` of P's outputs (repeats allowed), not data-dependent ones."""
    candidates = [o for o in p.outputs if o not in p.data_dependent]
    return [d.draw(st.sampled_from(candidates)) for _ in range(count)]


def _same_dtypes(d: st.DataObject, p: Program, like: list[str]) -> list[str]:
    """For each of ``like``, an output of P with its dtype (maybe itself)."""
    picked = []
    for name in like:
        dtype = p.values[name].dtype
        peers = [o for o in p.outputs if o not in p.data_dependent and p.values[o].dtype == dtype]
        picked.append(d.draw(st.sampled_from(peers)))
    return picked


def draw_control_program(d: st.DataObject) -> ControlProgram:
    p = draw_program(d)
    if p.symbolic and d.draw(st.booleans(), label="declare the input static"):
        p.dims = list(p.x.shape)  # the same values; opgraph may then settle everything
    outer_initializers = not p.constant_nodes and d.draw(st.booleans(), label="initializers outside")
    count = d.draw(st.integers(1, 3), label="outputs")
    kind = d.draw(st.sampled_from(["If", "Loop"]), label="kind")
    constant_control = d.draw(st.booleans(), label="constant control")
    declared_x = helper.make_tensor_value_info("x", TensorProto.FLOAT, p.dims)
    feeds: dict[str, np.ndarray] = {"x": p.x}
    initializers: list[onnx.TensorProto] = []
    graph_inputs = [declared_x]
    settled = False
    if kind == "If":
        then_out = _chosen(d, p, count)
        else_out = _same_dtypes(d, p, then_out)
        then_branch = _renamed(_body(p, "then", [], then_out), "t_")
        else_branch = _renamed(_body(p, "else", [], else_out), "e_")
        cond = d.draw(st.booleans(), label="condition")
        if constant_control:
            initializers.append(onnx.numpy_helper.from_array(np.asarray(cond), "c"))
        else:
            graph_inputs.append(helper.make_tensor_value_info("c", TensorProto.BOOL, []))
            feeds["c"] = np.asarray(cond)
        outputs = [f"out{i}" for i in range(count)]
        node = helper.make_node("If", ["c"], outputs, then_branch=then_branch, else_branch=else_branch)
        control = f"condition {'constant' if constant_control else 'fed'} {cond}"
        settled = constant_control
    else:
        scanned = _chosen(d, p, count)
        # (No zero: a loop that never runs leaves its scan outputs' other
        # dims to the implementation.)
        trips = d.draw(st.integers(1, 3), label="trip count")
        if constant_control:
            initializers.append(onnx.numpy_helper.from_array(np.asarray(trips, np.int64), "c"))
        else:
            graph_inputs.append(helper.make_tensor_value_info("c", TensorProto.INT64, []))
            feeds["c"] = np.asarray(trips, np.int64)
        carry = d.draw(st.booleans(), label="carry a counter")
        body_inputs = [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("keep", TensorProto.BOOL, []),
        ]
        body = _body(p, "body", body_inputs, [])
        form = d.draw(st.sampled_from(["counted", "while"]), label="loop form")
        if form == "while":
            # TorchScript's `while i + 1 < c`: no trip count, a computed condition.
            initializers.append(onnx.numpy_helper.from_array(np.asarray(True), "go"))
            initializers.append(onnx.numpy_helper.from_array(np.asarray(1, np.int64), "one"))
            body.node.extend(
                [
                    helper.make_node("Add", ["i", "one"], ["next"]),
                    helper.make_node("Less", ["next", "c"], ["keep_out"]),
                ]
            )
            loop_inputs = ["", "go"]
            control = "while form"
        else:
            # The condition is tested before the first iteration: a false
            # one (constant or fed) runs none.
            start = d.draw(st.sampled_from(["absent", "true", "false", "fed"]), label="initial condition")
            if start == "fed":
                graph_inputs.append(helper.make_tensor_value_info("go", TensorProto.BOOL, []))
                feeds["go"] = np.asarray(d.draw(st.booleans(), label="fed condition"))
            elif start != "absent":
                initializers.append(onnx.numpy_helper.from_array(np.asarray(start == "true"), "go"))
            if d.draw(st.booleans(), label="body condition passed through"):
                body.node.append(helper.make_node("Identity", ["keep"], ["keep_out"]))
            else:
                true = onnx.numpy_helper.from_array(np.asarray(True))
                body.node.append(helper.make_node("Constant", [], ["keep_out"], value=true))
            loop_inputs = ["c", "" if start == "absent" else "go"]
            control = f"counted, initial condition {start}"
            settled = constant_control and start in ("absent", "true")
        body_outputs = ["keep_out"]
        outputs = []
        if carry:
            body.input.append(helper.make_tensor_value_info("n", TensorProto.INT64, []))
            body.node.append(helper.make_node("Add", ["n", "i"], ["n_out"]))
            body_outputs.append("n_out")
            initializers.append(onnx.numpy_helper.from_array(np.asarray(0, np.int64), "n0"))
            loop_inputs.append("n0")
            outputs.append("final")
        for k, name in enumerate(scanned):
            body.node.append(helper.make_node("Identity", [name], [f"s{k}"]))
            body_outputs.append(f"s{k}")
            outputs.append(f"out{k}")
        body.output.extend(onnx.ValueInfoProto(name=o) for o in body_outputs)
        body = _renamed(body, "b_")
        node = helper.make_node("Loop", loop_inputs, outputs, body=body)
    if outer_initializers:
        initializers += _hoist_initializers(node)
    graph = helper.make_graph(
        [node], kind.lower(), graph_inputs, [onnx.ValueInfoProto(name=o) for o in outputs], initializers
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", p.opset)])
    model.ir_version = 8
    return ControlProgram(kind, p, model, feeds, outputs, control, settled and not p.symbolic)


def _renamed(body: onnx.GraphProto, prefix: str) -> onnx.GraphProto:
    """The body with every value it defines renamed ``prefix + name`` (its
    outputs included) and ``x`` left to the enclosing graph: sibling bodies
    then never define one name twice, and each output of a body is its own
    value even where two outputs repeat one value (through Identity)."""
    defined = {i.name for i in body.input} | {t.name for t in body.initializer}
    for node in body.node:
        defined.update(o for o in node.output if o)

    def rename(name: str) -> str:
        return prefix + name if name in defined else name

    renamed = onnx.GraphProto()
    renamed.CopyFrom(body)
    for value in [*renamed.input, *renamed.output]:
        value.name = rename(value.name)
    for tensor in renamed.initializer:
        tensor.name = rename(tensor.name)
    for node in renamed.node:
        node.input[:] = [rename(n) for n in node.input]
        node.output[:] = [rename(n) for n in node.output]
        node.name = prefix + node.name if node.name else ""
    # Repeated outputs: the second and later go through an Identity.
    seen: set[str] = set()
    for k, value in enumerate(renamed.output):
        if value.name in seen:
            copy = f"{prefix}repeat{k}"
            renamed.node.append(helper.make_node("Identity", [value.name], [copy]))
            value.name = copy
        seen.add(value.name)
    return renamed


def _hoist_initializers(node: onnx.NodeProto) -> list[onnx.TensorProto]:
    """Moves the initializers of ``node``'s bodies to the main graph, which
    the bodies then read as outer-scope values."""
    hoisted: list[onnx.TensorProto] = []
    for attribute in node.attribute:
        if attribute.type == onnx.AttributeProto.GRAPH:
            hoisted += list(attribute.g.initializer)
            del attribute.g.initializer[:]
    return hoisted
