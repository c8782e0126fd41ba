"""Usage errors (exit code 2): the command line itself is wrong. Among them
the paths it names: a missing input file, a directory where a file is
expected, an output that cannot be written."""

from __future__ import annotations

import os
from pathlib import Path


class UsageError(Exception):
    """The command line itself is wrong (exit code 2)."""


def check_input_file(path: Path, argument: str, expected: str) -> None:
    """Refuses an input ``path`` that is missing or not a regular file;
    ``argument`` names it (``MODEL``, ``--weights`` …), ``expected`` says
    what it should be (``a Caffe .caffemodel``)."""
    if path.is_file():
        return
    if path.is_dir():
        raise UsageError(f"{argument} {str(path)!r} is a directory; expected {expected}")
    if path.exists():
        raise UsageError(f"{argument} {str(path)!r} is not a regular file; expected {expected}")
    raise UsageError(f"{argument} {str(path)!r} does not exist; expected {expected}")


def check_output(path: Path, argument: str, *, directory: bool) -> None:
    """Refuses, before any work is done, an output that cannot be written:
    ``--out DIR`` naming a file, ``--json FILE`` naming a directory, or a
    path under a file or an unwritable directory. Missing directories are
    fine: they are created when the output is written."""
    shown = repr(str(path))
    if directory and path.exists() and not path.is_dir():
        raise UsageError(f"{argument} {shown} is a file; expected a directory (created if missing)")
    if not directory and path.is_dir():
        example = repr(str(path / "report.json"))
        raise UsageError(f"{argument} {shown} is a directory; expected a file name, e.g. {example}")
    existing = (path if directory else path.parent).absolute()
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{argument} {shown}: {str(existing)!r} is a file, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{argument} {shown}: the directory {str(existing)!r} is not writable")


def output_failure(path: Path, argument: str, error: OSError) -> UsageError:
    """An output that failed to be written, as one usage error naming it."""
    where = error.filename if error.filename is not None else path
    reason = error.strerror or str(error)
    return UsageError(f"{argument} {str(path)!r}: cannot write {str(where)!r}: {reason}")
