"""ONNX's own operator conformance suite against opgraph's ONNX frontend.

The installed ``onnx`` package carries the backend test cases of every
standard operator (``onnx.backend.test.case.node``): about 1,900 small
models, each with inputs and the outputs ONNX's numpy reference computes
for them. Nothing is copied into this repository; the cases are collected
from the package at test time. Each case is loaded three ways:

- ``runtime``: as written, every input a graph input (values unknown);
- ``constant``: every input but the first an initializer holding the
  case's data, as the shape, axes and size inputs of real models are;
- ``folded``: every input an initializer, so the whole graph is constant:
  every value opgraph folds must then equal the reference's.

Every output must then have the reference's rank and every dim opgraph
knows must be the reference's, and opgraph must know at least the dims
``onnx.shape_inference.infer_shapes`` (with data propagation, the declared
output shapes removed) knows. The loaded graph must then go through
``prepare``, ``plan_memory`` and ``estimate_cost`` for an Ascend 310, or be
refused by them only for a size it does not know. A case opgraph cannot
load must be one of the limits below, and fail with exactly the typed
error the limit names; a limit that stops applying fails too, so the table
stays true.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import opgraph
from opgraph.errors import (
    CostError,
    InternalError,
    InvalidShapeError,
    MemoryPlanError,
    OpgraphError,
    ParseError,
    VerifyError,
)

try:
    from onnx.backend.test.case import node as node_cases
    from onnx.backend.test.case.test_case import TestCase as OnnxCase
except ImportError:  # an onnx build without its test cases
    node_cases = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Limit:
    """Cases (by name) opgraph refuses, the typed error and the message it
    gives, and why that is the right answer today."""

    cases: str
    error: type[OpgraphError]
    message: str
    why: str


UNSUPPORTED_TYPES = "FLOAT8|FLOAT4|INT2|UINT2|UINT4|e8m0|e4m3|e5m2|float4|int2|uint2|uint4"

LIMITS = [
    Limit(
        rf".*({UNSUPPORTED_TYPES}).*",
        ParseError,
        "which opgraph does not support",
        "8-bit and 4-bit floats and 2-bit integers have no GE data type",
    ),
    Limit(
        r"test_(identity_opt|identity_sequence|loop1[36]_seq.*|optional_.*|sequence_insert.*"
        r"|sequence_map_.*)",
        ParseError,
        "is not a tensor",
        "optional and sequence values as graph inputs are not modelled",
    ),
    Limit(
        r"test_if_opt",
        ParseError,
        "TYPE_PROTO",
        "an Optional's type attribute (TYPE_PROTO) is not read",
    ),
    Limit(
        r"test_add_uint(16|32|64)|test_reduce_(max|min)_(bool_inputs|empty_set_bool)",
        VerifyError,
        "does not match its prototype",
        "CANN's Add and ReduceMax/ReduceMin take no such dtype",
    ),
    Limit(
        r"test_cast(like)?_((FLOAT16|FLOAT)_to_INT4|INT4_to_(FLOAT16|FLOAT|INT8))(_expanded)?",
        VerifyError,
        "INT4",
        "GE's Cast neither reads nor writes INT4 (only quantized weights are INT4)",
    ),
    Limit(
        r"test_pow_types_(float32_(u?int(32|64))|int(32|64)_float32)",
        VerifyError,
        "does not match its prototype",
        "GE's Pow takes base and exponent of one dtype; ONNX (opset 12) lets them differ",
    ),
    Limit(
        r"test_affine_grid_3d(_align_corners)?_expanded",
        InvalidShapeError,
        "too few for 4 parts",
        "opgraph infers every branch of an If (a known condition then picks the outputs), and the "
        "function's branch for 2-D grids, which a 3-D size never runs, splits the 5-entry size "
        "into 4 parts",
    ),
    Limit(
        r"test_prelu_(example|broadcast)",
        VerifyError,
        "PReLU weight",
        "GE's PRelu takes one slope or one per channel (axis 1); ONNX broadcasts it from the right",
    ),
]


#: Op types opgraph has no plugin for: training, loss, string, ML and the
#: newest signal and attention ops.
UNSUPPORTED_OPS = frozenset(
    [
        "SoftmaxCrossEntropyLoss",
        "NegativeLogLikelihoodLoss",
        "LinearAttention",
        "CausalConvWithState",
        "FlexAttention",
        "BitCast",
        "ImageDecoder",
        "TfIdfVectorizer",
        "StringSplit",
        "StringNormalizer",
        "StringConcat",
        "LabelEncoder",
        "OptionalHasElement",
        "OptionalGetElement",
        "Momentum",
        "Adagrad",
        "Adam",
        "RegexFullMatch",
        "SwiGLU",
        "TreeEnsemble",
        "STFT",
        "ArrayFeatureExtractor",
        "Binarizer",
        "Gradient",
    ]
)


def _only_unsupported_ops(error: ParseError) -> bool:
    """Whether ``error`` lists missing plugins, all for op types above."""
    message = str(error)
    missing = re.findall(r"::(\w+) \(\d+ nodes?", message)
    return "no parser plugin for" in message and bool(missing) and set(missing) <= UNSUPPORTED_OPS


#: Outputs onnx's inference knows more of than opgraph's, and why.
ONNX_KNOWS_MORE = {
    "test_loop11": "onnx takes the Loop body's declared output type [1]; opgraph infers the body from "
    "its inputs, where a Slice by the iteration number has an unknown length",
}


@cache
def _cases() -> dict[str, OnnxCase]:
    if node_cases is None:
        return {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reference implementations' numpy warnings
        return {case.name: case for case in node_cases.collect_testcases(None)}


def _model(case: OnnxCase) -> onnx.ModelProto:
    assert case.model is not None, f"{case.name} has no model"
    return case.model


def _data(case: OnnxCase) -> tuple[Sequence[object], Sequence[object]]:
    """The inputs and reference outputs of the case's first data set."""
    assert case.data_sets, f"{case.name} has no data"
    return case.data_sets[0]


def _as_array(value: object) -> np.ndarray | None:
    """A case's tensor value (a numpy array or scalar, or a TensorProto for
    the types numpy lacks) as an array; None for sequences, maps, optionals
    and element types numpy cannot hold."""
    if isinstance(value, onnx.TensorProto):
        try:
            return numpy_helper.to_array(value)
        except (TypeError, ValueError):
            return None
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    return None


def _reference_outputs(case: OnnxCase) -> dict[str, np.ndarray]:
    """Every tensor output the numpy reference computed, by name."""
    _, outputs = _data(case)
    found = {}
    for info, value in zip(_model(case).graph.output, outputs, strict=False):
        array = _as_array(value)
        if array is not None:
            found[info.name] = array
    return found


def _with_constant_inputs(case: OnnxCase, first: int) -> onnx.ModelProto:
    """The case's model with its inputs from ``first`` on initializers
    holding the case's data (where it is a plain tensor of the declared
    element type)."""
    model = onnx.ModelProto()
    model.CopyFrom(_model(case))
    inputs, _ = _data(case)
    for info, value in list(zip(model.graph.input, inputs, strict=False))[first:]:
        if isinstance(value, onnx.TensorProto):
            tensor = onnx.TensorProto()
            tensor.CopyFrom(value)
            tensor.name = info.name
        elif isinstance(value, (np.ndarray, np.generic)):
            try:
                tensor = numpy_helper.from_array(np.asarray(value), info.name)
            except (TypeError, ValueError):
                continue
        else:
            continue
        if tensor.data_type == info.type.tensor_type.elem_type:
            model.graph.initializer.append(tensor)
    constants = {t.name for t in model.graph.initializer}
    kept = [info for info in model.graph.input if info.name not in constants]
    del model.graph.input[:]
    model.graph.input.extend(kept)
    return model


MODES = {"runtime": None, "constant": 1, "folded": 0}


def _onnx_inferred(model: onnx.ModelProto) -> dict[str, list[int] | None]:
    """onnx's own inference of each graph output (declared shapes removed):
    a dim it does not know is -1, an unknown rank None."""
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    for output in bare.graph.output:
        output.type.tensor_type.ClearField("shape")
    try:
        inferred = onnx.shape_inference.infer_shapes(bare, data_prop=True)
    except Exception:  # onnx failing to infer only removes the floor
        return {}
    found: dict[str, list[int] | None] = {}
    for output in inferred.graph.output:
        tensor = output.type.tensor_type
        if not tensor.HasField("shape"):
            found[output.name] = None
            continue
        found[output.name] = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
    return found


def _limit_for(name: str) -> Limit | None:
    return next((limit for limit in LIMITS if re.fullmatch(limit.cases, name)), None)


def _shape_problems(
    got: dict[str, opgraph.TensorDesc], model: onnx.ModelProto, reference: dict[str, np.ndarray]
) -> Iterator[str]:
    floor = _onnx_inferred(model)
    for output, value in reference.items():
        want = list(value.shape)
        if output not in got:
            yield f"{output}: not in the load report"
            continue
        shape = list(got[output].shape)
        if shape == [-2]:
            if floor.get(output) is not None:
                yield f"{output}: rank unknown, but onnx infers {floor[output]} (reference {want})"
            continue
        if len(shape) != len(want) or any(d not in (-1, w) for d, w in zip(shape, want, strict=False)):
            yield f"{output}: {shape}, the reference computes {want}"
            continue
        known = floor.get(output)
        if known is not None and len(known) == len(shape):
            less = [i for i, (d, k) in enumerate(zip(shape, known, strict=True)) if d == -1 and k >= 0]
            if less:
                yield f"{output}: {shape} leaves dims {less} unknown, which onnx infers ({known})"


def _value_problems(got: dict[str, opgraph.TensorDesc], reference: dict[str, np.ndarray]) -> Iterator[str]:
    """Each value opgraph folded against the reference's."""
    for output, want in reference.items():
        value = got[output].value if output in got else None
        if value is None:
            continue
        if want.dtype.kind in "fc":
            equal = np.allclose(value, want, rtol=1e-3, atol=1e-4, equal_nan=True)
        else:
            equal = np.array_equal(value, want)
        if not equal:
            yield f"{output}: folded to {value.ravel()[:8]}, the reference computes {want.ravel()[:8]}"


def _pipeline_problem(graph: opgraph.Graph) -> str | None:
    """What stops the loaded graph from being prepared, planned and costed,
    unless it is a size the graph does not know."""
    try:
        opgraph.prepare(graph, "Ascend310")
        opgraph.plan_memory(graph)
        opgraph.estimate_cost(graph, "Ascend310")
    except (MemoryPlanError, CostError) as error:
        if "unknown" not in str(error):
            return f"{type(error).__name__}: {error}"
    return None


def _load(path: Path, names: list[str]) -> tuple[opgraph.Graph, dict[str, opgraph.TensorDesc]]:
    """The loaded graph and the descriptor of each of the values ``names``."""
    graph, report = opgraph.onnx.load_onnx_reported(str(path))
    descs = {}
    for name in names:
        if name in report.tensors:
            node, index = report.tensors[name].rsplit(":", 1)
            descs[name] = graph.desc(graph.tensor(node, int(index)))
    return graph, descs


@dataclass
class Outcome:
    """What one case in one mode came to."""

    refused: str | None = None  # why, when opgraph refused it as the tables allow
    problems: list[str] = field(default_factory=list)
    exact: bool = False  # every output's every dim known
    folded: int = 0  # outputs whose folded value equals the reference's


def check_case(name: str, mode: str, directory: Path) -> Outcome:
    """Loads case ``name`` in ``mode`` and checks it (see the module doc)."""
    case = _cases()[name]
    first = MODES[mode]
    model = _model(case) if first is None else _with_constant_inputs(case, first)
    path = directory / f"{name}.onnx"
    path.write_bytes(model.SerializeToString())
    reference = _reference_outputs(case)
    limit = _limit_for(name)
    try:
        graph, got = _load(path, list(reference))
    except OpgraphError as error:
        if isinstance(error, ParseError) and _only_unsupported_ops(error):
            return Outcome(refused="op type without a plugin")
        assert not isinstance(error, InternalError), f"{name}: {error}"
        if limit is not None and isinstance(error, limit.error) and limit.message in str(error):
            return Outcome(refused=limit.why)
        raise
    if limit is not None:
        return Outcome(problems=[f"{name} loads now; remove it from LIMITS ({limit.why})"])
    problems = [*_shape_problems(got, model, reference), *_value_problems(got, reference)]
    if name in ONNX_KNOWS_MORE:
        problems = [p for p in problems if "which onnx infers" not in p]
    pipeline = _pipeline_problem(graph)
    if pipeline is not None:
        problems.append(pipeline)
    shapes = [list(got[o].shape) for o in reference if o in got]
    folded = sum(
        1 for o, want in reference.items() if o in got and got[o].value is not None and want.size > 0
    )
    return Outcome(
        problems=problems,
        exact=bool(shapes) and all(-1 not in s and s != [-2] for s in shapes),
        folded=folded,
    )


@pytest.mark.skipif(node_cases is None, reason="this onnx build has no backend test cases")
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("name", sorted(_cases()))
def test_node_case(name: str, mode: str, tmp_path: Path) -> None:
    outcome = check_case(name, mode, tmp_path)
    assert not outcome.problems, f"{name} ({mode}): " + "; ".join(outcome.problems)


#: The whole models onnx ships beside its operator cases: PyTorch's exports
#: of its layers and operators (``pytorch-converted``, ``pytorch-operator``),
#: a few small hand-built models (``simple``) and nine classic ImageNet
#: networks with their weights shrunk (``light``), each with the outputs
#: the exporting framework computed.
PACKAGED = Path(onnx.__file__).parent / "backend" / "test" / "data"


def _packaged_models() -> dict[str, tuple[Path, list[Path]]]:
    """Each packaged model by ``kind/name``: its file and its reference outputs."""
    found = {}
    for model in sorted(PACKAGED.glob("*/*/model.onnx")):
        outputs = sorted((model.parent / "test_data_set_0").glob("output_*.pb"))
        if outputs:
            found[f"{model.parent.parent.name}/{model.parent.name}"] = (model, outputs)
    for model in sorted(PACKAGED.glob("light/*.onnx")):
        found[f"light/{model.stem}"] = (model, [model.with_name(f"{model.stem}_output_0.pb")])
    return found


@pytest.mark.parametrize("name", sorted(_packaged_models()))
def test_packaged_model(name: str) -> None:
    path, output_files = _packaged_models()[name]
    model = onnx.load(path, load_external_data=False)
    reference = {}
    for info, file in zip(model.graph.output, output_files, strict=False):
        tensor = onnx.TensorProto()
        tensor.ParseFromString(file.read_bytes())
        reference[info.name] = numpy_helper.to_array(tensor)
    try:
        graph, got = _load(path, list(reference))
    except ParseError as error:
        assert _only_unsupported_ops(error), f"{name}: {error}"
        return
    problems = list(_shape_problems(got, model, reference))
    assert not problems, f"{name}: " + "; ".join(problems)
    problem = _pipeline_problem(graph)
    assert problem is None, f"{name}: {problem}"


def test_the_suite_is_there() -> None:
    """The onnx package this suite runs against has its operator cases and
    its packaged models."""
    if node_cases is None:
        pytest.skip("this onnx build has no backend test cases")
    assert len(_cases()) > 1000
    assert sum(name.startswith("light/") for name in _packaged_models()) >= 9


def report() -> None:
    """The README's table: per mode, how the cases came out."""
    import tempfile
    from collections import Counter

    print(f"onnx {onnx.__version__}: {len(_cases())} operator cases")
    print(f"{'mode':<9} {'exact':>6} {'partly unknown':>15} {'folded outputs':>15} {'refused':>8}")
    reasons: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for mode in MODES:
            counts: Counter[str] = Counter()
            for name in sorted(_cases()):
                outcome = check_case(name, mode, Path(tmp))
                assert not outcome.problems, f"{name} ({mode}): {outcome.problems}"
                if outcome.refused is not None:
                    counts["refused"] += 1
                    if mode == "runtime":
                        reasons[outcome.refused] += 1
                    continue
                counts["exact" if outcome.exact else "unknown"] += 1
                counts["folded"] += outcome.folded
            print(
                f"{mode:<9} {counts['exact']:>6} {counts['unknown']:>15} {counts['folded']:>15} "
                f"{counts['refused']:>8}"
            )
    print("refused (runtime mode), by reason:")
    for why, n in reasons.most_common():
        print(f"  {n:4d}  {why}")


if __name__ == "__main__":
    report()
