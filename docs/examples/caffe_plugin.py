"""A Caffe layer opgraph does not know: its parameters in a custom.proto, an
IR op and a plugin (the "Parser plugins" guide includes this file).

    python docs/examples/caffe_plugin.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import opgraph
from opgraph import DataType, FollowType, Format, InferShapeContext, OpDef
from opgraph.caffe import FrameworkOp, Operator
from opgraph.caffe import plugin as caffe_plugin

# 1. Its parameters: LayerParameter gains `upsample_param` (a field number
#    Caffe does not use; custom messages may use caffe.proto's own types).
UPSAMPLE_PROTO = """
syntax = "proto2";
package caffe;
message LayerParameter {
  optional UpsampleParameter upsample_param = 1000;
}
message UpsampleParameter {
  optional uint32 scale = 1 [default = 2];
  optional uint32 scale_h = 2;
  optional uint32 scale_w = 3;
}
"""
UPSAMPLE_NET = """
name: "upsample_head"
input: "data"
input_shape { dim: 1 dim: 16 dim: 13 dim: 13 }
input: "skip"
input_shape { dim: 1 dim: 8 dim: 26 dim: 39 }
layer { name: "reduce" type: "Convolution" bottom: "data" top: "reduce"
        convolution_param { num_output: 8 kernel_size: 1 } }
layer { name: "up" type: "Upsample" bottom: "reduce" top: "up"
        upsample_param { scale: 2 scale_w: 3 } }
layer { name: "merge" type: "Concat" bottom: "up" bottom: "skip" top: "merge"
        concat_param { axis: 1 } }
"""

# 2. The IR op: NCHW in, each spatial dim multiplied by its scale.
upsample = OpDef("DocsNearestUpsample")
upsample.input("x", dtypes=[DataType.FLOAT, DataType.FLOAT16], formats=[Format.NCHW])
upsample.output("y", dtypes=[DataType.FLOAT, DataType.FLOAT16], follow=("x", FollowType.FORMAT))
upsample.attr("scale_h", int, default=2)
upsample.attr("scale_w", int, default=2)


@upsample.infer_shape
def infer_upsample(ctx: InferShapeContext) -> None:
    n, c, h, w = ctx.input_shape(0)
    sh, sw = ctx.attr_int("scale_h"), ctx.attr_int("scale_w")
    ctx.set_output_shape(0, (n, c, h * sh if h >= 0 else -1, w * sw if w >= 0 else -1))


opgraph.register(upsample)


# 3. The plugin. `src` holds the layer's parameters by field name (nested
#    messages flattened, declared defaults filled in, enums as numbers), its
#    `bottom` and `top` names, and its inputs: the bottoms, then its blobs.
@caffe_plugin("DocsNearestUpsample", origin_op_types=["Upsample"])
def parse_upsample(src: FrameworkOp, dst: Operator) -> None:
    scale = src.get_int("scale", 2)  # typed: a ParseError names the layer if it is not an int
    dst.set_int("scale_h", src.get_int("scale_h", scale))
    dst.set_int("scale_w", src.get_int("scale_w", scale))


with tempfile.TemporaryDirectory() as tmp:
    (Path(tmp) / "upsample.proto").write_text(UPSAMPLE_PROTO)
    (Path(tmp) / "head.prototxt").write_text(UPSAMPLE_NET)
    head = opgraph.load_caffe(Path(tmp) / "head.prototxt", custom_protos=[Path(tmp) / "upsample.proto"])

up = head.node("up")
assert up.op_type == "DocsNearestUpsample" and (up.attrs["scale_h"], up.attrs["scale_w"]) == (2, 3)
assert [out.shape for out in up.outputs] == [(1, 8, 26, 39)]
assert [out.shape for out in head.node("merge").outputs] == [(1, 16, 26, 39)]
