"""Inputs that were accepted without error or reported misleadingly (issue
12, items 7 and 8), each as a class: TensorFlow and Caffe reject them, so
opgraph must too, with a typed error naming the node, layer or file
position. Models are the committed fixtures, edited as text (.pbtxt /
.prototxt / .proto), never hand-written protobuf bytes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import desc, one_node_graph

import opgraph
from opgraph import DataType, OpgraphError, ParseError
from opgraph.caffe import load_caffe
from opgraph.errors import InvalidShapeError
from opgraph.tensorflow import load_tensorflow

REPO = Path(__file__).resolve().parents[2]
CONVNET = REPO / "tests" / "tensorflow" / "data" / "model_convnet.pbtxt"
CAFFE_NET = REPO / "tests" / "caffe" / "data" / "decode_inplace.prototxt"


def edit_node(text: str, name: str, old: str, new: str) -> str:
    """``text`` (a GraphDef as text) with ``old`` replaced by ``new`` once
    inside node ``name``."""
    start = text.index(f'node {{\n  name: "{name}"\n')
    end = text.find("\nnode {", start + 1)
    end = len(text) if end < 0 else end
    block = text[start:end]
    assert old in block, f"node {name} has no {old!r}"
    return text[:start] + block.replace(old, new, 1) + text[end:]


def convnet_with(tmp_path: Path, *edits: tuple[str, str, str], extra: str = "") -> Path:
    text = CONVNET.read_text()
    for name, old, new in edits:
        text = edit_node(text, name, old, new)
    path = tmp_path / "model.pbtxt"
    path.write_text(text + extra)
    return path


def tf_error(path: Path) -> str:
    with pytest.raises(ParseError) as info:
        load_tensorflow(path)
    return str(info.value)


# --- TensorFlow: required attrs, reference dtypes, Const dtype, strings ---

PADDING_ATTR = re.compile(r'  attr \{\n    key: "padding"\n    value \{\n      s: "SAME"\n    \}\n  \}\n')


def test_conv2d_without_padding_is_an_error(tmp_path: Path) -> None:
    text = CONVNET.read_text()
    start = text.index('node {\n  name: "Conv2D"\n')
    block_end = text.find("\nnode {", start + 1)
    block, count = PADDING_ATTR.subn("", text[start:block_end])
    assert count == 1
    path = tmp_path / "model.pbtxt"
    path.write_text(text[:start] + block + text[block_end:])
    message = tf_error(path)
    assert "'Conv2D'" in message and "needs attr 'padding'" in message, message


def test_conv2d_without_strides_is_an_error(tmp_path: Path) -> None:
    text = CONVNET.read_text()
    text = edit_node(text, "Conv2D", 'key: "strides"', 'key: "unused_strides"')
    path = tmp_path / "model.pbtxt"
    path.write_text(text)
    assert "needs attr 'strides'" in tf_error(path)


@pytest.mark.parametrize("ref", ["DT_FLOAT_REF", "DT_INT32_REF", "DT_HALF_REF"])
def test_a_reference_dtype_in_an_attr_is_an_error(tmp_path: Path, ref: str) -> None:
    path = convnet_with(tmp_path, ("Conv2D", " type: DT_FLOAT", f" type: {ref}"))
    message = tf_error(path)
    assert "node 'Conv2D'" in message and "attr 'T'" in message, message
    assert f"{ref}, a reference type" in message, message


def test_a_reference_dtype_as_cast_dst_t_is_an_error(tmp_path: Path) -> None:
    cast = (
        'node {\n  name: "cast"\n  op: "Cast"\n  input: "x"\n'
        '  attr {\n    key: "SrcT"\n    value {\n      type: DT_FLOAT\n    }\n  }\n'
        '  attr {\n    key: "DstT"\n    value {\n      type: DT_FLOAT_REF\n    }\n  }\n}\n'
    )
    message = tf_error(convnet_with(tmp_path, extra=cast))
    assert "node 'cast'" in message and "attr 'DstT'" in message and "reference type" in message, message


def test_a_reference_dtype_as_const_dtype_is_an_error(tmp_path: Path) -> None:
    path = convnet_with(tmp_path, ("Reshape/shape", " type: DT_INT32", " type: DT_INT32_REF"))
    message = tf_error(path)
    assert "node 'Reshape/shape'" in message and "reference type" in message, message
    path = convnet_with(tmp_path, ("Reshape/shape", "dtype: DT_INT32", "dtype: DT_INT32_REF"))
    assert "a reference type; a tensor value cannot have one" in tf_error(path)


def test_a_const_whose_dtype_is_not_its_value_s_is_an_error(tmp_path: Path) -> None:
    # TF's Const kernel: "Type mismatch between value (int32) and dtype (float)".
    path = convnet_with(tmp_path, ("Reshape/shape", " type: DT_INT32", " type: DT_FLOAT"))
    message = tf_error(path)
    assert "node 'Reshape/shape'" in message, message
    assert "has dtype DT_FLOAT but its value is a DT_INT32 tensor" in message, message


def string_const(content: str, size: int) -> str:
    return (
        'node {\n  name: "s"\n  op: "Const"\n'
        '  attr {\n    key: "dtype"\n    value {\n      type: DT_STRING\n    }\n  }\n'
        '  attr {\n    key: "value"\n    value {\n      tensor {\n        dtype: DT_STRING\n'
        f"        tensor_shape {{\n          dim {{\n            size: {size}\n          }}\n        }}\n"
        f'        tensor_content: "{content}"\n      }}\n    }}\n  }}\n}}\n'
    )


@pytest.mark.parametrize(
    ("content", "size", "why"),
    [
        # TF's string list: varint32 lengths, then the bytes.
        (r"\350\007abc", 1, "add up to 1000 bytes but 3 follow"),
        (r"\377\377\377", 1, "length 0"),
        (r"\001abc", 1, "add up to 1 bytes but 3 follow"),
        (r"\200\200\200\200\200\001", 1, "more than a varint32"),
    ],
)
def test_string_tensor_content_with_bad_lengths_is_an_error(
    tmp_path: Path, content: str, size: int, why: str
) -> None:
    message = tf_error(convnet_with(tmp_path, extra=string_const(content, size)))
    assert "node 's'" in message and "not a string list" in message and why in message, message


def test_string_tensor_content_that_is_a_string_list_loads(tmp_path: Path) -> None:
    graph = load_tensorflow(convnet_with(tmp_path, extra=string_const(r"\002\000\003abxyz", 3)))
    assert graph.desc(graph.tensor("s", 0)).dtype == DataType.STRING


# --- convolution filters with no elements ---


@pytest.mark.parametrize(
    ("op_type", "x", "filter_shape"),
    [
        ("Conv2D", [1, 8, 8, 0], [3, 3, 0, 4]),
        ("Conv2D", [1, 8, 8, 3], [0, 0, 3, 4]),
        ("Conv2D", [1, 8, 8, 3], [3, 3, 3, 0]),
        ("DepthwiseConv2dNative", [1, 8, 8, 3], [3, 0, 3, 1]),
        ("Conv3D", [1, 4, 8, 8, 3], [3, 0, 3, 3, 4]),
        ("Deconvolution", [1, 3, 8, 8], [3, 0, 3, 3]),
    ],
)
def test_a_convolution_filter_with_a_zero_dim_is_rejected(
    op_type: str, x: list[int], filter_shape: list[int]
) -> None:
    attrs_by_op: dict[str, dict[str, Any]] = {
        "Conv2D": {"strides": [1, 1, 1, 1], "pads": [0, 0, 0, 0], "padding": "VALID"},
        "DepthwiseConv2dNative": {"strides": [1, 1, 1, 1], "padding": "VALID"},
        "Conv3D": {"strides": [1, 1, 1, 1, 1], "pads": [0] * 6, "padding": "VALID"},
        "Deconvolution": {"strides": [1, 1], "pads": [0, 0, 0, 0]},
    }
    graph, _ = one_node_graph(op_type, [desc(x), desc(filter_shape)], attrs_by_op[op_type])
    with pytest.raises(InvalidShapeError, match="zero dim") as info:
        opgraph.infer(graph)
    assert "internal error" not in str(info.value)


# --- Caffe: global pooling with a kernel, custom protos ---


def caffe_net(tmp_path: Path, params: str) -> Path:
    text = (
        'input: "x"\ninput_shape { dim: 1 dim: 3 dim: 7 dim: 7 }\n'
        f'layer {{ name: "pool" type: "Pooling" bottom: "x" top: "y" pooling_param {{ {params} }} }}\n'
    )
    path = tmp_path / "net.prototxt"
    path.write_text(text)
    return path


@pytest.mark.parametrize("kernel", ["kernel_size: 3", "kernel_h: 3 kernel_w: 3"])
def test_caffe_global_pooling_with_a_kernel_size_is_an_error(tmp_path: Path, kernel: str) -> None:
    with pytest.raises(ParseError, match="sets both global_pooling: true and 'kernel_") as info:
        load_caffe(caffe_net(tmp_path, f"pool: AVE global_pooling: true {kernel}"))
    assert "'pool'" in str(info.value)
    graph = load_caffe(caffe_net(tmp_path, "pool: AVE global_pooling: true"))
    assert graph.desc(graph.tensor("pool", 0)).shape == (1, 3, 1, 1)


@pytest.mark.parametrize("extra", ["pad: 1", "stride: 2"])
def test_caffe_global_pooling_with_a_pad_or_stride_is_an_error(tmp_path: Path, extra: str) -> None:
    with pytest.raises(ParseError, match="Caffe allows only pad 0 and stride 1"):
        load_caffe(caffe_net(tmp_path, f"pool: AVE global_pooling: true {extra}"))


def custom_error(tmp_path: Path, proto: str) -> str:
    path = tmp_path / "custom.proto"
    path.write_text(proto)
    with pytest.raises(ParseError) as info:
        load_caffe(CAFFE_NET, custom_protos=[path])
    return str(info.value)


@pytest.mark.parametrize(
    ("body", "want"),
    [
        (
            "message P { optional int32 a = 1; }\nmessage P { optional int32 b = 1; }\n",
            ":3:9: message 'P' is defined twice",
        ),
        ("enum E { A = 0; }\nenum E { B = 0; }\n", ":3:6: enum 'E' is defined twice"),
        (
            "message LayerParameter {\n  optional int32 p = 1000;\n  optional int32 p = 1001;\n}\n",
            ":4:18: LayerParameter has two fields with name 'p'",
        ),
    ],
)
def test_a_custom_proto_defining_something_twice_is_an_error(tmp_path: Path, body: str, want: str) -> None:
    message = custom_error(tmp_path, 'syntax = "proto2";\n' + body)
    assert f"custom.proto{want}" in message, message


def test_a_custom_field_taking_a_stock_number_names_both_fields(tmp_path: Path) -> None:
    proto = 'syntax = "proto2";\nmessage LayerParameter {\n  optional string my_name = 1;\n}\n'
    message = custom_error(tmp_path, proto)
    assert "custom.proto:3:" in message, message
    assert "'my_name' = 1 takes the number of LayerParameter's existing field 'name'" in message, message
    assert "not found" not in message


# --- Einsum labels are characters ---


@pytest.mark.parametrize(("equation", "bad"), [("éj,jk->ék", "é"), ("ij,jk->iΩ", "Ω")])
def test_einsum_names_a_non_ascii_label_as_itself(equation: str, bad: str) -> None:
    graph, _ = one_node_graph("Einsum", [[desc([2, 3]), desc([3, 4])]], {"equation": equation})
    with pytest.raises(OpgraphError) as info:
        opgraph.infer(graph)
    assert f"uses '{bad}'" in str(info.value), str(info.value)
    assert "Ã" not in str(info.value)


def test_numpy_agrees_those_equations_are_invalid() -> None:
    with pytest.raises(ValueError):
        np.einsum("éj,jk->ék", np.ones((2, 3)), np.ones((3, 4)))


# --- item 9: a Const of one repeated value stays one value ---

SPLAT_MODEL = """\
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 16384 } dim { size: 16384 } } } } }
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT
    tensor_shape { dim { size: 16384 } dim { size: 16384 } } float_val: 1.5 } } } }
node { name: "y" op: "Add" input: "x" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
"""

# The pipeline on SPLAT_MODEL in a fresh process; prints its peak RSS in
# KiB (VmHWM: getrusage's maxrss would include the forking pytest process).
PIPELINE = """\
import re, sys
from pathlib import Path
import opgraph
g = opgraph.load_tensorflow(sys.argv[1])
opgraph.prepare(g)
opgraph.plan_memory(g)
opgraph.estimate_cost(g)
value = g.desc(g.tensor("c", 0)).value
assert value.shape == (16384, 16384) and float(value[123, 456]) == 1.5
print(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1))
"""


def test_a_splat_const_is_one_read_only_element_in_numpy(tmp_path: Path) -> None:
    path = tmp_path / "splat.pbtxt"
    path.write_text(SPLAT_MODEL)
    graph = load_tensorflow(path)
    value = graph.desc(graph.tensor("c", 0)).value
    assert value is not None
    assert value.shape == (16384, 16384) and value.dtype == np.float32
    # np.broadcast_to of one element: no 1 GiB buffer, and read-only.
    assert value.strides == (0, 0)
    assert not value.flags.writeable
    np.testing.assert_array_equal(value[:3, :3], np.full((3, 3), 1.5, np.float32))


def test_a_splat_const_keeps_the_pipeline_far_below_its_expanded_size(tmp_path: Path) -> None:
    path = tmp_path / "splat.pbtxt"
    path.write_text(SPLAT_MODEL)
    result = subprocess.run(
        [sys.executable, "-c", PIPELINE, str(path)], capture_output=True, text=True, check=True, timeout=120
    )
    peak_mib = int(result.stdout.split()[-1]) / 1024
    # The expanded constant alone is 1024 MiB; the interpreter, numpy and
    # the extension take well under 300.
    assert peak_mib < 300, f"peak RSS {peak_mib:.0f} MiB"


def test_small_splats_still_fold_and_cast(tmp_path: Path) -> None:
    model = """\
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 16 } } } } }
node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 4 } } } }
node { name: "r" op: "Reshape" input: "x" input: "shape"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT
    tensor_shape { dim { size: 4 } dim { size: 8 } } float_val: 0.5 } } } }
node { name: "m" op: "MatMul" input: "r" input: "w"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "transpose_a" value { b: false } }
  attr { key: "transpose_b" value { b: false } } }
"""
    path = tmp_path / "small.pbtxt"
    path.write_text(model)
    graph = load_tensorflow(path)
    assert graph.desc(graph.tensor("r", 0)).shape == (4, 4)
    assert graph.desc(graph.tensor("m", 0)).shape == (4, 8)
    opgraph.prepare(graph, allow_fp32_to_fp16=True)
    weight = graph.desc(graph.tensor("w", 0)).value
    assert weight is not None and weight.dtype == np.float16
    assert weight.strides == (0, 0), "the fp16 cast expanded the splat"
    np.testing.assert_array_equal(weight, np.full((4, 8), 0.5, np.float16))
