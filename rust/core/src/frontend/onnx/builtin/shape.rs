//! Shape and index ops. Where an opset turned an attribute into an input
//! (Squeeze / Unsqueeze `axes` at 13, Split `split` at 13, Slice at 10,
//! Pad at 11, TopK `k` at 10, Upsample `scales` at 9), the older form's
//! attribute becomes a constant input, so one IR op serves both forms.

use super::{float_tensor, int64_scalar, int64_vector, plugin, renamed, Node};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::{AttrValue, DataType, HostTensor, Shape};

pub(super) fn plugins() -> Vec<ParserPlugin> {
    vec![
        plugin("Reshape", "Reshape", 1, |src, dst| {
            let allowzero = Node::of(src).int_or("allowzero", 0)?;
            dst.set_attr("allowzero", AttrValue::Int(allowzero));
            Ok(())
        }),
        plugin("Flatten", "Flatten", 1, |src, dst| {
            dst.set_attr("axis", AttrValue::Int(Node::of(src).int_or("axis", 1)?));
            Ok(())
        }),
        plugin("Transpose", "Transpose", 1, parse_transpose),
        plugin("SqueezeV3", "Squeeze", 1, |src, dst| {
            axes_attr(src, dst, false)
        }),
        renamed("SqueezeV3", "Squeeze").with_since(13),
        plugin("UnsqueezeV3", "Unsqueeze", 1, |src, dst| {
            axes_attr(src, dst, true)
        }),
        renamed("UnsqueezeV3", "Unsqueeze").with_since(13),
        plugin("ConcatD", "Concat", 1, parse_concat),
        plugin("SplitVD", "Split", 1, parse_split_attr),
        plugin("SplitV", "Split", 13, |src, dst| {
            parse_split_input(src, dst, "SplitD")
        }),
        plugin("SplitV", "Split", 18, parse_split_18),
        plugin("StridedSliceV2", "Slice", 1, parse_slice_attrs),
        renamed("StridedSliceV2", "Slice").with_since(10),
        plugin("GatherV2", "Gather", 1, |src, dst| {
            let axis = Node::of(src).int_or("axis", 0)?;
            dst.insert_const_input(2, "axis", int64_scalar(axis));
            // ONNX indices may count from the end of the axis.
            dst.set_attr("negative_index_support", AttrValue::Bool(true));
            Ok(())
        }),
        plugin("GatherElements", "GatherElements", 1, |src, dst| {
            dst.set_attr("axis", AttrValue::Int(Node::of(src).int_or("axis", 0)?));
            Ok(())
        }),
        plugin("GatherNd", "GatherND", 1, |src, dst| {
            Node::of(src).copy(dst, "batch_dims", "batch_dims");
            Ok(())
        }),
        plugin("Shape", "Shape", 1, |src, dst| {
            dst.set_attr("out_type", AttrValue::DataType(DataType::Int64));
            let node = Node::of(src);
            node.copy(dst, "start", "start");
            node.copy(dst, "end", "end");
            Ok(())
        }),
        plugin("Size", "Size", 1, |_, dst| {
            dst.set_attr("out_type", AttrValue::DataType(DataType::Int64));
            Ok(())
        }),
        renamed("Expand", "Expand"),
        renamed("Tile", "Tile"),
        renamed("OnnxRange", "Range"),
        plugin("Fill", "ConstantOfShape", 1, parse_constant_of_shape),
        plugin("PadV3", "Pad", 1, parse_pad_attrs),
        plugin("PadV3", "Pad", 11, parse_pad_inputs),
        plugin("Resize", "Resize", 1, parse_resize),
        plugin("Upsample", "Upsample", 1, parse_upsample),
        renamed("NonZero", "NonZero"),
        plugin("TopK", "TopK", 1, |src, dst| parse_topk(src, dst, true)),
        plugin("TopK", "TopK", 10, |src, dst| parse_topk(src, dst, false)),
        plugin("NonMaxSuppressionV6", "NonMaxSuppression", 1, |src, dst| {
            Node::of(src).copy(dst, "center_point_box", "center_point_box");
            Ok(())
        }),
        plugin("ScatterND", "ScatterND", 1, |src, dst| {
            Node::of(src).copy(dst, "reduction", "reduction");
            Ok(())
        }),
        plugin("ScatterElements", "ScatterElements", 1, |src, dst| {
            let node = Node::of(src);
            node.copy(dst, "axis", "axis");
            node.copy(dst, "reduction", "reduction");
            Ok(())
        }),
        plugin("ScatterElements", "Scatter", 1, |src, dst| {
            Node::of(src).copy(dst, "axis", "axis");
            Ok(())
        }),
        plugin("Trilu", "Trilu", 1, |src, dst| {
            Node::of(src).copy(dst, "upper", "upper");
            Ok(())
        }),
        plugin("Cumsum", "CumSum", 1, parse_cumulative),
        plugin("Cumprod", "CumProd", 1, parse_cumulative),
        plugin("OneHotV2", "OneHot", 1, |src, dst| {
            Node::of(src).copy(dst, "axis", "axis");
            Ok(())
        }),
        // ONNX names the axes by role; TensorFlow by dim.
        plugin("ReverseSequence", "ReverseSequence", 1, |src, dst| {
            let node = Node::of(src);
            dst.set_attr("seq_dim", AttrValue::Int(node.int_or("time_axis", 0)?));
            dst.set_attr("batch_dim", AttrValue::Int(node.int_or("batch_axis", 1)?));
            Ok(())
        }),
        plugin("Compress", "Compress", 1, parse_selection_axis),
        plugin("OnnxUnique", "Unique", 1, |src, dst| {
            let node = Node::of(src);
            parse_selection_axis(src, dst)?;
            node.copy(dst, "sorted", "sorted");
            let extra = node.output_count().saturating_sub(1);
            dst.set_dynamic_output("indices", extra as u32);
            Ok(())
        }),
        plugin("CenterCropPad", "CenterCropPad", 1, |src, dst| {
            Node::of(src).copy(dst, "axes", "axes");
            Ok(())
        }),
        plugin("ArgMax", "ArgMax", 1, parse_arg),
        plugin("ArgMin", "ArgMin", 1, parse_arg),
    ]
}

/// CumSum / CumProd: ONNX's int flags as the IR's bools.
fn parse_cumulative(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    for flag in ["exclusive", "reverse"] {
        dst.set_attr(flag, AttrValue::Bool(node.int_or(flag, 0)? != 0));
    }
    Ok(())
}

/// Compress / Unique: without `axis` they select over the flattened input.
fn parse_selection_axis(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let axis = Node::of(src).int("axis")?;
    dst.set_attr("flatten", AttrValue::Bool(axis.is_none()));
    dst.set_attr("axis", AttrValue::Int(axis.unwrap_or(0)));
    Ok(())
}

trait Since {
    /// The same plugin registered for opset `since` instead of 1.
    fn with_since(self, since: i64) -> Self;
}

impl Since for ParserPlugin {
    fn with_since(mut self, since: i64) -> ParserPlugin {
        for origin in &mut self.origin_op_types {
            if let Some((domain, _, op_type)) = crate::frontend::onnx::opset::split_origin(origin) {
                *origin = format!("{domain}::{since}::{op_type}");
            }
        }
        self
    }
}

/// Transpose with `perm` as a constant input; without it ONNX reverses the
/// dims, which the IR op does when it has no perm input.
fn parse_transpose(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    if let Some(perm) = Node::of(src).ints("perm")? {
        dst.insert_const_input(1, "perm", int64_vector(&perm));
    }
    Ok(())
}

/// Squeeze / Unsqueeze before opset 13: the `axes` attribute as input 1
/// (Squeeze without it squeezes every dim of size 1).
fn axes_attr(src: &FrameworkOp, dst: &mut OpDraft, required: bool) -> Result<(), PluginError> {
    let node = Node::of(src);
    match node.ints("axes")? {
        Some(axes) => dst.insert_const_input(1, "axes", int64_vector(&axes)),
        None if required => return Err(node.error("Unsqueeze needs attribute 'axes'")),
        None => {}
    }
    Ok(())
}

fn parse_concat(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let Some(axis) = node.int("axis")? else {
        return Err(node.error("Concat needs attribute 'axis'"));
    };
    let n = src.inputs.len();
    dst.set_attr("concat_dim", AttrValue::Int(axis));
    dst.set_attr("N", AttrValue::Int(n as i64));
    dst.set_dynamic_input("x", n as u32);
    Ok(())
}

/// The outputs of a Split node, sized on the IR op.
fn split_outputs(node: &Node<'_>, dst: &mut OpDraft) -> usize {
    let n = node.output_count().max(1);
    dst.set_attr("num_split", AttrValue::Int(n as i64));
    dst.set_dynamic_output("y", n as u32);
    n
}

/// Split before opset 13: `split` sizes as an attribute, or equal parts.
fn parse_split_attr(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let n = split_outputs(&node, dst);
    dst.set_attr("split_dim", AttrValue::Int(node.int_or("axis", 0)?));
    match node.ints("split")? {
        Some(sizes) => dst.set_attr("size_splits", AttrValue::ListInt(sizes)),
        None => dst.op_type = "SplitD".into(),
    }
    let _ = n;
    Ok(())
}

/// Split from opset 13: `split` sizes as optional input 1; without it,
/// `parts` (SplitD: equal parts).
fn parse_split_input(src: &FrameworkOp, dst: &mut OpDraft, parts: &str) -> Result<(), PluginError> {
    let node = Node::of(src);
    split_outputs(&node, dst);
    let axis = node.int_or("axis", 0)?;
    if node.has_input(1) {
        dst.insert_const_input(2, "split_dim", int64_scalar(axis));
    } else {
        dst.op_type = parts.into();
        dst.set_attr("split_dim", AttrValue::Int(axis));
    }
    Ok(())
}

/// Split from opset 18: without `split`, `num_outputs` parts of
/// `ceil(dim / n)`, the last smaller (OnnxSplit).
fn parse_split_18(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    if let Some(n) = node.int("num_outputs")? {
        if usize::try_from(n).ok() != Some(node.output_count()) {
            return Err(node.error(format_args!(
                "attribute 'num_outputs' is {n}, but the node has {} outputs",
                node.output_count()
            )));
        }
    }
    parse_split_input(src, dst, "OnnxSplit")
}

/// Slice before opset 10: `starts`, `ends` and `axes` attributes.
fn parse_slice_attrs(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let (Some(starts), Some(ends)) = (node.ints("starts")?, node.ints("ends")?) else {
        return Err(node.error("Slice (before opset 10) needs attributes 'starts' and 'ends'"));
    };
    dst.insert_const_input(1, "starts", int64_vector(&starts));
    dst.insert_const_input(2, "ends", int64_vector(&ends));
    if let Some(axes) = node.ints("axes")? {
        dst.insert_const_input(3, "axes", int64_vector(&axes));
    }
    Ok(())
}

/// ConstantOfShape: Fill of the `value` tensor's one element (default a
/// FLOAT zero), as a scalar.
fn parse_constant_of_shape(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let value = match src.attrs.get("value") {
        None => float_tensor(&[0.0], Shape::scalar()),
        Some(AttrValue::Tensor(t)) if t.shape().num_elements() == Ok(Some(1)) => {
            HostTensor::new(t.dtype(), Shape::scalar(), t.bytes().clone())
                .map_err(|e| node.error(format_args!("attribute 'value': {e}")))?
        }
        Some(_) => {
            return Err(node.error("attribute 'value' must be a tensor of one element"));
        }
    };
    dst.insert_const_input(1, "value", value);
    Ok(())
}

/// Pad before opset 11: `pads` and `value` attributes, `mode`.
fn parse_pad_attrs(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let Some(pads) = node.ints("pads")?.or(node.ints("paddings")?) else {
        return Err(node.error("Pad (before opset 11) needs attribute 'pads'"));
    };
    dst.insert_const_input(1, "pads", int64_vector(&pads));
    let value = node.float_or("value", 0.0)? as f32;
    dst.insert_const_input(2, "value", float_tensor(&[value], Shape::scalar()));
    dst.set_attr("mode", AttrValue::Str(node.string_or("mode", "constant")?));
    Ok(())
}

fn parse_pad_inputs(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    dst.set_attr(
        "mode",
        AttrValue::Str(Node::of(src).string_or("mode", "constant")?),
    );
    Ok(())
}

fn parse_resize(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    for name in [
        "mode",
        "coordinate_transformation_mode",
        "nearest_mode",
        "cubic_coeff_a",
        "exclude_outside",
        "extrapolation_value",
        "antialias",
        "axes",
        "keep_aspect_ratio_policy",
    ] {
        node.copy(dst, name, name);
    }
    // Opset 10's Resize took (X, scales): scales is the third IR input.
    if src.op_type.contains("::10::") && src.inputs.len() == 2 {
        dst.insert_const_input(1, "roi", float_tensor(&[], Shape::from_dims([0])));
    }
    Ok(())
}

/// Upsample: opset 7 has `scales` as an attribute, opset 9 as input 1.
fn parse_upsample(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    node.copy(dst, "mode", "mode");
    if let Some(scales) = node.floats("scales")? {
        let values: Vec<f32> = scales.iter().map(|&s| s as f32).collect();
        let shape = Shape::from_dims([values.len() as i64]);
        dst.insert_const_input(1, "scales", float_tensor(&values, shape));
    }
    Ok(())
}

/// TopK: `k` an attribute before opset 10, input 1 after; the axis, and
/// from opset 11 `largest` and `sorted`. Indices are INT64.
fn parse_topk(src: &FrameworkOp, dst: &mut OpDraft, k_attr: bool) -> Result<(), PluginError> {
    let node = Node::of(src);
    if k_attr {
        let Some(k) = node.int("k")? else {
            return Err(node.error("TopK (before opset 10) needs attribute 'k'"));
        };
        dst.insert_const_input(1, "k", int64_vector(&[k]));
    }
    dst.set_attr("dim", AttrValue::Int(node.int_or("axis", -1)?));
    dst.set_attr("largest", AttrValue::Bool(node.int_or("largest", 1)? != 0));
    dst.set_attr("sorted", AttrValue::Bool(node.int_or("sorted", 1)? != 0));
    dst.set_attr("indices_dtype", AttrValue::DataType(DataType::Int64));
    Ok(())
}

/// ArgMax / ArgMin: the axis as a constant input; INT64 output. ONNX keeps
/// the reduced dim by default, which the IR op does not.
fn parse_arg(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    dst.set_attr(
        "keep_dims",
        AttrValue::Bool(node.int_or("keepdims", 1)? != 0),
    );
    dst.insert_const_input(1, "axis", int64_scalar(node.int_or("axis", 0)?));
    dst.set_attr("output_type", AttrValue::DataType(DataType::Int64));
    Ok(())
}
