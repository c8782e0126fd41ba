//! A decoded GraphDef message → [`FrameworkGraph`]: nodes with parsed
//! inputs and converted attributes, and the function library.

use super::attrs::{convert_attrs, text};
use super::dtype::tf_dtype_name;
use super::functions::convert_function;
use super::inputs::{parse_input, NodeInput};
use super::parse::ParsedGraph;
use super::pb;
use super::pb::attr_value::Value;
use super::site::Site;
use crate::budget::Budget;
use crate::frontend::{Framework, FrameworkGraph, FrameworkOp, FrontendError};
use crate::types::AttrValue;
use prost::Message;

/// The attr holding a node's `device` field (when set). TensorFlow keeps
/// placement outside the attr map; the underscore marks it as not an op
/// attribute, as TensorFlow does for its own internal attrs.
pub const DEVICE_ATTR: &str = "_device";

/// What one decoded framework op takes, about (a million-node Relu chain
/// holds 0.48 KiB per op): decoding stops up front when the ops cannot fit.
const FRAMEWORK_BYTES_PER_NODE: usize = 600;

pub(super) fn convert_graph(
    graph: ParsedGraph,
    name: &str,
) -> Result<FrameworkGraph, FrontendError> {
    // One NodeDef at a time, dropped once converted: the decoded nodes and
    // the framework graph are never both whole in memory.
    let (ops, library) = match graph {
        ParsedGraph::Binary(graph) => {
            let budget = Budget::for_this_process();
            budget.check_with(graph.node.len().saturating_mul(FRAMEWORK_BYTES_PER_NODE))?;
            let mut ops = Vec::with_capacity(graph.node.len());
            for (index, encoded) in graph.node.into_iter().enumerate() {
                budget.check()?;
                let node = pb::NodeDef::decode(encoded).map_err(|e| {
                    FrontendError::Decode(format!("node {index} is not a NodeDef: {e}"))
                })?;
                ops.push(convert_node(&node, None)?);
            }
            (ops, graph.library)
        }
        ParsedGraph::Text(graph) => {
            let ops = graph
                .node
                .into_iter()
                .map(|node| convert_node(&node, None))
                .collect::<Result<Vec<_>, _>>()?;
            (ops, graph.library)
        }
    };
    let functions = match &library {
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
    op.inputs.reserve_exact(node.input.len());
    for input in &node.input {
        match parse_input(input, function.is_some()).map_err(|why| site.error(why))? {
            NodeInput::Data(data) => op.inputs.push(data),
            NodeInput::Control(name) => op.control_inputs.push(name),
        }
    }
    if !op.control_inputs.is_empty() {
        op.inputs.shrink_to_fit();
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
