"""Loading op libraries written in Python, the way GE loads op_proto
libraries: modules the user names, and installed packages that declare an
entry point in the ``opgraph.plugins`` group (the same group later frontends
use for parser plugins and scope passes).

An entry point names a module (importing it registers its ops) or a callable
taking no arguments (called once)."""

from __future__ import annotations

import importlib
import importlib.metadata
import warnings
from collections.abc import Iterable
from types import ModuleType

from .errors import RegistrationError

ENTRY_POINT_GROUP = "opgraph.plugins"

_loaded_entry_points: set[str] = set()


class PluginWarning(UserWarning):
    """An installed plugin failed to load; the rest of opgraph still works."""


def load_op_libraries(modules: Iterable[str | ModuleType]) -> list[ModuleType]:
    """Imports each module (a dotted name or a module object) so its
    registrations run; a module that fails to import raises RegistrationError."""
    loaded = []
    for module in modules:
        if isinstance(module, ModuleType):
            loaded.append(module)
            continue
        try:
            loaded.append(importlib.import_module(module))
        except Exception as exc:
            raise RegistrationError(f"op library {module!r} failed to import: {exc}") from exc
    return loaded


def load_entry_point_plugins(group: str = ENTRY_POINT_GROUP, *, strict: bool = False) -> list[str]:
    """Loads every not-yet-loaded entry point of ``group``; returns their names.
    A failing plugin raises RegistrationError when ``strict``, else warns."""
    names = []
    for entry_point in importlib.metadata.entry_points(group=group):
        key = f"{entry_point.name}={entry_point.value}"
        if key in _loaded_entry_points:
            continue
        _loaded_entry_points.add(key)
        try:
            target = entry_point.load()
            if callable(target) and not isinstance(target, ModuleType):
                target()
        except Exception as exc:
            message = f"opgraph plugin {entry_point.name!r} ({entry_point.value}) failed to load: {exc}"
            if strict:
                raise RegistrationError(message) from exc
            warnings.warn(message, PluginWarning, stacklevel=2)
            continue
        names.append(entry_point.name)
    return names
