//! Whether a node may not run when its graph runs: the code a failed fold
//! must not fail the graph for. TensorFlow computes a node only when data
//! reaches it, and GE's constant folding leaves a node it cannot compute
//! unfolded (a kernel's `NOT_CHANGED`); so `x // 0` on a branch that a
//! predicate guards is an error only if that branch runs.
//!
//! - In TensorFlow 1 control flow, a node is *guarded* by each Switch on an
//!   unknown predicate it lies behind on one side: a node inherits the
//!   guards of everything it reads or waits on, a Switch's output adds
//!   `(switch, side)`, and a Merge keeps only the guards all its entering
//!   inputs share, so the Merge of a cond's two sides is guarded by what
//!   guarded the cond. A loop's exit side (its Switch on a `LoopCond`)
//!   always runs once the loop ends: it adds no guard.
//! - A body may not run when its node may not run, or may not pick it: an
//!   If or Case branch unless the selector is known to pick it, and a
//!   loop's body (While and Scan are taken as possibly running no
//!   iteration, an ONNX Loop unless its trip count and first condition say
//!   it iterates); a While's cond and a called function run when their
//!   node does.

use super::dead::DeadOutputs;
use crate::graph::{is_loop_back_edge, is_merge, Graph, Node, NodeId, OutputRef};
use crate::ops::control::branches::taken_body;
use rustc_hash::FxHashMap;

/// A Switch on an unknown predicate and the side (output) taken.
type Guard = (u32, u32);

/// The guards of the nodes asked about in one inference pass over one
/// graph, and of their ancestry: computed when first needed (a fold fails,
/// or a node with bodies may not run) and kept for the pass, whose
/// producers' verdicts do not change once visited.
#[derive(Default)]
pub(super) struct Guards {
    of: FxHashMap<u32, Vec<Guard>>,
}

impl Guards {
    /// True when node `id` of `graph` lies behind a Switch whose predicate
    /// is not known, on one side only. Walks what of `id`'s ancestry is not
    /// yet known (its producers are inferred, so their predicates are as
    /// known as they will be); `dead` is the engine's verdict, where the
    /// graph has Switches.
    pub(super) fn may_not_run(
        &mut self,
        graph: &Graph,
        id: NodeId,
        dead: Option<&DeadOutputs>,
    ) -> bool {
        if dead.is_none() {
            // No Switch: nothing in this graph is guarded.
            return false;
        }
        let guards = &mut self.of;
        // Producers first, iteratively (a long chain must not exhaust the
        // stack): a node is finished once all its producers are.
        let mut stack: Vec<(NodeId, bool)> = vec![(id, false)];
        while let Some((at, expanded)) = stack.pop() {
            if guards.contains_key(&at.0) {
                continue;
            }
            if !expanded {
                stack.push((at, true));
                stack.extend(
                    producers(graph, at)
                        .filter(|p| !guards.contains_key(&p.0))
                        .map(|p| (p, false)),
                );
                continue;
            }
            let own = node_guards(graph, at, guards, dead);
            guards.insert(at.0, own);
        }
        guards.get(&id.0).is_some_and(|g| !g.is_empty())
    }
}

/// Whether body `index` of `node` may not run when `node` does.
pub(super) fn body_may_not_run(graph: &Graph, node: &Node, index: usize) -> bool {
    match node.op_type.as_str() {
        "If" | "StatelessIf" | "_If" | "Case" => taken_body(graph, node) != Some(index),
        "While" | "StatelessWhile" | "_While" => {
            node.subgraphs.get(index).is_some_and(|b| b.name != "cond")
        }
        "Loop" => !loop_surely_iterates(graph, node),
        // Even a known sequence length is taken as possibly none.
        "Scan" => true,
        _ => false,
    }
}

/// An ONNX Loop runs its body at least once when its trip count is absent
/// or known to be at least 1, and its first condition absent or known true.
fn loop_surely_iterates(graph: &Graph, node: &Node) -> bool {
    let value = |i: usize| {
        let edge = node.inputs.get(i).copied().flatten()?;
        Some(graph.tensor(edge).value.as_ref())
    };
    let trips = match value(0) {
        None => true,
        Some(known) => known
            .and_then(|v| v.to_ints())
            .and_then(|v| v.first().copied())
            .is_some_and(|t| t >= 1),
    };
    let starts = match value(1) {
        None => true,
        Some(known) => known.and_then(|v| v.to_bool_scalar()).unwrap_or(false),
    };
    trips && starts
}

/// The nodes `id` reads or waits on, a loop's back edge left out.
fn producers(graph: &Graph, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let node = graph.node(id);
    node.inputs
        .iter()
        .flatten()
        .filter(move |e| !is_loop_back_edge(node, graph.node(e.node)))
        .map(|e| e.node)
        .chain(node.control_inputs.iter().copied())
}

fn node_guards(
    graph: &Graph,
    id: NodeId,
    guards: &FxHashMap<u32, Vec<Guard>>,
    dead: Option<&DeadOutputs>,
) -> Vec<Guard> {
    let node = graph.node(id);
    let read = |e: OutputRef| edge_guards(graph, e, guards, dead);
    if is_merge(node) {
        // What every entering input that may carry data shares.
        let mut entering = node
            .inputs
            .iter()
            .flatten()
            .filter(|e| !is_loop_back_edge(node, graph.node(e.node)))
            .filter(|&&e| dead.is_none_or(|d| !d.is_dead(e)))
            .map(|&e| read(e));
        let Some(mut shared) = entering.next() else {
            return Vec::new();
        };
        for other in entering {
            shared.retain(|g| other.contains(g));
        }
        return shared;
    }
    let mut own: Vec<Guard> = Vec::new();
    for e in node.inputs.iter().flatten() {
        if !is_loop_back_edge(node, graph.node(e.node)) {
            own.extend(read(*e));
        }
    }
    for &c in &node.control_inputs {
        own.extend(guards.get(&c.0).into_iter().flatten().copied());
    }
    own.sort_unstable();
    own.dedup();
    own
}

/// The guards of what edge `e` carries: its producer's, and the side of a
/// Switch whose predicate is unknown (not a loop's exit side).
fn edge_guards(
    graph: &Graph,
    e: OutputRef,
    guards: &FxHashMap<u32, Vec<Guard>>,
    dead: Option<&DeadOutputs>,
) -> Vec<Guard> {
    let mut own = guards.get(&e.node.0).cloned().unwrap_or_default();
    let producer = graph.node(e.node);
    let is_switch = matches!(producer.op_type.as_str(), "Switch" | "RefSwitch");
    let known = dead.is_some_and(|d| d.switch_taken(graph, e.node).is_some());
    if is_switch && !known && !(e.index == 0 && switches_on_loop_cond(graph, producer)) {
        own.push((e.node.0, e.index));
        own.sort_unstable();
    }
    own
}

/// A loop's Switch: its predicate is a `LoopCond`.
fn switches_on_loop_cond(graph: &Graph, switch: &Node) -> bool {
    switch
        .inputs
        .get(1)
        .copied()
        .flatten()
        .is_some_and(|p| graph.node(p.node).op_type == "LoopCond")
}
