"""``opgraph``: the command line (argparse; ``compile``, ``ops``, ``check-op``).

Exit codes: 0 success, 1 model errors (the model cannot be compiled), 2 usage
errors (bad options, missing files, invalid --input-shape values, names the
model lacks, outputs that cannot be written), 3 an internal error (opgraph's
bug). Every error is one line on stderr, never a traceback (set
``OPGRAPH_TRACEBACK=1`` to see one for an unexpected error). Everything
printed through rich that comes from the user or a file is escaped
(``rich.markup.escape``): a node named ``[red]`` prints as ``[red]``."""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, NoReturn

from rich.console import Console
from rich.markup import escape

from .. import __version__
from ..errors import AtcConfigError, InternalError, OpgraphError, ShapeArgumentError
from . import examples, ops
from .atc import atc_argv
from .atc_flags import (
    LOG_LEVELS,
    PRECISION_CHOICES,
    atc_options,
    atc_precision,
    output_report_path,
    parse_output_type,
)
from .atc_options import add_no_effect_options, no_effect_notes
from .compile import CompileOptions, run
from .graph_dot import write_dot
from .html_report import write_html_report
from .model_args import (
    FRAMEWORKS,
    MODEL_FILE,
    framework_of,
    parse_batch_sizes,
    parse_input_ranges,
    parse_input_shapes,
)
from .profile_plot import plot_profiles
from .profiles import parse_profile_dims
from .report import build_report, write_report
from .summary import error_paragraph, one_paragraph, print_summary
from .usage import UsageError, check_input_file, check_output, output_failure

EXIT_OK, EXIT_MODEL_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
ATC_FRAMEWORKS = {"0": "caffe", "3": "tensorflow", "5": "onnx"}
PLOT_EXTRA = "pip install 'opgraph[plot]'"

COMPILE_EPILOG = """\
ATC command lines paste as they are (also: opgraph atc <the rest of an atc line>). Implemented:
  --model, --weight, --framework=0|3|5, --input_shape (-1, MIN~MAX), --input_format, --soc_version,
  --out_nodes, --output (writes OUTPUT.json; no .om), --output_type, --log, --mode=0,
  --dynamic_batch_size, --dynamic_image_size, --dynamic_dims (profiles), --insert_op_conf (AIPP),
  --precision_mode(_v2), --op_precision_mode, --keep_dtype, --customize_dtypes, --fusion_switch_file,
  --enable_scope_fusion_passes. ATC's other options are accepted with a note that they change nothing.

examples:
  opgraph compile --example lenet
  opgraph compile model.pb --input-shape "x:1,224,224,3" --soc Ascend310P3 --out build/
  opgraph atc --framework=5 --model=net.onnx --output=net_bs1 --input_format=NCHW \\
      --input_shape="image:1,3,224,224" --log=error --soc_version=Ascend310P3

exit codes: 0 compiled, 1 the model has errors, 2 usage error."""


def new_console(*, stderr: bool = False) -> Console:
    """A console for the command's output: no highlighting of numbers or
    paths, and no ``:emoji:`` codes (a tensor ``a:cat:0`` stays as it is)."""
    return Console(stderr=stderr, highlight=False, emoji=False)


def _whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is not at least {minimum}")
        return value

    return parse


_positive = _whole_number(1)
_seed = _whole_number(0)


def _split_list(values: list[str] | None, sep: str = ",") -> list[str]:
    return [v.strip() for value in values or [] for v in value.split(sep) if v.strip()]


class _Parser(argparse.ArgumentParser):
    """Reports a bad command line as a UsageError (one line), not argparse's
    usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="opgraph",
        description="Ascend-style graph engine: compile a TensorFlow, Caffe or ONNX model "
        "(parse, infer, storage formats, memory plan, cost), list and check ops.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"opgraph {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    c = sub.add_parser(
        "compile",
        help="parse, infer, plan memory and estimate the cost of a model; print a summary",
        description="Runs parse (plugins, scope fusion) -> verify/infer -> storage formats -> "
        "memory plan -> cost model on MODEL and prints a summary.",
        epilog=COMPILE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    c.add_argument("model", nargs="?", metavar="MODEL", help="the .pb/.pbtxt, .prototxt or .onnx model file")
    c.add_argument("--model", dest="model_option", metavar="MODEL", help=argparse.SUPPRESS)
    c.add_argument("--example", choices=sorted(examples.EXAMPLES), help="compile a bundled example model")
    c.add_argument(
        "--weights", "--weight", action=_Once, type=Path, metavar="W", help="the Caffe .caffemodel"
    )
    c.add_argument(
        "--framework",
        choices=[*FRAMEWORKS, *ATC_FRAMEWORKS],
        help="tensorflow, caffe or onnx (ATC: 3, 0 or 5); default: from MODEL's extension",
    )
    c.add_argument(
        "--input-shape",
        "--input_shape",
        action=_Once,
        metavar="NAME:D,D;...",
        help='input shapes, e.g. "data:1,3,224,224" (-1 unknown, MIN~MAX a range)',
    )
    c.add_argument(
        "--outputs",
        "--out_nodes",
        action=_Once,
        nargs="+",
        metavar="TENSOR",
        help='output tensors ("node" or "node:1"; ATC\'s "a:0;b:0" too); prunes the graph',
    )
    c.add_argument(
        "--soc", "--soc_version", action=_Once, default="Ascend910B2", help="target (default Ascend910B2)"
    )
    c.add_argument("--plugins", nargs="+", default=[], metavar="P", help="plugin modules or .py files")
    c.add_argument(
        "--custom-proto", nargs="+", default=[], type=Path, metavar="P", help="Caffe custom.proto files"
    )
    c.add_argument(
        "--enable-scope-fusion-passes",
        "--enable_scope_fusion_passes",
        action="append",
        metavar="A,B",
        help="non-general TensorFlow scope-fusion passes to run",
    )
    c.add_argument(
        "--disable-scope-fusion-passes",
        "--disable_scope_fusion_passes",
        action="append",
        metavar="A,B",
        help="TensorFlow scope-fusion passes not to run, general ones included",
    )
    c.add_argument(
        "--precision-mode",
        "--precision_mode",
        action=_Once,
        choices=PRECISION_CHOICES,
        metavar="MODE",
        help="ATC's precision mode: force_fp16 (default), allow_fp32_to_fp16, must_keep_origin_dtype "
        "(ATC's others are estimated as the nearest, with a note)",
    )
    c.add_argument(
        "--batch-sizes",
        "--dynamic_batch_size",
        action=_Once,
        metavar="N,N,...",
        help="also plan memory and estimate cost and throughput with every input's batch set to each size",
    )
    c.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="write report.json, report.html, graph.dot, memory.png, cost.png (profiles.png: --batch-sizes)",
    )
    c.add_argument("--json", type=Path, metavar="FILE", help="write the report (JSON) to FILE")
    c.add_argument(
        "--report",
        choices=("json", "html"),
        default="json",
        help="with --output=x: html writes x.html (the explorable page) beside x.json",
    )
    c.add_argument(
        "--collect-errors", action="store_true", help="report every failing node, not just the first"
    )
    c.add_argument("-q", "--quiet", action="store_true", help="no summary")
    c.add_argument("--log", type=str.lower, choices=LOG_LEVELS, help="ATC's log level: how much is printed")
    atc_options(c)
    add_no_effect_options(c)

    sub.add_parser(
        "atc",
        help="compile from the rest of an ATC command line, as ATC spells it",
        description="opgraph atc --framework=5 --model=net.onnx ... runs opgraph compile on an ATC "
        "command line (-name and --name-with-hyphens spellings too).",
        add_help=False,
    )

    o = sub.add_parser(
        "ops",
        help="list registered op types, or describe one",
        description="opgraph ops [PATTERN] lists op types (PATTERN: substring or glob); "
        "opgraph ops describe TYPE prints a prototype.",
        allow_abbrev=False,
    )
    o.add_argument("words", nargs="*", metavar="PATTERN | describe TYPE")

    k = sub.add_parser(
        "check-op",
        help="check an op's inference against a reference function with hypothesis",
        description="Runs opgraph.testing.check_inference on MODULE:OP (an OpDef or op type) "
        "against MODULE:FUNC. MODULE is a module name or a .py path.",
        allow_abbrev=False,
    )
    k.add_argument("op", metavar="MODULE:OP")
    k.add_argument("--reference", required=True, metavar="MODULE:FUNC")
    k.add_argument(
        "--examples", type=_positive, default=100, metavar="N", help="hypothesis examples (default 100)"
    )
    k.add_argument(
        "--attr",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="draw attribute NAME from SPEC: LO..HI, A,B,C, [SPEC] for lists, or one value "
        "(repeatable; e.g. --attr kernel=1..5 --attr pad=0..3)",
    )
    k.add_argument(
        "--shape",
        action="append",
        default=[],
        metavar="PORT=DIMS",
        help="draw input PORT's shape from DIMS, each dim N or LO..HI (repeatable; "
        "e.g. --shape x=1..2,3,4..16,4..16)",
    )
    k.add_argument(
        "--strategies",
        metavar="MODULE:NAME",
        help="a module-level mapping of attribute names to hypothesis strategies",
    )
    k.add_argument(
        "--min-accepted",
        type=float,
        default=0.2,
        metavar="SHARE",
        help="fail when the reference accepts less than this share of the cases (default 0.2)",
    )
    k.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help="hypothesis's random seed (default: a random one, printed with the result; "
        "the same seed replays the same cases)",
    )
    return parser


class _Once(argparse.Action):
    """An option with two spellings (opgraph's and ATC's). Given under both,
    one value would silently replace the other, so that is a usage error;
    one spelling repeated keeps the last value, as options usually do."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        spellings: dict[str, str | None] = vars(namespace).setdefault("_spellings", {})
        earlier = spellings.setdefault(self.dest, option_string)
        if earlier != option_string:
            parser.error(f"{earlier} and {option_string} are the same option; give one of them")
        setattr(namespace, self.dest, values)


def _options(args: argparse.Namespace) -> tuple[CompileOptions, list[str]]:
    if args.mode not in (None, "0"):
        raise UsageError(
            f"--mode {args.mode}: opgraph builds models (--mode=0) only; it does not convert .om files "
            "or check models (modes 1, 3, 5, 6)"
        )
    if args.model and args.model_option and args.model != args.model_option:
        raise UsageError(f"MODEL {args.model!r} and --model {args.model_option!r} disagree: give one")
    model_arg = args.model or args.model_option
    if args.input_shape and args.input_shape_range:
        raise UsageError("give --input_shape or --input_shape_range, not both")
    shape_text = args.input_shape or args.input_shape_range
    input_shapes = parse_input_shapes(shape_text) if shape_text else {}
    input_ranges = parse_input_ranges(shape_text) if shape_text else {}
    if args.example:
        if model_arg:
            raise UsageError("give MODEL or --example, not both")
        ex = examples.example(args.example)
        model, framework = ex.path, ex.framework
        if args.weights is None:
            args.weights = ex.weights
        input_shapes = {**ex.input_shapes, **input_shapes}
    elif model_arg:
        model = Path(model_arg)
        check_input_file(model, "MODEL", MODEL_FILE)
        framework = ATC_FRAMEWORKS.get(args.framework, args.framework) or framework_of(model)
    else:
        raise UsageError("no model: give MODEL (or --model=MODEL) or --example NAME")
    precision, notes = atc_precision(args)
    kinds = [
        option
        for option, given in (
            (vars(args).get("_spellings", {}).get("batch_sizes", "--dynamic_batch_size"), args.batch_sizes),
            ("--dynamic_image_size", args.dynamic_image_size),
            ("--dynamic_dims", args.dynamic_dims),
        )
        if given
    ]
    if len(kinds) > 1:
        # As ATC: one kind of profile per model (a batch profile's throughput
        # counts samples, a dims profile's runs; one table cannot hold both).
        raise UsageError(f"give one of {' and '.join(kinds)}: profiles are of one kind per model, as in ATC")
    image_sizes = (
        parse_profile_dims("--dynamic_image_size", args.dynamic_image_size, '"224,224;448,448"', 2)
        if args.dynamic_image_size
        else []
    )
    return CompileOptions(
        model=model,
        framework=framework,
        weights=args.weights,
        input_shapes=input_shapes,
        input_ranges=input_ranges,
        outputs=_split_list(args.outputs, ";"),
        soc=args.soc,
        plugins=list(args.plugins),
        custom_protos=list(args.custom_proto),
        scope_passes=_split_list(args.enable_scope_fusion_passes),
        disabled_scope_passes=_split_list(args.disable_scope_fusion_passes),
        precision=precision,
        collect_errors=args.collect_errors,
        batch_sizes=parse_batch_sizes(args.batch_sizes) if args.batch_sizes is not None else [],
        image_sizes=[(h, w) for h, w in image_sizes],
        dynamic_dims=parse_profile_dims("--dynamic_dims", args.dynamic_dims, '"1,128;4,256"')
        if args.dynamic_dims
        else [],
        input_format=args.input_format,
        insert_op_conf=args.insert_op_conf,
        output_types=parse_output_type(args.output_type) if args.output_type else {},
        keep_dtype=args.keep_dtype,
        customize_dtypes=args.customize_dtypes,
        op_precision_mode=args.op_precision_mode,
        fusion_switch_file=args.fusion_switch_file,
    ), notes


def _stages(console: Console, err: Console, debug: bool) -> Any:
    """The progress display on a terminal; with ``--log=debug`` each
    stage's time on stderr as well."""

    @contextmanager
    def stage(name: str) -> Iterator[None]:
        started = time.perf_counter()
        with console.status(f"[bold]{name}[/bold] ...") if console.is_terminal else nullcontext():
            yield
        if debug:
            err.print(f"debug: {name} took {1000 * (time.perf_counter() - started):.1f} ms", highlight=False)

    return stage


def _write_out(out: Path, report: dict[str, Any], result: Any, console: Console) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_report(report, out / "report.json")
    write_html_report(result, out / "report.html", report=report)
    write_dot(result.graph, out / "graph.dot")
    written = ["report.json", "report.html", "graph.dot"]
    try:
        with warnings.catch_warnings():
            # A name with a character the font lacks draws a box; no warning for it.
            warnings.filterwarnings("ignore", "Glyph .* missing from", UserWarning)
            written += _plot(out, report, result)
    except ImportError:
        console.print(f"[yellow]warning:[/yellow] plots need matplotlib: {escape(PLOT_EXTRA)}")
    console.print(f"wrote {', '.join(written)} to {escape(str(out))}")


def _plot(out: Path, report: dict[str, Any], result: Any) -> list[str]:
    """memory.png, cost.png and profiles.png, as far as the result has them."""
    name = report["model"]["name"]
    written = []
    if result.memory is not None:
        result.memory.plot(out / "memory.png", title=f"{name}: activation memory")
        written.append("memory.png")
    if result.cost is not None:
        result.cost.plot(out / "cost.png")
        written.append("cost.png")
    if result.profiles:
        plot_profiles(result.profiles, out / "profiles.png", f"{name}: by profile")
        written.append("profiles.png")
    return written


def _write_outputs(args: argparse.Namespace, report: dict[str, Any], result: Any, console: Console) -> None:
    """``--json FILE``, ATC's ``--output`` (OUTPUT.json) and ``--out DIR``,
    parent directories created; a failure to write is a usage error naming
    the option and the file."""
    for option, path in (("--json", args.json), ("--output", args.output_report)):
        if path is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_report(report, path)
        except OSError as error:
            raise output_failure(path, option, error) from None
    if args.output_report is not None and args.report == "html":
        page = args.output_report.with_suffix(".html")
        try:
            write_html_report(result, page, report=report)
        except OSError as error:
            raise output_failure(page, "--output", error) from None
    if args.out:
        try:
            _write_out(args.out, report, result, console)
        except OSError as error:
            raise output_failure(args.out, "--out", error) from None


def _compile(args: argparse.Namespace, console: Console, err: Console) -> int:
    if args.report == "html" and args.output is None:
        raise UsageError("--report html writes OUTPUT.html beside --output's OUTPUT.json: give --output too")
    options, notes = _options(args)
    args.output_report = output_report_path(args.output) if args.output is not None else None
    for option, path in (("--json", args.json), ("--output", args.output_report)):
        if path is not None:
            check_output(path, option, directory=False)
    if args.out:
        check_output(args.out, "--out", directory=True)
    level = args.log or "info"
    stage: Any = _stages(console, err, level == "debug")
    try:
        result = run(options, stage)
    except ShapeArgumentError as problem:
        raise UsageError(f"--input-shape: {problem}") from None
    except AtcConfigError as problem:
        raise UsageError(str(problem)) from None
    except InternalError:
        raise
    except OpgraphError as problem:
        err.print(error_paragraph(problem, options.framework), highlight=False, markup=False, soft_wrap=True)
        return EXIT_MODEL_ERROR
    result.notes[:0] = [*notes, *no_effect_notes(args)]
    # The report lists every node: built only when something reads it (a
    # million-node graph takes seconds), not for a quiet run without output.
    wanted = bool(args.json or args.out or args.output_report or not args.quiet)
    report = build_report(result) if wanted else {}
    if report and args.output_report is not None:
        report["output_file"] = str(args.output_report)
    _write_outputs(args, report, result, console)
    if result.errors:
        for failure in result.errors:
            err.print(
                error_paragraph(failure, options.framework), highlight=False, markup=False, soft_wrap=True
            )
        err.print(f"{len(result.errors)} node(s) failed", highlight=False)
        return EXIT_MODEL_ERROR
    if not args.quiet:
        print_summary(
            console, report, warnings=level in ("debug", "info", "warning"), notes=level in ("debug", "info")
        )
        if args.output_report is not None:
            shown = escape(str(args.output_report))
            if args.report == "html":
                shown += f" and {escape(str(args.output_report.with_suffix('.html')))}"
            console.print(f"wrote {shown} (--output: the report; opgraph estimates, no .om is produced)")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command; returns the exit code. Every failure is one paragraph."""
    err = new_console(stderr=True)

    def say(message: str) -> None:
        err.print(f"opgraph: {one_paragraph(message)}", highlight=False, markup=False, soft_wrap=True)

    try:
        return _dispatch(argv, err)
    except UsageError as problem:
        say(f"error: {problem}")
        return EXIT_USAGE
    except InternalError as problem:
        say(f"{problem} (InternalError)")
        return EXIT_INTERNAL
    except OpgraphError as problem:
        say(f"error: {type(problem).__name__}: {problem}")
        return EXIT_MODEL_ERROR
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except MemoryError:
        say("error: out of memory")
        return EXIT_MODEL_ERROR
    except Exception as problem:
        if os.environ.get("OPGRAPH_TRACEBACK"):
            raise
        say(
            f"internal error (please report it; OPGRAPH_TRACEBACK=1 shows the traceback): "
            f"{type(problem).__name__}: {problem}"
        )
        return EXIT_INTERNAL


def _dispatch(argv: Sequence[str] | None, err: Console) -> int:
    parser = _parser()
    tokens = list(sys.argv[1:] if argv is None else argv)
    spelled: dict[str, str] = {}
    atc = bool(tokens) and tokens[0] == "atc"
    if atc:
        tokens, spelled = atc_argv(tokens[1:])
    args, unknown = parser.parse_known_args(tokens)
    if unknown:  # argparse would point at "opgraph --help", not the command's
        command = "opgraph atc" if atc else f"opgraph {args.command}" if args.command else "opgraph"
        shown = " ".join(spelled.get(token, token) for token in unknown)
        raise UsageError(f"unrecognized arguments: {shown} (see {command} --help)")
    console = new_console()
    if args.command == "compile":
        return _compile(args, console, err)
    if args.command == "atc":  # only `opgraph atc` alone reaches here
        raise UsageError(
            "opgraph atc: no ATC arguments (e.g. opgraph atc --framework=5 --model=net.onnx ...)"
        )
    if args.command == "ops":
        return ops.ops_command(args.words, console)
    if args.command == "check-op":
        return ops.check_op_command(
            args.op,
            args.reference,
            args.examples,
            console,
            attr_options=args.attr,
            strategies_spec=args.strategies,
            shape_options=args.shape,
            min_accepted=args.min_accepted,
            seed=args.seed,
        )
    parser.print_help()
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
