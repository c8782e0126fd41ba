//! Memory-aware step orders for the top graph. The lower bound of an arena
//! (the peak of live bytes) depends on the order nodes run in; a topological
//! order chosen without looking at sizes can keep a large tensor alive while
//! unrelated branches run. As XLA does, opgraph builds several orders and
//! keeps the one with the smallest peak (the planner measures each):
//!
//! - `Topological`: Kahn's order, producers first, ties by insertion (the
//!   order the graph was built in);
//! - `DepthFirst`: a post-order from the sinks that visits the producer
//!   with the largest cumulative bytes first, so one branch finishes (and
//!   frees its intermediates) before the next starts;
//! - `FreesMost`: a list scheduler that runs, among the ready nodes, the
//!   one that frees the most bytes net of what it allocates.
//!
//! Control edges order like data edges. Bodies (If / While / calls) keep
//! their own topological order and run at their node; graphs with a
//! TensorFlow v1 loop that may iterate (a live back edge into a live Merge)
//! keep the topological order, whose frames the schedule depends on. A
//! loop in dead code (behind a Switch on a known predicate) or one whose
//! body is dead (it never repeats) does not count: no tensor of it is read
//! across iterations, and back edges order nothing in the other orders.

use crate::device::dead_code::DeadCode;
use crate::graph::{is_loop_back_edge, topological_order, Graph, NodeId};
use crate::types::TensorDesc;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// How the top graph's steps are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleKind {
    Topological,
    DepthFirst,
    FreesMost,
    /// The best of the others, improved by moving single nodes
    /// (`refine.rs`); tried by `auto` after them.
    Refined,
}

impl ScheduleKind {
    /// The orders built from the graph by a rule; `Refined` starts from
    /// the best of them.
    pub const BUILT: [ScheduleKind; 3] = [
        ScheduleKind::Topological,
        ScheduleKind::DepthFirst,
        ScheduleKind::FreesMost,
    ];
    pub const ALL: [ScheduleKind; 4] = [
        ScheduleKind::Topological,
        ScheduleKind::DepthFirst,
        ScheduleKind::FreesMost,
        ScheduleKind::Refined,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ScheduleKind::Topological => "topological",
            ScheduleKind::DepthFirst => "depth_first",
            ScheduleKind::FreesMost => "frees_most",
            ScheduleKind::Refined => "refined",
        }
    }

    pub fn from_name(name: &str) -> Option<ScheduleKind> {
        ScheduleKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// The order a built `kind` gives the top graph, or `None` for the
/// topological order (which the schedule computes itself), for graphs that
/// must keep it, and for `Refined` (the planner refines another order).
pub(crate) fn top_order(graph: &Graph, kind: ScheduleKind) -> Option<Vec<NodeId>> {
    if kind == ScheduleKind::Topological || has_live_loop(graph) {
        return None;
    }
    let dag = Dag::of(graph);
    let order = match kind {
        ScheduleKind::Topological | ScheduleKind::Refined => return None,
        ScheduleKind::DepthFirst => dag.depth_first(),
        ScheduleKind::FreesMost => dag.frees_most(),
    };
    // A cycle leaves nodes out; the topological order reports it.
    Some(order).filter(|order| order.len() == graph.len())
}

/// True when the graph has a TensorFlow v1 loop that may iterate: a live
/// back edge into a live Merge, exactly what the schedule records as a read
/// across iterations (`Reader::back_edge`). It keeps its topological order,
/// whose frames the schedule depends on. A graph that cannot be ordered
/// counts as one (the topological order reports why).
pub(crate) fn has_live_loop(graph: &Graph) -> bool {
    let back_edges = || {
        graph.node_ids().flat_map(move |id| {
            let node = graph.node(id);
            node.inputs
                .iter()
                .flatten()
                .filter(move |e| is_loop_back_edge(node, graph.node(e.node)))
                .map(move |&e| (id, e))
        })
    };
    if back_edges().next().is_none() {
        return false;
    }
    let Ok(order) = topological_order(graph) else {
        return true;
    };
    let dead_code = DeadCode::of(graph, &order);
    back_edges().any(|(merge, edge)| !dead_code.is_node_dead(merge) && !dead_code.is_dead(edge))
}

/// Bytes of a tensor's elements (0 when its size is unknown): a ranking
/// key, not the planner's padded size.
fn bytes(desc: &TensorDesc) -> u64 {
    desc.shape()
        .num_elements()
        .ok()
        .flatten()
        .and_then(|n| desc.dtype.bytes_for(n))
        .and_then(|b| u64::try_from(b).ok())
        .unwrap_or(0)
}

/// The graph as producer and consumer lists (data and control edges, each
/// producer once per consumer), with each node's output bytes.
pub(crate) struct Dag {
    pub producers: Vec<Vec<u32>>,
    pub consumers: Vec<Vec<u32>>,
    out_bytes: Vec<u64>,
}

impl Dag {
    pub fn of(graph: &Graph) -> Dag {
        let n = graph.len();
        let mut producers: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut consumers: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, node) in graph.nodes().iter().enumerate() {
            // A v1 loop's back edge orders nothing (`topological_order`
            // breaks it too); only a dead loop's reaches here.
            let mut own: Vec<u32> = node
                .inputs
                .iter()
                .flatten()
                .filter(|e| !is_loop_back_edge(node, graph.node(e.node)))
                .map(|e| e.node.0)
                .chain(node.control_inputs.iter().map(|p| p.0))
                .collect();
            own.sort_unstable();
            own.dedup();
            for &p in &own {
                consumers[p as usize].push(i as u32);
            }
            producers[i] = own;
        }
        let out_bytes = graph
            .nodes()
            .iter()
            .map(|node| {
                node.outputs
                    .iter()
                    .map(bytes)
                    .fold(0u64, u64::saturating_add)
            })
            .collect();
        Dag {
            producers,
            consumers,
            out_bytes,
        }
    }

    /// Post-order from the sinks; each node's producers are visited largest
    /// cumulative bytes first (the bytes of the node and everything it
    /// depends on, counting shared producers once per path: a ranking).
    fn depth_first(&self) -> Vec<NodeId> {
        let n = self.producers.len();
        let mut cumulative = vec![0u64; n];
        let mut done = vec![false; n];
        // Cumulative bytes in a producers-first pass of the same DFS shape.
        for root in 0..n {
            self.post_order(root as u32, &mut done, &mut |v| {
                let from_inputs = self.producers[v as usize]
                    .iter()
                    .map(|&p| cumulative[p as usize])
                    .fold(0u64, u64::saturating_add);
                cumulative[v as usize] = from_inputs.saturating_add(self.out_bytes[v as usize]);
            });
        }
        let mut order = Vec::with_capacity(n);
        let mut visited = vec![false; n];
        let sinks = (0..n as u32).filter(|&v| self.consumers[v as usize].is_empty());
        let mut stack: Vec<(u32, usize, Vec<u32>)> = Vec::new();
        for root in sinks {
            if visited[root as usize] {
                continue;
            }
            visited[root as usize] = true;
            stack.push((root, 0, self.by_cumulative(root, &cumulative)));
            while let Some((v, next, inputs)) = stack.last_mut() {
                if let Some(&p) = inputs.get(*next) {
                    *next += 1;
                    if !visited[p as usize] {
                        visited[p as usize] = true;
                        let inputs = self.by_cumulative(p, &cumulative);
                        stack.push((p, 0, inputs));
                    }
                } else {
                    order.push(NodeId(*v));
                    stack.pop();
                }
            }
        }
        order
    }

    fn by_cumulative(&self, v: u32, cumulative: &[u64]) -> Vec<u32> {
        let mut inputs = self.producers[v as usize].clone();
        inputs.sort_by_key(|&p| (Reverse(cumulative[p as usize]), p));
        inputs
    }

    /// Producers-first visit of `root`'s unvisited ancestry, calling
    /// `visit` on each node after its producers (iterative: no recursion
    /// depth to exhaust on a million-node chain).
    fn post_order(&self, root: u32, done: &mut [bool], visit: &mut impl FnMut(u32)) {
        if done[root as usize] {
            return;
        }
        done[root as usize] = true;
        let mut stack: Vec<(u32, usize)> = vec![(root, 0)];
        while let Some((v, next)) = stack.last_mut() {
            if let Some(&p) = self.producers[*v as usize].get(*next) {
                *next += 1;
                if !done[p as usize] {
                    done[p as usize] = true;
                    stack.push((p, 0));
                }
            } else {
                visit(*v);
                stack.pop();
            }
        }
    }

    /// List scheduling: among the ready nodes, the one freeing the most
    /// bytes (its producers' outputs it reads last) net of its own outputs;
    /// ties go to the lower id.
    fn frees_most(&self) -> Vec<NodeId> {
        let n = self.producers.len();
        let mut pending: Vec<usize> = self.producers.iter().map(Vec::len).collect();
        let mut unread: Vec<usize> = self.consumers.iter().map(Vec::len).collect();
        let mut version = vec![0u32; n];
        let gain = |v: u32, unread: &[usize]| -> i128 {
            let freed: u64 = self.producers[v as usize]
                .iter()
                .filter(|&&p| unread[p as usize] == 1)
                .map(|&p| self.out_bytes[p as usize])
                .fold(0u64, u64::saturating_add);
            i128::from(freed) - i128::from(self.out_bytes[v as usize])
        };
        let mut ready: BinaryHeap<(i128, Reverse<u32>, u32)> = BinaryHeap::new();
        for v in 0..n as u32 {
            if pending[v as usize] == 0 {
                ready.push((gain(v, &unread), Reverse(v), 0));
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut scheduled = vec![false; n];
        while let Some((_, Reverse(v), seen)) = ready.pop() {
            if scheduled[v as usize] || seen != version[v as usize] {
                continue;
            }
            scheduled[v as usize] = true;
            order.push(NodeId(v));
            for &p in &self.producers[v as usize] {
                unread[p as usize] -= 1;
                if unread[p as usize] == 1 {
                    // Its last reader now frees it: re-rank the ready one.
                    for &c in &self.consumers[p as usize] {
                        if !scheduled[c as usize] && pending[c as usize] == 0 {
                            version[c as usize] += 1;
                            ready.push((gain(c, &unread), Reverse(c), version[c as usize]));
                        }
                    }
                }
            }
            for &c in &self.consumers[v as usize] {
                pending[c as usize] -= 1;
                if pending[c as usize] == 0 {
                    ready.push((gain(c, &unread), Reverse(c), version[c as usize]));
                }
            }
        }
        order
    }
}
