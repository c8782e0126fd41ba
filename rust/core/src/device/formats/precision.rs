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
use rustc_hash::FxHashSet;
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
    let policy = Policy::of(graph, constant, dead_code);
    let after = settle_dtypes(graph, order, &policy, dead_code);
    let weights_cast = write_dtypes(graph, &policy, &after);
    let casts = plan_casts(graph, &policy, &after, dead_code);
    let casts_inserted = insert_casts(graph, casts)?;
    Ok(PrecisionChanges {
        casts_inserted,
        weights_cast,
    })
}

/// What the policy knows of each node before it changes anything.
struct Policy<'c> {
    /// Cube ops that compute in fp16. Dead code never runs: it computes in
    /// nothing and needs no Cast.
    cube: Vec<bool>,
    /// A Switch or Merge GE reduces to an edge is gone before this pass:
    /// its output is whatever its input carries, and what it needs of its
    /// input is what its readers need.
    forwards: Forwards,
    pass_through: Vec<bool>,
    constant: &'c [SmallVec<[bool; 1]>],
    /// Every output's dtype as inferred.
    original: Dtypes,
}

impl<'c> Policy<'c> {
    fn of(graph: &Graph, constant: &'c [SmallVec<[bool; 1]>], dead_code: &DeadCode) -> Self {
        let nodes = || graph.node_ids().zip(graph.nodes());
        Policy {
            cube: nodes()
                .map(|(id, n)| {
                    CUBE_OPS.contains(&n.op_type.as_str())
                        && !keeps_origin_dtype(n)
                        && !dead_code.is_node_dead(id)
                })
                .collect(),
            forwards: nodes()
                .map(|(id, n)| {
                    dead_code
                        .forwards(graph, id)
                        .filter(|&(i, o)| i < n.inputs.len() && o < n.outputs.len())
                })
                .collect(),
            pass_through: nodes()
                .map(|(_, n)| rule(&n.op_type) == Rule::PassThrough)
                .collect(),
            constant,
            original: nodes()
                .map(|(_, n)| n.outputs.iter().map(|d| d.dtype).collect())
                .collect(),
        }
    }

    /// The output of `u`'s node that `u`'s input is handed on to, when the
    /// node is a Switch or Merge reduced to an edge.
    fn forwarded_to(&self, u: &Use) -> Option<usize> {
        let (input, output) = self.forwards[u.node.index()]?;
        (input == u.input).then_some(output)
    }

    /// The dtype input `u` needs of `from`: fp16 into a cube op, what a
    /// Switch or Merge reduced to an edge hands on, what a constant
    /// pass-through settled on, else what it was inferred with.
    fn need(&self, after: &Dtypes, u: Use, from: OutputRef) -> DataType {
        let inferred = dtype_of(&self.original, from);
        let (node, input) = (u.node.index(), u.input);
        if self.cube[node] && inferred == DataType::Float {
            DataType::Float16
        } else if let Some(output) = self.forwarded_to(&u) {
            after[node][output]
        } else if self.pass_through[node] && self.constant[node].get(input) == Some(&true) {
            after[node][input]
        } else {
            inferred
        }
    }
}

fn dtype_of(dtypes: &Dtypes, edge: OutputRef) -> DataType {
    dtypes[edge.node.index()][edge.index as usize]
}

/// Every output's dtype under the policy: cube ops' float outputs fp16,
/// weights fp16 when every reader wants fp16 (backwards, so an Identity
/// of a weight is settled before the weight), Switches and Merges reduced
/// to edges carrying what their inputs carry.
fn settle_dtypes(
    graph: &Graph,
    order: &[NodeId],
    policy: &Policy<'_>,
    dead_code: &DeadCode,
) -> Dtypes {
    let mut after = policy.original.clone();
    for (id, outputs) in after.iter_mut().enumerate() {
        if policy.cube[id] {
            outputs
                .iter_mut()
                .filter(|d| **d == DataType::Float)
                .for_each(|d| *d = DataType::Float16);
        }
    }
    // A cube op's fp16 result reaches the next cube op across a Switch as
    // it would without it.
    hand_on(graph, order, &policy.forwards, &mut after);
    // A weight's reader is a live node, but not a Switch reduced to an edge
    // that nothing reads after (a cond's other arm capturing the same
    // weight): GE deletes it.
    let consumers = Consumers::of(graph);
    let unread = unread_outputs(graph, order, &consumers, policy, dead_code);
    let reads = |u: &Use| reads(u, policy, dead_code, &unread);
    let graph_outputs = graph.outputs();
    for &id in order.iter().rev() {
        for o in 0..policy.original[id.index()].len() {
            let edge = OutputRef::new(id, o as u32);
            if !policy.constant[id.index()][o] || policy.original[id.index()][o] != DataType::Float
            {
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
                    .all(|&u| policy.need(&after, u, edge) == DataType::Float16);
            if all_fp16 {
                after[id.index()][o] = DataType::Float16;
            }
        }
    }
    // A Switch or Merge reduced to an edge carries what its input now is
    // (a Cast, if one is needed, goes after it, where its readers are).
    hand_on(graph, order, &policy.forwards, &mut after);
    after
}

/// Gives every output its settled dtype (a constant's value converted);
/// returns how many weights are now stored in fp16.
fn write_dtypes(graph: &mut Graph, policy: &Policy<'_>, after: &Dtypes) -> usize {
    let mut weights_cast = 0;
    for id in graph.node_ids() {
        for (o, &dtype) in after[id.index()].iter().enumerate() {
            if dtype == policy.original[id.index()][o] {
                continue;
            }
            let node = graph.node_mut(id);
            weights_cast += usize::from(node.inputs.is_empty() && policy.constant[id.index()][o]);
            let desc = &mut node.outputs[o];
            desc.dtype = dtype;
            desc.value = desc.value.as_ref().and_then(to_fp16);
        }
    }
    weights_cast
}

/// Casts where a producer's dtype is not what its reader needs, one per
/// tensor and dtype, the tensor seen through Switches and Merges reduced
/// to edges (which GE deleted: their readers share one Cast). Graph
/// outputs get their inferred dtypes back.
fn plan_casts(
    graph: &Graph,
    policy: &Policy<'_>,
    after: &Dtypes,
    dead_code: &DeadCode,
) -> Groups<(OutputRef, DataType), Reader> {
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
            let wanted = policy.need(after, u, from);
            if dtype_of(after, from) != wanted {
                casts.add(
                    (through(graph, &policy.forwards, from), wanted),
                    Reader::Input(u),
                );
            }
        }
    }
    for (k, &out) in graph.outputs().iter().enumerate() {
        let inferred = dtype_of(&policy.original, out);
        if dtype_of(after, out) != inferred {
            casts.add(
                (through(graph, &policy.forwards, out), inferred),
                Reader::Output(k),
            );
        }
    }
    casts
}

/// Inserts the planned Casts and points their readers at them; returns
/// how many.
fn insert_casts(
    graph: &mut Graph,
    casts: Groups<(OutputRef, DataType), Reader>,
) -> Result<usize, DeviceError> {
    let mut outputs = graph.outputs().to_vec();
    let count = casts.len();
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
    Ok(count)
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
    policy: &Policy<'_>,
    dead_code: &DeadCode,
) -> Vec<SmallVec<[bool; 2]>> {
    let mut unread: Vec<SmallVec<[bool; 2]>> = graph
        .nodes()
        .iter()
        .map(|n| smallvec::smallvec![false; n.outputs.len()])
        .collect();
    let outputs: FxHashSet<OutputRef> = graph.outputs().iter().copied().collect();
    for &id in order.iter().rev() {
        for o in 0..unread[id.index()].len() {
            let edge = OutputRef::new(id, o as u32);
            let read = consumers
                .of_output(edge)
                .iter()
                .any(|u| reads(u, policy, dead_code, &unread));
            unread[id.index()][o] = !outputs.contains(&edge) && !read;
        }
    }
    unread
}

/// Whether `u` reads its input: a live node, but not a Switch or Merge
/// reduced to an edge into an output nothing reads (GE deletes it).
fn reads(
    u: &Use,
    policy: &Policy<'_>,
    dead_code: &DeadCode,
    unread: &[SmallVec<[bool; 2]>],
) -> bool {
    !dead_code.is_node_dead(u.node)
        && !policy
            .forwarded_to(u)
            .is_some_and(|o| unread[u.node.index()][o])
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
