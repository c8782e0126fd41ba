"""ATC's command-line options, as ``opgraph compile`` / ``opgraph atc``
take them: the ones opgraph implements (registered in ``main.py``) and
those it accepts without effect, each with the one-line note printed when
it is given (ATC's documented option list, CANN 6-8)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass


@dataclass(frozen=True)
class AtcOption:
    name: str
    implemented: bool
    note: str


def _implemented(name: str, note: str) -> AtcOption:
    return AtcOption(name, True, note)


def _no_effect(name: str, note: str) -> AtcOption:
    return AtcOption(name, False, note)


_BUILD = "it tunes how ATC builds or compiles kernels, which opgraph does not do"
_DEBUG = "it controls ATC's debug or dump output, which opgraph does not produce"

ATC_OPTIONS: tuple[AtcOption, ...] = (
    _implemented("help", "--help (and --h after opgraph atc): the options"),
    _implemented("mode", "0 (build a model) only; other modes are a usage error"),
    _implemented("model", "the model file (as MODEL)"),
    _implemented("weight", "the Caffe .caffemodel (as --weights)"),
    _implemented("framework", "0 Caffe, 3 TensorFlow, 5 ONNX"),
    _implemented(
        "input_format", "checked against the model; says where H and W are (AIPP, --dynamic_image_size)"
    ),
    _implemented("input_shape", "shapes, -1 unknown, MIN~MAX ranges, [brackets]"),
    _implemented("input_shape_range", "read as --input_shape ranges"),
    _implemented("dynamic_batch_size", "one profile per batch size"),
    _implemented("dynamic_image_size", "one profile per H,W pair"),
    _implemented("dynamic_dims", "one profile per set of -1 dims"),
    _implemented("output", "the report is written to OUTPUT.json (no .om is produced)"),
    _implemented("output_type", "graph outputs of another dtype get a Cast (cost and output memory)"),
    _implemented("out_nodes", "the graph's outputs; the graph is pruned to them"),
    _implemented("insert_op_conf", "AIPP: uint8 image input, crop/resize/padding, stage reported"),
    _implemented("soc_version", "the target: formats, memory and the cost preset"),
    _implemented("precision_mode", "force_fp16, allow_fp32_to_fp16, must_keep_origin_dtype (others mapped)"),
    _implemented("precision_mode_v2", "fp16, origin, cube_fp16in_fp32out mapped to --precision_mode"),
    _implemented("op_precision_mode", "ops set to enable_float_32_execution / keep_fp16 change dtype"),
    _implemented(
        "keep_dtype", "the listed ops keep the model's dtype (cost; memory with allow_fp32_to_fp16)"
    ),
    _implemented("customize_dtypes", "the listed ops compute in the dtype given (fp16 or the model's)"),
    _implemented("fusion_switch_file", "UBFusion off disables the cost model's fusion; scope passes by name"),
    _implemented("enable_scope_fusion_passes", "TensorFlow scope fusion passes to run"),
    _implemented("log", "debug/info/warning/error/null: how much opgraph prints"),
    _no_effect("enable_small_channel", "opgraph's cost model pads every convolution's C to C0"),
    _implemented("json", "the report's file (ATC's --json converts an .om with --mode=1, refused)"),
    _no_effect("om", "it names an .om to convert to JSON (--mode=1), which opgraph does not read"),
    _no_effect("singleop", "single-op JSON files are not compiled by opgraph (see opgraph check-op)"),
    _no_effect("check_report", "ATC's pre-check report is not written"),
    _no_effect("core_type", "the cost model uses every AI Core of the preset"),
    _no_effect("aicore_num", "the cost model uses every AI Core of the preset"),
    _no_effect("virtual_type", "the cost model assumes the whole device"),
    _no_effect("input_fp16_nodes", "inputs keep the model's dtype"),
    _no_effect("is_input_adjust_hw_layout", "inputs keep the model's layout"),
    _no_effect("is_output_adjust_hw_layout", "outputs keep the model's layout"),
    _no_effect("external_weight", "weights are counted in memory either way"),
    _no_effect("op_name_map", "ops are mapped by opgraph's parser plugins"),
    _no_effect("disable_reuse_memory", "the memory plan always reuses memory"),
    _no_effect("enable_single_stream", "opgraph reports the single-stream total and the critical path"),
    _no_effect("enable_compress_weight", "weights are counted uncompressed"),
    _no_effect("compress_weight_conf", "weights are counted uncompressed"),
    _no_effect("compression_optimize_conf", "weights are counted uncompressed"),
    _no_effect("buffer_optimize", "the cost model keeps activations in L2 when they fit, whatever this says"),
    _no_effect("mdl_bank_path", _BUILD),
    _no_effect("allow_hf32", "the cost model has no HF32 mode"),
    _no_effect("op_select_implmode", "high_precision / high_performance kernels cost the same in opgraph"),
    _no_effect(
        "optypelist_for_implmode", "high_precision / high_performance kernels cost the same in opgraph"
    ),
    _no_effect("modify_mixlist", "mixed precision lists apply to allow_mix_precision, which opgraph has not"),
    _no_effect("sparsity", "weights are counted dense"),
    _no_effect("op_bank_path", _BUILD),
    _no_effect("auto_tune_mode", _BUILD),
    _no_effect("op_debug_level", _DEBUG),
    _no_effect("op_debug_config", _DEBUG),
    _no_effect("op_compiler_cache_mode", _BUILD),
    _no_effect("op_compiler_cache_dir", _BUILD),
    _no_effect("debug_dir", _DEBUG),
    _no_effect("dump_mode", _DEBUG),
    _no_effect("host_env_os", _BUILD),
    _no_effect("host_env_cpu", _BUILD),
    _no_effect("status_check", _DEBUG),
    _no_effect("save_original_model", _DEBUG),
    _no_effect("input_hint_shape", "shapes come from --input_shape"),
    _no_effect("atomic_clean_policy", "memory is planned without ATC's atomic-clean buffers"),
    _no_effect("deterministic", _BUILD),
    _no_effect("shape_generalized_build_mode", _BUILD),
    _no_effect("display_model_info", "opgraph prints its own summary"),
    _no_effect("oo_level", _BUILD),
    _no_effect("jit_compile", _BUILD),
    _no_effect("performance_mode", _BUILD),
    _no_effect("export_compile_stat", _DEBUG),
    _no_effect("quant_dumpable", _DEBUG),
    _no_effect("cluster_config", "opgraph compiles for one device"),
    _no_effect("distributed_cluster_build", "opgraph compiles for one device"),
    _no_effect("ac_parallel_enable", _BUILD),
    _no_effect("tiling_schedule_optimize", _BUILD),
)
OPTIONS_BY_NAME = {option.name: option for option in ATC_OPTIONS}
NO_EFFECT = tuple(option for option in ATC_OPTIONS if not option.implemented)


def add_no_effect_options(parser: argparse.ArgumentParser) -> None:
    """Registers every option opgraph accepts without effect (``--name`` and
    ``--name-with-hyphens``), each storing its value in ``atc_<name>``."""
    for option in NO_EFFECT:
        spellings = [f"--{option.name}"]
        if "_" in option.name:
            spellings.append(f"--{option.name.replace('_', '-')}")
        parser.add_argument(*spellings, dest=f"atc_{option.name}", metavar="V", help=argparse.SUPPRESS)


def no_effect_notes(args: argparse.Namespace) -> list[str]:
    """One note per no-effect option given, saying it does not change the result."""
    return [
        f"--{option.name} is accepted but does not change opgraph's result: {option.note}"
        for option in NO_EFFECT
        if getattr(args, f"atc_{option.name}", None) is not None
    ]


def flag_table() -> str:
    """The options as the README's Markdown table (tests/cli keeps them equal)."""
    rows = ["| ATC option | in opgraph |", "|---|---|"]
    for option in ATC_OPTIONS:
        status = "implemented" if option.implemented else "accepted without effect"
        rows.append(f"| `--{option.name}` | {status}: {option.note} |")
    return "\n".join(rows)
