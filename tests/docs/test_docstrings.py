"""Every public name has a docstring where ``help()`` reads it (the runtime
``__doc__``: Python docstrings and, for the compiled module, the Rust ``///``
comments) and where editors and the API reference read it (the shipped stub),
and the stub's docstrings are the compiled module's."""

from __future__ import annotations

import pydoc
import re
from pathlib import Path

import pytest
from docstring_inventory import STUB, Name, runtime_names, stub_names

import opgraph


def _missing(names: list[Name]) -> list[str]:
    return [f"{n.kind} {n.qualname}" for n in names if not n.doc]


def test_every_public_python_name_has_a_docstring() -> None:
    names = [n for n in runtime_names() if not n.qualname.startswith("opgraph._core.")]
    assert len(names) > 150  # the walk found the package (not an empty list passing vacuously)
    assert _missing(names) == []


def test_every_compiled_name_has_a_docstring_for_help() -> None:
    names = [n for n in runtime_names() if n.qualname.startswith("opgraph._core.")]
    assert len(names) > 200
    assert _missing(names) == []


def _stub() -> Path:
    if not STUB.is_file():
        pytest.skip("python/opgraph/_core.pyi is not beside tests/ (running from an installed copy)")
    return STUB


def test_every_stub_name_has_a_docstring_for_editors() -> None:
    assert _missing(stub_names(_stub())) == []


def test_stub_docstrings_are_the_compiled_modules() -> None:
    """The stub is generated from the Rust comments by
    ``python docs/sync_stub_docstrings.py``: a Rust doc comment edited without
    re-running it (or a docstring written only in the stub) fails here."""
    runtime = {n.qualname: n.doc for n in runtime_names() if n.qualname.startswith("opgraph._core.")}
    stub = {n.qualname: n.doc for n in stub_names(_stub())}
    assert sorted(stub) == sorted(runtime)  # the same public names (stubtest checks signatures)
    differ = [name for name in stub if stub[name] != runtime[name]]
    assert differ == [], "run python docs/sync_stub_docstrings.py"


def test_the_inventory_sees_a_missing_docstring(tmp_path: Path) -> None:
    stub = tmp_path / "_core.pyi"
    stub.write_text(
        "class Documented:\n"
        '    """A class."""\n'
        "    @property\n"
        "    def bare(self) -> int: ...\n"
        "def loose() -> None: ...\n"
    )
    names = {n.qualname: n for n in stub_names(stub)}
    assert _missing(list(names.values())) == [
        "property opgraph._core.Documented.bare",
        "function opgraph._core.loose",
    ]
    assert names["opgraph._core.Documented"].doc == "A class."


def test_help_on_a_context_shows_how_to_feed_a_dynamic_input() -> None:
    # what help() prints, without the overstrike bold of a terminal
    text = re.sub(".\b", "", pydoc.render_doc(opgraph.InferShapeContext, renderer=pydoc.TextDoc()))
    assert "DYNAMIC input is given as a list of descriptors" in text
    # inherited reads and the class's own setters, each with its docstring
    assert "Shape of instance ``relative_index`` of DYNAMIC prototype input" in text
    assert "Sets the shape of output instance" in text
