//! A decoded GraphDef message → [`FrameworkGraph`]: nodes with parsed
//! inputs and converted attributes, and the function library.

use super::attrs::{convert_attrs, text};
use super::dtype::tf_dtype_name;
use super::functions::convert_function;
use super::inputs::{parse_input, NodeInput};
use super::pb;
use super::pb::attr_value::Value;
use super::site::Site;
use crate::frontend::{Framework, FrameworkGraph, FrameworkOp, FrontendError};
use crate::types::AttrValue;

/// The attr holding a node's `device` field (when set). TensorFlow keeps
/// placement outside the attr map; the underscore marks it as not an op
/// attribute, as TensorFlow does for its own internal attrs.
pub const DEVICE_ATTR: &str = "_device";

pub(super) fn convert_graph(
    graph: pb::GraphDef,
    name: &str,
) -> Result<FrameworkGraph, FrontendError> {
    let ops = graph
        .node
        .iter()
        .map(|node| convert_node(node, None))
        .collect::<Result<Vec<_>, _>>()?;
    let functions = match &graph.library {
        Some(library) => library
            .function
            .iter()
            .map(convert_function)
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    Ok(FrameworkGraph {
        name: name.to_owned(),
        framework: Framework::TensorFlow,
        ops,
        functions,
    })
}

/// One NodeDef of the graph (`function: None`) or of a function body.
pub(super) fn convert_node(
    node: &pb::NodeDef,
    function: Option<&str>,
) -> Result<FrameworkOp, FrontendError> {
    let site = Site {
        node: &node.name,
        function,
    };
    if node.name.is_empty() {
        let place = function.map_or(String::new(), |f| format!(" in function '{f}'"));
        return Err(FrontendError::Decode(format!(
            "a '{}' node{place} has no name; every node needs one",
            node.op
        )));
    }
    if node.op.is_empty() {
        return Err(site.error("has no op type"));
    }
    let mut op = FrameworkOp {
        name: node.name.clone(),
        op_type: node.op.clone(),
        ..FrameworkOp::default()
    };
    for input in &node.input {
        match parse_input(input, function.is_some()).map_err(|why| site.error(why))? {
            NodeInput::Data(data) => op.inputs.push(data),
            NodeInput::Control(name) => op.control_inputs.push(name),
        }
    }
    op.attrs = convert_attrs(&node.attr).map_err(|bad| site.attr_error(bad))?;
    check_const_dtype(node).map_err(|why| site.error(why))?;
    if !node.device.is_empty() {
        op.attrs
            .set(DEVICE_ATTR, AttrValue::Str(text(node.device.as_bytes())));
    }
    Ok(op)
}

/// A Const's `dtype` attr must name its `value` tensor's type, as
/// TensorFlow's Const kernel requires ("Type mismatch between value and
/// dtype"); otherwise consumers would be typed by one and read the other.
fn check_const_dtype(node: &pb::NodeDef) -> Result<(), String> {
    if node.op != "Const" {
        return Ok(());
    }
    let value = |name: &str| node.attr.get(name).and_then(|a| a.value.as_ref());
    match (value("dtype"), value("value")) {
        (Some(Value::Type(dtype)), Some(Value::Tensor(t))) if t.dtype != *dtype => Err(format!(
            "has dtype {} but its value is a {} tensor; they must match",
            tf_dtype_name(*dtype),
            tf_dtype_name(t.dtype)
        )),
        _ => Ok(()),
    }
}
