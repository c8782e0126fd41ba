//! What must hold after `infer_graph`, whatever graph it was given. Each
//! violated property panics with the node and the shapes involved, which
//! libFuzzer reports as a crash.

use crate::reference::{self, Padding};
use opgraph_core::prelude::*;
use std::collections::HashSet;

/// A node, qualified by the caller/body names above it (as `NodeError`).
type QualifiedName = (Vec<String>, String);

/// Infers `graph` with `collect_errors`, checks the failures and every
/// node that inferred, then checks that the other error mode agrees.
pub fn check_inference(graph: Graph, registry: &OpRegistry, collect_errors: bool) {
    let mut graph = graph;
    let mut other_mode = graph.clone();
    let result = infer_graph(&mut graph, registry, InferOptions { collect_errors });
    let failures = result.as_ref().err().map_or(&[][..], Vec::as_slice);
    check_failures(failures);
    check_graph(&graph, &[], &failed_nodes(failures));

    let other = infer_graph(
        &mut other_mode,
        registry,
        InferOptions {
            collect_errors: !collect_errors,
        },
    );
    check_modes_agree(
        failures,
        other.as_ref().err().map_or(&[][..], Vec::as_slice),
    );
}

/// The engine turns a panic inside an op function into an error saying
/// "internal error"; every such error is a bug in the core.
fn check_failures(failures: &[InferFailure]) {
    for failure in failures {
        let text = failure.to_string();
        assert!(!text.contains("internal error"), "a caught panic: {text}");
    }
}

/// Stopping at the first failure and collecting them all walk the same
/// order, so they must agree on success and on the first failure.
fn check_modes_agree(a: &[InferFailure], b: &[InferFailure]) {
    let first = |f: &[InferFailure]| f.first().map(ToString::to_string);
    assert_eq!(first(a), first(b), "the two error modes disagree");
}

fn failed_nodes(failures: &[InferFailure]) -> HashSet<QualifiedName> {
    failures
        .iter()
        .filter_map(|f| match f {
            InferFailure::Node(e) => Some((e.path.clone(), e.node.clone())),
            InferFailure::Cycle { .. } => None,
        })
        .collect()
}

/// Checks every node of `graph` (bodies included) that inferred.
fn check_graph(graph: &Graph, path: &[String], failed: &HashSet<QualifiedName>) {
    for node in graph.nodes() {
        for body in &node.subgraphs {
            let inner = [path, &[node.name.clone(), body.name.clone()]].concat();
            check_graph(&body.graph, &inner, failed);
        }
        if inferred(node, path, failed) {
            check_node(graph, node);
        }
    }
}

/// A node inferred when it is not reported and every output got a dtype:
/// the engine checks dtypes last, and nodes it never reached (stopped
/// early, skipped after a failure, cycle) keep the builder's UNDEFINED.
/// Nodes without outputs have nothing to check.
fn inferred(node: &Node, path: &[String], failed: &HashSet<QualifiedName>) -> bool {
    !node.outputs.is_empty()
        && !failed.contains(&(path.to_vec(), node.name.clone()))
        && node.outputs.iter().all(|o| o.dtype != DataType::Undefined)
}

fn check_node(graph: &Graph, node: &Node) {
    for (i, out) in node.outputs.iter().enumerate() {
        assert!(
            Shape::new(out.shape().dims()).is_ok(),
            "node '{}' output {i} has shape {:?}, which breaks GE's conventions",
            node.name,
            out.shape().dims()
        );
    }
    match node.op_type.as_str() {
        "Add" => check_add(graph, node),
        "Identity" => check_identity(graph, node),
        "Reshape" => check_reshape(graph, node),
        "Conv2D" => check_conv2d(graph, node),
        "PartitionedCall" => check_call(node),
        _ => {}
    }
}

/// The descriptor feeding input instance `i` of a node that inferred.
fn input<'g>(graph: &'g Graph, node: &Node, i: usize) -> &'g TensorDesc {
    let edge = node.inputs[i].expect("a node that inferred has its required inputs");
    graph.tensor(edge)
}

fn output_dims(node: &Node) -> &[i64] {
    node.outputs[0].shape().dims()
}

fn check_add(graph: &Graph, node: &Node) {
    let (a, b) = (
        input(graph, node, 0).shape().dims(),
        input(graph, node, 1).shape().dims(),
    );
    let expected = reference::broadcast(a, b);
    assert_eq!(
        Some(output_dims(node)),
        expected.as_deref(),
        "Add '{}' of {a:?} and {b:?}: output vs reference broadcast",
        node.name
    );
}

fn check_identity(graph: &Graph, node: &Node) {
    let x = input(graph, node, 0);
    let y = &node.outputs[0];
    assert_eq!(
        y.shape(),
        x.shape(),
        "Identity '{}' changed the shape",
        node.name
    );
    assert_eq!(
        y.dtype, x.dtype,
        "Identity '{}' changed the dtype",
        node.name
    );
}

fn check_reshape(graph: &Graph, node: &Node) {
    let x = input(graph, node, 0).shape().dims();
    let y = output_dims(node);
    if let (Some(before), Some(after)) = (static_count(x), static_count(y)) {
        assert_eq!(
            before, after,
            "Reshape '{}' of {x:?} into {y:?} changed the element count",
            node.name
        );
    }
    let target = input(graph, node, 1)
        .value
        .as_ref()
        .and_then(|v| v.to_ints());
    if let (Some(target), true) = (target, is_whole_reshape(node)) {
        check_reshape_target(node, &target, y);
    }
}

/// With a known target (and no axis range), the output is the target with
/// only its `-1` resolved.
fn check_reshape_target(node: &Node, target: &[i64], y: &[i64]) {
    let matches = y.len() == target.len() && y.iter().zip(target).all(|(&d, &t)| t == -1 || d == t);
    assert!(
        matches,
        "Reshape '{}' to target {target:?} produced {y:?}",
        node.name
    );
}

fn is_whole_reshape(node: &Node) -> bool {
    int_attr(node, "axis", 0) == Some(0) && int_attr(node, "num_axes", -1) == Some(-1)
}

/// The element count of a fully known shape (wide, so it cannot wrap);
/// `None` for unknown dims or rank, or a count beyond i128.
fn static_count(dims: &[i64]) -> Option<i128> {
    if dims.iter().any(|&d| d < 0) {
        return None;
    }
    dims.iter()
        .try_fold(1i128, |acc, &d| acc.checked_mul(d.into()))
}

fn check_conv2d(graph: &Graph, node: &Node) {
    let y = output_dims(node);
    assert_eq!(y.len(), 4, "Conv2D '{}' output {y:?} is not 4-D", node.name);
    let x = input(graph, node, 0);
    let filter = input(graph, node, 1);
    let nchw = str_attr(node, "data_format", "NHWC") == "NCHW";
    // (N, C, H, W) positions of the activations.
    let (c, h, w) = if nchw { (1, 2, 3) } else { (3, 1, 2) };
    let (f_out, f_h, f_w) = filter_axes(filter.origin_format, nchw);
    let dim = |d: &TensorDesc, i: usize| {
        if d.shape().is_unknown_rank() {
            -1
        } else {
            d.shape().dims()[i]
        }
    };

    let what = format!(
        "Conv2D '{}' (x {:?}, filter {:?} {}, attrs {:?}) produced {y:?}",
        node.name,
        x.shape().dims(),
        filter.shape().dims(),
        filter.origin_format,
        node.attrs
    );
    assert_eq!(y[0], dim(x, 0), "batch dim: {what}");
    assert_eq!(
        y[c],
        dim(filter, f_out),
        "channels vs filter output channels: {what}"
    );

    let strides = int_list_attr(node, "strides");
    let dilations = int_list_attr(node, "dilations").unwrap_or_else(|| vec![1; 4]);
    let pads = int_list_attr(node, "pads");
    let (Some(strides), Some(pads)) = (strides, pads) else {
        panic!(
            "Conv2D '{}' inferred without strides or pads: {what}",
            node.name
        );
    };
    let padding = str_attr(node, "padding", "");
    for (axis, k_axis, before, after) in [(h, f_h, pads[0], pads[1]), (w, f_w, pads[2], pads[3])] {
        let mode = match padding.as_str() {
            "SAME" => Padding::Same,
            "VALID" => Padding::Valid,
            _ => Padding::Explicit { before, after },
        };
        let expected = reference::conv_output_dim(
            dim(x, axis),
            dim(filter, k_axis),
            strides[axis],
            dilations[axis],
            mode,
        );
        assert_eq!(Some(y[axis]), expected, "spatial axis {axis}: {what}");
    }
}

/// (output channels, kernel height, kernel width) positions in a filter:
/// its own layout when it has one, else TensorFlow's HWCN, or OIHW next to
/// NCHW activations.
fn filter_axes(format: Format, nchw_data: bool) -> (usize, usize, usize) {
    match format {
        Format::Nchw => (0, 2, 3),
        Format::Nhwc => (0, 1, 2),
        Format::Nd if nchw_data => (0, 2, 3),
        _ => (3, 0, 1), // HWCN (any other format was rejected)
    }
}

/// A call's outputs are its body's outputs.
fn check_call(node: &Node) {
    let body = node
        .subgraph("f")
        .expect("a call that inferred has its body 'f'");
    assert_eq!(body.outputs().len(), node.outputs.len());
    for (i, (&edge, out)) in body.outputs().iter().zip(&node.outputs).enumerate() {
        assert_eq!(
            out.shape(),
            body.tensor(edge).shape(),
            "PartitionedCall '{}' output {i} differs from its body's",
            node.name
        );
    }
}

fn int_attr(node: &Node, name: &str, default: i64) -> Option<i64> {
    match node.attrs.get(name) {
        None => Some(default),
        Some(AttrValue::Int(v)) => Some(*v),
        Some(_) => None,
    }
}

fn int_list_attr(node: &Node, name: &str) -> Option<Vec<i64>> {
    match node.attrs.get(name) {
        Some(AttrValue::ListInt(v)) => Some(v.clone()),
        _ => None,
    }
}

fn str_attr(node: &Node, name: &str, default: &str) -> String {
    match node.attrs.get(name) {
        Some(AttrValue::Str(s)) => s.clone(),
        _ => default.into(),
    }
}
