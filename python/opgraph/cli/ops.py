"""``opgraph ops`` (list / describe op types) and ``opgraph check-op``."""

from __future__ import annotations

import fnmatch
import secrets
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import UnknownOpTypeError
from ..opdef import OpDef, PortSpec, op_def, registered_op_types
from .usage import UsageError
from .user_code import load_object


def _matches(op_type: str, pattern: str) -> bool:
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(op_type.lower(), pattern.lower())
    return pattern.lower() in op_type.lower()


def _port(port: PortSpec) -> str:
    text = f"{port.name} ({port.param_type.name.lower()})"
    if port.dtypes:
        text += " dtypes " + ",".join(d.name for d in port.dtypes)
    if port.formats:
        text += " formats " + ",".join(f.name for f in port.formats)
    if port.follow is not None:
        text += f" follows {port.follow[0]} ({port.follow[1].name.lower()})"
    if port.value_depend is not None:
        text += f" value-depend {port.value_depend.name.lower()}"
    return text


def describe(console: Console, definition: OpDef) -> None:
    builtin = "  (built-in)" if definition.builtin else ""
    console.print(f"[bold]{escape(definition.op_type)}[/bold]{builtin}")
    for title, ports in (("inputs", definition.inputs), ("outputs", definition.outputs)):
        console.print(f"{title}:")
        for port in ports:
            console.print(f"  {_port(port)}", highlight=False, markup=False)
    console.print("attrs:")
    for attr in definition.attrs:
        default = "required" if attr.required else f"default {attr.default!r}"
        console.print(f"  {attr.name}: {attr.type_name} ({default})", highlight=False, markup=False)


def ops_command(words: list[str], console: Console) -> int:
    if words[:1] == ["describe"]:
        if len(words) != 2:
            raise UsageError("usage: opgraph ops describe TYPE")
        try:
            describe(console, op_def(words[1]))
        except UnknownOpTypeError:
            close = [t for t in registered_op_types() if _matches(t, words[1][:4])][:5]
            hint = f"; similar: {', '.join(close)}" if close else ""
            raise UsageError(f"no op type {words[1]!r} is registered{hint}") from None
        return 0
    if len(words) > 1:
        raise UsageError("usage: opgraph ops [PATTERN] | opgraph ops describe TYPE")
    found = [t for t in registered_op_types() if not words or _matches(t, words[0])]
    table = Table(show_header=False, show_edge=False, box=None)
    for op_type in found:
        table.add_row(escape(op_type))
    console.print(table)
    console.print(f"{len(found)} op types", highlight=False)
    return 0


def check_op_command(
    op_spec: str,
    reference_spec: str,
    examples: int,
    console: Console,
    *,
    attr_options: Sequence[str] = (),
    strategies_spec: str | None = None,
    shape_options: Sequence[str] = (),
    min_accepted: float = 0.2,
    seed: int | None = None,
) -> int:
    try:
        from ..testing import VacuousCheckError, check_inference
        from .attr_strategies import checked_strategies, parse_attr_options, parse_shape_options
    except ImportError as error:
        raise UsageError(f"check-op needs hypothesis ({error}): pip install 'opgraph[testing]'") from None

    op = load_object(op_spec, "MODULE:OP")
    if not isinstance(op, (OpDef, str)):
        raise UsageError(
            f"MODULE:OP {op_spec!r} is of type {type(op).__name__}, expected an OpDef or an op type name"
        )
    if isinstance(op, str) and op not in registered_op_types():
        raise UsageError(f"MODULE:OP {op_spec!r} names op type {op!r}, which is not registered")
    reference = load_object(reference_spec, "--reference")
    if not callable(reference):
        raise UsageError(
            f"--reference {reference_spec!r} is of type {type(reference).__name__}, not a function"
        )
    attrs = {}
    if strategies_spec is not None:
        attrs.update(checked_strategies(load_object(strategies_spec, "--strategies"), "--strategies"))
    attrs.update(parse_attr_options(attr_options))
    declared = {a.name for a in (op if isinstance(op, OpDef) else op_def(op)).attrs}
    unknown = sorted(set(attrs) - declared)
    if unknown:
        listed = ", ".join(sorted(declared)) or "none"
        raise UsageError(
            f"--attr/--strategies name {', '.join(unknown)}, not attributes of the op ({listed})"
        )
    shapes = parse_shape_options(shape_options)
    inputs = {p.name for p in (op if isinstance(op, OpDef) else op_def(op)).inputs}
    unknown_ports = sorted({o.partition("=")[0].strip() for o in shape_options} - inputs)
    if unknown_ports:
        listed = ", ".join(sorted(inputs)) or "none"
        raise UsageError(f"--shape names {', '.join(unknown_ports)}, not inputs of the op ({listed})")
    name = escape(op.op_type if isinstance(op, OpDef) else op)
    # A drawn seed, printed with the result, makes every run replayable.
    seed = secrets.randbits(64) if seed is None else seed
    replay = f"hypothesis seed {seed}: --seed {seed} with the same options replays these cases"
    try:
        tally = check_inference(
            op,
            reference,
            max_examples=examples,
            attrs=attrs,
            shapes=shapes,
            min_accepted=min_accepted,
            seed=seed,
        )
    except VacuousCheckError as vacuous:
        console.print(f"[red]VACUOUS[/red] {name} against {escape(reference_spec)}:")
        console.print(str(vacuous), markup=False)
        console.print(replay, markup=False, highlight=False)
        return 1
    except AssertionError as failure:
        console.print(f"[red]FAIL[/red] {name} against {escape(reference_spec)}:")
        console.print(str(failure), markup=False)
        console.print(replay, markup=False, highlight=False)
        return 1
    except BaseException:
        # A health check, a reference returning None, Ctrl-C: the error is
        # reported by main, and the seed replays the cases that led to it.
        console.print(replay, markup=False, highlight=False)
        raise
    console.print(f"[green]OK[/green] {name} agrees with {escape(reference_spec)} on {examples} examples")
    console.print(tally.describe(), markup=False, highlight=False)
    console.print(replay, markup=False, highlight=False)
    return 0
