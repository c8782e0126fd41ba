"""Issue 18 item 2: a layer's parameter messages with their structure
(``FrameworkOp.param`` / ``param_path``) beside GE's flattened view, and a
warning, once per layer type, when flattening drops a field the net sets."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from helpers import unique_name

import opgraph
from opgraph import OpDef, ParamShadowedWarning, ParseError
from opgraph.caffe import EnumValue, FrameworkOp, Operator, plugin

FOO_PROTO = """
syntax = "proto2";
package caffe;
message LayerParameter {
  optional FooParameter foo_param = 1500;
}
message Bar {
  optional int32 size = 1;
  repeated float weights = 2;
}
message FooParameter {
  enum Kind { PLAIN = 0; FANCY = 3; }
  optional Bar first = 1;
  optional Bar second = 2;
  optional Kind kind = 3 [default = FANCY];
  repeated Kind kinds = 4;
  optional int32 unset_without_default = 5;
}
"""


def capture(origin: str) -> list[FrameworkOp]:
    """A passthrough op and a plugin for layer type ``origin`` that keeps the
    FrameworkOps it sees."""
    op_type = unique_name("Pass")
    definition = OpDef(op_type)
    definition.input("x")
    definition.output("y", follow="x")
    opgraph.register(definition)
    seen: list[FrameworkOp] = []

    @plugin(op_type, origin_op_types=[origin])
    def parse(src: FrameworkOp, dst: Operator) -> None:
        seen.append(src)

    return seen


def load(tmp_path: Path, layers: str, proto: str | None = None) -> list[warnings.WarningMessage]:
    prototxt = tmp_path / "net.prototxt"
    prototxt.write_text('input: "data"\ninput_shape { dim: 1 dim: 2 dim: 5 dim: 5 }\n' + layers)
    customs = []
    if proto is not None:
        customs.append(tmp_path / "custom.proto")
        customs[0].write_text(proto)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opgraph.load_caffe(prototxt, custom_protos=customs)
    return list(caught)


def layer(name: str, kind: str, body: str) -> str:
    return f'layer {{ name: "{name}" type: "{kind}" bottom: "data" top: "{name}" {body} }}\n'


CONV = (
    'convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: "msra" } '
    'bias_filler { type: "constant" value: 0.5 } }'
)


def test_stock_fillers_keep_both_types(tmp_path: Path) -> None:
    origin = unique_name("MyConv")
    seen = capture(origin)
    caught = load(tmp_path, layer("a", origin, CONV) + layer("b", origin, CONV))
    src = seen[0]
    assert src.get_str("type") == "msra"  # GE's flattened view: the first wins
    assert src.param_path("convolution_param.bias_filler.type") == "constant"
    assert src.param_path("convolution_param.weight_filler.type") == "msra"
    assert src.param_path("convolution_param.bias_filler.value") == 0.5
    shadow = [str(w.message) for w in caught if issubclass(w.category, ParamShadowedWarning)]
    assert len(shadow) == 1, shadow  # once per layer type, not per layer
    assert f"Caffe layer type {origin} (first in layer 'a')" in shadow[0]
    assert "'convolution_param.bias_filler.type' (kept 'convolution_param.weight_filler.type')" in shadow[0]


def test_sibling_messages_keep_both_sizes(tmp_path: Path) -> None:
    origin = unique_name("Foo")
    seen = capture(origin)
    body = (
        "foo_param { first { size: 3 } second { size: 5 weights: 1 weights: 2 } kinds: PLAIN kinds: FANCY }"
    )
    caught = load(tmp_path, layer("foo", origin, body), FOO_PROTO)
    src = seen[0]
    assert src.get_int("size") == 3
    assert src.param_path("foo_param.second.size") == 5
    assert src.param("foo_param") == {
        "first": {"size": 3, "weights": []},
        "second": {"size": 5, "weights": [1.0, 2.0]},
        "kind": EnumValue("FANCY", 3),
        "kinds": [EnumValue("PLAIN", 0), EnumValue("FANCY", 3)],
    }
    assert src.param_names == ["foo_param"] and src.has_param("foo_param")
    # The flattened view's enum companion: the number under the field's
    # name, the value name under <field>_name.
    assert src.get_int("kind") == 3 and src.get_str("kind_name") == "FANCY"
    assert src.get_strs("kinds_name") == ["PLAIN", "FANCY"]
    messages = [str(w.message) for w in caught]
    assert any("'foo_param.second.size' (kept 'foo_param.first.size')" in m for m in messages), messages


def test_layers_of_built_in_plugins_do_not_warn(tmp_path: Path) -> None:
    # Built-in plugins read the flattened view knowingly; only a user's
    # plugin may be missing a dropped field.
    caught = load(tmp_path, layer("conv", "Convolution", CONV))
    assert not [w for w in caught if issubclass(w.category, ParamShadowedWarning)]


def test_defaults_and_presence(tmp_path: Path) -> None:
    origin = unique_name("Foo")
    seen = capture(origin)
    load(tmp_path, layer("foo", origin, "foo_param { first { size: 1 } }"), FOO_PROTO)
    foo = seen[0].param("foo_param")
    assert "second" not in foo  # an unset message is absent
    assert foo["kind"] == EnumValue("FANCY", 3)  # a declared default is there
    assert "unset_without_default" not in foo
    assert foo["kinds"] == []  # a repeated field is always there


def test_param_path_errors_and_defaults(tmp_path: Path) -> None:
    origin = unique_name("Foo")
    seen = capture(origin)
    load(tmp_path, layer("foo", origin, "foo_param { first { size: 1 weights: 4 } }"), FOO_PROTO)
    src = seen[0]
    assert src.param_path("foo_param.first.weights[0]") == 4.0
    assert src.param_path("foo_param.second.size", 7) == 7
    assert src.param("prior_box_param", None) is None
    with pytest.raises(ParseError, match=r"'foo_param.second.size' has no field 'second' set in foo_param"):
        src.param_path("foo_param.second.size")
    with pytest.raises(ParseError, match=r"goes past 'foo_param\.first\.size', which is not a message"):
        src.param_path("foo_param.first.size.x", 0)
    with pytest.raises(
        ParseError, match=r"does not set parameter message 'prior_box_param'; it sets foo_param"
    ):
        src.param("prior_box_param")
    with pytest.raises(ParseError, match="malformed segment"):
        src.param_path("foo_param..size")


def test_hand_built_framework_op_has_no_params() -> None:
    src = FrameworkOp("n", "T", attrs={"a": 1})
    assert src.param_names == []
    with pytest.raises(ParseError, match="it sets none"):
        src.param("a")
