//! What the graph compiler removes before anything runs: constant folding
//! (ops on constants only) and UB fusion (an element-wise op joins the
//! kernel of the op feeding it, so their intermediate never reaches
//! memory; a zero Pad joins the convolution it feeds).

use super::classify::{Basis, OpClass, DEAD};
use super::work::Work;
use crate::graph::{is_loop_back_edge, Graph, NodeId};

const CONSTANTS: &[&str] = &["Const", "Constant"];

/// Nodes computed at build time: constants and every op (views included)
/// whose inputs all are, or whose outputs inference already folded.
pub(crate) fn constant_nodes(graph: &Graph, order: &[NodeId], classes: &[OpClass]) -> Vec<bool> {
    let mut constant = vec![false; graph.len()];
    for &id in order {
        let node = graph.node(id);
        let class = classes[id.index()];
        constant[id.index()] = if CONSTANTS.contains(&node.op_type.as_str()) {
            true
        } else if matches!(class, OpClass::Subgraph | OpClass::AiCpu)
            || matches!(class, OpClass::Free("source" | "control"))
        {
            false
        } else if matches!(class, OpClass::Free("host")) {
            // Shape / Size / Rank of a static tensor are known at build time.
            node.inputs
                .iter()
                .flatten()
                .all(|e| graph.tensor(*e).shape().is_static())
        } else {
            let inputs: Vec<_> = node.inputs.iter().flatten().collect();
            let folded_by_inference =
                !node.outputs.is_empty() && node.outputs.iter().all(|d| d.value.is_some());
            folded_by_inference
                || (!inputs.is_empty() && inputs.iter().all(|e| constant[e.node.index()]))
        };
    }
    constant
}

/// How many edges (graph outputs included) read each node's outputs; dead
/// code (deleted before anything runs) reads nothing.
pub(crate) fn consumer_counts(graph: &Graph, classes: &[OpClass]) -> Vec<u32> {
    let mut counts = vec![0u32; graph.len()];
    for (node, &class) in graph.nodes().iter().zip(classes) {
        if class == OpClass::Free(DEAD) {
            continue;
        }
        for edge in node.inputs.iter().flatten() {
            if !is_loop_back_edge(node, graph.node(edge.node)) {
                counts[edge.node.index()] += 1;
            }
        }
    }
    for edge in graph.outputs() {
        counts[edge.node.index()] += 1;
    }
    counts
}

fn can_anchor(class: OpClass) -> bool {
    match class {
        OpClass::Cube | OpClass::Depthwise => true,
        OpClass::Vector { movement, .. } => !movement,
        _ => false,
    }
}

fn is_zero_pad(graph: &Graph, id: NodeId) -> bool {
    let node = graph.node(id);
    match node.op_type.as_str() {
        "Pad" => true,
        // PadV2 pads with its third input: only a constant zero joins a convolution.
        "PadV2" => node.inputs.get(2).copied().flatten().is_some_and(|e| {
            graph
                .tensor(e)
                .value
                .as_ref()
                .and_then(|v| v.to_ints())
                .is_some_and(|v| v.iter().all(|&x| x == 0))
        }),
        _ => false,
    }
}

/// The node whose kernel makes each node's output: views (Reshape,
/// Squeeze, ...) pass their input through, since GE removes them before
/// UB fusion (a MatMul reshaped into an activation still fuses with it).
fn view_sources(graph: &Graph, order: &[NodeId], classes: &[OpClass]) -> Vec<NodeId> {
    let mut source: Vec<NodeId> = graph.node_ids().collect();
    for &id in order {
        let passed = match classes[id.index()] {
            OpClass::Free("view") => 0,
            OpClass::Edge(i) => i,
            _ => continue,
        };
        if let Some(edge) = graph.node(id).inputs.get(passed).copied().flatten() {
            source[id.index()] = source[edge.node.index()];
        }
    }
    source
}

/// The non-loop readers of each node's outputs, seen through views (a
/// view's readers read its source), and whether any of its outputs is a
/// graph output. Dead code reads nothing.
fn consumers(
    graph: &Graph,
    source: &[NodeId],
    classes: &[OpClass],
) -> (Vec<Vec<NodeId>>, Vec<bool>) {
    let mut readers: Vec<Vec<NodeId>> = vec![Vec::new(); graph.len()];
    for id in graph.node_ids() {
        if source[id.index()] != id || classes[id.index()] == OpClass::Free(DEAD) {
            continue;
        }
        let node = graph.node(id);
        for edge in node.inputs.iter().flatten() {
            if !is_loop_back_edge(node, graph.node(edge.node)) {
                readers[source[edge.node.index()].index()].push(id);
            }
        }
    }
    let mut graph_output = vec![false; graph.len()];
    for edge in graph.outputs() {
        graph_output[source[edge.node.index()].index()] = true;
    }
    (readers, graph_output)
}

fn is_fusable(class: OpClass) -> bool {
    matches!(class, OpClass::Vector { fusable: true, .. })
}

/// Decides the fusions, merging each fused op's work into its anchor's;
/// returns the anchor of every fused node.
///
/// An element-wise op joins the kernel of an input's producer when every
/// reader of that producer is element-wise too, so that all of them can
/// join: `x * sigmoid(x)` after a convolution is one kernel, as ATC fuses
/// Sigmoid + Mul into Swish and then into the convolution. Inside a kernel
/// a member reads its group's tensors from UB, and a tensor reaches memory
/// only when a reader outside the kernel (or the graph's output) needs it.
pub(crate) fn fuse(
    graph: &Graph,
    order: &[NodeId],
    classes: &[OpClass],
    constant: &[bool],
    works: &mut [Option<Work>],
) -> Vec<Option<NodeId>> {
    let source = view_sources(graph, order, classes);
    let (readers, graph_output) = consumers(graph, &source, classes);
    // Constants made from constants only (not a value inference knows of a
    // run-time tensor, such as ZerosLike of a kernel's output).
    let mut build_time = vec![false; graph.len()];
    for &id in order {
        let node = graph.node(id);
        let mut inputs = node.inputs.iter().flatten().peekable();
        build_time[id.index()] = constant[id.index()]
            && (CONSTANTS.contains(&node.op_type.as_str())
                || (inputs.peek().is_some() && inputs.all(|e| build_time[e.node.index()])));
    }
    let joinable = |r: &NodeId| is_fusable(classes[r.index()]) && works[r.index()].is_some();
    // Whether every reader of a node could join its kernel: once per node,
    // so a tensor with many readers costs its readers once, not squared.
    let all_join: Vec<bool> = readers
        .iter()
        .map(|list| !list.is_empty() && list.iter().all(joinable))
        .collect();
    let mut position = vec![0usize; graph.len()];
    for (i, &id) in order.iter().enumerate() {
        position[id.index()] = i;
    }
    let mut anchor_of: Vec<Option<NodeId>> = vec![None; graph.len()];
    for &id in order {
        if !joinable(&id) {
            continue;
        }
        let node = graph.node(id);
        for edge in node.inputs.iter().flatten() {
            let producer = source[edge.node.index()];
            if works[producer.index()].is_none() || !all_join[producer.index()] {
                continue;
            }
            let anchor = anchor_of[producer.index()].unwrap_or(producer);
            // Every other input must exist before the kernel starts (made in
            // it, before its anchor, or a constant, which is made at build
            // time wherever the order puts it: one in a cond branch waits
            // on the branch's pivot): one made later may depend on the
            // kernel itself, and fusing would make a cycle.
            let ready = node.inputs.iter().flatten().all(|e| {
                let made = source[e.node.index()];
                anchor_of[made.index()].unwrap_or(made) == anchor
                    || position[made.index()] < position[anchor.index()]
                    || build_time[made.index()]
            });
            if ready && can_anchor(classes[anchor.index()]) {
                anchor_of[id.index()] = Some(anchor);
                break;
            }
        }
    }
    merge_groups(
        graph,
        order,
        &source,
        &readers,
        &graph_output,
        &anchor_of,
        works,
    );
    fuse_zero_pads(graph, order, classes, works, &mut anchor_of);
    anchor_of
}

/// Moves each member's work into its anchor's, without the traffic the
/// kernel keeps in UB: reads of tensors its own group produced, and writes
/// no reader outside the group needs.
fn merge_groups(
    graph: &Graph,
    order: &[NodeId],
    source: &[NodeId],
    readers: &[Vec<NodeId>],
    graph_output: &[bool],
    anchor_of: &[Option<NodeId>],
    works: &mut [Option<Work>],
) {
    let group = |id: NodeId| anchor_of[id.index()].unwrap_or(id);
    let mut anchors = vec![false; graph.len()];
    for a in anchor_of.iter().flatten() {
        anchors[a.index()] = true;
    }
    let output_bytes: Vec<f64> = works
        .iter()
        .map(|w| w.as_ref().map_or(0.0, |w| w.output_bytes))
        .collect();
    let escapes = |id: NodeId| {
        graph_output[id.index()]
            || readers[id.index()].is_empty()
            || readers[id.index()].iter().any(|&r| group(r) != group(id))
    };
    for &id in order {
        if anchors[id.index()] && !escapes(id) {
            if let Some(w) = works[id.index()].as_mut() {
                w.dram_bytes = (w.dram_bytes - output_bytes[id.index()]).max(0.0);
            }
        }
    }
    for &id in order {
        let Some(anchor) = anchor_of[id.index()] else {
            continue;
        };
        let Some(mut member) = works[id.index()].clone() else {
            continue;
        };
        let mut kept_on_chip = 0.0;
        for edge in graph.node(id).inputs.iter().flatten() {
            let made = source[edge.node.index()];
            let first_output = edge.index == 0 || made != edge.node;
            if first_output && made != id && group(made) == anchor {
                kept_on_chip += output_bytes[made.index()];
            }
        }
        if !escapes(id) {
            kept_on_chip += output_bytes[id.index()];
        }
        member.dram_bytes = (member.dram_bytes - kept_on_chip).max(0.0);
        if let Some(target) = works[anchor.index()].as_mut() {
            target.absorb(&member, 0.0);
        }
    }
}

/// A zero Pad feeding only a convolution or pooling becomes its padding
/// attribute (the window ops pad in UB as they load).
fn fuse_zero_pads(
    graph: &Graph,
    order: &[NodeId],
    classes: &[OpClass],
    works: &[Option<Work>],
    anchor_of: &mut [Option<NodeId>],
) {
    let consumers = consumer_counts(graph, classes);
    let mut first_consumer: Vec<Option<NodeId>> = vec![None; graph.len()];
    for &id in order
        .iter()
        .filter(|id| classes[id.index()] != OpClass::Free(DEAD))
    {
        for edge in graph.node(id).inputs.iter().flatten() {
            first_consumer[edge.node.index()].get_or_insert(id);
        }
    }
    for &id in order {
        if works[id.index()].is_none() || consumers[id.index()] != 1 || !is_zero_pad(graph, id) {
            continue;
        }
        if let Some(conv) = first_consumer[id.index()] {
            let windowed = match classes[conv.index()] {
                OpClass::Cube => graph.node(conv).op_type.starts_with("Conv"),
                OpClass::Depthwise => true,
                OpClass::Vector { basis, .. } => basis == Basis::Window,
                _ => false,
            };
            if windowed && works[conv.index()].is_some() {
                anchor_of[id.index()] = Some(conv);
            }
        }
    }
}
