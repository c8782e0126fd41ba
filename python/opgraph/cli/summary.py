"""The rich summary ``opgraph compile`` prints, and its error paragraphs.

Every string that comes from the model, its files or the command line is
escaped before rich reads it as markup (a layer named ``[/bold]``, a tensor
shape ``[batch, 3]``); the error paragraphs are printed with markup off."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .. import _core
from ..errors import CycleError, InternalError, NodeError, OpgraphError, ParseError


def _bytes(n: int | None) -> str:
    if n is None:
        return "-"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return f"{n} B"


def _shape(dims: list[int], symbols: list[str] | None = None) -> str:
    """Dims as ``[batch, 3, ?, ?]``: an unknown dim shows its ONNX symbol, else ``?``."""

    def dim(i: int, d: int) -> str:
        if d == -1:
            return symbols[i] if symbols and i < len(symbols) and symbols[i] else "?"
        return "??" if d == -2 else str(d)

    return "[" + ", ".join(dim(i, d) for i, d in enumerate(dims)) + "]"


def print_summary(
    console: Console, report: dict[str, Any], *, warnings: bool = True, notes: bool = True
) -> None:
    """Model, op types, inputs/outputs (and AIPP stages), memory, latency
    with the top-10 ops, profiles, warnings and notes (``--log`` may leave
    the last two out)."""
    model = report["model"]
    console.print(
        f"[bold]{escape(model['name'])}[/bold]  {escape(model['path'])}  ({model['framework']}, "
        f"{model['node_count']} nodes, {escape(model['soc'])}, {model['precision_mode']})"
    )
    ops = Table(title="nodes by op type", title_justify="left", show_edge=False)
    ops.add_column("op type")
    ops.add_column("count", justify="right")
    for op_type, count in model["op_types"].items():
        ops.add_row(escape(op_type), str(count))
    console.print(ops)

    io = Table(title="inputs and outputs", title_justify="left", show_edge=False)
    for column in ("", "tensor", "dtype", "shape", "format", "storage"):
        io.add_column(column)
    for kind in ("inputs", "outputs"):
        for t in model[kind]:
            shape = escape(_shape(t["shape"], t.get("symbols")))
            io.add_row(kind[:-1], escape(t["name"]), t["dtype"], shape, t["format"], t["storage_format"])
    console.print(io)

    memory = report["memory"]
    if memory is not None:
        console.print(
            f"[bold]memory[/bold]  arena {_bytes(memory['arena_bytes'])} "
            f"(lower bound {_bytes(memory['lower_bound_bytes'])}, {memory['chosen_strategy']}), "
            f"weights {_bytes(memory['weights_bytes'])}, I/O {_bytes(memory['io_bytes'])}"
            + _unplanned(memory)
        )
    elif report.get("profiles"):
        planned = [p for p in report["profiles"] if p["arena_bytes"] is not None]
        if planned:
            largest = max(planned, key=lambda p: p["arena_bytes"])
            console.print(
                f"[bold]memory[/bold]  per profile (below); the largest, {escape(largest['label'])}: "
                f"arena {_bytes(largest['arena_bytes'])}, weights {_bytes(largest['weights_bytes'])}, "
                f"I/O {_bytes(largest['io_bytes'])}"
            )
    for stage in report.get("aipp", []):
        console.print(_aipp_line(stage))
    cost = report["cost"]
    if cost is not None:
        total = cost["total_us"]
        console.print(
            f"[bold]estimated latency[/bold]  {total / 1000:.3f} ms on {escape(cost['device'])} "
            f"(critical path {cost['critical_path_us'] / 1000:.3f} ms, {cost['task_count']} tasks)"
        )
        top = sorted((n for n in cost["nodes"] if n["time_us"] > 0), key=lambda n: -n["time_us"])[:10]
        table = Table(title="top-10 costliest ops", title_justify="left", show_edge=False)
        table.add_column("node")
        table.add_column("op type")
        table.add_column("time µs", justify="right")
        table.add_column("share", justify="right")
        table.add_column("bound")
        for n in top:
            share = 100 * n["time_us"] / total if total > 0 else 0.0
            name, op_type = escape(n["name"]), escape(n["op_type"])
            table.add_row(name, op_type, f"{n['time_us']:.2f}", f"{share:.1f}%", n["bound"])
        console.print(table)
    if report.get("profiles"):
        console.print(_profiles_table(report["profiles"]))
    passes = [_pass_line(run) for run in report["scope_passes"] if run["status"] != "not enabled"]
    if passes:
        console.print(f"[bold]scope fusion[/bold]  {escape('; '.join(passes))}", highlight=False)
    for warning in report["warnings"] if warnings else []:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)
    for note in report.get("notes", []) if notes else []:
        console.print(f"[cyan]note:[/cyan] {escape(note)}", highlight=False)


def _unplanned(memory: dict[str, Any]) -> str:
    """The tensors the plan leaves out (unknown size, no upper bound): the
    arena does not hold them, so the line must not read as the whole need."""
    count = sum(t["region"] == "dynamic" for t in memory["tensors"])
    return f"; {count} tensors of run-time size not planned" if count else ""


def _aipp_line(stage: dict[str, Any]) -> str:
    """One AIPP stage: the image it reads and the model input it makes."""
    before, after = stage["before"], stage["after"]
    steps = [name for name in ("crop", "resize", "padding", "csc_switch") if stage[name]]
    return (
        f"[bold]AIPP[/bold] ({stage['mode']}) {escape(stage['image_format'])} uint8 "
        f"{escape(_shape(before['shape']))} NHWC, buffer {_bytes(before['bytes'])} -> "
        f"{escape(stage['input'])} {after['dtype']} {escape(_shape(after['shape']))} {after['format']}"
        + (f" ({', '.join(steps)})" if steps else "")
    )


def _profiles_table(profiles: list[dict[str, Any]]) -> Table:
    """Memory and cost per profile (``--dynamic_batch_size``,
    ``--dynamic_image_size``, ``--dynamic_dims``)."""
    by_batch = all(p["batch"] is not None for p in profiles)
    table = Table(title="by batch size" if by_batch else "by profile", title_justify="left", show_edge=False)
    first = "batch" if by_batch else "profile"
    rate = "samples/s" if by_batch else "runs/s"
    for name in (first, "arena", "weights", "I/O", "latency ms", rate):
        table.add_column(name, justify="right")
    for p in profiles:
        table.add_row(
            str(p["batch"]) if by_batch else escape(p["label"]),
            _bytes(p["arena_bytes"]),
            _bytes(p["weights_bytes"]),
            _bytes(p["io_bytes"]),
            "-" if p["total_us"] is None else f"{p['total_us'] / 1000:.3f}",
            "-" if p["throughput"] is None else f"{p['throughput']:.1f}",
        )
    return table


def _pass_line(run: dict[str, Any]) -> str:
    if run["status"] != "ran":
        return f"{run['name']} {run['status']}"
    return f"{run['name']} fused {len(run['fused'])}, declined {len(run['declined'])}"


def _user_op(op_type: str | None) -> bool:
    """Whether ``op_type`` is registered by the user, not built in."""
    schema = None if op_type is None else _core.op_schema(op_type)
    return schema is not None and not schema["builtin"]


def _hint(error: OpgraphError, framework: str) -> str | None:
    if isinstance(error, ParseError) and error.unsupported:
        module = framework if framework in ("caffe", "onnx") else "tensorflow"
        return f"register one with @opgraph.{module}.plugin in a module passed to --plugins"
    if isinstance(error, ParseError) and error.node is not None:
        return "fix the plugin: its exception is quoted here (from Python, it is the ParseError's __cause__)"
    if isinstance(error, NodeError) and _user_op(error.op_type):
        return (
            f"{error.op_type} is a plugin's op type: fix its function (an exception it raised is "
            "quoted here; from Python, it is the error's __cause__)"
        )
    if isinstance(error, NodeError):
        return "check the input shapes (--input-shape NAME:D,D,...) and the node's attributes"
    if isinstance(error, InternalError):
        return "this is a bug in opgraph, not in the model: please report it with the model"
    if isinstance(error, CycleError):
        return "the model's edges form a loop outside a While body"
    return None


# As the core's message capping (rust/core/src/message.rs): a list longer
# than MAX_LISTED_ITEMS shows its first LISTED_HEAD and last LISTED_TAIL items.
MAX_LISTED_ITEMS, LISTED_HEAD, LISTED_TAIL = 16, 10, 3


def _capped(items: list[str]) -> str:
    if len(items) <= MAX_LISTED_ITEMS:
        return ", ".join(items)
    hidden = len(items) - LISTED_HEAD - LISTED_TAIL
    return ", ".join([*items[:LISTED_HEAD], f"… {hidden} more", *items[-LISTED_TAIL:]])


def one_paragraph(text: str) -> str:
    """``text`` on one line: a multi-line exception message (a plugin's,
    a parser's caret diagram) joined with spaces, blank lines dropped."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def error_paragraph(error: OpgraphError, framework: str) -> str:
    """One paragraph: the node, its op type, its inputs, what was violated, a hint."""
    parts: list[str] = []
    if isinstance(error, NodeError) and error.node is not None:
        parts.append(f"node {error.node!r} (op type {error.op_type})")
        if error.inputs:
            parts.append(f"with inputs {_capped(error.inputs)}")
    elif isinstance(error, ParseError) and error.node is not None:
        parts.append(f"node {error.node!r} (origin op type {error.origin_op_type})")
    head = " ".join(parts)
    message = str(error).strip()
    named = isinstance(error, NodeError) and error.node is not None and repr(error.node) in message
    text = f"{type(error).__name__}: " + (f"{head}: {message}" if head and not named else message)
    hint = _hint(error, framework)
    if hint and hint not in text:
        text += f" Hint: {hint}."
    return one_paragraph(text)
