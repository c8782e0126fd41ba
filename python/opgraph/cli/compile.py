"""The ``opgraph compile`` pipeline: parse → verify/infer → storage formats →
memory plan → cost model, as one function over :class:`CompileOptions`."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import infer as infer_graph
from .._core import Graph
from ..aipp import AippStage, apply_aipp, insert_aipp, read_insert_op_config, stage_layout
from ..caffe import load_caffe
from ..cost import BatchCost, CostReport, DeviceSpec, PrecisionMode, estimate_cost
from ..device import SOC_VERSIONS, PrepareReport, prepare
from ..dtype import DataType
from ..errors import AtcConfigError, CostError, DeviceSpecError, MemoryPlanError, OpgraphError, ParseError
from ..memory import MemoryPlan, plan_memory
from ..onnx import load_onnx_reported
from ..tensorflow import load_tensorflow_reported
from ..tensorflow.scope_report import ScopePassRun
from .fusion_switch import read_fusion_switches
from .input_ranges import has_ranged_inputs, probe_input_ranges
from .model_args import MODEL_FILE, framework_of_suffix
from .precision_config import (
    PrecisionOverrides,
    customize_dtypes_selectors,
    keep_dtype_selectors,
    op_precision_selectors,
    resolve,
)
from .profiles import Profile, ProfileSpec, profile_specs
from .profiles import batched_shapes as batched_shapes  # re-exported
from .quantized import qdq_warning
from .symbol_ranges import carried_note, shared_ranges
from .unknown_dims import UnknownDims, find_unknown_dims, is_unknown, unknown_dims_warning
from .usage import UsageError as UsageError  # re-exported: opgraph.cli.compile.UsageError
from .usage import check_input_file
from .user_code import import_plugins

Stage = Callable[[str], AbstractContextManager[object]]
"""Opens a named stage of the progress display."""


@dataclass
class CompileOptions:
    model: Path
    framework: str
    weights: Path | None = None
    input_shapes: dict[str, list[int]] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    soc: str = "Ascend910B2"
    plugins: list[str] = field(default_factory=list)
    custom_protos: list[Path] = field(default_factory=list)
    scope_passes: list[str] = field(default_factory=list)
    disabled_scope_passes: list[str] = field(default_factory=list)
    precision: PrecisionMode = "force_fp16"
    collect_errors: bool = False
    #: Shape ranges of inputs (ATC's ``128~2048`` dims), per input.
    input_ranges: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    #: Batch sizes to estimate the cost at as well (``--batch-sizes``).
    batch_sizes: list[int] = field(default_factory=list)
    #: ATC's ``--dynamic_image_size`` (H, W) pairs: one profile each.
    image_sizes: list[tuple[int, int]] = field(default_factory=list)
    #: ATC's ``--dynamic_dims``: values of the ``-1`` dims, one profile each.
    dynamic_dims: list[list[int]] = field(default_factory=list)
    #: ATC's ``--input_format`` (NCHW, NHWC, ND, NCDHW, NDHWC), if given.
    input_format: str | None = None
    #: ATC's ``--insert_op_conf`` (AIPP) file.
    insert_op_conf: Path | None = None
    #: ATC's ``--output_type``: dtype per output tensor (``None``: every output).
    output_types: dict[str | None, DataType] = field(default_factory=dict)
    #: ATC's ``--keep_dtype``, ``--customize_dtypes``, ``--op_precision_mode`` files.
    keep_dtype: Path | None = None
    customize_dtypes: Path | None = None
    op_precision_mode: Path | None = None
    #: ATC's ``--fusion_switch_file``.
    fusion_switch_file: Path | None = None


BatchProfile = Profile
"""The older name of :class:`Profile` (profiles were per batch size only)."""


@dataclass
class CompileResult:
    options: CompileOptions
    graph: Graph
    errors: list[OpgraphError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    scope_passes: list[ScopePassRun] = field(default_factory=list)
    #: ONNX inputs' symbolic dims (``dim_param``) by input name.
    symbols: dict[str, list[str]] = field(default_factory=dict)
    prepared: PrepareReport | None = None
    memory: MemoryPlan | None = None
    cost: CostReport | None = None
    #: One per ``--batch-sizes`` / ``--dynamic_image_size`` / ``--dynamic_dims`` entry.
    profiles: list[Profile] = field(default_factory=list)
    #: The AIPP stages (``--insert_op_conf``), one per model input it feeds.
    aipp: list[AippStage] = field(default_factory=list)
    #: One line per option accepted without effect or config entry not applied.
    notes: list[str] = field(default_factory=list)
    #: The unknown dims of the compile and where they come from, when it had some.
    unknown_dims: UnknownDims | None = None
    #: The warning about them (one of ``warnings``).
    unknown_dims_warning: str | None = None


def unknown_tensors(graph: Graph) -> list[str]:
    """Node outputs whose shape has unknown dims (or rank), ``node:i``."""
    return [
        f"{node.name}:{i}"
        for node in graph.nodes()
        for i, desc in enumerate(node.outputs)
        if is_unknown(desc)
    ]


def check_files(options: CompileOptions) -> None:
    """Every input file the options name exists, is a file and is given in
    the right argument (a ``.caffemodel`` is the weights, not MODEL)."""
    check_input_file(options.model, "MODEL", MODEL_FILE)
    if options.framework == "caffe" and options.model.suffix.lower() == ".caffemodel":
        raise UsageError(
            f"MODEL {str(options.model)!r} is Caffe weights (.caffemodel); give the network's .prototxt "
            "as MODEL and the .caffemodel with --weights"
        )
    if options.weights is not None:
        check_input_file(options.weights, "--weights", "a Caffe .caffemodel")
        if options.weights.suffix.lower() == ".prototxt":
            raise UsageError(
                f"--weights {str(options.weights)!r} is a network definition (.prototxt); give it as "
                "MODEL and the .caffemodel with --weights"
            )
    for proto in options.custom_protos:
        check_input_file(proto, "--custom-proto", "a Caffe custom.proto file")


def _load(options: CompileOptions) -> tuple[Graph, list[ScopePassRun], dict[str, list[str]]]:
    check_files(options)
    scope_options = options.scope_passes or options.disabled_scope_passes
    if options.framework != "tensorflow" and scope_options:
        raise UsageError("--enable/--disable-scope-fusion-passes apply to TensorFlow models only")
    if options.framework != "caffe" and options.weights is not None:
        raise UsageError("--weights applies to Caffe models only (a frozen GraphDef holds its weights)")
    if options.framework != "caffe" and options.custom_protos:
        raise UsageError("--custom-proto applies to Caffe models only")
    import_plugins(options.plugins)
    try:
        return _decode(options)
    except ParseError as error:
        usage = _argument_error(error, options)
        if usage is None:
            raise
        raise usage from None


def _decode(options: CompileOptions) -> tuple[Graph, list[ScopePassRun], dict[str, list[str]]]:
    if options.framework == "caffe":
        graph = load_caffe(
            options.model,
            options.weights,
            options.custom_protos,
            options.input_shapes,
            options.plugins,
            outputs=options.outputs or None,
            infer=False,
        )
        return graph, [], {}
    if options.framework == "onnx":
        try:
            graph, report = load_onnx_reported(
                options.model, options.input_shapes, options.outputs or None, options.plugins, infer=False
            )
        except ParseError as error:
            by_value = _onnx_value_outputs(options) if _UNKNOWN_OUTPUT.match(str(error)) else None
            if by_value is None:
                raise
            graph, report = load_onnx_reported(
                options.model, options.input_shapes, by_value, options.plugins, infer=False
            )
        return graph, [], report.symbols
    graph, runs = load_tensorflow_reported(
        options.model,
        options.input_shapes,
        options.outputs or None,
        options.plugins,
        options.scope_passes,
        disable_scope_passes=options.disabled_scope_passes,
        infer=False,
    )
    return graph, runs, {}


def _onnx_value_outputs(options: CompileOptions) -> list[str] | None:
    """``--out_nodes`` naming ONNX values (``logits``, as Netron shows a
    model's tensors) as the IR tensors holding them (``/fc/Gemm:0``); None
    when no requested output is a value name."""
    if not options.outputs:
        return None
    _, full = load_onnx_reported(options.model, options.input_shapes, None, options.plugins, infer=False)
    named = [full.tensors.get(name, name) for name in options.outputs]
    return named if named != options.outputs else None


# The core's messages for a name the model lacks (rust/core/src/frontend/convert).
_UNKNOWN_INPUT = re.compile(
    r"input_shapes names (?P<name>'.*'), which is not (a Placeholder|an input) of the model "
    r"\(its (placeholders|inputs): (?P<known>.*)\)$"
)
_WRONG_RANK = re.compile(
    r"input_shapes gives input (?P<rest>'.*) \(rank \d+\); the model declares (?P<declared>.*)$"
)
_UNKNOWN_OUTPUT = re.compile(r"(requested output '.*' refers to|graph output \d+ refers to output \d+ of) ")
_UNKNOWN_PASS = "no scope fusion pass named"


def _argument_error(error: ParseError, options: CompileOptions) -> UsageError | None:
    """A parse error an argument caused, as a usage error naming the
    argument: an input, output or scope-fusion pass the model or the
    registry lacks, or a ``--framework`` that disagrees with the model's
    extension when the file does not decode as that framework."""
    message = str(error)
    unknown_input = _UNKNOWN_INPUT.match(message)
    if unknown_input:
        return UsageError(
            f"--input-shape names input {unknown_input['name']}, which the model does not have "
            f"(its inputs: {unknown_input['known']})"
        )
    wrong_rank = _WRONG_RANK.match(message)
    if wrong_rank:
        return UsageError(
            f"--input-shape gives input {wrong_rank['rest']}; the model declares {wrong_rank['declared']}"
        )
    if options.outputs and _UNKNOWN_OUTPUT.match(message):
        return UsageError(f"--outputs: {message}")
    if error.scope_pass is not None and _UNKNOWN_PASS in message:
        enabled = error.scope_pass in options.scope_passes
        option = "--enable-scope-fusion-passes" if enabled else "--disable-scope-fusion-passes"
        return UsageError(f"{option}: {message[message.index(_UNKNOWN_PASS) :]}")
    by_suffix = framework_of_suffix(options.model)
    decode_error = error.node is None and not error.unsupported and error.scope_pass is None
    if decode_error and by_suffix not in (None, options.framework):
        article = "an" if by_suffix == "onnx" else "a"
        return UsageError(
            f"--framework {options.framework}: {message}; {options.model.name!r} is named like "
            f"{article} {by_suffix} model: pass --framework {by_suffix}, or leave --framework out"
        )
    return None


def prepare_for_precision(graph: Graph, soc: str, precision: PrecisionMode) -> PrepareReport:
    """The storage-format pass for ATC's precision mode, as ``opgraph compile``
    runs it before the cost model (and as the cost model's validation,
    ``tests/device/calibration/published.py``, runs it: one path, one calibration).

    TransData is inserted in every mode: the device runs it. Casts are
    inserted only for ``allow_fp32_to_fp16``, where ATC does cast around each
    fp32 cube op. Under ``force_fp16`` ATC casts once at the graph input and
    computes the whole network in fp16, so per-cube-op Casts would overstate
    the cost (on Ascend 310 each is a task launch); the cost model's
    ``precision="force_fp16"`` already counts every float tensor at fp16
    width. ``must_keep_origin_dtype`` keeps the model's dtypes: no Casts."""
    return prepare(graph, soc, allow_fp32_to_fp16=precision == "allow_fp32_to_fp16")


def check_soc(soc: str) -> None:
    """Refuses a ``--soc`` that is not in the soc table (:data:`SOC_VERSIONS`,
    compared as the core compares: trimmed, ignoring case)."""
    wanted = soc.strip().lower()
    if not any(wanted == known.lower() for known in SOC_VERSIONS):
        raise UsageError(f"--soc: unknown SoC {soc!r}; the known SoCs are {', '.join(SOC_VERSIONS)}")


def cost_preset(soc: str) -> tuple[DeviceSpec | None, str | None]:
    """The cost preset for ``soc``, or none and the one warning that says the
    cost model is skipped: a target of the soc table without a preset of its
    own gets every other stage (the message names it and lists the presets)."""
    try:
        return DeviceSpec.preset(soc), None
    except DeviceSpecError as error:
        return None, f"cost model skipped: {error}"


def _no_progress(_name: str) -> AbstractContextManager[object]:
    return nullcontext()


def run(options: CompileOptions, stage: Stage = _no_progress) -> CompileResult:
    """Runs the pipeline. Raises :class:`OpgraphError` for the first model
    error (or returns them all in ``errors`` with ``collect_errors``) and
    :class:`UsageError` for a bad command line (an unknown ``--soc`` among
    them, before the model is read)."""
    check_soc(options.soc)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _run(options, stage)
    result.warnings[:0] = [str(w.message) for w in caught]
    return result


@dataclass(frozen=True)
class _Switches:
    """What the option files change, read once per compile."""

    ub_fusion: bool = True
    notes: tuple[str, ...] = ()


def _read_switches(options: CompileOptions) -> tuple[CompileOptions, _Switches]:
    """``--fusion_switch_file`` folded into the options (scope passes) and
    the cost model's UB fusion switch."""
    if options.fusion_switch_file is None:
        return options, _Switches()
    check_input_file(options.fusion_switch_file, "--fusion_switch_file", "a fusion switch file")
    switches = read_fusion_switches(options.fusion_switch_file)
    if options.framework == "tensorflow":
        enabled = [p for p in switches.enable_scope_passes if p not in options.scope_passes]
        disabled = [p for p in switches.disable_scope_passes if p not in options.disabled_scope_passes]
        options = replace(
            options,
            scope_passes=[*options.scope_passes, *enabled],
            disabled_scope_passes=[*options.disabled_scope_passes, *disabled],
        )
    notes = list(switches.notes)
    if not switches.ub_fusion:
        notes.append("--fusion_switch_file: UBFusion ALL is off: the cost model fuses no element-wise op")
    return options, _Switches(switches.ub_fusion, tuple(notes))


def _run(options: CompileOptions, stage: Stage) -> CompileResult:
    options, switches = _read_switches(options)
    result = _pipeline(options, stage, switches)
    result.notes += switches.notes
    if result.errors:
        return result
    model_shapes = {aipp.input: aipp.output_shape for aipp in result.aipp}
    specs = profile_specs(options, result.graph, model_shapes)
    if specs:
        with stage("profiles"):
            # One profile the model cannot take does not cost the others theirs.
            for spec in specs:
                try:
                    result.profiles.append(_profile(options, switches, spec))
                except OpgraphError as error:
                    result.warnings.append(f"profile {spec.label} is skipped: {error}")
        if len(result.profiles) == len(specs):
            _planned_per_profile(result)
        if result.cost is not None:
            result.cost.batch_sweep = [
                BatchCost(p.batch, p.cost.total_us)
                for p in result.profiles
                if p.batch is not None and p.cost is not None
            ]
    if result.cost is not None:
        result.warnings += list(_cost_flags(result.cost, said_worst_case=result.unknown_dims is not None))
    return result


def _planned_per_profile(result: CompileResult) -> None:
    """ATC's gears (``--dynamic_dims``, ``--dynamic_batch_size``,
    ``--dynamic_image_size`` with ``-1`` dims in ``--input_shape``) give the
    main compile's free dims one set of sizes per profile. GE compiles each
    gear and sizes the memory they share for the largest (its dynamic batch
    memory assigner), so the profiles are the plan: the main graph's, with
    its dims free, plans a fraction of the model and is dropped, and the
    warning that sends the user to ``--input-shape`` becomes a note. Only
    free dims: a main compile with ranges or fixed shapes keeps its plan."""
    unknown, warning = result.unknown_dims, result.unknown_dims_warning
    if unknown is None or warning is None or not unknown.free_inputs or unknown.ranged_inputs:
        return
    plans = [(p.memory.arena_bytes, p.label) for p in result.profiles if p.memory is not None]
    if len(plans) != len(result.profiles):
        return
    arena, label = max(plans)
    result.warnings.remove(warning)
    result.unknown_dims = result.unknown_dims_warning = None
    result.memory = None
    result.notes.append(
        "the inputs' free dims take each profile's sizes: every profile is compiled at its own shapes "
        "(by profile), and GE sizes the memory the profiles share for the largest, "
        f"{label}: a {arena / 2**20:.2f} MiB arena"
    )


def _pipeline(options: CompileOptions, stage: Stage, switches: _Switches) -> CompileResult:
    """parse -> per-op precision -> AIPP -> infer (-> output casts, infer
    again) -> formats -> memory -> cost: the main compile and each profile."""
    with stage("parse"):
        graph, scope_passes, symbols = _load(options)
    result = CompileResult(options, graph, scope_passes=scope_passes, symbols=symbols)
    for name, ranges in options.input_ranges.items():
        graph.set_input_shape_range(name, ranges)
    carried = shared_ranges(graph, symbols, options.input_shapes, options.input_ranges)
    for name, ranges in carried.items():
        graph.set_input_shape_range(name, ranges)
    if carried:
        result.notes.append(carried_note(carried, symbols))
    result.notes += _precision_overrides(graph, options)
    if options.insert_op_conf is not None:
        result.aipp = aipp_stages(graph, options)
        for aipp in result.aipp:
            insert_aipp(graph, aipp)
    with stage("infer"):
        result.errors = infer_graph(graph, collect_errors=options.collect_errors)
        if not result.errors and _cast_outputs(graph, options.output_types):
            result.errors = infer_graph(graph, collect_errors=options.collect_errors)
    if result.errors:
        return result
    result.notes += check_input_format(graph, options, {s.input for s in result.aipp})
    qdq = qdq_warning(graph)
    if qdq is not None:
        result.warnings.append(qdq)
    if has_ranged_inputs(graph):
        with stage("ranges"):
            result.notes += probe_input_ranges(graph, result.symbols)
    # The model's own tensors (the format pass adds conversions of them).
    unknown = find_unknown_dims(graph)
    with stage("formats"):
        result.prepared = prepare_for_precision(graph, options.soc, options.precision)
    if result.prepared.conds_replaced:
        result.notes.append(
            f"{result.prepared.conds_replaced} If / Case nodes whose condition is known were replaced by the "
            "branch they take, as GE's CondRemovePass does; the branches' nodes are named "
            "<node>/<branch>/<name>"
        )
    with stage("memory"):
        try:
            result.memory = plan_memory(graph, allow_dynamic=bool(unknown.tensors))
        except MemoryPlanError as error:
            result.warnings.append(f"memory plan skipped: {error}")
    unplanned = None if result.memory is None else result.memory.regions.count("dynamic")
    dead = 0 if result.memory is None else result.memory.regions.count("dead")
    if dead:
        result.notes.append(
            f"{dead} tensors of branches that cannot run (the condition choosing them is known) take no "
            "memory and cost nothing: GE deletes such branches before it plans"
        )
    # Sizes known only at run time, every one bounded: a worst-case latency.
    at_upper_bounds = bool(unknown.tensors) and unknown.inputs_bounded() and unplanned == 0
    if unknown.tensors:
        result.unknown_dims = unknown
        result.unknown_dims_warning = unknown_dims_warning(unknown, unplanned, costed=at_upper_bounds)
        result.warnings.append(result.unknown_dims_warning)
    if not unknown.tensors or at_upper_bounds:
        spec, no_preset = cost_preset(options.soc)
        if no_preset is not None:
            result.warnings.append(no_preset)
        if spec is not None:
            with stage("cost"):
                try:
                    result.cost = estimate_cost(
                        graph,
                        spec,
                        precision=options.precision,
                        fuse=switches.ub_fusion,
                        at_upper_bounds=at_upper_bounds,
                    )
                except CostError as error:
                    result.warnings.append(f"cost model skipped: {error}")
    return result


def _cast_outputs(graph: Graph, output_types: dict[str | None, DataType]) -> bool:
    """ATC's ``--output_type`` on an inferred graph: a Cast after each graph
    output whose dtype is set (``None`` sets every output's) and differs.
    True when a Cast went in (the graph is then inferred again)."""
    if not output_types:
        return False
    names = {f"{t.node}:{t.index}" for t in graph.outputs}
    unknown = [n for n in output_types if n is not None and n not in names]
    if unknown:
        raise UsageError(
            f"--output_type names {', '.join(unknown)}, which are not graph outputs "
            f"(the outputs: {', '.join(sorted(names))})"
        )
    outputs, cast = [], False
    for ref in graph.outputs:
        dtype = output_types.get(f"{ref.node}:{ref.index}", output_types.get(None))
        if dtype is None or graph.desc(ref).dtype == dtype:
            outputs.append(ref)
            continue
        name = f"{ref.node}_output_type_{ref.index}"
        outputs.append(graph.add_node("Cast", name, [ref], {"dst_type": int(dtype)}))
        cast = True
    graph.set_outputs(outputs)
    return cast


def _precision_overrides(graph: Graph, options: CompileOptions) -> list[str]:
    """ATC's per-op precision files applied to ``graph``; their notes."""
    overrides = PrecisionOverrides()
    readers = (
        ("--keep_dtype", options.keep_dtype, keep_dtype_selectors),
        ("--customize_dtypes", options.customize_dtypes, customize_dtypes_selectors),
        ("--op_precision_mode", options.op_precision_mode, op_precision_selectors),
    )
    for option, path, read in readers:
        if path is not None:
            check_input_file(path, option, "a config file")
            resolve(graph, option, read(path), overrides)
    overrides.apply(graph)
    return overrides.notes


_FORMAT_RANKS = {"NCHW": 4, "NHWC": 4, "NCDHW": 5, "NDHWC": 5}


def default_layout(options: CompileOptions) -> str:
    """The 4-D layout of model inputs: ``--input_format`` when it is NCHW or
    NHWC, else the framework's (NHWC for TensorFlow, NCHW otherwise)."""
    if options.input_format in ("NCHW", "NHWC"):
        return options.input_format
    return "NHWC" if options.framework == "tensorflow" else "NCHW"


def check_input_format(graph: Graph, options: CompileOptions, images: Collection[str] = ()) -> list[str]:
    """``--input_format`` against the model's inputs: a note for each input
    whose rank or own format disagrees (ATC builds such models anyway).
    ``images``, the inputs an AIPP stage feeds, are NHWC images whatever it says."""
    wanted = options.input_format
    if wanted is None or wanted == "ND":
        return []
    notes = []
    for ref in graph.inputs:
        if ref.node in images:
            continue
        desc = graph.desc(ref)
        dims = list(desc.shape)
        rank_ok = dims == [-2] or len(dims) == _FORMAT_RANKS[wanted]
        own = desc.format.name
        if not rank_ok:
            notes.append(
                f"--input_format {wanted}: input {ref.node!r} has rank {len(dims)}, not "
                f"{_FORMAT_RANKS[wanted]}; its dims are taken as they are (ND)"
            )
        elif own in _FORMAT_RANKS and own != wanted:
            notes.append(f"--input_format {wanted}: input {ref.node!r} is {own} in the model")
    return notes


def aipp_stages(graph: Graph, options: CompileOptions) -> list[AippStage]:
    """The ``--insert_op_conf`` stages in front of the model inputs they
    name (read from the loaded graph, before inference)."""
    assert options.insert_op_conf is not None
    check_input_file(options.insert_op_conf, "--insert_op_conf", "an AIPP config file")
    stages: list[AippStage] = []
    inputs = graph.inputs
    for config in read_insert_op_config(options.insert_op_conf):
        rank = config.input_rank
        if rank >= len(inputs):
            raise AtcConfigError(
                f"--insert_op_conf {config.path!r}: related_input_rank: is {rank} but the model has "
                f"{len(inputs)} input(s)",
                path=config.path,
                field="related_input_rank",
            )
        ref = inputs[rank]
        if any(s.input == ref.node for s in stages):
            raise AtcConfigError(
                f"--insert_op_conf {config.path!r}: related_input_rank: {rank} is given twice",
                path=config.path,
                field="related_input_rank",
            )
        desc = graph.desc(ref)
        layout = stage_layout(desc.format, default_layout(options))
        stages.append(apply_aipp(config, ref.node, list(desc.shape), desc.dtype.name, layout))
    return stages


def _profile(options: CompileOptions, switches: _Switches, spec: ProfileSpec) -> Profile:
    """The model compiled by the same pipeline with the profile's input
    shapes: its memory plan and cost estimate."""
    again = replace(
        options,
        input_shapes=spec.input_shapes,
        input_ranges={},
        batch_sizes=[],
        image_sizes=[],
        dynamic_dims=[],
        collect_errors=False,
    )
    compiled = _pipeline(again, _no_progress, switches)
    if compiled.errors or unknown_tensors(compiled.graph):
        raise CostError(f"the model does not infer to static shapes for profile {spec.label}")
    cost = None
    if compiled.cost is not None:
        cost = BatchCost(spec.batch or 1, compiled.cost.total_us)
    return Profile(spec.label, spec.input_shapes, spec.batch, compiled.memory, cost)


#: The cost model's flag for a graph costed at its shape ranges' upper bounds.
UPPER_BOUNDS_FLAG = "tensors of run-time size are costed at their shape ranges' upper bounds"


def _cost_flags(cost: CostReport, *, said_worst_case: bool) -> Iterator[str]:
    """The cost report's flags as warnings; the upper-bounds one only where
    the unknown-dims warning does not already say it is a worst case."""
    for flag in cost.flags:
        if not (said_worst_case and UPPER_BOUNDS_FLAG in flag):
            yield flag
