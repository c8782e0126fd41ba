"""The public names of the installed ``opgraph`` package and their docstrings.

Two views of the compiled module exist: its runtime ``__doc__`` strings (the
Rust ``///`` comments, which ``help()`` shows) and the docstrings of the
shipped stub ``_core.pyi`` (which editors and the API reference read). The
Rust comments are the source; ``docs/sync_stub_docstrings.py`` copies them
into the stub, and ``test_docstrings.py`` checks both are complete and agree.

Run as a script to print the counts::

    python tests/docs/docstring_inventory.py
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import opgraph
from opgraph import _core

# The command (``opgraph --help`` documents it) and the worked examples (the
# guides document them) are not library API.
EXCLUDED_PACKAGES = ("opgraph.cli", "opgraph.examples")

STUB = Path(__file__).resolve().parents[2] / "python" / "opgraph" / "_core.pyi"


@dataclass(frozen=True)
class Name:
    """One public name: where it is, what it is, and its docstring."""

    qualname: str
    kind: str
    doc: str | None


def public_modules() -> list[types.ModuleType]:
    """``opgraph`` and every submodule whose dotted path has no ``_`` part."""
    modules = [opgraph]
    for info in pkgutil.walk_packages(opgraph.__path__, "opgraph."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or info.name.startswith(EXCLUDED_PACKAGES):
            continue
        modules.append(importlib.import_module(info.name))
    return modules


def _exported(module: types.ModuleType) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is not None:
        return [n for n in names if not n.startswith("_")]
    return [
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and getattr(v, "__module__", None) == module.__name__
    ]


def _members(cls: type) -> list[tuple[str, str, object]]:
    """A class's own public methods and properties (not enum members, not
    fields, not dunders)."""
    out: list[tuple[str, str, object]] = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (property, types.GetSetDescriptorType, types.MemberDescriptorType)):
            out.append((name, "property", value))
        elif isinstance(value, (staticmethod, classmethod)):
            out.append((name, "method", value.__func__))
        elif isinstance(
            value,
            (types.FunctionType, types.BuiltinFunctionType, types.MethodDescriptorType),
        ):
            out.append((name, "method", value))
    return out


def _doc(obj: object) -> str | None:
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    return inspect.cleandoc(doc)


def runtime_names() -> list[Name]:
    """Every public module, class, function, method and property, once each
    (a re-exported object is listed where it is defined)."""
    seen: set[int] = set()
    out: list[Name] = []

    def add_class(qual: str, cls: type) -> None:
        out.append(Name(qual, "class", _doc(cls) if cls.__doc__ != _inherited_doc(cls) else None))
        for name, kind, member in _members(cls):
            out.append(Name(f"{qual}.{name}", kind, _doc(member)))

    modules = public_modules()
    for module in modules:
        out.append(Name(module.__name__, "module", _doc(module)))
    for module in [*modules, _core]:
        for name in _exported(module):
            obj = getattr(module, name)
            if id(obj) in seen or not (inspect.isclass(obj) or inspect.isroutine(obj)):
                continue
            seen.add(id(obj))
            home = getattr(obj, "__module__", module.__name__)
            if not str(home).startswith("opgraph"):
                continue
            qual = f"{home}.{obj.__qualname__}"
            if inspect.isclass(obj):
                add_class(qual, obj)
            else:
                out.append(Name(qual, "function", _doc(obj)))
    return sorted(out, key=lambda n: n.qualname)


def _inherited_doc(cls: type) -> str | None:
    """The docstring a class would show without its own (its first base's)."""
    for base in cls.__mro__[1:]:
        if base.__doc__:
            return base.__doc__
    return None


def _is_public_def(node: ast.stmt) -> bool:
    return isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith("_")


def stub_names(path: Path = STUB) -> list[Name]:
    """The public classes, functions, methods and properties of the stub."""
    tree = ast.parse(path.read_text())
    out: list[Name] = []
    for node in tree.body:
        if not _is_public_def(node):
            continue
        assert isinstance(node, (ast.ClassDef, ast.FunctionDef))
        qual = f"opgraph._core.{node.name}"
        if isinstance(node, ast.FunctionDef):
            out.append(Name(qual, "function", ast.get_docstring(node)))
            continue
        out.append(Name(qual, "class", ast.get_docstring(node)))
        for item in node.body:
            if _is_public_def(item):
                assert isinstance(item, ast.FunctionDef)
                decorators = {d.id for d in item.decorator_list if isinstance(d, ast.Name)}
                kind = "property" if "property" in decorators else "method"
                out.append(Name(f"{qual}.{item.name}", kind, ast.get_docstring(item)))
    return sorted(out, key=lambda n: n.qualname)


def main() -> int:
    runtime = runtime_names()
    stub = stub_names()
    core = [n for n in runtime if n.qualname.startswith("opgraph._core.")]
    py = [n for n in runtime if not n.qualname.startswith("opgraph._core.")]
    for label, names in (
        ("python modules", py),
        ("compiled module (__doc__, help())", core),
        ("stub _core.pyi", stub),
    ):
        have = sum(1 for n in names if n.doc)
        print(f"{label}: {have} of {len(names)} public names have a docstring")
    if "-v" in sys.argv:
        for n in runtime + stub:
            if not n.doc:
                print(f"  missing: {n.kind} {n.qualname}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
