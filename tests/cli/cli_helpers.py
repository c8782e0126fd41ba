"""Runs the installed ``opgraph`` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import opgraph

MODELS = Path(opgraph.__file__).parent / "examples" / "models"


def run_cli(
    *args: str | os.PathLike[str], cwd: Path | None = None, without: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m opgraph ARGS`` with stdout not a TTY (no progress display);
    with ``without``, in a process where importing that module fails."""
    env = {**os.environ, "COLUMNS": "200", "OPGRAPH_NO_PLUGINS": "1"}
    command = ["-m", "opgraph"]
    if without is not None:
        code = (
            f"import sys; sys.modules[{without!r}] = None; "
            "from opgraph.cli.main import main; sys.exit(main())"
        )
        command = ["-c", code]
    return subprocess.run(
        [sys.executable, *command, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )
