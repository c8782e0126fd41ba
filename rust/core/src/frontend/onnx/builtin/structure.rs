//! Graph structure: inputs, initializers and Constant nodes, pass-through
//! ops, and If (whose branches read outer values as extra inputs).

use super::{float_tensor, int64_vector, plugin, renamed, Node};
use crate::frontend::onnx::graph::{CONST, PLACEHOLDER};
use crate::frontend::{Framework, FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::{AttrValue, DataType, HostTensor, Shape};

pub(super) fn plugins() -> Vec<ParserPlugin> {
    vec![
        // Conversion gives Data its descriptor (dtype, shape) and index.
        ParserPlugin::builtin(Framework::Onnx, "Data", &[PLACEHOLDER], |src, dst| {
            for name in ["dtype", "shape"] {
                Node::of(src).copy(dst, name, name);
            }
            Ok(())
        }),
        // Conversion moves `value` onto the output descriptor.
        ParserPlugin::builtin(Framework::Onnx, "Const", &[CONST], |src, dst| {
            Node::of(src).copy(dst, "value", "value");
            Ok(())
        }),
        plugin("Const", "Constant", 1, parse_constant),
        renamed("Identity", "Identity"),
        // The mask is x's dtype until opset 10, BOOL from it.
        plugin("Identity", "Dropout", 1, |src, dst| {
            parse_dropout(src, dst, false)
        }),
        plugin("Identity", "Dropout", 10, |src, dst| {
            parse_dropout(src, dst, true)
        }),
        plugin("If", "If", 1, parse_if),
        plugin("Loop", "Loop", 1, parse_loop),
    ]
}

/// Constant: the value from whichever of `value`, `value_float(s)`,
/// `value_int(s)` is set (`value_string(s)` are strings the IR holds
/// without bytes).
fn parse_constant(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let value = match () {
        _ if node.has("value") => src.attrs.get("value").cloned(),
        _ if node.has("value_float") => Some(AttrValue::Tensor(float_tensor(
            &[node.float_or("value_float", 0.0)? as f32],
            Shape::scalar(),
        ))),
        _ if node.has("value_floats") => {
            let values: Vec<f32> = node
                .floats("value_floats")?
                .unwrap_or_default()
                .iter()
                .map(|&v| v as f32)
                .collect();
            let shape = Shape::from_dims([values.len() as i64]);
            Some(AttrValue::Tensor(float_tensor(&values, shape)))
        }
        _ if node.has("value_int") => Some(AttrValue::Tensor(
            crate::types::HostTensor::from_ints(
                DataType::Int64,
                Shape::scalar(),
                &[node.int_or("value_int", 0)?],
            )
            .expect("INT64 holds any i64"),
        )),
        _ if node.has("value_ints") => Some(AttrValue::Tensor(int64_vector(
            &node.ints("value_ints")?.unwrap_or_default(),
        ))),
        _ => None,
    };
    match value {
        Some(value @ (AttrValue::Tensor(_) | AttrValue::NamedAttrs(_))) => {
            dst.set_attr("value", value);
            Ok(())
        }
        _ => Err(node.error(
            "a Constant needs one of the attributes value, value_float, value_floats, \
             value_int or value_ints (strings and sparse values are not supported)",
        )),
    }
}

/// Dropout at inference passes its input through: Identity, or OnnxDropout
/// when the node has more than x to keep (the `ratio` and `training_mode`
/// inputs of opset 12, or a used `mask` output).
fn parse_dropout(src: &FrameworkOp, dst: &mut OpDraft, bool_mask: bool) -> Result<(), PluginError> {
    let with_mask = Node::of(src).output_count() > 1;
    if with_mask || src.inputs.len() > 1 {
        dst.op_type = "OnnxDropout".into();
        dst.set_dynamic_output("mask", u32::from(with_mask));
        dst.set_attr("bool_mask", AttrValue::Bool(bool_mask));
    }
    Ok(())
}

/// If: `cond`, then the outer values the branches read; each branch is a
/// subgraph taking those values as its arguments.
fn parse_if(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    for branch in ["then_branch", "else_branch"] {
        match src.attrs.get(branch) {
            Some(AttrValue::NamedAttrs(f)) => {
                dst.set_attr(branch, AttrValue::NamedAttrs(f.clone()))
            }
            _ => return Err(node.error(format_args!("If has no graph attribute '{branch}'"))),
        }
    }
    let captured = src.inputs.len().saturating_sub(1);
    dst.set_dynamic_input("input", captured as u32);
    dst.set_dynamic_output("output", node.output_count() as u32);
    Ok(())
}

/// Loop: `[M, cond, v_initial..., outer values...]`; an absent trip count
/// is INT64's largest value and an absent condition true (ONNX's meaning),
/// given as constants so the body's arguments line up with the inputs.
fn parse_loop(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    match src.attrs.get("body") {
        Some(AttrValue::NamedAttrs(f)) => dst.set_attr("body", AttrValue::NamedAttrs(f.clone())),
        _ => return Err(node.error("Loop has no graph attribute 'body'")),
    }
    let own = node.input_count();
    let captured = src.inputs.len().saturating_sub(own);
    if !node.has_input(0) {
        let max = HostTensor::from_ints(DataType::Int64, Shape::scalar(), &[i64::MAX])
            .expect("INT64 holds any i64");
        dst.insert_const_input(0, "max_trip_count", max);
    }
    if !node.has_input(1) {
        let yes = HostTensor::new(DataType::Bool, Shape::scalar(), vec![1u8].into())
            .expect("one BOOL byte");
        dst.insert_const_input(1, "cond", yes);
    }
    let vars = own.saturating_sub(2);
    dst.set_attr("num_loop_vars", AttrValue::Int(vars as i64));
    dst.set_dynamic_input("input", (own.max(2) + captured) as u32);
    dst.set_dynamic_output("output", node.output_count() as u32);
    Ok(())
}
