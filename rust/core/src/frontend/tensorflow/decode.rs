//! A decoded GraphDef message → [`FrameworkGraph`]: nodes with parsed
//! inputs and converted attributes, and the function library.

use super::attrs::{convert_sorted_attrs, sorted_attrs, text, SortedAttrs};
use super::dtype::tf_dtype_name;
use super::functions::{convert_encoded_function, convert_function};
use super::inputs::{parse_input, NodeInput};
use super::parse::ParsedGraph;
use super::pb;
use super::pb::attr_value::Value;
use super::site::Site;
use crate::budget::Budget;
use crate::frontend::error::decode_error_text;
use crate::frontend::{Framework, FrameworkGraph, FrameworkOp, FrontendError};
use crate::types::AttrValue;
use bytes::Bytes;
use prost::Message;
use smallvec::SmallVec;

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
    let (ops, functions) = match graph {
        ParsedGraph::Binary(graph) => {
            let budget = Budget::for_this_process();
            budget.check_with(graph.node.len().saturating_mul(FRAMEWORK_BYTES_PER_NODE))?;
            let mut ops = Vec::with_capacity(graph.node.len());
            // One message decodes every node in turn: clearing keeps its
            // lists' room, so the input and attr lists are allocated once
            // per graph rather than once per node.
            let mut node = pb::NodeDefSlices::default();
            for (index, encoded) in graph.node.into_iter().enumerate() {
                budget.check()?;
                ops.push(convert_encoded(&mut node, encoded, None, || {
                    format!("node {index}")
                })?);
            }
            let functions = graph.library.as_ref().map_or(Ok(Vec::new()), |library| {
                library
                    .function
                    .iter()
                    .map(convert_encoded_function)
                    .collect()
            })?;
            (ops, functions)
        }
        ParsedGraph::Text(graph) => {
            let ops = graph
                .node
                .iter()
                .map(|node| convert_node(node, None))
                .collect::<Result<Vec<_>, _>>()?;
            let functions = graph.library.as_ref().map_or(Ok(Vec::new()), |library| {
                library.function.iter().map(convert_function).collect()
            })?;
            (ops, functions)
        }
    };
    Ok(FrameworkGraph {
        name: name.to_owned(),
        framework: Framework::TensorFlow,
        ops,
        functions,
    })
}

/// A NodeDef's fields, borrowed from whichever message decoded it (text
/// checked as UTF-8 once); attrs sorted by key, each key once.
pub(super) struct NodeView<'a> {
    name: &'a str,
    op: &'a str,
    /// Most nodes have a few inputs: held inline, no allocation.
    inputs: SmallVec<[&'a str; 4]>,
    device: &'a str,
    attrs: SortedAttrs<'a>,
}

impl<'a> NodeView<'a> {
    fn of_node(node: &'a pb::NodeDef) -> NodeView<'a> {
        NodeView {
            name: &node.name,
            op: &node.op,
            inputs: node.input.iter().map(String::as_str).collect(),
            device: &node.device,
            attrs: sorted_attrs(&node.attr),
        }
    }

    /// Checks the strings as NodeDef's decoder would (UTF-8) and resolves a
    /// repeated attr key as its map does (the last entry wins).
    fn of_slices(node: &'a pb::NodeDefSlices) -> Result<NodeView<'a>, String> {
        let utf8 = |field: &str, bytes: &'a [u8]| {
            std::str::from_utf8(bytes).map_err(|_| format!("its {field} is not UTF-8"))
        };
        let inputs = node
            .input
            .iter()
            .map(|input| utf8("input", input))
            .collect::<Result<_, _>>()?;
        let mut attrs = SortedAttrs::with_capacity(node.attr.len());
        for entry in &node.attr {
            let value = entry.value.as_ref().unwrap_or(default_attr_value());
            attrs.push((utf8("attr key", &entry.key)?, value));
        }
        // Stable, so equal keys keep their wire order and the last is kept.
        attrs.sort_by(|a, b| a.0.cmp(b.0));
        attrs.reverse();
        attrs.dedup_by(|later, earlier| later.0 == earlier.0);
        attrs.reverse();
        Ok(NodeView {
            name: utf8("name", &node.name)?,
            op: utf8("op", &node.op)?,
            inputs,
            device: utf8("device", &node.device)?,
            attrs,
        })
    }
}

/// The value a map entry without one decodes to.
fn default_attr_value() -> &'static pb::AttrValue {
    static EMPTY: pb::AttrValue = pb::AttrValue { value: None };
    &EMPTY
}

/// One NodeDef of the graph (`function: None`) or of a function body.
/// Decodes `encoded` into `node` (which keeps its lists' room from the
/// node before) and converts it; `position` names it in a decode error
/// ("node 3").
pub(super) fn convert_encoded(
    node: &mut pb::NodeDefSlices,
    encoded: Bytes,
    function: Option<&str>,
    position: impl Fn() -> String,
) -> Result<FrameworkOp, FrontendError> {
    let not_node_def = |e: &dyn std::fmt::Display| {
        FrontendError::Decode(format!("{} is not a NodeDef: {e}", position()))
    };
    node.clear();
    node.merge(encoded)
        .map_err(|e| not_node_def(&decode_error_text(&e)))?;
    let view = NodeView::of_slices(node).map_err(|e| not_node_def(&e))?;
    convert_view(&view, function)
}

pub(super) fn convert_node(
    node: &pb::NodeDef,
    function: Option<&str>,
) -> Result<FrameworkOp, FrontendError> {
    convert_view(&NodeView::of_node(node), function)
}

fn convert_view(node: &NodeView<'_>, function: Option<&str>) -> Result<FrameworkOp, FrontendError> {
    let site = Site {
        node: node.name,
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
        name: node.name.to_owned(),
        op_type: node.op.into(),
        ..FrameworkOp::default()
    };
    op.inputs.reserve_exact(node.inputs.len());
    for &input in &node.inputs {
        match parse_input(input, function.is_some()).map_err(|why| site.error(why))? {
            NodeInput::Data(data) => op.inputs.push(data),
            NodeInput::Control(name) => op.control_inputs.push(name),
        }
    }
    if !op.control_inputs.is_empty() {
        op.inputs.shrink_to_fit();
    }
    op.attrs = convert_sorted_attrs(&node.attrs).map_err(|bad| site.attr_error(bad))?;
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
fn check_const_dtype(node: &NodeView<'_>) -> Result<(), String> {
    if node.op != "Const" {
        return Ok(());
    }
    let value = |name: &str| {
        let at = node.attrs.binary_search_by(|(k, _)| (*k).cmp(name)).ok()?;
        node.attrs[at].1.value.as_ref()
    };
    match (value("dtype"), value("value")) {
        (Some(Value::Type(dtype)), Some(Value::Tensor(t))) if t.dtype != *dtype => Err(format!(
            "has dtype {} but its value is a {} tensor; they must match",
            tf_dtype_name(*dtype),
            tf_dtype_name(t.dtype)
        )),
        _ => Ok(()),
    }
}
