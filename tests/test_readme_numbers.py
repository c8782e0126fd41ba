"""The counts the README states are the registries' (scripts/readme_numbers.py
computes them, in a fresh interpreter, and `counts --check` compares)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "readme_numbers.py"


def test_readme_counts_match_the_registries() -> None:
    if not SCRIPT.is_file():
        pytest.skip("scripts/readme_numbers.py is not beside tests/ (running from an installed copy)")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "counts", "--check"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Every count was compared (the ONNX schema count needs onnx, a test dependency).
    assert "not checked" not in done.stdout, done.stdout
    assert done.stdout.count("registries") == 5, done.stdout


def test_check_fails_on_a_stale_count(tmp_path: Path) -> None:
    """The check can fail: a README copy with one count off is reported stale."""
    if not SCRIPT.is_file():
        pytest.skip("scripts/readme_numbers.py is not beside tests/ (running from an installed copy)")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stale = readme.replace("built-in op library has ", "built-in op library has 1", 1)
    assert stale != readme
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "readme_numbers.py").write_text(SCRIPT.read_text(encoding="utf-8"))
    (tmp_path / "README.md").write_text(stale, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(tmp_path / "scripts" / "readme_numbers.py"), "counts", "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "IR op types: README 1" in done.stdout and "<- stale" in done.stdout
