"""Loading plugins written in Python, the way GE loads op_proto and parser
plugin libraries: modules the user names (by module name or file path), and
installed packages that declare an entry point in the ``opgraph.plugins``
group. A plugin module registers whatever it defines when imported: op types
(``opgraph.register``), parser plugins (``@opgraph.tensorflow.plugin``) and
scope-fusion passes alike.

An entry point names a module (importing it registers its plugins) or a
callable taking no arguments (called once)."""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import os
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import TypeAlias

from .errors import RegistrationError

ENTRY_POINT_GROUP = "opgraph.plugins"

_loaded_entry_points: set[str] = set()
# Why each failed entry point failed, said again by a strict call (importing
# it again could fail differently: it may have registered part of itself).
_failed_entry_points: dict[str, tuple[str, Exception]] = {}
_loaded_paths: dict[Path, ModuleType] = {}

PluginModule: TypeAlias = str | os.PathLike[str] | ModuleType
"""A plugin module: a dotted module name, a ``.py`` file or package
directory path, or an imported module."""


class PluginWarning(UserWarning):
    """An installed plugin failed to load; the rest of opgraph still works."""


def load_plugin_modules(modules: Iterable[PluginModule]) -> list[ModuleType]:
    """Imports each plugin module so its registrations run: a dotted name, a
    path (``os.PathLike``, or a string ending in ``.py`` or containing a path
    separator) to a ``.py`` file or package directory, or a module object
    (already imported). Loading is idempotent: a module already imported
    (by name, or by path under any name, e.g. ``import my_plugins`` and then
    ``plugins=["my_plugins.py"]``) is not run again. While a file loads, its
    directory is importable, so it can import a sibling module. A module
    that fails to import (or exits while importing) raises RegistrationError."""
    if isinstance(modules, (str, bytes, os.PathLike, ModuleType)):
        raise TypeError(f"plugins is a list of modules or paths; wrap the one given in a list: [{modules!r}]")
    loaded = []
    for module in modules:
        if isinstance(module, ModuleType):
            loaded.append(module)
            continue
        try:
            if _is_path(module):
                loaded.append(_import_path(Path(module)))
            else:
                loaded.append(_import_name(str(module)))
        except Exception as exc:
            raise RegistrationError(f"plugin module {os.fspath(module)!r} failed to import: {exc}") from exc
        except SystemExit as exc:
            # A module calling sys.exit would end the caller's process silently.
            raise RegistrationError(
                f"plugin module {os.fspath(module)!r} exited (sys.exit({exc.code!r})) while importing"
            ) from exc
    return loaded


def load_op_libraries(modules: Iterable[PluginModule]) -> list[ModuleType]:
    """Imports op libraries: :func:`load_plugin_modules` under GE's name."""
    return load_plugin_modules(modules)


def _is_path(module: str | os.PathLike[str]) -> bool:
    if not isinstance(module, str):
        return True
    return module.endswith(".py") or os.sep in module or "/" in module


def _import_name(name: str) -> ModuleType:
    """Module ``name``, unless the file it would load was imported by path
    already (then that module: running a plugin file twice registers twice)."""
    if name not in sys.modules:
        spec = importlib.util.find_spec(name)
        origin = None if spec is None else spec.origin
        if origin is not None and os.path.isfile(origin):
            already = _imported_from(Path(origin).resolve())
            if already is not None:
                return already
    return importlib.import_module(name)


def _imported_from(location: Path) -> ModuleType | None:
    """The module already imported from file ``location``, if any."""
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str) and Path(file).resolve() == location:
            return module
    return None


def _import_path(path: Path) -> ModuleType:
    resolved = path.resolve()
    if resolved in _loaded_paths:
        return _loaded_paths[resolved]
    if resolved.is_dir():
        location = resolved / "__init__.py"
        search: list[str] | None = [str(resolved)]
    else:
        location, search = resolved, None
    if not location.is_file():
        raise FileNotFoundError(f"no Python file at {location}")
    already = _imported_from(location)
    if already is not None:
        _loaded_paths[resolved] = already
        return already
    # A name unique per path, so two plugin files with one stem do not clash.
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:10]
    name = f"_opgraph_plugin_{resolved.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, location, submodule_search_locations=search)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {location}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # Its directory is importable while it loads, for sibling modules.
    directory = str(resolved.parent)
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    finally:
        if added and directory in sys.path:
            sys.path.remove(directory)
    _loaded_paths[resolved] = module
    return module


def load_entry_point_plugins(group: str = ENTRY_POINT_GROUP, *, strict: bool = False) -> list[str]:
    """Loads every not-yet-loaded entry point of ``group``; returns their names.
    A failing plugin raises RegistrationError when ``strict``, else warns;
    a strict call also raises for one that failed quietly before (when
    opgraph was imported, say)."""
    names = []
    for entry_point in importlib.metadata.entry_points(group=group):
        key = f"{entry_point.name}={entry_point.value}"
        if key in _loaded_entry_points:
            continue
        if key in _failed_entry_points:
            if strict:
                message, cause = _failed_entry_points[key]
                raise RegistrationError(message) from cause
            continue
        try:
            target = entry_point.load()
            if isinstance(target, ModuleType):
                pass
            elif callable(target):
                target()
            else:
                raise TypeError(
                    f"it names {type(target).__name__} {target!r}, neither a module nor a callable"
                )
        except Exception as exc:
            message = f"opgraph plugin {entry_point.name!r} ({entry_point.value}) failed to load: {exc}"
            _failed_entry_points[key] = (message, exc)
            if strict:
                raise RegistrationError(message) from exc
            warnings.warn(message, PluginWarning, stacklevel=2)
            continue
        _loaded_entry_points.add(key)
        names.append(entry_point.name)
    return names
