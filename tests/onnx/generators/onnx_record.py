"""Turns an exported ONNX model into a corpus entry: the independent oracle
record (onnxruntime's real shapes and dtypes for every value of the main
graph, run with random data at one size of the free input dims (A), at
other sizes with other data (B), and at A's sizes with B's data (C); and
``onnx.shape_inference``'s strict inference) and the compact stored model
(every large float initializer moved to an all-zero external weights file
that is not committed; the tests recreate it as a sparse file).

Shared by ``make_onnx_models.py`` (PyTorch exporters) and
``make_tf2onnx_models.py`` (tf2onnx); needs onnx, onnxruntime and numpy only.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, external_data_helper, helper, numpy_helper

DATA = Path(__file__).resolve().parent.parent / "data"

# Initializers of these dtypes with more elements than this go to the zero
# external weights file; other integer ones and small ones stay inline
# because shapes may be computed from them (8-bit ones are quantized
# weights, never shapes).
EXTERNAL_DTYPES: dict[int, int] = {
    TensorProto.FLOAT: 4,
    TensorProto.FLOAT16: 2,
    TensorProto.BFLOAT16: 2,
    TensorProto.DOUBLE: 8,
    TensorProto.INT8: 1,
    TensorProto.UINT8: 1,
}
EXTERNAL_MIN_ELEMENTS = 256
# External data offsets are aligned like onnx's own writer can align them.
ALIGNMENT = 64
# A stored model larger than this is committed gzip-compressed.
GZIP_ABOVE = 300 * 1024

# Sizes of the free input dims, by symbol name, in run A and run B.
DEFAULT_DIMS: dict[str, tuple[int, int]] = {"batch": (2, 3), "seq": (7, 11)}

InputFactory = Callable[[str, tuple[int, ...], int, np.random.Generator, str], np.ndarray]


def dtype_name(elem_type: int) -> str:
    return str(TensorProto.DataType.Name(elem_type))


def numpy_dtype_name(array: np.ndarray) -> str:
    return dtype_name(helper.np_dtype_to_tensor_dtype(array.dtype))


def dims_of(value: onnx.ValueInfoProto) -> list[int | str | None] | None:
    """A value's declared shape: ints, symbol names, ``None`` for a dim
    with neither; ``None`` for an unknown rank or a non-tensor type."""
    t = value.type
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return None
    out: list[int | str | None] = []
    for d in t.tensor_type.shape.dim:
        if d.HasField("dim_value"):
            out.append(int(d.dim_value))
        elif d.HasField("dim_param"):
            out.append(d.dim_param)
        else:
            out.append(None)
    return out


def ai_onnx_opset(model: onnx.ModelProto) -> int:
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return int(imp.version)
    raise ValueError("the model imports no ai.onnx opset")


def graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The real inputs: graph inputs that are not initializers."""
    inits = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def default_input(
    name: str, shape: tuple[int, ...], elem_type: int, rng: np.random.Generator, run: str
) -> np.ndarray:
    """Random data for one input: normal floats, token ids below 100,
    all-ones masks."""
    np_type = helper.tensor_dtype_to_np_dtype(elem_type)
    if np.issubdtype(np_type, np.floating):
        return rng.standard_normal(shape).astype(np_type)
    if np_type == np.bool_:
        return np.ones(shape, dtype=np.bool_)
    if "mask" in name:
        return np.ones(shape, dtype=np_type)
    if "token_type" in name:
        return rng.integers(0, 2, shape).astype(np_type)
    return rng.integers(0, 100, shape).astype(np_type)


def concrete_inputs(
    model: onnx.ModelProto,
    dims: Mapping[str, tuple[int, int]],
    run: str,
    seed: int,
    make: InputFactory,
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in graph_inputs(model):
        shape = []
        for d in dims_of(value) or []:
            if isinstance(d, int):
                shape.append(d)
            elif d is not None and d in dims:
                shape.append(dims[d][1 if run == "B" else 0])
            else:
                raise ValueError(f"input {value.name}: no size for dim {d!r} (have {sorted(dims)})")
        elem = value.type.tensor_type.elem_type
        feeds[value.name] = make(value.name, tuple(shape), elem, rng, run)
    return feeds


def main_graph_values(model: onnx.ModelProto) -> dict[str, tuple[onnx.NodeProto, int]]:
    """Every node output of the main graph: producer node and output index."""
    found = {}
    for node in model.graph.node:
        for i, out in enumerate(node.output):
            if out:
                found[out] = (node, i)
    return found


# Ops whose output shape can depend on the input data (not only on the
# input shapes): a count of selected elements, or a body run a data-chosen
# number of times or a data-chosen branch.
DATA_DEPENDENT_OPS = {"NonZero", "NonMaxSuppression", "Unique", "Compress", "Loop", "If"}


def after_data_dependent(model: onnx.ModelProto) -> set[str]:
    """Main-graph values computed (directly or not) from the output of a
    :data:`DATA_DEPENDENT_OPS` node: their dims may depend on the data even
    where the oracle's runs happened to give the same size."""
    tainted: set[str] = set()
    for node in model.graph.node:  # ONNX nodes are topologically sorted
        if node.op_type in DATA_DEPENDENT_OPS or any(i in tainted for i in node.input if i):
            tainted.update(o for o in node.output if o)
    return tainted


def run_everything(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], model_dir: Path | None = None
) -> dict[str, Any]:
    """Runs the model with onnxruntime (CPU, no graph optimisation, so the
    values are the graph's own) with every main-graph node output exposed.
    A model over 2 GB keeps its weights in external files in ``model_dir``
    (a protobuf message cannot be larger): it is run from a file there."""
    exposed = onnx.ModelProto()
    exposed.CopyFrom(model)
    present = {o.name for o in exposed.graph.output}
    for name in main_graph_values(model):
        if name not in present:
            exposed.graph.output.append(onnx.ValueInfoProto(name=name))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 3
    if model_dir is None:
        source: str | bytes = exposed.SerializeToString()
    else:
        source = str(model_dir / "exposed.onnx")
        onnx.save(exposed, source)
    session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    values = session.run(names, feeds)
    # Only the dtypes and shapes are kept (all values of a big model at once
    # would not fit in memory three times over).
    return {
        n: (numpy_dtype_name(v), tuple(v.shape)) if isinstance(v, np.ndarray) else None
        for n, v in zip(names, values, strict=True)
    }


def strict_inference(
    model: onnx.ModelProto, model_dir: Path | None = None
) -> tuple[dict[str, Any], str | None]:
    """onnx's own strict shape inference (with data propagation) for every
    main-graph value, or the error it raised; through files in
    ``model_dir`` (``infer_shapes_path``) for a model over 2 GB."""
    try:
        if model_dir is None:
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
        else:
            src, dst = model_dir / "to_infer.onnx", model_dir / "inferred.onnx"
            onnx.save(model, str(src))
            onnx.shape_inference.infer_shapes_path(str(src), str(dst), strict_mode=True, data_prop=True)
            inferred = onnx.load(str(dst), load_external_data=False)
    except Exception as e:
        return {}, f"{type(e).__name__}: {e}"
    out: dict[str, Any] = {}
    g = inferred.graph
    for value in [*g.input, *g.value_info, *g.output]:
        t = value.type
        if t.HasField("tensor_type"):
            out[value.name] = {"dtype": dtype_name(t.tensor_type.elem_type), "shape": dims_of(value)}
    return out, None


def oracle_tensors(
    model: onnx.ModelProto, run_a: dict[str, Any], run_b: dict[str, Any], run_c: dict[str, Any]
) -> dict[str, Any]:
    # Values a data-dependent op feeds, whose dims may vary with other data.
    tainted = after_data_dependent(model)
    """Run A's shape and dtype of every tensor value; ``varies``: the dim
    differed in run B (other free-dim sizes, other data); ``data_varies``:
    it differed in run C (run A's sizes, other data), so it depends on the
    data and not only on the input shapes."""
    tensors: dict[str, Any] = {}
    for name, (node, index) in main_graph_values(model).items():
        a, b, c = run_a.get(name), run_b.get(name), run_c.get(name)
        if a is None or b is None or c is None:
            continue  # sequences, maps, optional values: not tensors
        (dtype, a), (_, b), (_, c) = a, b, c
        entry: dict[str, Any] = {
            "dtype": dtype,
            "shape": list(a),
            "producer": node.name,
            "op_type": node.op_type if not node.domain else f"{node.domain}::{node.op_type}",
            "output_index": index,
            "after_data_dependent": name in tainted,
        }
        for key, other in (("varies", b), ("data_varies", c)):
            if len(a) == len(other):
                entry[key] = [x != y for x, y in zip(a, other, strict=True)]
            else:
                entry[key] = [True] * len(a)
                entry[f"rank_{key}"] = True
        tensors[name] = entry
    return tensors


def zero_weights(model: onnx.ModelProto, weights_file: str, source_dir: Path | None = None) -> int:
    """Moves every large float initializer to ``weights_file`` (all zeros,
    not written) and zeroes large float Constant values inline; returns the
    weights file's length. Small or integer initializers the exporter stored
    externally (in ``source_dir``) are brought inline."""
    end = 0
    for tensor in model.graph.initializer:
        itemsize = EXTERNAL_DTYPES.get(tensor.data_type)
        count = int(np.prod(tensor.dims, dtype=np.int64)) if tensor.dims else 1
        if itemsize is None or count <= EXTERNAL_MIN_ELEMENTS:
            if tensor.data_location == TensorProto.EXTERNAL:
                if source_dir is None:
                    raise ValueError(f"initializer {tensor.name} is external but no directory was given")
                external_data_helper.load_external_data_for_tensor(tensor, str(source_dir))
                tensor.ClearField("external_data")
                tensor.data_location = TensorProto.DEFAULT
            continue
        length = count * itemsize
        offset = -(-end // ALIGNMENT) * ALIGNMENT
        end = offset + length
        for field in ("raw_data", "float_data", "double_data", "int32_data", "external_data"):
            tensor.ClearField(field)
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", weights_file), ("offset", offset), ("length", length)):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, str(value)
    for node in model.graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR and attr.t.data_type in EXTERNAL_DTYPES:
                array = numpy_helper.to_array(attr.t)
                if array.size > EXTERNAL_MIN_ELEMENTS:
                    zero = numpy_helper.from_array(np.zeros_like(array), attr.t.name)
                    attr.t.CopyFrom(zero)
    return end


def write_entry(
    model: onnx.ModelProto,
    name: str,
    exporter: str,
    source: str,
    versions: dict[str, str],
    dims: Mapping[str, tuple[int, int]] | None = None,
    make: InputFactory = default_input,
    seeds: tuple[int, int] = (1, 2),
    note: str | None = None,
    model_dir: Path | None = None,
) -> dict[str, Any]:
    """Records the oracle for ``model`` (with its real weights, or, with
    ``model_dir``, with external weights files in that directory) and stores
    the compact model; returns the record."""
    dims = {**DEFAULT_DIMS, **(dims or {})}
    onnx_inference, inference_error = strict_inference(model, model_dir)
    feeds_a = concrete_inputs(model, dims, "A", seeds[0], make)
    run_a = run_everything(model, feeds_a, model_dir)
    run_b = run_everything(model, concrete_inputs(model, dims, "B", seeds[1], make), model_dir)
    run_c = run_everything(model, concrete_inputs(model, dims, "C", seeds[1], make), model_dir)
    tensors = oracle_tensors(model, run_a, run_b, run_c)

    weights_file = f"{name}.weights"
    stored = onnx.ModelProto()
    stored.CopyFrom(model)
    weights_bytes = zero_weights(stored, weights_file, model_dir)
    raw = stored.SerializeToString()
    if len(raw) > GZIP_ABOVE:
        file = f"{name}.onnx.gz"
        (DATA / file).write_bytes(gzip.compress(raw, 9, mtime=0))
    else:
        file = f"{name}.onnx"
        (DATA / file).write_bytes(raw)
    record = {
        "name": name,
        "file": file,
        "weights_file": weights_file,
        "weights_bytes": weights_bytes,
        "exporter": exporter,
        "opset": ai_onnx_opset(model),
        "source": source,
        "note": note,
        "inputs": {
            v.name: {"dtype": dtype_name(v.type.tensor_type.elem_type), "shape": dims_of(v)}
            for v in graph_inputs(model)
        },
        "run_a_inputs": {k: list(v.shape) for k, v in feeds_a.items()},
        "outputs": [o.name for o in model.graph.output],
        "nodes": len(model.graph.node),
        "tensors": tensors,
        "onnx_inference": {k: onnx_inference.get(k) for k in tensors},
        "onnx_inference_error": inference_error,
        **versions,
        "ort_version": ort.__version__,
        "onnx_version": onnx.__version__,
    }
    text = json.dumps(record, indent=None, sort_keys=True).encode()
    (DATA / f"{name}.json.gz").write_bytes(gzip.compress(text, 9, mtime=0))
    return record
