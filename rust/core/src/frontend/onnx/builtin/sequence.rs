//! Sequence ops (opset 11 on): a sequence is a list handle, as TensorFlow's
//! TensorList is. SequenceEmpty is EmptyTensorList and SequenceAt is
//! TensorListGetItem (constant inputs for what ONNX leaves out); the other
//! ops have IR ops of their own (`ops::sequence`).

use super::{plugin, Node};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::{AttrValue, DataType, HostTensor, Shape};

pub(super) fn plugins() -> Vec<ParserPlugin> {
    vec![
        plugin("EmptyTensorList", "SequenceEmpty", 11, parse_empty),
        plugin("TensorListGetItem", "SequenceAt", 11, parse_at),
        plugin(
            "SequenceConstruct",
            "SequenceConstruct",
            11,
            parse_construct,
        ),
        plugin("SequenceInsert", "SequenceInsert", 11, no_attrs),
        plugin("SequenceErase", "SequenceErase", 11, no_attrs),
        plugin("SequenceLength", "SequenceLength", 11, no_attrs),
        plugin("SplitToSequence", "SplitToSequence", 11, parse_split),
        plugin("ConcatFromSequence", "ConcatFromSequence", 11, parse_concat),
    ]
}

/// An INT32 scalar constant.
fn int32_scalar(value: i64) -> HostTensor {
    HostTensor::from_ints(DataType::Int32, Shape::scalar(), &[value]).expect("INT32 holds -1")
}

/// SequenceEmpty: a list of `dtype` (FLOAT by default) with no element
/// shape (-1) and no bound on its size (-1).
fn parse_empty(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let dtype = Node::of(src).dtype("dtype")?.unwrap_or(DataType::Float);
    dst.set_attr("element_dtype", AttrValue::DataType(dtype));
    dst.insert_const_input(0, "element_shape", int32_scalar(-1));
    dst.insert_const_input(1, "max_num_elements", int32_scalar(-1));
    Ok(())
}

/// SequenceAt: the handle carries the element dtype; the element shape
/// input is -1 (whatever the list holds).
fn parse_at(_src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    dst.insert_const_input(2, "element_shape", int32_scalar(-1));
    Ok(())
}

fn parse_construct(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let count = node.input_count();
    if count == 0 || (0..count).any(|i| !node.has_input(i)) {
        return Err(node.error("SequenceConstruct needs one or more input tensors, none absent"));
    }
    dst.set_dynamic_input("inputs", count as u32);
    Ok(())
}

fn no_attrs(_src: &FrameworkOp, _dst: &mut OpDraft) -> Result<(), PluginError> {
    Ok(())
}

fn parse_split(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    dst.set_attr("axis", AttrValue::Int(node.int_or("axis", 0)?));
    let keepdims = node.int_or("keepdims", 1)?;
    if !matches!(keepdims, 0 | 1) {
        return Err(node.error(format_args!(
            "attribute 'keepdims' must be 0 or 1, got {keepdims}"
        )));
    }
    dst.set_attr("keepdims", AttrValue::Int(keepdims));
    Ok(())
}

fn parse_concat(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let Some(axis) = node.int("axis")? else {
        return Err(node.error("ConcatFromSequence needs the attribute 'axis'"));
    };
    dst.set_attr("axis", AttrValue::Int(axis));
    let new_axis = node.int_or("new_axis", 0)?;
    if !matches!(new_axis, 0 | 1) {
        return Err(node.error(format_args!(
            "attribute 'new_axis' must be 0 or 1, got {new_axis}"
        )));
    }
    dst.set_attr("new_axis", AttrValue::Int(new_axis));
    Ok(())
}
