"""Copies the compiled module's docstrings into its stub.

The Rust ``///`` comments on the PyO3 classes, methods and functions are the
one source of the ``opgraph._core`` docstrings: they become the runtime
``__doc__`` that ``help()`` shows. Editors and the API reference read the
stub ``python/opgraph/_core.pyi`` instead, so this script writes every public
class's, function's, method's and property's runtime docstring into the stub
(adding, replacing or removing it) and leaves everything else as it is.

    python docs/sync_stub_docstrings.py          # rewrite the stub
    python docs/sync_stub_docstrings.py --check  # exit 1 when it is out of date

Run it with the freshly built wheel installed (after editing a Rust doc
comment); ``tests/docs/test_docstrings.py`` fails until the two agree.
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

from opgraph import _core

STUB = Path(__file__).resolve().parents[1] / "python" / "opgraph" / "_core.pyi"


def runtime_doc(owner: object, name: str) -> str | None:
    """The cleaned runtime docstring of ``owner.name``, or None."""
    doc = getattr(getattr(owner, name), "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    return inspect.cleandoc(doc)


def render(doc: str, indent: str) -> list[str]:
    """``doc`` as docstring lines at ``indent``, closing quotes on its last line."""
    if '"""' in doc:
        raise ValueError(f"a docstring holds triple quotes: {doc[:60]!r}")
    prefix = 'r"""' if "\\" in doc else '"""'
    lines = doc.split("\n")
    if lines[-1].endswith('"'):
        lines[-1] += " "
    out = [f"{indent}{prefix}{lines[0]}"]
    out += [f"{indent}{line}" if line else "" for line in lines[1:]]
    out[-1] += '"""'
    return out


def _docstring_expr(node: ast.ClassDef | ast.FunctionDef) -> ast.Expr | None:
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return first
    return None


def _first_line(stmt: ast.stmt) -> int:
    """A statement's first line, decorators included (1-based)."""
    decorators = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def synced(text: str) -> str:
    """``text`` (the stub) with every public docstring set to the runtime one."""
    lines = text.split("\n")
    tree = ast.parse(text)
    # (node, owner object, name), edited bottom-up so line numbers hold.
    targets: list[tuple[ast.ClassDef | ast.FunctionDef, object, str]] = []
    for node in tree.body:
        if not isinstance(node, (ast.ClassDef, ast.FunctionDef)) or node.name.startswith("_"):
            continue
        targets.append((node, _core, node.name))
        if isinstance(node, ast.ClassDef):
            cls = getattr(_core, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                    targets.append((item, cls, item.name))
    for node, owner, name in sorted(targets, key=lambda t: t[0].lineno, reverse=True):
        doc = runtime_doc(owner, name)
        indent = " " * (node.col_offset + 4)
        existing = _docstring_expr(node)
        if existing is not None:
            start, end = existing.lineno - 1, existing.end_lineno or existing.lineno
            if doc is not None:
                lines[start:end] = render(doc, indent)
            elif len(node.body) > 1:
                del lines[start:end]
            else:
                lines[start:end] = [f"{indent}..."]
            continue
        if doc is None:
            continue
        first = node.body[0]
        header_end = first.lineno - 1
        is_ellipsis = (
            isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and first.value.value is ...
        )
        if is_ellipsis and lines[header_end].rstrip().endswith(": ..."):
            # `def f(...) -> T: ...`: the docstring replaces the `...`.
            head = lines[header_end].rstrip()
            lines[header_end : header_end + 1] = [head[: -len(" ...")], *render(doc, indent)]
            continue
        lines[_first_line(first) - 1 : _first_line(first) - 1] = render(doc, indent)
    return "\n".join(lines)


def main() -> int:
    text = STUB.read_text()
    new = synced(text)
    if "--check" in sys.argv:
        if new != text:
            print(f"{STUB} is out of date: run python docs/sync_stub_docstrings.py")
            return 1
        return 0
    STUB.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
