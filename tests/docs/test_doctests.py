"""The documentation's examples run: the ``>>>`` examples of the guides
(docs/**/*.rst) and of every public docstring (which ``help()`` and the API
reference show), and the example programs the guides include
(docs/examples/*.py), which must also pass ``mypy --strict``.

``python tests/docs/test_doctests.py`` prints how many examples there are."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest
from docstring_inventory import runtime_names
from mypy import api as mypy_api

DOCS = Path(__file__).resolve().parents[2] / "docs"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _docs() -> Path:
    if not DOCS.is_dir():
        pytest.skip("docs/ is not beside tests/ (running from an installed copy)")
    return DOCS


def guide_files() -> list[Path]:
    """The pages with interactive examples."""
    pages = sorted(DOCS.rglob("*.rst")) if DOCS.is_dir() else []
    return [p for p in pages if ">>>" in p.read_text(encoding="utf-8")]


def example_files() -> list[Path]:
    return sorted((DOCS / "examples").glob("*.py")) if DOCS.is_dir() else []


def docstring_tests() -> list[doctest.DocTest]:
    """One doctest per public docstring that has examples."""
    parser = doctest.DocTestParser()
    tests = []
    for name in runtime_names():
        if name.doc and ">>>" in name.doc:
            tests.append(parser.get_doctest(name.doc, {}, name.qualname, None, 0))
    return tests


def _run(test: doctest.DocTest) -> None:
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed (printed above)"


@pytest.mark.parametrize("path", guide_files(), ids=lambda p: p.name)
def test_guide_examples(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    _run(doctest.DocTestParser().get_doctest(text, {}, path.name, str(path), 0))


@pytest.mark.parametrize("test", docstring_tests(), ids=lambda t: t.name)
def test_docstring_examples(test: doctest.DocTest) -> None:
    _run(test)


def test_docstrings_have_examples() -> None:
    """The classes users meet first show an example in ``help()``."""
    names = {t.name for t in docstring_tests()}
    for qualname in ("Graph", "TensorDesc", "InferShapeContext", "FrameworkOp", "Operator"):
        assert f"opgraph._core.{qualname}" in names


@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.name)
def test_example_program_runs(path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(path)], cwd=path.parent, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_example_programs_pass_mypy_strict() -> None:
    files = [str(p) for p in example_files()]
    if not files:
        _docs()
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", *files])
    assert status == 0, stdout + stderr


def count() -> tuple[int, int]:
    """(examples in the guides, examples in docstrings)."""
    parser = doctest.DocTestParser()
    guides = sum(len(parser.get_examples(p.read_text(encoding="utf-8"))) for p in guide_files())
    docstrings = sum(len(t.examples) for t in docstring_tests())
    return guides, docstrings


if __name__ == "__main__":
    guides, docstrings = count()
    programs = len(example_files())
    print(f"{guides} examples in the guides, {docstrings} in docstrings, {programs} example programs")
