"""TensorFlow's recorded shapes for the fixture models (written by
``generators/make_models.py``) and their comparison with what opgraph
infers for the same files.

A comparison matches tensors by ``"node:i"`` (``"function/node:i"`` inside
If/While bodies) and sorts every recorded tensor into exactly one bucket:

- equal: same dtype and shape as TensorFlow's static shape;
- refined: opgraph knows dims (or the rank) TensorFlow's static shape leaves
  unknown, agrees with it everywhere else, and agrees with the shape the
  tensor really had when TensorFlow ran the graph (when that was recorded);
- fused: a scope-fusion pass replaced the tensor's node (the load's report
  says which fused node stands for it); a surviving node that reads such a
  tensor must find TensorFlow's dtype and shape on the fused node;
- passed through: the loader removed a pass-through node (Identity, …)
  whose output TensorFlow shapes exactly like its input;
- wrong: anything else (a different dtype or shape, or a missing tensor no
  rule explains).
"""

from __future__ import annotations

import functools
import gzip
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from tf_fixtures import DATA, TF_DTYPES, UNKNOWN_RANK, Record, tf_shape, tf_tensor

from opgraph import Graph, TensorDesc
from opgraph.tensorflow import load_tensorflow_reported

# Ops whose output is their input: a loader may drop them. For IdentityN,
# output i is input i; for the others, output 0 is input 0.
PASS_THROUGH = {"Identity", "IdentityN", "StopGradient", "Snapshot", "PreventGradient"}


def model_names() -> list[str]:
    """Every fixture model (``model_<name>.json`` / ``.json.gz``)."""
    return sorted(p.name.split(".")[0].removeprefix("model_") for p in DATA.glob("model_*.json*"))


@functools.cache
def load_record(name: str) -> Record:
    for path in (DATA / f"model_{name}.json", DATA / f"model_{name}.json.gz"):
        if path.exists():
            raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            record: Record = json.loads(raw)
            return record
    raise FileNotFoundError(f"no TensorFlow record for model {name!r} in {DATA}")


def model_file(name: str, fmt: str, directory: Path) -> Path:
    """The model as a ``.pb`` or ``.pbtxt`` file; a gzip-compressed model is
    decompressed into ``directory`` (its real size, ~100 MB for ResNet-50)."""
    stored: Path = DATA / load_record(name)["file"]
    if fmt == "pbtxt":
        return stored.with_suffix(".pbtxt")
    if stored.suffix != ".gz":
        return stored
    target = directory / stored.stem
    if not target.exists():
        with gzip.open(stored, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return target


def opgraph_tensors(graph: Graph, record: Record, bodies: bool = True) -> dict[str, TensorDesc]:
    """Every output of every node, keyed like the record: ``"node:i"``, and
    inside the body a node calls through attribute ``attr`` (a subgraph of
    that name), ``"function/node:i"`` with the function the record says the
    attribute names."""
    found: dict[str, TensorDesc] = {}

    def walk(g: Graph, prefix: str) -> None:
        for node in g.nodes():
            for i, desc in enumerate(node.outputs):
                found[f"{prefix}{node.name}:{i}"] = desc
            if not bodies:
                continue
            for attr in node.subgraph_names:
                calls = record["calls"].get(prefix + node.name, {})
                if attr not in calls:
                    raise AssertionError(
                        f"node {prefix}{node.name} has body {attr!r}, TensorFlow's has {calls}"
                    )
                walk(g.subgraph(node.name, attr), calls[attr] + "/")

    walk(graph, "")
    return found


def is_refinement(ours: tuple[int, ...], theirs: tuple[int, ...]) -> bool:
    """``ours`` is more precise than ``theirs`` and agrees where it is known."""
    if ours in (theirs, UNKNOWN_RANK):
        return False
    if theirs == UNKNOWN_RANK:
        return True
    return len(ours) == len(theirs) and all(t in (-1, o) for o, t in zip(ours, theirs, strict=True))


def fits(ours: tuple[int, ...], real: list[int]) -> bool:
    """A real shape is an instance of ``ours``."""
    if ours == UNKNOWN_RANK:
        return True
    return len(ours) == len(real) and all(o in (-1, r) for o, r in zip(ours, real, strict=True))


@dataclass
class Comparison:
    equal: list[str] = field(default_factory=list)
    refined: list[str] = field(default_factory=list)
    passed_through: list[str] = field(default_factory=list)
    fused: dict[str, str] = field(default_factory=dict)
    wrong: list[str] = field(default_factory=list)
    # opgraph tensors TensorFlow does not have, and that fuse nothing.
    unexplained_extra: list[str] = field(default_factory=list)

    def problems(self, refinements_allowed: bool) -> list[str]:
        found = self.wrong + [f"{k}: opgraph has it, TensorFlow has not" for k in self.unexplained_extra]
        if not refinements_allowed:
            found += [f"{k}: opgraph knows more than TensorFlow" for k in self.refined]
        return found


def node_of(key: str) -> str:
    return key.rsplit(":", 1)[0]


def load_model(path: Path, input_shapes: dict[str, list[int]] | None = None) -> tuple[Graph, dict[str, str]]:
    """The inferred graph, and which fused node replaced each fused op
    (from the load's scope-pass report)."""
    graph, runs = load_tensorflow_reported(str(path), input_shapes=input_shapes)
    replaced = {op: fused.name for run in runs for fused in run.fused for op in fused.replaced}
    return graph, replaced


def compare(
    record: Record,
    expected: dict[str, Record],
    got: dict[str, TensorDesc],
    runtime: dict[str, list[int]],
    replaced: dict[str, str],
) -> Comparison:
    """Sorts every tensor of ``expected`` (TensorFlow's) into the buckets of
    the module docstring against ``got`` (opgraph's); ``replaced`` is
    :func:`load_model`'s."""
    result = Comparison()
    missing: list[str] = []
    for key, want in expected.items():
        desc = got.get(key)
        if desc is None:
            missing.append(key)
            continue
        theirs, ours = tf_shape(want), tuple(desc.shape)
        if desc.dtype != TF_DTYPES[want["dtype"]]:
            result.wrong.append(f"{key}: dtype {desc.dtype.name}, TensorFlow {want['dtype']}")
        elif ours == theirs:
            result.equal.append(key)
        elif is_refinement(ours, theirs) and (key not in runtime or fits(ours, runtime[key])):
            result.refined.append(key)
        else:
            real = f", ran as {runtime[key]}" if key in runtime else ""
            result.wrong.append(f"{key}: shape {list(ours)}, TensorFlow {list(theirs)}{real}")
    for key in missing:
        node = record["nodes"][node_of(key)]
        index = int(key.rsplit(":", 1)[1])
        source = node["inputs"][index if node["op"] == "IdentityN" else 0] if node["inputs"] else None
        if node_of(key) in replaced:
            result.fused[key] = replaced[node_of(key)]
        elif node["op"] in PASS_THROUGH and source is not None and expected.get(source) == expected[key]:
            result.passed_through.append(key)
        else:
            result.wrong.append(f"{key}: TensorFlow has it ({node['op']}), opgraph has not")
    check_fusion_outputs(record, expected, got, result)
    fusers = set(result.fused.values())
    result.unexplained_extra = [k for k in got if k not in expected and node_of(k) not in fusers]
    return result


def check_fusion_outputs(
    record: Record, expected: dict[str, Record], got: dict[str, TensorDesc], result: Comparison
) -> None:
    """A fused tensor that a surviving node consumes must come out of the
    fused node with TensorFlow's dtype and shape."""
    outputs: dict[str, list[TensorDesc]] = {}
    for key, desc in got.items():
        outputs.setdefault(node_of(key), []).append(desc)
    for name, node in record["nodes"].items():
        if name not in outputs:
            continue  # removed, fused, or without outputs
        for source in node["inputs"]:
            fuser = result.fused.get(source)
            if fuser is None:
                continue
            want = expected[source]
            candidates = outputs.get(fuser, [])
            if not any((d.dtype, tuple(d.shape)) == tf_tensor(want) for d in candidates):
                result.wrong.append(
                    f"{source} (fused into {fuser}, read by {name}): TensorFlow {want}, "
                    f"the fused node gives {[list(d.shape) for d in candidates]}"
                )


def resolve_output(record: Record, tensor: str, removed: set[str]) -> str:
    """Where a graph output is once removed pass-through nodes are skipped."""
    while tensor in removed:
        node = record["nodes"][node_of(tensor)]
        index = int(tensor.rsplit(":", 1)[1])
        tensor = node["inputs"][index if node["op"] == "IdentityN" else 0]
    return tensor
