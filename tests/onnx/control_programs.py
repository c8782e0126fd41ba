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

- a ``Scan`` over copies of ``x`` stacked along a drawn axis (a static or
  symbolic count), each slice running P; its values are scanned out along
  drawn axes, in drawn directions, and it may carry a counter it also
  scans out.

The If's and Loop's bodies read ``x`` from the enclosing graph (a Scan's
is its own input, the slice); P's constants are Constant nodes inside the
body, or initializers of the body or of the main graph (outer-scope
references). The node may itself sit in a ``Loop`` body that
scans its outputs out, or in both branches of an ``If``, and then reads
its inputs two scopes up. onnxruntime is the judge, as for the programs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper
from shape_programs import Program, draw_program


@dataclass
class ControlProgram:
    """A model with one If, Loop or Scan whose body runs a program (maybe
    inside an enclosing If or Loop), and the feeds onnxruntime runs it on."""

    kind: str  # "If", "Loop" or "Scan"
    program: Program
    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    #: The If's or Loop's outputs, in order (all graph outputs).
    outputs: list[str]
    #: How the condition, trip count or scanned axes are given.
    control: str
    #: Whether opgraph can settle every dim but those of ``open_axes``: a
    #: static input, and a constant condition, a constant count that every
    #: iteration runs to, or a Scan's slices (a fed condition of an
    #: enclosing If, whose branches agree, opens nothing).
    settled: bool
    #: Whether, as well, every integer and boolean value the program
    #: computes from shapes alone is folded (an If whose branch is known).
    folds: bool = False
    #: "nothing", or the If or Loop the node sits in.
    enclosed_in: str = "nothing"
    #: Per output, the axes a settled model may still leave open: the
    #: slice count of a Scan over a symbolic count, a fed enclosing count.
    open_axes: dict[str, set[int]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        fed = "".join(f"; {k} = {self.feeds[k]}" for k in ("c", "go", "wc") if k in self.feeds)
        return f"{self.kind} ({self.control}{fed}) over {self.program.id}"

    @property
    def leading(self) -> int:
        """Dims an enclosing Loop puts before the node's own outputs."""
        return 1 if self.enclosed_in == "Loop" else 0


@dataclass
class Built:
    """One control-flow node and what the enclosing graph gives it."""

    node: onnx.NodeProto
    outputs: list[str]
    control: str
    #: Every dim of its outputs but those of ``open_axes`` follows from
    #: static facts.
    settled: bool
    #: So does every integer and boolean value computed from shapes alone
    #: (the branch that runs is known).
    folds: bool = False
    inputs: list[onnx.ValueInfoProto] = field(default_factory=list)
    feeds: dict[str, np.ndarray] = field(default_factory=dict)
    initializers: list[onnx.TensorProto] = field(default_factory=list)
    open_axes: dict[str, set[int]] = field(default_factory=dict)


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
    kind = d.draw(st.sampled_from(["If", "Loop", "Scan"]), label="kind")
    if kind == "If":
        built = _if(d, p, count, d.draw(st.booleans(), label="constant control"))
    elif kind == "Loop":
        built = _loop(d, p, count, d.draw(st.booleans(), label="constant control"))
    else:
        built = _scan(d, p, count)
    if kind != "Scan":
        built.inputs.insert(0, helper.make_tensor_value_info("x", TensorProto.FLOAT, p.dims))
        built.feeds["x"] = p.x
    if outer_initializers:
        built.initializers += _hoist_initializers(built.node)
    enclosed_in = d.draw(st.sampled_from(["nothing", "If", "Loop"]), label="enclosed in")
    if enclosed_in != "nothing":
        built = _enclosed(d, built, enclosed_in)
    graph = helper.make_graph(
        [built.node],
        kind.lower(),
        built.inputs,
        [onnx.ValueInfoProto(name=o) for o in built.outputs],
        built.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", p.opset)])
    model.ir_version = 8
    settled = built.settled and not p.symbolic
    folds = settled and built.folds
    return ControlProgram(
        kind,
        p,
        model,
        built.feeds,
        built.outputs,
        built.control,
        settled,
        folds,
        enclosed_in,
        built.open_axes,
    )


def _if(d: st.DataObject, p: Program, count: int, constant_control: bool) -> Built:
    then_out = _chosen(d, p, count)
    else_out = _same_dtypes(d, p, then_out)
    then_branch = _renamed(_body(p, "then", [], then_out), "t_")
    else_branch = _renamed(_body(p, "else", [], else_out), "e_")
    cond = d.draw(st.booleans(), label="condition")
    outputs = [f"out{i}" for i in range(count)]
    node = helper.make_node("If", ["c"], outputs, then_branch=then_branch, else_branch=else_branch)
    control = f"condition {'constant' if constant_control else 'fed'} {cond}"
    built = Built(node, outputs, control, constant_control, folds=constant_control)
    if constant_control:
        built.initializers.append(onnx.numpy_helper.from_array(np.asarray(cond), "c"))
    else:
        built.inputs.append(helper.make_tensor_value_info("c", TensorProto.BOOL, []))
        built.feeds["c"] = np.asarray(cond)
    return built


def _loop(d: st.DataObject, p: Program, count: int, constant_control: bool) -> Built:
    scanned = _chosen(d, p, count)
    # (No zero: a loop that never runs leaves its scan outputs' other
    # dims to the implementation.)
    trips = d.draw(st.integers(1, 3), label="trip count")
    inputs: list[onnx.ValueInfoProto] = []
    feeds: dict[str, np.ndarray] = {}
    initializers: list[onnx.TensorProto] = []
    if constant_control:
        initializers.append(onnx.numpy_helper.from_array(np.asarray(trips, np.int64), "c"))
    else:
        inputs.append(helper.make_tensor_value_info("c", TensorProto.INT64, []))
        feeds["c"] = np.asarray(trips, np.int64)
    carry = d.draw(st.booleans(), label="carry a counter")
    body_inputs = [
        helper.make_tensor_value_info("i", TensorProto.INT64, []),
        helper.make_tensor_value_info("keep", TensorProto.BOOL, []),
    ]
    body = _body(p, "body", body_inputs, [])
    form = d.draw(st.sampled_from(["counted", "while"]), label="loop form")
    settled = False
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
            inputs.append(helper.make_tensor_value_info("go", TensorProto.BOOL, []))
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
    node = helper.make_node("Loop", loop_inputs, outputs, body=_renamed(body, "b_"))
    return Built(node, outputs, control, settled, inputs=inputs, feeds=feeds, initializers=initializers)


def _scan(d: st.DataObject, p: Program, count: int) -> Built:
    """A Scan over ``xs``, copies of ``x`` stacked along a drawn axis: each
    iteration's slice is ``x`` and runs the program."""
    scanned = _chosen(d, p, count)
    trips = d.draw(st.integers(1, 3), label="slices")
    rank = len(p.dims)
    axis = d.draw(st.integers(-rank - 1, rank), label="scan input axis")
    at = axis % (rank + 1)
    symbolic_trips = d.draw(st.booleans(), label="slices symbolic")
    xs_dims = list(p.dims)
    xs_dims.insert(at, "t" if symbolic_trips else trips)
    xs = np.stack([p.x] * trips, axis=at)
    # The slice is declared with x's shape or left to the Scan.
    declared: list[int | str] | None = list(p.dims) if d.draw(st.booleans(), label="slice declared") else None
    carry = d.draw(st.booleans(), label="carry a counter")
    body = _body(p, "body", [], [])
    body_outputs: list[str] = []
    outputs: list[str] = []
    scan_inputs = ["xs"]
    if carry:
        # The counter is carried and scanned out, so the direction shows.
        body.input.append(helper.make_tensor_value_info("n", TensorProto.INT64, []))
        body.initializer.append(onnx.numpy_helper.from_array(np.asarray(1, np.int64), "one"))
        body.node.append(helper.make_node("Add", ["n", "one"], ["n_out"]))
        body.node.append(helper.make_node("Identity", ["n"], ["n_seen"]))
        body_outputs += ["n_out", "n_seen"]
        scan_inputs.insert(0, "n0")
        outputs += ["final", "counts"]
    body.input.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, declared))
    scanned_values = [np.zeros((), np.int64)] if carry else []
    for k, name in enumerate(scanned):
        body.node.append(helper.make_node("Identity", [name], [f"s{k}"]))
        body_outputs.append(f"s{k}")
        outputs.append(f"out{k}")
        scanned_values.append(p.values[name])
    # onnxruntime runs a Scan only where each body output has a shape; the
    # rank, with every dim left open, is enough (exporters declare more).
    body.output.extend(
        helper.make_tensor_value_info(o, helper.np_dtype_to_tensor_dtype(v.dtype), [None] * v.ndim)
        for o, v in zip(body_outputs, scanned_values[:1] * carry + scanned_values, strict=True)
    )
    # onnxruntime 1.32 dies of SIGFPE stacking an empty slice along any
    # axis but the first, so such a value is scanned out on axis 0.
    output_axes = [
        d.draw(st.integers(-v.ndim - 1, v.ndim), label="output axis") if v.size else 0 for v in scanned_values
    ]
    input_direction = d.draw(st.integers(0, 1), label="input direction")
    output_directions = [d.draw(st.integers(0, 1), label="output direction") for _ in scanned_values]
    # `_renamed` renames the body's own input x, which the program reads.
    node = helper.make_node(
        "Scan",
        scan_inputs,
        outputs,
        body=_renamed(body, "b_"),
        num_scan_inputs=1,
        scan_input_axes=[axis],
        scan_input_directions=[input_direction],
        scan_output_axes=output_axes,
        scan_output_directions=output_directions,
    )
    symbolic = " (symbolic)" if symbolic_trips else ""
    control = (
        f"{trips} slices{symbolic} on axis {axis} (direction {input_direction}),"
        f" out on axes {output_axes} (directions {output_directions})"
    )
    built = Built(node, outputs, control, settled=True)
    if symbolic_trips:
        # Each scan output's count is the symbol; the state is a scalar.
        scan_outputs = outputs[1:] if carry else outputs
        built.open_axes = {
            name: {axis % (v.ndim + 1)}
            for name, axis, v in zip(scan_outputs, output_axes, scanned_values, strict=True)
        }
    built.inputs.append(helper.make_tensor_value_info("xs", TensorProto.FLOAT, xs_dims))
    built.feeds["xs"] = xs
    if carry:
        built.initializers.append(onnx.numpy_helper.from_array(np.asarray(0, np.int64), "n0"))
    return built


def _enclosed(d: st.DataObject, inner: Built, kind: str) -> Built:
    """``inner`` inside a Loop body that scans its outputs out (a constant
    or fed count), or inside both branches of an If (a constant or fed
    condition): the inner node then reads its inputs two scopes up."""
    constant = d.draw(st.booleans(), label="constant enclosing control")
    outputs = inner.outputs
    inner_values = [f"inner_{o}" for o in outputs]
    if kind == "Loop":
        trips = d.draw(st.integers(1, 2), label="enclosing trip count")
        node = _deep_renamed(inner.node, "w_")
        node.output[:] = inner_values
        body = helper.make_graph(
            [
                node,
                helper.make_node("Identity", ["w_keep"], ["w_keep_out"]),
                *(helper.make_node("Identity", [v], [f"w_s_{v}"]) for v in inner_values),
            ],
            "enclosing_body",
            [
                helper.make_tensor_value_info("w_i", TensorProto.INT64, []),
                helper.make_tensor_value_info("w_keep", TensorProto.BOOL, []),
            ],
            [onnx.ValueInfoProto(name=o) for o in ["w_keep_out", *(f"w_s_{v}" for v in inner_values)]],
        )
        outer = helper.make_node("Loop", ["wc", ""], outputs, body=body)
        control = f"{inner.control}; in a Loop of {trips} ({'constant' if constant else 'fed'})"
        value = np.asarray(trips, np.int64)
        declared = helper.make_tensor_value_info("wc", TensorProto.INT64, [])
    else:
        cond = d.draw(st.booleans(), label="enclosing condition")
        branches = []
        for branch, prefix in (("then_branch", "wt_"), ("else_branch", "we_")):
            node = _deep_renamed(inner.node, prefix)
            node.output[:] = [prefix + v for v in inner_values]
            branches.append(
                helper.make_graph(
                    [node], branch, [], [onnx.ValueInfoProto(name=prefix + v) for v in inner_values]
                )
            )
        outer = helper.make_node("If", ["wc"], outputs, then_branch=branches[0], else_branch=branches[1])
        how = "constant" if constant else "fed"
        control = f"{inner.control}; in both branches of an If on {cond} ({how})"
        value = np.asarray(cond)
        declared = helper.make_tensor_value_info("wc", TensorProto.BOOL, [])
    # An If's branches agree, so its condition need not be known for the
    # dims; a value folds only where the branch is known.
    built = Built(outer, outputs, control, inner.settled, folds=inner.folds and constant and kind == "If")
    # An enclosing Loop stacks each output: a fed count opens the new axis.
    shift = 1 if kind == "Loop" else 0
    for name in outputs:
        axes = {a + shift for a in inner.open_axes.get(name, set())}
        if kind == "Loop" and not constant:
            axes.add(0)
        if axes:
            built.open_axes[name] = axes
    built.inputs, built.feeds = list(inner.inputs), dict(inner.feeds)
    built.initializers = list(inner.initializers)
    if constant:
        built.initializers.append(onnx.numpy_helper.from_array(value, "wc"))
    else:
        built.inputs.append(declared)
        built.feeds["wc"] = value
    return built


def _renamed(body: onnx.GraphProto, prefix: str) -> onnx.GraphProto:
    """The body with every value it defines renamed ``prefix + name`` (its
    inputs and outputs included) and the names it reads from the enclosing
    graph (``x`` in an If's or Loop's body) left alone: sibling bodies
    then never define one name twice, and each output of a body is its own
    value even where two outputs repeat one value (through Identity)."""
    defined = _defined_names(body)
    renamed = onnx.GraphProto()
    renamed.CopyFrom(body)
    _rename_graph(renamed, lambda name: prefix + name if name in defined else name)
    for node in renamed.node:
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
    for body in _subgraphs(node):
        hoisted += list(body.initializer)
        del body.initializer[:]
    return hoisted


def _deep_renamed(node: onnx.NodeProto, prefix: str) -> onnx.NodeProto:
    """A copy of ``node`` with every name its subgraphs define, at any
    depth, renamed ``prefix + name``; the names it reads from enclosing
    scopes stay. Two copies can then sit in sibling branches."""
    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    defined: set[str] = set()
    for body in _subgraphs(copy):
        defined |= _defined_names(body)
    # One flat set serves every depth because `_renamed` gave each body's
    # names a prefix: no name read from outside is defined inside.
    assert not defined & set(node.input), (
        f"{node.op_type} reads names it defines: {defined & set(node.input)}"
    )
    _rename_node(copy, lambda name: prefix + name if name in defined else name)
    return copy


def _subgraphs(node: onnx.NodeProto) -> list[onnx.GraphProto]:
    """The bodies ``node`` holds (an If's branches, a Loop's or Scan's body)."""
    return [a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH]


def _defined_names(graph: onnx.GraphProto) -> set[str]:
    """Every value ``graph`` defines, in its nodes' bodies too."""
    names = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    for node in graph.node:
        names.update(o for o in node.output if o)
        for body in _subgraphs(node):
            names |= _defined_names(body)
    return names


def _rename_graph(graph: onnx.GraphProto, rename: Callable[[str], str]) -> None:
    """Renames, in place, ``graph``'s inputs, outputs, initializers and
    every value its nodes (and their bodies) read or write."""
    for value in [*graph.input, *graph.output]:
        value.name = rename(value.name)
    for tensor in graph.initializer:
        tensor.name = rename(tensor.name)
    for node in graph.node:
        _rename_node(node, rename)


def _rename_node(node: onnx.NodeProto, rename: Callable[[str], str]) -> None:
    node.input[:] = [rename(n) for n in node.input]
    node.output[:] = [rename(n) for n in node.output]
    for body in _subgraphs(node):
        _rename_graph(body, rename)
