//! The precision policy of ATC's `precision_mode=allow_fp32_to_fp16`: the
//! cube ops (convolution, matrix multiply) compute in fp16, every other op
//! keeps the dtype it was inferred with.
//!
//! As in GE, a cube op's FLOAT inputs and outputs become FLOAT16, and a
//! Cast goes on every edge where a producer's dtype differs from what its
//! consumer computes with (one Cast per (tensor, dtype), shared): before a
//! cube op fed fp32, after a cube op whose fp16 result feeds an fp32 op or
//! a graph output. Weights read only by cube ops are stored in fp16 in
//! place (GE folds the Cast into the constant), which halves their size.

use super::edges::{Consumers, Groups, Use};
use super::half::to_fp16;
use super::rules::{rule, Rule, CUBE_OPS};
use crate::device::cost::PrecisionMode;
use crate::device::dead_code::DeadCode;
use crate::device::DeviceError;
use crate::graph::{Graph, Node, NodeId, OutputRef};
use crate::types::{AttrValue, DataType};
use smallvec::SmallVec;

/// What the policy changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrecisionChanges {
    pub casts_inserted: usize,
    /// Weights (Const nodes) now stored in fp16.
    pub weights_cast: usize,
}

type Dtypes = Vec<SmallVec<[DataType; 1]>>;

/// A cube op the user asked to keep in its model dtype (ATC's
/// `--keep_dtype`, or a per-op precision of `must_keep_origin_dtype`).
fn keeps_origin_dtype(node: &Node) -> bool {
    crate::device::cost::node_precision(node) == Some(PrecisionMode::MustKeepOriginDtype)
}

pub(crate) fn compute_cube_ops_in_fp16(
    graph: &mut Graph,
    order: &[NodeId],
    constant: &[SmallVec<[bool; 1]>],
    dead_code: &DeadCode,
) -> Result<PrecisionChanges, DeviceError> {
    // Dead code never runs: it computes in nothing and needs no Cast.
    let cube: Vec<bool> = graph
        .node_ids()
        .zip(graph.nodes())
        .map(|(id, n)| {
            CUBE_OPS.contains(&n.op_type.as_str())
                && !keeps_origin_dtype(n)
                && !dead_code.is_node_dead(id)
        })
        .collect();
    // A Switch or Merge GE reduces to an edge (its input, the output it
    // feeds) is gone before this pass: its output is whatever its input
    // carries, and what it needs of its input is what its readers need.
    let forwards: Forwards = graph
        .node_ids()
        .map(|id| {
            let node = graph.node(id);
            dead_code
                .forwards(graph, id)
                .filter(|&(i, o)| i < node.inputs.len() && o < node.outputs.len())
        })
        .collect();
    let pass_through: Vec<bool> = graph
        .nodes()
        .iter()
        .map(|n| rule(&n.op_type) == Rule::PassThrough)
        .collect();
    let original: Dtypes = graph
        .nodes()
        .iter()
        .map(|n| n.outputs.iter().map(|d| d.dtype).collect())
        .collect();
    let dtype_of = |d: &Dtypes, e: OutputRef| d[e.node.index()][e.index as usize];
    let mut after = original.clone();
    for (id, outputs) in after.iter_mut().enumerate() {
        if cube[id] {
            outputs
                .iter_mut()
                .filter(|d| **d == DataType::Float)
                .for_each(|d| *d = DataType::Float16);
        }
    }
    // A cube op's fp16 result reaches the next cube op across a Switch as
    // it would without it.
    hand_on(graph, order, &forwards, &mut after);
    // The dtype input `u` needs of `from`: fp16 into a cube op, what a
    // Switch or Merge reduced to an edge hands on, what a constant
    // pass-through settled on, else what it was inferred with.
    let need = |after: &Dtypes, u: Use, from: OutputRef| -> DataType {
        let inferred = dtype_of(&original, from);
        let (node, input) = (u.node.index(), u.input);
        if cube[node] && inferred == DataType::Float {
            DataType::Float16
        } else if let Some((_, output)) = forwards[node].filter(|&(i, _)| i == input) {
            after[node][output]
        } else if pass_through[node] && constant[node].get(input) == Some(&true) {
            after[node][input]
        } else {
            inferred
        }
    };
    // Weights: fp16 when every reader wants fp16 (backwards, so an
    // Identity of a weight is settled before the weight). A reader is a
    // live node, but not a Switch reduced to an edge that nothing reads
    // after (a cond's other arm capturing the same weight): GE deletes it.
    let consumers = Consumers::of(graph);
    let graph_outputs: Vec<OutputRef> = graph.outputs().to_vec();
    let unread = unread_outputs(graph, order, &consumers, &forwards, dead_code);
    let reads = |u: &Use| {
        !dead_code.is_node_dead(u.node)
            && !matches!(forwards[u.node.index()], Some((i, o)) if i == u.input && unread[u.node.index()][o])
    };
    for &id in order.iter().rev() {
        for o in 0..original[id.index()].len() {
            let edge = OutputRef::new(id, o as u32);
            if !constant[id.index()][o] || original[id.index()][o] != DataType::Float {
                continue;
            }
            let live: SmallVec<[Use; 4]> = consumers
                .of_output(edge)
                .iter()
                .copied()
                .filter(reads)
                .collect();
            let all_fp16 = !live.is_empty()
                && !graph_outputs.contains(&edge)
                && live
                    .iter()
                    .all(|&u| need(&after, u, edge) == DataType::Float16);
            if all_fp16 {
                after[id.index()][o] = DataType::Float16;
            }
        }
    }
    // A Switch or Merge reduced to an edge carries what its input now is
    // (a Cast, if one is needed, goes after it, where its readers are).
    hand_on(graph, order, &forwards, &mut after);
    let mut changes = PrecisionChanges::default();
    for id in graph.node_ids() {
        for o in 0..original[id.index()].len() {
            let dtype = after[id.index()][o];
            if dtype == original[id.index()][o] {
                continue;
            }
            let node = graph.node_mut(id);
            changes.weights_cast += usize::from(node.inputs.is_empty() && constant[id.index()][o]);
            let desc = &mut node.outputs[o];
            desc.dtype = dtype;
            desc.value = desc.value.as_ref().and_then(to_fp16);
        }
    }
    // Casts where a producer's dtype is not what its reader needs, one
    // per tensor and dtype, the tensor seen through Switches and Merges
    // reduced to edges (which GE deleted: its readers share one Cast).
    let mut casts = Groups::new();
    for (id, node) in graph.node_ids().zip(graph.nodes()) {
        if dead_code.is_node_dead(id) {
            continue;
        }
        for (input, from) in node.inputs.iter().enumerate() {
            // A live Merge's dead input delivers nothing.
            let Some(from) = from.filter(|&e| !dead_code.is_dead(e)) else {
                continue;
            };
            let u = Use { node: id, input };
            let wanted = need(&after, u, from);
            if dtype_of(&after, from) != wanted {
                casts.add((through(graph, &forwards, from), wanted), Reader::Input(u));
            }
        }
    }
    for (k, &out) in graph_outputs.iter().enumerate() {
        if dtype_of(&after, out) != dtype_of(&original, out) {
            let key = (through(graph, &forwards, out), dtype_of(&original, out));
            casts.add(key, Reader::Output(k));
        }
    }
    let mut outputs = graph_outputs;
    changes.casts_inserted = casts.len();
    for ((from, dtype), readers) in casts.into_vec() {
        let cast = add_cast(graph, from, dtype)?;
        for reader in readers {
            match reader {
                Reader::Input(u) => graph.set_input(u.node, u.input, Some(cast))?,
                Reader::Output(k) => outputs[k] = cast,
            }
        }
    }
    graph.set_outputs(outputs)?;
    Ok(changes)
}

/// Per node, the input a Switch or Merge reduced to an edge hands on and
/// the output it feeds.
type Forwards = Vec<Option<(usize, usize)>>;

/// What reads a tensor that gets a Cast.
#[derive(Clone, Copy)]
enum Reader {
    Input(Use),
    /// Graph output `k`.
    Output(usize),
}

/// Gives every output a Switch or Merge reduced to an edge feeds the dtype
/// its input has in `after` (in `order`, so chains settle).
fn hand_on(graph: &Graph, order: &[NodeId], forwards: &Forwards, after: &mut Dtypes) {
    for &id in order {
        if let Some((input, output)) = forwards[id.index()] {
            if let Some(from) = graph.node(id).inputs[input] {
                after[id.index()][output] = after[from.node.index()][from.index as usize];
            }
        }
    }
}

/// The tensor `edge` carries, seen through Switches and Merges reduced to
/// edges.
fn through(graph: &Graph, forwards: &Forwards, mut edge: OutputRef) -> OutputRef {
    for _ in 0..graph.len() {
        match forwards[edge.node.index()] {
            Some((input, output)) if output == edge.index as usize => {
                match graph.node(edge.node).inputs[input] {
                    Some(from) => edge = from,
                    None => break,
                }
            }
            _ => break,
        }
    }
    edge
}

/// Per output: true when nothing live reads it, but Switches and Merges
/// reduced to edges whose own outputs nothing reads (settled in reverse
/// `order`, readers first), and it is not a graph output.
fn unread_outputs(
    graph: &Graph,
    order: &[NodeId],
    consumers: &Consumers,
    forwards: &Forwards,
    dead_code: &DeadCode,
) -> Vec<SmallVec<[bool; 2]>> {
    let mut unread: Vec<SmallVec<[bool; 2]>> = graph
        .nodes()
        .iter()
        .map(|n| smallvec::smallvec![false; n.outputs.len()])
        .collect();
    let outputs: rustc_hash::FxHashSet<OutputRef> = graph.outputs().iter().copied().collect();
    for &id in order.iter().rev() {
        for o in 0..unread[id.index()].len() {
            let edge = OutputRef::new(id, o as u32);
            unread[id.index()][o] = !outputs.contains(&edge)
                && consumers.of_output(edge).iter().all(|u| {
                    dead_code.is_node_dead(u.node)
                        || matches!(forwards[u.node.index()], Some((i, f)) if i == u.input && unread[u.node.index()][f])
                });
        }
    }
    unread
}

fn add_cast(graph: &mut Graph, from: OutputRef, dtype: DataType) -> Result<OutputRef, DeviceError> {
    let producer = &graph.node(from.node).name;
    let base = match from.index {
        0 => format!("{producer}/Cast_{dtype}"),
        i => format!("{producer}:{i}/Cast_{dtype}"),
    };
    let name = (0..)
        .map(|k| {
            if k == 0 {
                base.clone()
            } else {
                format!("{base}_{k}")
            }
        })
        .find(|n| graph.find(n).is_none())
        .unwrap_or(base);
    let mut desc = graph.tensor(from).clone();
    desc.dtype = dtype;
    desc.value = None;
    desc.shape_value = None;
    desc.value_range = None;
    let mut node = Node::new(name, "Cast", vec![Some(from)], 1);
    node.outputs[0] = desc;
    node.attrs.set("dst_type", AttrValue::Int(dtype.ge_value()));
    Ok(OutputRef::new(graph.add_node(node)?, 0))
}
