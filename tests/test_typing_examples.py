"""The files in tests/typing are working code (their main() runs here) and
are accepted by ``mypy --strict`` with the repository's configuration."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from mypy import api as mypy_api

ROOT = Path(__file__).resolve().parent.parent
# Every typing check file, so a new one cannot be forgotten here.
EXAMPLES = sorted((ROOT / "tests" / "typing").glob("check_*.py"))


def _load(path: Path) -> ModuleType:
    # loaded by path: a package named "typing" must never shadow the stdlib
    spec = importlib.util.spec_from_file_location(f"opgraph_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_typing_example_main_runs(path: Path) -> None:
    _load(path).main()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_typing_example_passes_mypy_strict(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # mypy_path = "python" is relative to the repository root
    stdout, stderr, status = mypy_api.run(
        ["--strict", "--config-file", str(ROOT / "pyproject.toml"), str(path)]
    )
    assert status == 0, stdout + stderr
