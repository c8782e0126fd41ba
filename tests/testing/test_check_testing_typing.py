"""tests/typing/check_testing_api.py is working code (its main() runs here)
and is accepted by ``mypy --strict`` with the repository's configuration."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from mypy import api as mypy_api

ROOT = Path(__file__).resolve().parents[2]
CHECK_TESTING_API = ROOT / "tests" / "typing" / "check_testing_api.py"


def _load() -> ModuleType:
    # loaded by path: a package named "typing" must never shadow the stdlib
    spec = importlib.util.spec_from_file_location("opgraph_check_testing_api", CHECK_TESTING_API)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_check_testing_api_main_runs() -> None:
    _load().main()


def test_check_testing_api_passes_mypy_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # mypy_path = "stubs" is relative to the repository root
    stdout, stderr, status = mypy_api.run(
        ["--strict", "--config-file", str(ROOT / "pyproject.toml"), str(CHECK_TESTING_API)]
    )
    assert status == 0, stdout + stderr
