"""The README's Python examples run as written and pass ``mypy --strict``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
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


def test_readme_examples_run(tmp_path: Path) -> None:
    # In a fresh interpreter from the repository root: the examples register
    # plugins process-wide and name fixture files by repository-relative path.
    source = tmp_path / "readme_examples.py"
    source.write_text(readme_python(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(source)], cwd=README.parent, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_readme_examples_pass_mypy_strict(tmp_path: Path) -> None:
    source = tmp_path / "readme_examples.py"
    source.write_text(readme_python(), encoding="utf-8")
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", str(source)])
    assert status == 0, stdout + stderr


def test_readme_op_type_counts_are_the_registries() -> None:
    """The op-type counts the README states are what a fresh interpreter's
    registries hold (other tests register their own ops and plugins)."""
    if not README.is_file():
        pytest.skip("README.md is not beside tests/ (running from an installed copy)")
    count = (
        "import opgraph; from opgraph.onnx import registered_plugins; "
        "print(len(opgraph.registered_op_types())); "
        "print(len({p.origin_op_type.rsplit('::', 1)[-1] "
        "for p in registered_plugins() if '::' in p.origin_op_type}))"
    )
    done = subprocess.run([sys.executable, "-c", count], capture_output=True, text=True, check=True)
    ir_types, onnx_types = (int(line) for line in done.stdout.split())
    text = README.read_text(encoding="utf-8")
    ir = re.search(r"built-in op library has (\d+) op types", text)
    assert ir is not None and int(ir.group(1)) == ir_types
    plugins = re.search(r"built-in plugins cover (\d+) of the", text)
    assert plugins is not None and int(plugins.group(1)) == onnx_types


def test_readme_main_job_output_is_what_the_command_prints() -> None:
    """The summary the set-up section (and the report guide) quotes for
    ``opgraph compile --example lenet`` is what the command prints today: its
    memory, latency and costliest-op lines (a cost-model refit changes them)."""
    if not README.is_file():
        pytest.skip("README.md is not beside tests/ (running from an installed copy)")
    quoted = README.read_text(encoding="utf-8").split("It prints:", 1)[1].split("```text\n", 1)[1]
    quoted = quoted.split("```", 1)[0]
    done = subprocess.run(
        [sys.executable, "-m", "opgraph", "compile", "--example", "lenet"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    printed = {line.rstrip() for line in done.stdout.splitlines()}
    checked = [
        line.rstrip()
        for line in quoted.splitlines()
        if line.startswith(("memory ", "estimated latency ")) or "│ overhead" in line
    ]
    guide = README.parent / "docs" / "guide" / "report.rst"
    checked += [
        line.strip()
        for line in guide.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith(("memory  arena", "estimated latency "))
    ]
    assert len(checked) >= 5
    assert [line for line in checked if line not in printed] == []
