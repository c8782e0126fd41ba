"""Issue 18 item 4: loading a plugin module twice (by name and by path) is a
no-op, a ``--plugins`` file can import its siblings, and one rule for ops
and plugins: replacing any registration needs override=True, and replacing
a built-in one warns."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import unique_name

from opgraph import load_plugin_modules

PLUGIN = """
import opgraph
from opgraph.caffe import FrameworkOp, Operator, plugin

op = opgraph.OpDef("{op_type}")
op.input("x")
op.output("y", follow="x")
opgraph.register(op)

@plugin("{op_type}", origin_op_types=["{op_type}Layer"])
def parse(src: FrameworkOp, dst: Operator) -> None:
    pass

RUNS = globals().get("RUNS", 0) + 1
"""


def write_plugin(directory: Path, stem: str) -> Path:
    path = directory / f"{stem}.py"
    path.write_text(PLUGIN.format(op_type=unique_name("Loaded")))
    return path


def test_import_then_path_is_a_no_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stem = unique_name("plugin_mod")
    path = write_plugin(tmp_path, stem)
    monkeypatch.syspath_prepend(str(tmp_path))
    imported = __import__(stem)
    (loaded,) = load_plugin_modules([path])
    assert loaded is imported and loaded.RUNS == 1
    assert load_plugin_modules([stem, str(path)]) == [imported, imported]


def test_path_then_name_is_a_no_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stem = unique_name("plugin_mod")
    path = write_plugin(tmp_path, stem)
    (by_path,) = load_plugin_modules([str(path)])
    monkeypatch.syspath_prepend(str(tmp_path))
    (by_name,) = load_plugin_modules([stem])
    assert by_name is by_path and by_path.RUNS == 1


def test_a_plugin_file_imports_its_sibling(tmp_path: Path) -> None:
    helper = unique_name("ssd_helpers")
    (tmp_path / f"{helper}.py").write_text("SCALE = 3\n")
    path = tmp_path / "uses_sibling.py"
    path.write_text(f"from {helper} import SCALE\nDOUBLE = 2 * SCALE\n")
    (module,) = load_plugin_modules([path])
    assert module.DOUBLE == 6
    assert str(tmp_path) not in sys.path  # importable only while it loads


SHADOWING = """
import warnings
import opgraph
from opgraph import BuiltinShadowedWarning, RegistrationError
from opgraph.caffe import FrameworkOp, Operator, plugin

def relu() -> opgraph.OpDef:
    op = opgraph.OpDef("Relu")
    op.input("x")
    op.output("y", follow="x")
    return op

def outcome(action) -> str:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            action()
        except RegistrationError as error:
            return f"RegistrationError: {error}"
    return repr([f"{w.category.__name__}: {w.message}" for w in seen])

def conv(src: FrameworkOp, dst: Operator) -> None:
    pass

print(outcome(lambda: opgraph.register(relu())))
print(outcome(lambda: opgraph.register(relu(), override=True)))
print(outcome(lambda: opgraph.register(relu(), override=True)))
print(outcome(lambda: plugin("Relu", origin_op_types=["ReLU"])(conv)))
print(outcome(lambda: plugin("Relu", origin_op_types=["ReLU"], override=True)(conv)))
print(outcome(lambda: plugin("Relu", origin_op_types=["ReLU"])(conv)))
print(outcome(lambda: plugin("Relu", origin_op_types=["ReLU"], override=True)(conv)))
"""


def test_one_rule_for_shadowing_builtins() -> None:
    # A subprocess: replacing a built-in is process-wide and cannot be undone.
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SHADOWING)], capture_output=True, text=True, check=True
    )
    lines = run.stdout.splitlines()
    # Ops: a built-in needs override=True, and replacing it warns.
    assert lines[0].startswith("RegistrationError: cannot register op type 'Relu'")
    assert "pass override=True" in lines[0]
    assert "BuiltinShadowedWarning: user op type 'Relu' replaces opgraph's built-in Relu" in lines[1]
    assert lines[2] == "[]"  # now a user op: replacing it is quiet
    # Plugins: the same.
    assert lines[3].startswith("RegistrationError: cannot register the caffe plugin for ReLU")
    assert "opgraph has a built-in plugin for it; pass override=True" in lines[3]
    assert "BuiltinShadowedWarning: user caffe plugin for ReLU replaces" in lines[4]
    assert (
        lines[5].startswith("RegistrationError:")
        and "a user plugin (to 'Relu') is already registered" in lines[5]
    )
    assert lines[6] == "[]"
