"""The ONNX conformance corpus's records (written by
``generators/make_onnx_models.py`` and ``generators/make_tf2onnx_models.py``
from onnxruntime runs) and their comparison with what opgraph infers for
the same files.

Every model was run by onnxruntime three times with every main-graph value
exposed: run A (one size for each free input dim), run B (other sizes,
other data) and run C (A's sizes, B's data). A record keeps run A's dtype
and shape of each value, and per dim whether it differed in B (``varies``)
and in C (``data_varies``: it depends on the data, e.g. after
NonMaxSuppression).

Each recorded value falls in exactly one bucket:

- equal: same dtype and shape as run A;
- unknown-justified: same dtype and rank, every dim is run A's or unknown
  (-1), and each unknown dim really varies (with the free input dims fixed
  by ``input_shapes``, only a dim that depends on the data may be unknown);
  an unknown rank is justified only where the rank varies;
- unknown-unverified: as unknown-justified, but some unknown dim kept its
  size in the runs, on a value computed from the output of a NonZero,
  NonMaxSuppression, Unique, Compress, Loop or If node
  (``after_data_dependent``): its size may depend on the data although the
  oracle's images did not show it (e.g. SSDlite's per-class NonZero, empty
  for most classes in every run); counted apart, not as wrong;
- wrong: anything else: another dtype or rank, a known dim that is not run
  A's, an unknown dim that does not vary;
- pruned: no tensor holds the value, and the load's report says so because no
  graph output needs it (a dead node an exporter left); ``dead_values``
  finds those values independently, from the ONNX graph itself;
- missing: the load's report maps the value to no tensor of the graph.

Separately, against ``onnx.shape_inference.infer_shapes(strict_mode=True,
data_prop=True)`` (recorded by the generator): the values where opgraph
knows a dim onnx leaves unknown, and the other way round.
"""

from __future__ import annotations

import functools
import gzip
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"

UNKNOWN_DIM = -1
UNKNOWN_RANK = (-2,)

# ONNX's TensorProto.DataType names whose opgraph.DataType name differs.
ONNX_TO_OPGRAPH_DTYPE = {"BFLOAT16": "BF16"}

Record = dict[str, Any]


def model_names() -> list[str]:
    """Every corpus model (``<name>.json.gz``)."""
    return sorted(p.name.removesuffix(".json.gz") for p in DATA.glob("*.json.gz"))


@functools.cache
def load_record(name: str) -> Record:
    path = DATA / f"{name}.json.gz"
    if not path.exists():
        raise FileNotFoundError(f"no ONNX record for model {name!r} in {DATA}")
    record: Record = json.loads(gzip.decompress(path.read_bytes()))
    return record


def model_file(name: str, directory: Path) -> Path:
    """The model ready to load from ``directory``: a copy of the stored
    ``.onnx`` (decompressed when stored gzip-compressed) next to its weights file,
    recreated as a sparse all-zero file of the recorded length. Nothing is
    written into ``tests/onnx/data``."""
    record = load_record(name)
    stored: Path = DATA / str(record["file"])
    target: Path = directory / stored.name.removesuffix(".gz")
    if not target.exists():
        if stored.suffix == ".gz":
            with gzip.open(stored, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        else:
            # A copy, not a link: a loader that resolves links would look
            # for the weights file in tests/onnx/data.
            shutil.copyfile(stored, target)
    weights = directory / record["weights_file"]
    if record["weights_bytes"] and not weights.exists():
        with open(weights, "wb") as f:
            f.truncate(record["weights_bytes"])
    return target


def opgraph_dtype_name(onnx_name: str) -> str:
    return ONNX_TO_OPGRAPH_DTYPE.get(onnx_name, onnx_name)


def fixed_input_shapes(record: Record) -> dict[str, list[int]]:
    """Every input at run A's concrete shape (ATC's ``--input_shape``)."""
    shapes: dict[str, list[int]] = record["run_a_inputs"]
    return shapes


@dataclass
class Comparison:
    equal: list[str] = field(default_factory=list)
    unknown_justified: list[str] = field(default_factory=list)
    # Unknown where the size did not change in the oracle's runs, on a value
    # computed from a NonZero, NonMaxSuppression, Unique, Compress, Loop or
    # If output (so it may change with other data): neither proven nor wrong.
    unknown_unverified: list[str] = field(default_factory=list)
    # At free input dims only: unknown where the size did not change in the
    # oracle's runs although nothing data-dependent is above it. opgraph has
    # no symbolic dims, so a size the free dims fix only through arithmetic
    # that cancels them (Reshape(x[b, s, 128], [b, s, -1, 32])) stays
    # unknown; the corpus test requires each such value to be exact once
    # input_shapes fixes the free dims.
    unknown_free_only: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    # Values where opgraph knows a dim (or the rank) onnx's inference does
    # not, and the other way round.
    opgraph_more_precise: list[str] = field(default_factory=list)
    onnx_more_precise: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return self.wrong + [
            f"{k}: onnxruntime has it, opgraph's report maps it to no tensor" for k in self.missing
        ]


def classify(want: Record, dtype: str, shape: tuple[int, ...], fixed: bool) -> tuple[str, str]:
    """``("equal" | "unknown_justified" | "unknown_unverified" |
    "unknown_free_only" | "wrong", why)`` for opgraph's ``(dtype, shape)``
    against the recorded value ``want``."""
    real = want["shape"]
    if dtype != opgraph_dtype_name(want["dtype"]):
        return "wrong", f"dtype {dtype}, onnxruntime {want['dtype']}"
    # At free input sizes a dim may be unknown when it changed in run B or
    # in run C; with them fixed, only when it changed in run C.
    varies = [d or (v and not fixed) for v, d in zip(want["varies"], want["data_varies"], strict=True)]
    # Below a data-dependent op a dim that kept its size in the oracle's runs
    # may still depend on the data: unknown there is unverified, not wrong.
    maybe = bool(want.get("after_data_dependent"))
    if shape == UNKNOWN_RANK:
        if want.get("rank_data_varies") or (want.get("rank_varies") and not fixed):
            return "unknown_justified", ""
        if maybe:
            return "unknown_unverified", ""
        return "wrong", f"unknown rank, onnxruntime {real} (the rank does not vary)"
    if len(shape) != len(real):
        return "wrong", f"shape {list(shape)}, onnxruntime {real}"
    kind = "equal"
    for axis, (ours, theirs, free) in enumerate(zip(shape, real, varies, strict=True)):
        if ours not in (UNKNOWN_DIM, theirs):
            return "wrong", f"shape {list(shape)}, onnxruntime {real}"
        if ours != UNKNOWN_DIM:
            continue
        if free:
            kind = "unknown_justified" if kind == "equal" else kind
        elif maybe:
            kind = "unknown_unverified"
        elif not fixed:
            kind = "unknown_free_only"
        else:
            return (
                "wrong",
                f"shape {list(shape)}, onnxruntime {real}: "
                f"dim {axis} is unknown but does not depend on the data",
            )
    return kind, ""


def known_dims(shape: Any) -> set[int] | None:
    """Axes with a known size; None when the rank is unknown."""
    if shape is None or tuple(shape) == UNKNOWN_RANK:
        return None
    return {i for i, d in enumerate(shape) if isinstance(d, int) and d >= 0}


def precision(ours: tuple[int, ...], theirs: Record | None) -> tuple[bool, bool]:
    """(opgraph knows something onnx does not, onnx knows something opgraph
    does not) for one value; ranks that disagree count as neither."""
    mine = known_dims(ours)
    other = known_dims(theirs["shape"]) if theirs is not None else None
    if mine is None or other is None:
        return mine is not None and other is None, other is not None and mine is None
    if theirs is not None and len(theirs["shape"]) != len(ours):
        return False, False
    return bool(mine - other), bool(other - mine)


def compare(
    record: Record,
    got: dict[str, tuple[str, tuple[int, ...]]],
    fixed: bool,
    dead: frozenset[str] = frozenset(),
) -> Comparison:
    """Buckets every recorded value against ``got`` (value name -> opgraph's
    dtype name and shape, absent when the report maps it to nothing); a
    value absent from ``got`` is pruned if it is in ``dead`` (no graph
    output needs it), missing otherwise."""
    result = Comparison()
    for name, want in record["tensors"].items():
        if name not in got:
            (result.pruned if name in dead else result.missing).append(name)
            continue
        dtype, shape = got[name]
        kind, why = classify(want, dtype, shape, fixed)
        if kind == "wrong":
            result.wrong.append(f"{name} ({want['op_type']} {want['producer']!r}): {why}")
        else:
            getattr(result, kind).append(name)
        more, less = precision(shape, record["onnx_inference"].get(name))
        if more:
            result.opgraph_more_precise.append(name)
        if less:
            result.onnx_more_precise.append(name)
    return result


def opgraph_values(
    path: Path, input_shapes: dict[str, list[int]] | None
) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Loads ``path`` with opgraph (inferring shapes) and returns, for every
    ONNX value the load's report maps to a graph tensor, that tensor's
    dtype name and shape."""
    return opgraph_load(path, input_shapes)[0]


def opgraph_load(
    path: Path, input_shapes: dict[str, list[int]] | None
) -> tuple[dict[str, tuple[str, tuple[int, ...]]], list[str]]:
    """:func:`opgraph_values`, and the values the load's report says it
    pruned because no graph output needs them."""
    from opgraph.onnx import load_onnx_reported  # the frontend under test; imported lazily

    graph, report = load_onnx_reported(str(path), input_shapes=input_shapes)
    outputs = {node.name: node.outputs for node in graph.nodes()}
    found: dict[str, tuple[str, tuple[int, ...]]] = {}
    for value, key in report.tensors.items():
        node, index = key.rsplit(":", 1)
        descs = outputs.get(node)
        if descs is None or int(index) >= len(descs):
            continue  # the report names a tensor the graph does not have: missing
        desc = descs[int(index)]
        found[value] = (desc.dtype.name, tuple(desc.shape))
    return found, report.pruned


def dead_values(path: Path) -> frozenset[str]:
    """The main-graph values of ``path`` that no graph output needs, read
    from the ONNX graph with the ``onnx`` package (not opgraph): values of
    nodes none of whose outputs an output needs, directly or through a
    subgraph's outer-scope names, and initializers and inputs nothing needs."""
    import onnx  # the test extra; imported lazily like the frontend

    graph = onnx.load(str(path), load_external_data=False).graph
    producer = {value: node for node in graph.node for value in node.output if value}
    needed: set[str] = set()
    kept: set[int] = set()
    stack = [output.name for output in graph.output]
    while stack:
        value = stack.pop()
        if value in needed:
            continue
        needed.add(value)
        node = producer.get(value)
        if node is None or id(node) in kept:
            continue
        kept.add(id(node))
        stack.extend(name for name in node.input if name)
        stack.extend(_names_read_by_subgraphs(node))
    dead = {v for node in graph.node if id(node) not in kept for v in node.output if v}
    sources = [v.name for v in graph.input] + [t.name for t in graph.initializer]
    return frozenset(dead | {v for v in sources if v not in needed})


def _names_read_by_subgraphs(node: Any) -> list[str]:
    """Every value name read inside ``node``'s subgraph attributes (at any
    depth): the outer-scope names among them keep their producers."""
    import onnx

    names: list[str] = []
    for attribute in node.attribute:
        bodies = list(attribute.graphs)
        if attribute.type == onnx.AttributeProto.GRAPH:
            bodies.append(attribute.g)
        for body in bodies:
            for inner in body.node:
                names.extend(name for name in inner.input if name)
                names.extend(_names_read_by_subgraphs(inner))
            names.extend(output.name for output in body.output)
    return names
