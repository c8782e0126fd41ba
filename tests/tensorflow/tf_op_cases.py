"""One-op TensorFlow graphs built and run by TensorFlow itself: the ground
truth for opgraph's TensorFlow plugins and the IR ops behind them.

A :class:`TfCase` is one ``tf.raw_ops`` call. Its GraphDef is written once
and read by both sides: TensorFlow imports it (running its C++ shape
functions with every input's shape known) and runs it in a session;
opgraph loads the same bytes and infers."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import helpers
import numpy as np
import tensorflow as tf

from opgraph import TensorDesc
from opgraph.tensorflow import load_tensorflow

#: The name of the op under test in every case's graph.
OUT = "out"
#: numpy dtype → opgraph DataType name.
NP_TO_OPGRAPH = helpers.NP_TO_OPGRAPH

Inputs = Mapping[str, "np.ndarray | list[np.ndarray]"]


@dataclass
class TfCase:
    """``tf.raw_ops.<op>(**inputs, **attrs)``. Each input is a numpy array,
    or a list of them for a list input (ConcatV2's ``values``); those named
    in ``constants`` (``"values_1"`` for an element of a list) are Const
    nodes, the rest Placeholders of their full static shape or of the
    partly unknown one ``unknown`` gives."""

    op: str
    inputs: Inputs
    attrs: dict[str, Any] = field(default_factory=dict)
    constants: frozenset[str] = frozenset()
    #: Placeholders whose declared shape leaves some dims unknown (the axes
    #: listed; None: the rank too), as a frozen model's batch is.
    unknown: dict[str, tuple[int, ...] | None] = field(default_factory=dict)

    @property
    def id(self) -> str:
        shapes = ",".join(
            f"{name}={_shape_text(value)}"
            + ("*" if name in self.constants else "")
            + self._unknown_text(name)
            for name, value in self.arrays().items()
        )
        attrs = ",".join(f"{k}={v}" for k, v in sorted(self.attrs.items()))
        return f"{self.op}({shapes};{attrs})"

    def _unknown_text(self, name: str) -> str:
        if name not in self.unknown:
            return ""
        axes = self.unknown[name]
        return "(rank ?)" if axes is None else f"(dims {list(axes)} ?)"

    def declared_shape(self, name: str, array: np.ndarray) -> tf.TensorShape:
        """The shape Placeholder ``name`` declares for its value ``array``."""
        if name not in self.unknown:
            return tf.TensorShape(array.shape)
        axes = self.unknown[name]
        if axes is None:
            return tf.TensorShape(None)
        return tf.TensorShape([None if a in axes else n for a, n in enumerate(array.shape)])

    def arrays(self) -> dict[str, np.ndarray]:
        """Every input array by its node name (list elements as ``name_i``)."""
        found: dict[str, np.ndarray] = {}
        for name, value in self.inputs.items():
            if isinstance(value, list):
                found.update({f"{name}_{i}": a for i, a in enumerate(value)})
            else:
                found[name] = value
        return found

    def feeds(self) -> dict[str, np.ndarray]:
        """The Placeholders' values, by tensor name."""
        return {f"{name}:0": a for name, a in self.arrays().items() if name not in self.constants}

    def graph_def(self) -> tf.compat.v1.GraphDef:
        """The case as a GraphDef. The op is built on Placeholders of unknown
        shape (so that building it runs no shape check: the import does),
        or, where its shape function needs an input's rank (SpaceToBatchND's
        block_shape), of their shapes; then each input gets its full shape
        or becomes a Const."""
        try:
            graph = self._build(shaped=False)
        except ValueError:
            graph = self._build(shaped=True)
        graph_def = graph.as_graph_def()
        arrays = self.arrays()
        for node in graph_def.node:
            if node.op != "Placeholder":
                continue
            array = arrays[node.name]
            if node.name in self.constants:
                node.op = "Const"
                node.attr.clear()
                node.attr["dtype"].type = tf.as_dtype(array.dtype).as_datatype_enum
                node.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(array))
            else:
                node.attr["shape"].shape.CopyFrom(self.declared_shape(node.name, array).as_proto())
        return graph_def

    def _build(self, shaped: bool) -> tf.Graph:
        graph = tf.Graph()
        with graph.as_default():
            args: dict[str, Any] = {}
            for name, value in self.inputs.items():
                if isinstance(value, list):
                    args[name] = [_placeholder(f"{name}_{i}", a, shaped) for i, a in enumerate(value)]
                else:
                    args[name] = _placeholder(name, value, shaped)
            getattr(tf.raw_ops, self.op)(**args, **self.attrs, name=OUT)
        return graph


def _placeholder(name: str, array: np.ndarray, shaped: bool) -> tf.Tensor:
    return tf.compat.v1.placeholder(
        tf.as_dtype(array.dtype), shape=array.shape if shaped else None, name=name
    )


def _shape_text(value: np.ndarray | list[np.ndarray]) -> str:
    if isinstance(value, list):
        return "[" + ",".join(_shape_text(a) for a in value) + "]"
    return "x".join(map(str, value.shape)) or "()"


def as_written() -> tf.compat.v1.ConfigProto:
    """A session that runs each op's own kernel: no graph rewriting (grappler
    turns an inference FusedBatchNormV3 into Mul and Add, whose node has no
    output 1 left to fetch) and no constant folding."""
    config = tf.compat.v1.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    config.graph_options.optimizer_options.opt_level = tf.compat.v1.OptimizerOptions.L0
    config.graph_options.optimizer_options.do_constant_folding = False
    return config


@contextmanager
def control_flow(v2: bool) -> Iterator[None]:
    """Builds cond and while_loop in TensorFlow 2's form (If / While) when
    ``v2``, else in TensorFlow 1's (Switch / Merge / Enter / Exit); TensorFlow
    2's is the default again afterwards."""
    if v2:
        tf.compat.v1.enable_control_flow_v2()
    else:
        tf.compat.v1.disable_control_flow_v2()
    try:
        yield
    finally:
        tf.compat.v1.enable_control_flow_v2()


def run_traced(
    graph_def: tf.compat.v1.GraphDef, fetch: str, feeds: dict[str, np.ndarray]
) -> tuple[np.ndarray, set[str]]:
    """Runs ``graph_def`` as written (:func:`as_written`) and returns the
    fetched value and the nodes TensorFlow's executor computed: its step
    stats record each node it runs, and a dead node (fed only through the
    untaken output of a Switch) is not run. Raises ``tf.errors.OpError``
    when a kernel refuses."""
    graph = tf.Graph()
    with graph.as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
        trace = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
        metadata = tf.compat.v1.RunMetadata()
        with tf.compat.v1.Session(graph=graph, config=as_written()) as session:
            value = session.run(fetch, feeds, options=trace, run_metadata=metadata)
    executed = {node.node_name for device in metadata.step_stats.dev_stats for node in device.node_stats}
    return np.asarray(value), executed


@dataclass
class TfVerdict:
    """What TensorFlow makes of a case: ``refused`` says where it refused
    (``"import"``: a shape function, with every shape known; ``"run"``: a
    kernel) and why; else ``static`` holds its shape functions' shape of
    each output (None for an unknown rank, -1 for an unknown dim) and
    ``outputs`` what the session computed."""

    refused: str | None = None
    reason: str = ""
    static: list[tuple[int, ...] | None] = field(default_factory=list)
    outputs: list[np.ndarray] = field(default_factory=list)


#: Ops with a window, NHWC / NDHWC (the draws' data formats).
POOLS = ("MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D", "MaxPoolV2")
CONVOLUTIONS = ("Conv2D", "DepthwiseConv2dNative", "Conv3D")


def window_overruns_input(case: TfCase) -> bool:
    """Whether the case's window is larger than its (padded) input, which
    TensorFlow's shape functions refuse but see only where the input's
    shape is declared. Its CPU kernels then have no defined answer, and
    measured on a 1x1x1x1 input with a 2x2 VALID window they disagree:
    MaxPool and MaxPool3D kill the process (SIGFPE), AvgPool, MaxPoolV2 and
    AvgPool3D return an empty tensor, Conv2D a 1x1 one, and
    DepthwiseConv2dNative returns the input's channels, not the filter's."""
    x = case.inputs.get("input", case.inputs.get("value"))
    padding = case.attrs.get("padding")
    if not isinstance(x, np.ndarray) or padding not in ("VALID", "EXPLICIT"):
        return False
    spatial = x.shape[1:-1]
    if case.op in POOLS:
        ksize = case.inputs["ksize"] if case.op == "MaxPoolV2" else case.attrs["ksize"]
        windows = [int(k) for k in np.asarray(ksize)[1:-1]]
    elif case.op in CONVOLUTIONS:
        kernel = np.asarray(case.inputs["filter"]).shape[: len(spatial)]
        dilations = case.attrs.get("dilations", [1] * (len(spatial) + 2))[1:-1]
        windows = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    else:
        return False
    pads = case.attrs.get("explicit_paddings", [0] * (2 * len(spatial) + 4))[2:-2]
    padded = [n + pads[2 * i] + pads[2 * i + 1] for i, n in enumerate(spatial)]
    return any(n < w for n, w in zip(padded, windows, strict=True))


def run_tensorflow(case: TfCase, graph_def: tf.compat.v1.GraphDef) -> TfVerdict:
    graph = tf.Graph()
    with graph.as_default():
        try:
            tf.graph_util.import_graph_def(graph_def, name="")
        except (ValueError, tf.errors.OpError) as error:
            return TfVerdict(refused="import", reason=str(error).splitlines()[0])
        outputs = graph.get_operation_by_name(OUT).outputs
        static = [static_shape(t) for t in outputs]
        if window_overruns_input(case):
            reason = "a window larger than the input, which its CPU kernels do not answer"
            return TfVerdict(refused="run", reason=reason, static=static)
        with tf.compat.v1.Session(graph=graph, config=as_written()) as session:
            try:
                values = session.run(outputs, feed_dict=case.feeds())
            except (ValueError, tf.errors.OpError) as error:
                return TfVerdict(refused="run", reason=str(error).splitlines()[0], static=static)
    return TfVerdict(static=static, outputs=[np.asarray(v) for v in values])


def static_shape(tensor: tf.Tensor) -> tuple[int, ...] | None:
    """TensorFlow's static shape of ``tensor`` as opgraph writes shapes
    (-1 an unknown dim), or None for an unknown rank."""
    if tensor.shape.rank is None:
        return None
    return tuple(-1 if n is None else n for n in tensor.shape.as_list())


def opgraph_descs(graph_def: tf.compat.v1.GraphDef, count: int, directory: Path) -> list[TensorDesc]:
    """What opgraph infers for the op's ``count`` outputs, loading the
    GraphDef from a ``.pb`` file as a user would."""
    path = directory / "case.pb"
    path.write_bytes(graph_def.SerializeToString())
    graph = load_tensorflow(path)
    return [graph.desc(graph.tensor(OUT, i)) for i in range(count)]
