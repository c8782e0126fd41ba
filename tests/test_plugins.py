"""Loading op libraries written in Python: modules named by the user, and
installed distributions declaring an ``opgraph.plugins`` entry point."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from helpers import desc, infer_output, unique_name

import opgraph
from opgraph import PluginWarning, RegistrationError


def _write_op_library(directory: Path, module: str, op_type: str, *, as_function: bool = False) -> None:
    """A module registering ``op_type`` (x -> y with y = x repeated twice),
    at import time or, with ``as_function``, from ``register_ops()``."""
    body = textwrap.dedent(
        f"""
        import opgraph

        def _build():
            op = opgraph.OpDef({op_type!r})
            op.input("x")
            op.output("y", follow=("x", opgraph.FollowType.DTYPE))

            @op.infer_shape
            def doubled(ctx):
                ctx.set_output_shape(0, [2 * d for d in ctx.input_shape(0)])

            opgraph.register(op)
        """
    )
    body += "\ndef register_ops():\n    _build()\n" if as_function else "\n_build()\n"
    (directory / f"{module}.py").write_text(body)


def _write_distribution(directory: Path, dist: str, entry_points: dict[str, str]) -> None:
    """A fake installed distribution: ``<dist>-0.1.dist-info`` with METADATA
    and entry_points.txt declaring ``entry_points`` in opgraph.plugins."""
    info = directory / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[opgraph.plugins]\n{lines}")


def _assert_doubling_op(op_type: str) -> None:
    out = infer_output(op_type, [desc([3, 5], opgraph.DataType.INT16)])
    assert (out.dtype, out.shape) == (opgraph.DataType.INT16, (6, 10))


def test_load_op_libraries_imports_named_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, op_type = unique_name("oplib"), unique_name("Doubling")
    _write_op_library(tmp_path, module, op_type)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert op_type not in opgraph.registered_op_types()
    loaded = opgraph.load_op_libraries([module])
    assert [m.__name__ for m in loaded] == [module]
    assert op_type in opgraph.registered_op_types()
    _assert_doubling_op(op_type)


def test_load_op_libraries_accepts_module_objects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, op_type = unique_name("oplib"), unique_name("Doubling")
    _write_op_library(tmp_path, module, op_type)
    monkeypatch.syspath_prepend(str(tmp_path))
    (first,) = opgraph.load_op_libraries([module])
    assert opgraph.load_op_libraries([first]) == [first]


def test_load_op_libraries_failure_is_a_registration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = unique_name("broken")
    (tmp_path / f"{broken}.py").write_text("raise ImportError('missing dependency')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RegistrationError, match=broken) as info:
        opgraph.load_op_libraries([broken])
    assert isinstance(info.value.__cause__, ImportError)
    with pytest.raises(RegistrationError):
        opgraph.load_op_libraries([unique_name("does_not_exist")])


def test_entry_point_module_is_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, op_type, plugin = unique_name("oplib"), unique_name("Doubling"), unique_name("plugin")
    _write_op_library(tmp_path, module, op_type)
    _write_distribution(tmp_path, unique_name("myplugin"), {plugin: module})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert plugin in opgraph.load_entry_point_plugins()
    _assert_doubling_op(op_type)
    assert plugin not in opgraph.load_entry_point_plugins()  # loaded once


def test_entry_point_callable_is_called(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, op_type, plugin = unique_name("oplib"), unique_name("Doubling"), unique_name("plugin")
    _write_op_library(tmp_path, module, op_type, as_function=True)
    _write_distribution(tmp_path, unique_name("myplugin"), {plugin: f"{module}:register_ops"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert plugin in opgraph.load_entry_point_plugins()
    _assert_doubling_op(op_type)


def test_broken_entry_point_warns_and_others_still_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, op_type = unique_name("oplib"), unique_name("Doubling")
    good, bad = unique_name("good"), unique_name("bad")
    _write_op_library(tmp_path, module, op_type)
    _write_distribution(tmp_path, unique_name("myplugin"), {bad: unique_name("missing_module"), good: module})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(PluginWarning, match=bad):
        names = opgraph.load_entry_point_plugins()
    assert good in names
    assert bad not in names
    _assert_doubling_op(op_type)


def test_broken_entry_point_raises_when_strict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad, module = unique_name("bad"), unique_name("raising")
    (tmp_path / f"{module}.py").write_text("raise RuntimeError('plugin init failed')\n")
    _write_distribution(tmp_path, unique_name("myplugin"), {bad: module})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RegistrationError, match="plugin init failed") as info:
        opgraph.load_entry_point_plugins(strict=True)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_plugin_with_invalid_prototype_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, plugin = unique_name("badproto"), unique_name("plugin")
    (tmp_path / f"{module}.py").write_text(
        "import opgraph\n"
        "op = opgraph.OpDef('Add')\n"  # a builtin: registering without override fails
        "op.input('x')\n"
        "op.output('y', follow='x')\n"
        "opgraph.register(op)\n"
    )
    _write_distribution(tmp_path, unique_name("myplugin"), {plugin: module})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(PluginWarning, match="already registered"):
        assert plugin not in opgraph.load_entry_point_plugins()
    assert opgraph.op_def("Add").builtin


def test_other_groups_are_not_loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module, op_type, plugin = unique_name("oplib"), unique_name("Doubling"), unique_name("plugin")
    _write_op_library(tmp_path, module, op_type)
    info = tmp_path / "other-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: other\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[some.other.group]\n{plugin} = {module}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert plugin not in opgraph.load_entry_point_plugins()
    assert op_type not in opgraph.registered_op_types()


def test_an_entry_point_naming_neither_a_module_nor_a_callable_is_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, module = unique_name("value"), unique_name("values")
    (tmp_path / f"{module}.py").write_text("VALUE = 42\n")
    _write_distribution(tmp_path, unique_name("myplugin"), {name: f"{module}:VALUE"})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(PluginWarning, match=r"it names int 42, neither a module nor a callable"):
        assert name not in opgraph.load_entry_point_plugins()


def test_a_strict_call_reports_an_entry_point_that_failed_quietly_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As when opgraph's import warned about it: strict mode still says so."""
    bad, module = unique_name("bad"), unique_name("raising")
    (tmp_path / f"{module}.py").write_text("raise RuntimeError('plugin init failed')\n")
    _write_distribution(tmp_path, unique_name("myplugin"), {bad: module})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(PluginWarning, match="plugin init failed"):
        opgraph.load_entry_point_plugins()
    with pytest.raises(RegistrationError, match="plugin init failed"):
        opgraph.load_entry_point_plugins(strict=True)


@pytest.mark.parametrize("given", ["my_ops", Path("my_ops.py")])
def test_one_plugin_module_not_in_a_list_is_a_type_error(given: str | Path) -> None:
    """Not its characters imported one by one."""
    with pytest.raises(
        TypeError, match=r"plugins is a list of modules or paths; wrap the one given in a list"
    ):
        opgraph.load_plugin_modules(given)  # type: ignore[arg-type]


def test_a_plugin_module_that_exits_while_importing_is_a_registration_error(tmp_path: Path) -> None:
    """sys.exit in a plugin would otherwise end the caller's process without a word."""
    module = tmp_path / f"{unique_name('exits')}.py"
    module.write_text("import sys\nsys.exit(4)\n")
    with pytest.raises(RegistrationError, match=r"exited \(sys.exit\(4\)\) while importing"):
        opgraph.load_plugin_modules([module])
