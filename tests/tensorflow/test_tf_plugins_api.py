"""The parser-plugin API without a model file: hand-built FrameworkOps and
Operators (as a plugin author unit-tests a plugin), auto-mapping, the
registry's rules, and loading plugin modules by path."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import unique_name

import opgraph
from opgraph import ContextError, DataType, Format, NamedAttrs, ParseError, RegistrationError
from opgraph.errors import UnsupportedOp
from opgraph.tensorflow import (
    DelInputWithCond,
    DelInputWithOriginalType,
    FrameworkOp,
    ImplyType,
    InputEdit,
    InputReorder,
    Operator,
    PluginInfo,
    auto_mapping,
    auto_mapping_dynamic,
    fusion_plugin,
    plugin,
    register_plugin,
    registered_plugins,
)


def _noop(src: FrameworkOp, dst: Operator) -> None:
    pass


def test_framework_op_is_a_read_only_view_in_tensorflow_spelling() -> None:
    inner = FrameworkOp("scope/mul", "Mul", ["x", "y"])
    op = FrameworkOp(
        "scope/fused",
        "FusedThing",
        ["x", "split:1", "fn_call:output:2"],
        {"alpha": 0.5},
        control_inputs=["init"],
        fused_ops=[inner],
    )
    assert (op.name, op.op_type) == ("scope/fused", "FusedThing")
    assert op.inputs == ["x:0", "split:1", "fn_call:output:2"]
    assert op.control_inputs == ["init"]
    assert op.attrs == {"alpha": 0.5}
    assert op.has_attr("alpha") and not op.has_attr("beta")
    assert op.get_attr("alpha") == 0.5
    assert [(f.name, f.inputs) for f in op.fused_ops] == [("scope/mul", ["x:0", "y:0"])]
    attrs = op.attrs
    attrs["alpha"] = 1.0  # a fresh dict: the op is unchanged
    assert op.get_attr("alpha") == 0.5
    assert not hasattr(op, "__dict__")


def test_framework_op_missing_attribute_names_the_node() -> None:
    with pytest.raises(ContextError, match=r"'topk' \(TopKV2\) has no attribute 'sorted'"):
        FrameworkOp("topk", "TopKV2").get_attr("sorted")


@pytest.mark.parametrize("bad", ["", ":1", "x:one", "x:+1", "x:arg:", "x::1", "a:b:1:2", "^x"])
def test_framework_op_rejects_malformed_input_names(bad: str) -> None:
    with pytest.raises(ValueError, match="is not an input name"):
        FrameworkOp("n", "T", [bad])


ATTR_VALUES: list[tuple[str, Any]] = [
    ("s", "SAME"),
    ("i", -3),
    ("f", 0.25),
    ("b", True),
    ("type", DataType.INT64),
    ("shape", [2, -1, 3]),
    ("list_s", ["a", "b"]),
    ("list_i", [1, 1, 2, 2]),
    ("list_f", [0.5, 2.0]),
    ("list_b", [True, False]),
    ("list_type", [DataType.FLOAT, DataType.INT32]),
    ("list_shape", [[2, 3], [4]]),
]


@pytest.mark.parametrize(("name", "value"), ATTR_VALUES, ids=[n for n, _ in ATTR_VALUES])
def test_auto_mapping_copies_each_attribute_kind_unchanged(name: str, value: Any) -> None:
    src = FrameworkOp("n", "Custom", ["x"], {name: value})
    dst = Operator("n", "IrOp")
    auto_mapping(src, dst)
    copied = dst.get_attr(name)
    assert copied == value
    assert type(copied) is type(value)
    if isinstance(value, list):
        assert [type(v) for v in copied] == [type(v) for v in value]
    assert dst.input_format(0) is None and dst.output_format(0) is None


def test_auto_mapping_copies_tensors_and_functions() -> None:
    weights = np.arange(6, dtype=np.float16).reshape(2, 3)
    func = NamedAttrs("body_fn", {"scale": 2})
    dst = Operator("n", "IrOp")
    auto_mapping(FrameworkOp("n", "Custom", [], {"value": weights, "f": func}), dst)
    copied = dst.get_attr("value")
    assert copied.dtype == np.float16 and copied.shape == (2, 3)
    np.testing.assert_array_equal(copied, weights)
    assert (dst.get_attr("f").name, dst.get_attr("f").attrs) == ("body_fn", {"scale": 2})


@pytest.mark.parametrize(
    ("data_format", "expected"),
    [
        ("NHWC", Format.NHWC),
        ("NCHW", Format.NCHW),
        ("NDHWC", Format.NDHWC),
        ("NCDHW", Format.NCDHW),
        ("NWC", Format.NHWC),
        ("NCW", Format.NCHW),
    ],
)
def test_auto_mapping_sets_every_input_and_output_format_from_data_format(
    data_format: str, expected: Format
) -> None:
    dst = Operator("conv", "Conv2D")
    auto_mapping(FrameworkOp("conv", "Conv2D", ["x", "w"], {"data_format": data_format}), dst)
    assert [dst.input_format(i) for i in range(3)] == [expected] * 3
    assert [dst.output_format(i) for i in range(2)] == [expected] * 2


def test_a_plugin_can_give_one_tensor_its_own_format() -> None:
    dst = Operator("conv", "Conv2D")
    auto_mapping(FrameworkOp("conv", "Conv2D", ["x", "w"], {"data_format": "NHWC"}), dst)
    dst.set_input_format(1, Format.HWCN)
    dst.set_output_format(0, "NCHW")
    assert [dst.input_format(0), dst.input_format(1)] == [Format.NHWC, Format.HWCN]
    assert [dst.output_format(0), dst.output_format(1)] == [Format.NCHW, Format.NHWC]


@pytest.mark.parametrize("value", ["HWNC", 4])
def test_auto_mapping_rejects_a_bad_data_format(value: object) -> None:
    with pytest.raises(ParseError, match="'data_format' of 'conv'"):
        auto_mapping(FrameworkOp("conv", "Conv2D", [], {"data_format": value}), Operator("conv", "Conv2D"))


def test_auto_mapping_dynamic_sizes_ports_from_n_and_t() -> None:
    src = FrameworkOp("n", "Custom", [], {"N": 3, "T": [DataType.FLOAT, DataType.INT32]})
    dst = Operator("n", "IrOp")
    auto_mapping_dynamic(src, dst, [("input", "x", "N"), ("output", "y", "T"), ("input", "z", "T")])
    assert dst.dynamic_inputs == [("x", 3), ("z", 2)]
    assert dst.dynamic_outputs == [("y", 2)]
    assert dst.get_attr("N") == 3  # the attributes were copied too
    dst.set_dynamic_input("x", 5)
    assert dst.dynamic_inputs == [("x", 5), ("z", 2)]


@pytest.mark.parametrize("attrs", [{}, {"N": -1}, {"N": "3"}, {"N": 1.5}, {"N": [1, 2]}])
def test_auto_mapping_dynamic_needs_a_count_attribute(attrs: dict[str, Any]) -> None:
    with pytest.raises(ParseError, match=r"'n' needs attribute 'N'.* to size dynamic input 'x'"):
        auto_mapping_dynamic(
            FrameworkOp("n", "Custom", [], attrs), Operator("n", "IrOp"), [("input", "x", "N")]
        )


def test_auto_mapping_dynamic_rejects_an_unknown_port_kind() -> None:
    with pytest.raises(ValueError, match="'inputs' is not a port kind"):
        auto_mapping_dynamic(
            FrameworkOp("n", "Custom", [], {"N": 2}),
            Operator("n", "IrOp"),
            [("inputs", "x", "N")],  # type: ignore[list-item]  # deliberately wrong: checks the runtime error
        )


def test_operator_attributes_convert_like_graph_node_attributes() -> None:
    dst = Operator("topk", "TopK")
    dst.set_attr("sorted", True)
    dst.set_attr("dim", -1)
    dst.set_attr("indices_dtype", DataType.INT32)
    dst.set_attr("_pads", (1, 2))  # private: TopK declares no pads
    assert dst.attrs == {"sorted": True, "dim": -1, "indices_dtype": DataType.INT32, "_pads": [1, 2]}
    assert type(dst.get_attr("sorted")) is bool
    with pytest.raises(TypeError, match="not a supported attribute type"):
        dst.set_attr("bad", object())  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error
    with pytest.raises(ContextError, match=r"'topk' \(TopK\) has no attribute 'largest'"):
        dst.get_attr("largest")
    assert (dst.name, dst.op_type) == ("topk", "TopK")


def test_decorated_plugin_is_returned_unchanged_and_can_be_called_by_hand() -> None:
    origin = unique_name("TopKV2")

    @plugin("TopK", origin_op_types=[origin], imply_type=ImplyType.TVM)
    def parse_topk(src: FrameworkOp, dst: Operator) -> None:
        auto_mapping(src, dst)
        dst.set_attr("dim", -1)

    dst = Operator("topk", "TopK")
    assert parse_topk(FrameworkOp("topk", origin, ["x", "k"], {"sorted": False}), dst) is None
    assert dst.attrs == {"sorted": False, "dim": -1}
    assert PluginInfo(origin, "TopK", False) in registered_plugins()


def test_fusion_plugin_registers_a_fusion_parser() -> None:
    origin = unique_name("FusedGelu")

    @fusion_plugin("Gelu", origin_op_types=[origin])
    def parse_gelu(fused: list[FrameworkOp], dst: Operator) -> None:
        dst.set_attr("_fused", len(fused))

    dst = Operator("gelu", "Gelu")
    parse_gelu([FrameworkOp("a", "Mul"), FrameworkOp("b", "Tanh")], dst)
    assert dst.get_attr("_fused") == 2
    assert PluginInfo(origin, "Gelu", False) in registered_plugins()


def test_a_plugin_needs_a_parse_function() -> None:
    with pytest.raises(
        RegistrationError, match="neither parse_params, fusion_parse_params nor parse_op_to_graph"
    ):
        register_plugin("TopK", [unique_name("TopKV2")])


def test_a_plugin_needs_origin_op_types() -> None:
    with pytest.raises(RegistrationError, match="names no origin op type"):
        register_plugin("TopK", [], parse_params=_noop)
    with pytest.raises(TypeError, match=r"wrap it: \['TopKV2'\]"):
        register_plugin("TopK", "TopKV2", parse_params=_noop)


@pytest.mark.parametrize(
    ("op_type", "origins", "imply_type", "expected"),
    [
        ("TopK", [""], ImplyType.TVM, r"origin_op_types holds ''; each is a non-empty op type name"),
        ("TopK", [123], ImplyType.TVM, r"origin_op_types holds 123"),
        (None, ["T"], ImplyType.TVM, r"op_type is an IR op type name, got None"),
        ("TopK", ["T"], "TVM", r"imply_type is an ImplyType \(e.g. ImplyType.TVM\), got 'TVM'"),
    ],
)
def test_a_plugin_argument_of_the_wrong_kind_is_named(
    op_type: Any, origins: list[Any], imply_type: Any, expected: str
) -> None:
    """Not a bare conversion error, nor an origin type no node can have."""
    with pytest.raises(TypeError, match=expected):
        register_plugin(op_type, origins, imply_type=imply_type, parse_params=_noop)


def test_plugin_functions_must_be_callable() -> None:
    with pytest.raises(TypeError, match="must be callable, got str"):
        register_plugin("TopK", [unique_name("T")], parse_params="parse")  # type: ignore[arg-type]  # deliberately wrong: checks the runtime error


def test_a_second_user_plugin_for_an_origin_type_needs_override() -> None:
    origin = unique_name("Custom")
    register_plugin("Relu", [origin], parse_params=_noop)
    with pytest.raises(RegistrationError, match=rf"'{origin}': a user plugin \(to 'Relu'\) .* override=True"):
        register_plugin("Sigmoid", [origin], parse_params=_noop)
    assert PluginInfo(origin, "Relu", False) in registered_plugins()
    register_plugin("Sigmoid", [origin], parse_params=_noop, override=True)
    assert PluginInfo(origin, "Sigmoid", False) in registered_plugins()


def test_registration_is_all_or_nothing_across_origin_types() -> None:
    taken, free = unique_name("Taken"), unique_name("Free")
    register_plugin("Relu", [taken], parse_params=_noop)
    with pytest.raises(RegistrationError):
        register_plugin("Sigmoid", [free, taken], parse_params=_noop)
    assert free not in {info.origin_op_type for info in registered_plugins()}


def test_input_edits_are_checked_when_registering() -> None:
    edits: list[InputEdit] = [
        DelInputWithCond(1, "has_bias", False),
        DelInputWithOriginalType(2, "Const"),
        InputReorder([1, 0]),
    ]
    register_plugin("Relu", [unique_name("Edited")], parse_params=_noop, input_edits=edits)
    assert InputReorder([1, 0]).order == (1, 0)
    assert InputReorder([1, 0]) == InputReorder((1, 0))
    with pytest.raises(TypeError, match="an input edit is a DelInputWithCond"):
        register_plugin("Relu", [unique_name("E")], parse_params=_noop, input_edits=[(1, 0)])  # type: ignore[list-item]  # deliberately wrong: checks the runtime error


def test_parse_error_lists_unsupported_ops_as_named_tuples() -> None:
    error = ParseError("no parser plugin", unsupported=[("Foo", 2, "a/foo")])
    assert error.unsupported == [UnsupportedOp("Foo", 2, "a/foo")]
    assert error.unsupported[0].node_count == 2
    assert (error.node, error.origin_op_type, error.scope_pass) == (None, None, None)


def _write_plugin_module(path: Path, origin: str) -> None:
    path.write_text(
        textwrap.dedent(
            f"""
            from opgraph.tensorflow import FrameworkOp, Operator, auto_mapping, plugin

            @plugin("Relu", origin_op_types=[{origin!r}])
            def parse(src: FrameworkOp, dst: Operator) -> None:
                auto_mapping(src, dst)
            """
        )
    )


def test_plugin_modules_load_by_path_once(tmp_path: Path) -> None:
    origin = unique_name("FromFile")
    path = tmp_path / "my_plugins.py"
    _write_plugin_module(path, origin)
    (first,) = opgraph.load_plugin_modules([path])
    assert PluginInfo(origin, "Relu", False) in registered_plugins()
    # Naming it again (as a str this time) does not re-register (which would fail).
    assert opgraph.load_plugin_modules([str(path)]) == [first]


def test_plugin_packages_load_by_directory(tmp_path: Path) -> None:
    origin = unique_name("FromPackage")
    package = tmp_path / "plugin_pkg"
    package.mkdir()
    _write_plugin_module(package / "impl.py", origin)
    (package / "__init__.py").write_text("from . import impl\n")
    (loaded,) = opgraph.load_plugin_modules([package])
    assert loaded.impl.parse.__name__ == "parse"
    assert PluginInfo(origin, "Relu", False) in registered_plugins()


def test_a_failing_plugin_file_is_a_registration_error(tmp_path: Path) -> None:
    path = tmp_path / "broken_plugins.py"
    path.write_text("raise ImportError('needs tensorflow_addons')\n")
    with pytest.raises(
        RegistrationError, match=r"broken_plugins\.py' failed to import: needs tensorflow_addons"
    ) as info:
        opgraph.load_plugin_modules([path])
    assert isinstance(info.value.__cause__, ImportError)
    with pytest.raises(RegistrationError, match="no Python file"):
        opgraph.load_plugin_modules([tmp_path / "missing.py"])


def test_installed_packages_register_parser_plugins_through_entry_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, origin = unique_name("tf_plugins"), unique_name("FromEntryPoint")
    _write_plugin_module(tmp_path / f"{module}.py", origin)
    dist = tmp_path / f"{unique_name('dist')}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist.stem}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[opgraph.plugins]\n{module} = {module}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert module in opgraph.load_entry_point_plugins()
    assert PluginInfo(origin, "Relu", False) in registered_plugins()
