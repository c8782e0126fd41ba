"""The README's Python examples run as written and pass ``mypy --strict``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mypy import api as mypy_api

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_python() -> str:
    if not README.is_file():
        pytest.skip("README.md is not beside tests/ (running from an installed copy)")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "the README has no python examples"
    return "\n".join(blocks)


def test_readme_examples_run() -> None:
    exec(compile(readme_python(), str(README), "exec"), {"__name__": "readme"})


def test_readme_examples_pass_mypy_strict(tmp_path: Path) -> None:
    source = tmp_path / "readme_examples.py"
    source.write_text(readme_python(), encoding="utf-8")
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", str(source)])
    assert status == 0, stdout + stderr
