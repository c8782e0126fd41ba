"""The user's Python modules named on the command line (``--plugins``,
``check-op``'s ``MODULE:NAME``): one that is missing or raises on import is a
usage error naming the argument, the exception and where it was raised."""

from __future__ import annotations

import importlib
import sysconfig
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import RegistrationError
from ..plugins import _import_path, load_plugin_modules
from .usage import UsageError

# Frames in these are the import machinery's or opgraph's, never the user's.
_MACHINERY = ("<", str(Path(importlib.__file__).parent), str(Path(__file__).resolve().parent.parent))
# Frames in these are libraries' (json, numpy ...): the user's line is better.
_LIBRARIES = tuple(sysconfig.get_paths()[key] for key in ("stdlib", "purelib", "platlib"))


def import_failure(error: BaseException) -> str:
    """``RuntimeError: boom (my_plugin.py, line 3)``: the exception and the
    innermost line of the user's code that raised it (else of a library)."""
    text = f"{type(error).__name__}: {error}"
    if isinstance(error, SyntaxError):  # its message names the file and line
        return text
    frames = [f for f in traceback.extract_tb(error.__traceback__) if not f.filename.startswith(_MACHINERY)]
    if not frames:
        return text
    user = [f for f in frames if not f.filename.startswith(_LIBRARIES)]
    frame = (user or frames)[-1]
    return f"{text} ({Path(frame.filename).name}, line {frame.lineno})"


def import_plugins(modules: Sequence[str]) -> None:
    """Imports ``--plugins`` modules (names or ``.py`` paths) so their plugins
    register; a module that cannot be imported is a :class:`UsageError`."""
    for module in modules:
        try:
            load_plugin_modules([module])
        except RegistrationError as error:
            failure = import_failure(error.__cause__ or error)
            raise UsageError(f"--plugins: cannot import {module!r}: {failure}") from None


def load_object(spec: str, argument: str) -> Any:
    """``MODULE:NAME`` where MODULE is a module name or a ``.py`` path;
    ``argument`` names the command-line argument in errors."""
    module_name, sep, name = spec.rpartition(":")
    if not sep or not module_name or not name:
        raise UsageError(f"{argument} {spec!r} is not MODULE:NAME")
    try:
        if module_name.endswith(".py") or Path(module_name).is_file():
            module = _import_path(Path(module_name))
        else:
            module = importlib.import_module(module_name)
    except Exception as error:
        failure = import_failure(error)
        raise UsageError(f"{argument} {spec!r}: cannot import {module_name!r}: {failure}") from None
    try:
        return getattr(module, name)
    except AttributeError:
        raise UsageError(f"{argument} {spec!r}: module {module_name!r} has no {name!r}") from None
