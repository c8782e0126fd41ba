"""Where a plot is written: the path a user gives, checked before anything
is drawn, with the ``.png`` matplotlib adds to a name without a suffix made
explicit, so the caller is told the file that really exists."""

from __future__ import annotations

from os import PathLike
from pathlib import Path


def image_path(path: str | PathLike[str]) -> Path:
    """``path`` as the image file to write: a TypeError for something that
    is no path, a ValueError for a directory; ``.png`` added when it has no
    suffix."""
    if not isinstance(path, str | PathLike):
        raise TypeError(
            f"a plot is written to a file path (str or PathLike), got {type(path).__name__} {path!r}"
        )
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{target} is a directory; give the image's file name, e.g. {target / 'plot.png'}")
    return target if target.suffix else target.with_suffix(".png")
