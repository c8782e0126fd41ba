"""``opgraph atc ...``: the rest of an ``atc`` command line, as ATC spells
it, turned into ``opgraph compile`` arguments.

ATC takes ``-name`` for ``--name`` and ``--name-with-hyphens`` for
``--name_with_underscores``; both become the underscore spelling. A line
given as one quoted argument is split as a shell would. A value holding a
shell variable that was not expanded (``Ascend${chip_name}``) is a usage
error: the line was copied from a README that sets the variable first."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from .usage import UsageError

_VARIABLE = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")
_OPGRAPH_FLAGS = {"-q", "--quiet", "--help", "-h"}


def _option_name(token: str) -> str:
    """``-soc-version`` / ``--soc-version`` -> ``--soc_version``."""
    name = token.lstrip("-")
    return "--" + name.replace("-", "_")


def atc_argv(tokens: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The ``opgraph compile`` arguments for the ATC arguments ``tokens``, and
    each rewritten argument's spelling on the ATC line (an unrecognized one
    is reported as the user wrote it)."""
    spelled: dict[str, str] = {}
    items = list(tokens)
    if len(items) == 1 and " " in items[0].strip():
        items = shlex.split(items[0])
    if items and items[0] == "atc":
        items = items[1:]
    argv: list[str] = []
    option = None
    for token in items:
        original = token
        name, eq, value = token.partition("=")
        is_option = token.startswith("-") and not re.fullmatch(r"-\d[\d,]*", token)
        if is_option and token not in _OPGRAPH_FLAGS:
            option = _option_name(name)
            token = option + (eq + value if eq else "")
            checked = value if eq else ""
        else:
            checked = token if not is_option else ""
        variable = _VARIABLE.search(checked)
        if variable:
            where = f"the value of {option}" if option else "an argument"
            raise UsageError(
                f"{where}, {checked!r}, holds the shell variable {variable.group(0)}, which was not "
                f"expanded; set it in the shell first (e.g. chip_name=310P3) or write its value"
            )
        if token in ("--h", "--help"):
            token = "--help"
        if token != original:
            spelled[token] = original
        argv.append(token)
    if not items:
        raise UsageError(
            "opgraph atc: no ATC arguments (e.g. opgraph atc --framework=5 --model=net.onnx ...)"
        )
    return ["compile", *argv], spelled
