"""Malformed Caffe files through ``opgraph.load_caffe``: every one is a
ParseError whose message names the file and the line and column, the field,
or the layer at fault, and says what was expected. (A user plugin's
exception and layer types without a plugin: test_caffe_plugins_errors.py.)"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from caffe_helpers import DATA, net
from helpers import unique_name

from opgraph import ParseError
from opgraph.caffe import FrameworkOp, Operator, load_caffe, plugin

INPLACE = net("decode_inplace")
INPLACE_WEIGHTS = DATA / "decode_inplace.caffemodel"

# One 2x3x4x4 input and one layer 'act', whose parameters are on line 8.
ONE_LAYER = """\
input: "x"
input_shape {{ dim: 2 dim: 3 dim: 4 dim: 4 }}
layer {{
  name: "act"
  type: "{layer_type}"
  bottom: "{bottom}"
  top: "y"
  {params}
}}
"""

# A custom.proto adding a message with 64-bit and 32-bit fields.
WIDE_PROTO = """\
syntax = "proto2";
message LayerParameter {
  optional WideParameter wide_param = 5000;
}
message WideParameter {
  optional uint64 count = 1;
  optional int32 small = 2;
}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def one_layer(
    tmp_path: Path, name: str, params: str = "", *, layer_type: str = "ReLU", bottom: str = "x"
) -> Path:
    """A net of one layer ``act`` of ``layer_type`` with ``params`` written on line 8."""
    return write(tmp_path, name, ONE_LAYER.format(layer_type=layer_type, bottom=bottom, params=params))


def parse_error(prototxt: Path, weights: Path | None = None, custom_protos: Sequence[Path] = ()) -> str:
    """The message of the ParseError ``load_caffe(prototxt, weights, custom_protos)``
    raises; decode errors concern no node."""
    with pytest.raises(ParseError) as info:
        load_caffe(prototxt, weights, custom_protos)
    assert (info.value.node, info.value.origin_op_type, info.value.unsupported) == (None, None, [])
    return str(info.value)


def test_bad_prototxt_text_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.prototxt", 'name: "x"\nlayer {\n  name: "a"\n  bottom: \n}\n')
    assert parse_error(path) == (
        f"'{path}': not a Caffe net (prototxt): line 5, column 1: expected a string, but found '}}'"
    )


def test_an_unknown_field_in_a_layer_is_named_with_its_message(tmp_path: Path) -> None:
    path = one_layer(tmp_path, "unknown.prototxt", "colour: 3")
    assert parse_error(path) == (
        f"'{path}': not a Caffe net (prototxt): line 8, column 3: "
        "field 'colour' not found for message 'caffe.LayerParameter'"
    )
    nested = one_layer(tmp_path, "nested.prototxt", "relu_param { slope: 0.1 }")
    assert parse_error(nested) == (
        f"'{nested}': not a Caffe net (prototxt): line 8, column 16: "
        "field 'slope' not found for message 'caffe.ReLUParameter'"
    )


def test_an_unknown_enum_value_is_named_with_its_enum(tmp_path: Path) -> None:
    params = "pooling_param { pool: MIN kernel_size: 2 }"
    path = one_layer(tmp_path, "enum.prototxt", params, layer_type="Pooling")
    assert parse_error(path) == (
        f"'{path}': not a Caffe net (prototxt): line 8, column 25: "
        "value 'MIN' was not found for enum 'caffe.PoolingParameter.PoolMethod'"
    )


@pytest.mark.parametrize("cut", [7, 200])
def test_a_truncated_caffemodel_names_the_file(tmp_path: Path, cut: int) -> None:
    data = INPLACE_WEIGHTS.read_bytes()
    weights = tmp_path / "cut.caffemodel"
    weights.write_bytes(data[:-cut])
    message = parse_error(INPLACE, weights)
    assert message.startswith(
        f"'{weights}': the data is not a binary Caffe NetParameter (.caffemodel): "
        "failed to decode Protobuf message: "
    ), message


def test_garbage_is_not_a_caffemodel(tmp_path: Path) -> None:
    weights = tmp_path / "garbage.caffemodel"
    weights.write_bytes(b"\xff\xff\xff\xff\x00garbage")
    message = parse_error(INPLACE, weights)
    assert message.startswith(f"'{weights}': the data is not a binary Caffe NetParameter (.caffemodel)")


def test_files_given_in_the_wrong_place_say_so() -> None:
    message = parse_error(INPLACE, INPLACE)
    assert message.startswith(f"'{INPLACE}' is text, not a binary .caffemodel (a .prototxt goes first): ")
    message = parse_error(INPLACE_WEIGHTS)
    assert message.startswith(f"'{INPLACE_WEIGHTS}' is not a text .prototxt: byte "), message
    assert message.endswith("is not UTF-8 (a binary .caffemodel goes in the weights)")


def test_a_caffemodel_blob_that_disagrees_with_its_shape_names_the_file_and_layer() -> None:
    weights = DATA / "decode_bad_blob.caffemodel"
    assert parse_error(INPLACE, weights) == (
        f"'{weights}': weight blob 0 of layer 'conv' has shape [3, 2, 3, 3] (54 values) "
        "but holds 53 float values"
    )


def test_a_prototxt_blob_that_disagrees_with_its_shape_names_the_file_and_layer(tmp_path: Path) -> None:
    params = "blobs { shape { dim: 3 } data: 1 data: 2 }"
    path = one_layer(tmp_path, "blob.prototxt", params, layer_type="PReLU")
    assert parse_error(path) == (
        f"'{path}': blob 0 of layer 'act' has shape [3] (3 values) but holds 2 float values"
    )


def test_a_custom_proto_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    proto = write(
        tmp_path, "custom.proto", 'syntax = "proto2";\nmessage LayerParameter {\n  optional int32 x = 1\n}\n'
    )
    assert parse_error(INPLACE, custom_protos=[proto]) == f"{proto}:4:1: expected ';' or '[', but found '}}'"


def test_a_custom_proto_with_an_unknown_type_names_field_and_type(tmp_path: Path) -> None:
    proto = write(
        tmp_path,
        "custom.proto",
        'syntax = "proto2";\nmessage LayerParameter {\n  optional FooParameter foo_param = 5000;\n}\n',
    )
    assert parse_error(INPLACE, custom_protos=[proto]) == (
        f"{proto}:3:12: field 'foo_param' of message 'LayerParameter' has type 'FooParameter', "
        "which neither the custom proto nor caffe.proto defines"
    )


def test_a_uint64_above_the_int_range_names_layer_and_field_path(tmp_path: Path) -> None:
    proto = write(tmp_path, "wide.proto", WIDE_PROTO)
    origin = unique_name("Wide")
    largest = 2**64 - 1
    path = one_layer(tmp_path, "wide.prototxt", f"wide_param {{ count: {largest} }}")
    assert parse_error(path, custom_protos=[proto]) == (
        f"'{path}': layer 'act': field 'wide_param.count' is the uint64 {largest}, "
        f"above the largest int attribute ({2**63 - 1})"
    )
    # The largest int attribute itself reaches the plugin.
    fits = one_layer(tmp_path, "fits.prototxt", f"wide_param {{ count: {2**63 - 1} }}", layer_type=origin)
    seen: list[object] = []

    @plugin("Relu", origin_op_types=[origin])
    def parse_wide(src: FrameworkOp, dst: Operator) -> None:
        seen.append(src.get_attr("count"))

    load_caffe(fits, custom_protos=[proto])
    assert seen == [2**63 - 1]


def test_numbers_out_of_their_field_type_range_name_line_and_column(tmp_path: Path) -> None:
    proto = write(tmp_path, "wide.proto", WIDE_PROTO)
    path = one_layer(tmp_path, "u64.prototxt", f"wide_param {{ count: {2**64} }}")
    assert parse_error(path, custom_protos=[proto]) == (
        f"'{path}': not a Caffe net (prototxt): line 8, column 23: "
        f"expected value to be an unsigned 64-bit integer, but the value {2**64} is out of range"
    )
    path = one_layer(tmp_path, "i32.prototxt", "wide_param { small: 3000000000 }")
    assert parse_error(path, custom_protos=[proto]) == (
        f"'{path}': not a Caffe net (prototxt): line 8, column 23: "
        "expected value to be a signed 32-bit integer, but the value 3000000000 is out of range"
    )


def test_missing_empty_and_directory_files_are_named(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    assert parse_error(missing / "net.prototxt").startswith(f"cannot read '{missing / 'net.prototxt'}': ")
    message = parse_error(INPLACE, missing / "w.caffemodel")
    assert message.startswith(f"cannot read '{missing / 'w.caffemodel'}': ")
    message = parse_error(INPLACE, custom_protos=[missing / "custom.proto"])
    assert message.startswith(f"cannot read custom proto '{missing / 'custom.proto'}': ")
    empty = write(tmp_path, "empty.prototxt", "")
    assert parse_error(empty) == (
        f"cannot read '{empty}': the file is empty; expected a Caffe net definition (.prototxt)"
    )
    assert parse_error(tmp_path) == (
        f"cannot read '{tmp_path}': it is a directory; expected a Caffe net definition (.prototxt)"
    )


def test_net_structure_errors_name_the_layer_and_blob(tmp_path: Path) -> None:
    path = one_layer(tmp_path, "dangling.prototxt", bottom="z")
    assert parse_error(path) == (
        f"'{path}': layer 'act' reads blob 'z' (bottom 0), which no earlier input or layer produces"
    )
    path = write(tmp_path, "dims.prototxt", 'input: "x"\ninput_dim: 1\ninput_dim: 3\ninput_dim: 4\n')
    assert parse_error(path) == (
        f"'{path}': the net has 1 input but 3 input_dim values; Caffe needs 4 per input"
    )
