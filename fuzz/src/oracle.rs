//! What must hold after `infer_graph`, whatever graph it was given. Each
//! violated property panics with the node and the shapes involved, which
//! libFuzzer reports as a crash.

use crate::reference::{self, Padding};
use opgraph_core::prelude::*;
use std::collections::HashSet;

/// A node, qualified by the caller/body names above it (as `NodeError`).
type QualifiedName = (Vec<String>, String);

/// Infers `graph` with `collect_errors`, checks the failures and every
/// node that inferred, then checks that inferring again changes nothing and
/// that the other error mode agrees.
pub fn check_inference(mut graph: Graph, registry: &OpRegistry, collect_errors: bool) {
    let mut other_mode = graph.clone();
    let options = InferOptions {
        collect_errors,
        ..InferOptions::default()
    };
    let result = infer_graph(&mut graph, registry, options);
    let failures = result.as_ref().err().map_or(&[][..], Vec::as_slice);
    check_failures(&graph, failures);
    check_graph(&graph, &[], &failed_nodes(failures));

    // A pass can be run again on its own output (a Python user re-running
    // `opgraph.infer`): same failures, same descriptors.
    let mut again = graph.clone();
    let second = infer_graph(&mut again, registry, options);
    let texts = |f: &[InferFailure]| f.iter().map(ToString::to_string).collect::<Vec<_>>();
    let second_failures = second.as_ref().err().map_or(&[][..], Vec::as_slice);
    assert_eq!(
        texts(failures),
        texts(second_failures),
        "inferring twice fails differently"
    );
    check_same_outputs(&graph, &again);

    let other = infer_graph(
        &mut other_mode,
        registry,
        InferOptions {
            collect_errors: !collect_errors,
            ..InferOptions::default()
        },
    );
    check_modes_agree(
        failures,
        other.as_ref().err().map_or(&[][..], Vec::as_slice),
    );
}

/// Every failure names nodes that exist, a reported cycle is one, and no
/// failure is a caught panic: the engine reports a panic inside an op
/// function as a failure of [`Stage::Internal`] (an `InternalError` in
/// Python), always a core bug, so it is a crash here.
fn check_failures(root: &Graph, failures: &[InferFailure]) {
    for failure in failures {
        let text = failure.to_string();
        match failure {
            InferFailure::Node(e) => {
                assert!(
                    e.stage != Stage::Internal,
                    "an internal error (a caught panic): {text}"
                );
                let graph = graph_at(root, &e.path, &text);
                assert!(graph.find(&e.node).is_some(), "no such node: {text}");
            }
            InferFailure::Cycle { path, error } => {
                check_cycle(graph_at(root, path, &text), &error.nodes);
            }
        }
    }
}

/// The graph a failure's path (`[caller, body, caller, body, ...]`) names.
fn graph_at<'g>(root: &'g Graph, path: &[String], failure: &str) -> &'g Graph {
    let found = path.chunks(2).try_fold(root, |graph, step| {
        let [caller, body] = step else { return None };
        graph.node(graph.find(caller)?).subgraph(body)
    });
    found.unwrap_or_else(|| panic!("no body at {path:?} for failure: {failure}"))
}

/// `nodes` must walk producer → consumer edges (data or control) and come
/// back to where it started.
fn check_cycle(graph: &Graph, nodes: &[String]) {
    assert!(
        nodes.len() >= 2 && nodes.first() == nodes.last(),
        "not a closed cycle: {nodes:?}"
    );
    let id = |name: &String| {
        graph
            .find(name)
            .unwrap_or_else(|| panic!("cycle names unknown node {name}"))
    };
    for pair in nodes.windows(2) {
        let (producer, consumer) = (id(&pair[0]), id(&pair[1]));
        let node = graph.node(consumer);
        let fed = node.inputs.iter().flatten().any(|e| e.node == producer)
            || node.control_inputs.contains(&producer);
        assert!(
            fed,
            "reported cycle {nodes:?} has no edge {} -> {}",
            pair[0], pair[1]
        );
    }
}

/// Every node of `a` and `b` (bodies included) has the same outputs.
fn check_same_outputs(a: &Graph, b: &Graph) {
    for (x, y) in a.nodes().iter().zip(b.nodes()) {
        assert_eq!(
            x.outputs, y.outputs,
            "node '{}' changed when inferred twice",
            x.name
        );
        for (bx, by) in x.subgraphs.iter().zip(&y.subgraphs) {
            check_same_outputs(&bx.graph, &by.graph);
        }
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
    let (x, filter) = (input(graph, node, 0), input(graph, node, 1));
    let what = format!(
        "Conv2D '{}' (x {:?}, filter {:?} {}, attrs {:?}) produced {y:?}",
        node.name,
        x.shape().dims(),
        filter.shape().dims(),
        filter.origin_format,
        node.attrs
    );
    assert_eq!(y.len(), 4, "not 4-D: {what}");
    let nchw = str_attr(node, "data_format", "NHWC") == "NCHW";
    let Some(axes) = reference::filter_axes(filter.origin_format, nchw) else {
        panic!("accepted an unsupported filter format: {what}");
    };
    // Activations are NCHW or NHWC: N first either way.
    let (c, h, w) = if nchw { (1, 2, 3) } else { (3, 1, 2) };
    assert_eq!(y[0], dim_at(x, 0), "batch dim: {what}");
    assert_eq!(
        y[c],
        dim_at(filter, axes.cout),
        "channels vs the filter's output channels: {what}"
    );

    let (Some(strides), Some(pads)) = (int_list_attr(node, "strides"), int_list_attr(node, "pads"))
    else {
        panic!("inferred without strides or pads: {what}");
    };
    let dilations = int_list_attr(node, "dilations").unwrap_or_else(|| vec![1; 4]);
    let padding = str_attr(node, "padding", "");
    // `pads` is [top, bottom, left, right] whatever the layout.
    for (axis, k_axis, before, after) in
        [(h, axes.h, pads[0], pads[1]), (w, axes.w, pads[2], pads[3])]
    {
        let mode = match padding.as_str() {
            "SAME" => Padding::Same,
            "VALID" => Padding::Valid,
            _ => Padding::Explicit { before, after },
        };
        let (input, kernel) = (dim_at(x, axis), dim_at(filter, k_axis));
        let expected =
            reference::conv_output_dim(input, kernel, strides[axis], dilations[axis], mode);
        assert_eq!(Some(y[axis]), expected, "spatial axis {axis}: {what}");
    }
}

/// Dim `i` of a 4-D (or unknown-rank) tensor; -1 when the rank is unknown.
fn dim_at(desc: &TensorDesc, i: usize) -> i64 {
    match desc.shape().rank() {
        None => -1,
        Some(_) => desc.shape().dims()[i],
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

#[cfg(test)]
mod tests {
    use super::*;

    fn input(g: &mut Graph, name: &str, dims: &[i64], format: Format) -> OutputRef {
        let desc = TensorDesc::new(DataType::Float, Shape::from_dims(dims), format);
        g.add_input_node(name, desc).unwrap()
    }

    fn op(
        g: &mut Graph,
        r: &OpRegistry,
        op_type: &str,
        inputs: &[OutputRef],
        attrs: Attrs,
    ) -> NodeId {
        let spec = OpSpec {
            op_type: op_type.into(),
            name: op_type.to_lowercase(),
            inputs: inputs.iter().map(|&e| PortInput::Single(Some(e))).collect(),
            attrs,
            ..OpSpec::default()
        };
        add_op(g, r, spec).unwrap()
    }

    /// Conv2D from the core's own tests, plus an Add that broadcasts.
    fn inferred_graph(r: &OpRegistry) -> (Graph, NodeId, NodeId) {
        let mut g = Graph::new("g");
        let x = input(&mut g, "x", &[1, 3, 224, 224], Format::Nchw);
        let w = input(&mut g, "w", &[64, 3, 7, 7], Format::Nchw);
        let attrs: Attrs = [
            ("strides", AttrValue::ListInt(vec![1, 1, 2, 2])),
            ("pads", AttrValue::ListInt(vec![3, 3, 3, 3])),
            ("data_format", AttrValue::Str("NCHW".into())),
        ]
        .into_iter()
        .collect();
        let conv = op(&mut g, r, "Conv2D", &[x, w], attrs);
        let b = input(&mut g, "b", &[64, 1, 1], Format::Nd);
        let add = op(
            &mut g,
            r,
            "Add",
            &[OutputRef::new(conv, 0), b],
            Attrs::new(),
        );
        infer_graph(&mut g, r, InferOptions::default()).unwrap();
        (g, conv, add)
    }

    #[test]
    fn a_correct_inference_passes() {
        let r = OpRegistry::with_builtins();
        let (g, _, _) = inferred_graph(&r);
        check_inference(g, &r, true);
    }

    #[test]
    #[should_panic(expected = "output vs reference broadcast")]
    fn a_wrong_broadcast_is_caught() {
        let r = OpRegistry::with_builtins();
        let (mut g, _, add) = inferred_graph(&r);
        g.node_mut(add).outputs[0].set_shape(Shape::from_dims([1, 64, 112, 1]));
        check_graph(&g, &[], &HashSet::new());
    }

    #[test]
    #[should_panic(expected = "spatial axis 3")]
    fn a_wrong_conv_size_is_caught() {
        let r = OpRegistry::with_builtins();
        let (mut g, conv, _) = inferred_graph(&r);
        g.node_mut(conv).outputs[0].set_shape(Shape::from_dims([1, 64, 112, 111]));
        check_graph(&g, &[], &HashSet::new());
    }

    #[test]
    #[should_panic(expected = "breaks GE's conventions")]
    fn a_bad_dim_is_caught() {
        let r = OpRegistry::with_builtins();
        let (mut g, conv, _) = inferred_graph(&r);
        g.node_mut(conv).outputs[0].set_shape(Shape::from_dims([1, -3, 112, 112]));
        check_graph(&g, &[], &HashSet::new());
    }

    #[test]
    #[should_panic(expected = "an internal error (a caught panic)")]
    fn an_internal_error_is_a_crash() {
        let mut r = OpRegistry::with_builtins();
        let schema = OpSchema::new("Panics")
            .input(PortDef::new("x", ParamType::Required))
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
            .verify(std::sync::Arc::new(|_| panic!("a planted bug")));
        r.register(schema, false).unwrap();
        let mut g = Graph::new("g");
        let x = input(&mut g, "x", &[2], Format::Nd);
        op(&mut g, &r, "Panics", &[x], Attrs::new());
        let failures = infer_graph(&mut g, &r, InferOptions::default()).unwrap_err();
        check_failures(&g, &failures);
    }
}
