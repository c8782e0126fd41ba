//! L2 residency of activations: a tensor passed between kernels stays in
//! the on-chip L2 when every activation alive during its lifetime fits
//! there together; its write and reads then move on chip instead of
//! through DDR / HBM. Weights stream from memory every run. A concatenation
//! or slice done in place passes its parts through, as a view does.
//!
//! Every step is linear or n log n in the graph's size: sources are
//! resolved once per node (a view chain is walked once, not per node),
//! reader lists are deduplicated by sorting, and the live bytes per step
//! come from a difference array, checked against L2 by a prefix count.

use super::classify::OpClass;
use super::work::Work;
use crate::graph::{Graph, NodeId};

/// The node whose kernel really produces what each node outputs (by id):
/// views pass their input through, fused ops live in their anchor. Each
/// chain is walked once; every node on it gets the chain's end.
fn sources(graph: &Graph, classes: &[OpClass], anchors: &[Option<NodeId>]) -> Vec<NodeId> {
    let next = |at: NodeId| -> Option<NodeId> {
        if let Some(anchor) = anchors[at.index()] {
            return Some(anchor);
        }
        match (
            classes[at.index()],
            graph.node(at).inputs.first().copied().flatten(),
        ) {
            (OpClass::Free("view"), Some(edge)) => Some(edge.node),
            (OpClass::Edge(i), _) => graph
                .node(at)
                .inputs
                .get(i)
                .copied()
                .flatten()
                .map(|e| e.node),
            _ => None,
        }
    };
    let mut source: Vec<Option<NodeId>> = vec![None; graph.len()];
    let mut on_path = vec![false; graph.len()];
    let mut path: Vec<NodeId> = Vec::new();
    for start in graph.node_ids() {
        let mut at = start;
        let end = loop {
            if let Some(known) = source[at.index()] {
                break known;
            }
            match next(at) {
                // A chain closing on itself (only through a loop back
                // edge) ends where it closes.
                Some(n) if !on_path[n.index()] => {
                    on_path[at.index()] = true;
                    path.push(at);
                    at = n;
                }
                _ => break at,
            }
        };
        source[at.index()] = Some(end);
        for p in path.drain(..) {
            on_path[p.index()] = false;
            source[p.index()] = Some(end);
        }
    }
    source
        .into_iter()
        .map(|s| s.expect("every node resolved"))
        .collect()
}

/// For each step, whether the bytes alive then exceed `capacity`, as a
/// prefix count: `over[b] - over[a]` steps in `a..b` overflow.
fn overflowing_steps(spans: &[(usize, usize, f64)], steps: usize, capacity: f64) -> Vec<u32> {
    // Sizes are whole byte counts, so the sums are exact in any order (below
    // 2^53 bytes) and equal to adding each size slot by slot.
    let mut delta = vec![0.0f64; steps + 1];
    for &(first, last, size) in spans.iter().filter(|s| s.0 <= s.1) {
        delta[first] += size;
        delta[last + 1] -= size;
    }
    let mut over = Vec::with_capacity(steps + 1);
    over.push(0u32);
    let mut live = 0.0;
    let mut count = 0u32;
    for d in &delta[..steps] {
        live += d;
        if live > capacity {
            count += 1;
        }
        over.push(count);
    }
    over
}

/// Moves the traffic of L2-resident activations from memory to L2 in
/// `works` (tasks in execution `order`; `anchors` from fusion).
pub(crate) fn keep_activations_in_l2(
    graph: &Graph,
    order: &[NodeId],
    classes: &[OpClass],
    anchors: &[Option<NodeId>],
    works: &mut [Option<Work>],
    l2_bytes: f64,
) {
    let is_task = |id: NodeId| works[id.index()].is_some() && anchors[id.index()].is_none();
    let source = sources(graph, classes, anchors);
    // A fused kernel runs once its last member's inputs are ready. Views
    // are free and run nowhere: a late view of a tensor does not delay the
    // kernel producing it (taking the view's place put the producer after
    // its own readers, and sliced live bytes backwards).
    let mut position = vec![0usize; graph.len()];
    for (i, &id) in order.iter().enumerate() {
        position[anchors[id.index()].unwrap_or(id).index()] = i;
    }
    let mut tasks: Vec<NodeId> = order.iter().copied().filter(|&id| is_task(id)).collect();
    tasks.sort_by_key(|id| position[id.index()]);
    let mut step = vec![usize::MAX; graph.len()];
    for (i, &id) in tasks.iter().enumerate() {
        step[id.index()] = i;
    }
    // Each producing task's readers (tasks, deduplicated) and last reader.
    // The tasks whose outputs a node's output is made of: its source, or
    // for a concatenation or slice done in place (no task) its inputs'.
    let made_of = |at: NodeId| -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![at];
        while let Some(n) = stack.pop() {
            let n = source[n.index()];
            if classes[n.index()] == OpClass::Free(super::schedule::IN_PLACE) {
                stack.extend(
                    graph
                        .node(n)
                        .inputs
                        .iter()
                        .flatten()
                        .filter(|e| graph.tensor(**e).value.is_none())
                        .map(|e| e.node),
                );
            } else {
                out.push(n);
            }
        }
        out
    };
    let mut readers: Vec<Vec<NodeId>> = vec![Vec::new(); graph.len()];
    let mut graph_output = vec![false; graph.len()];
    for edge in graph.outputs() {
        for producer in made_of(edge.node) {
            graph_output[producer.index()] = true;
        }
    }
    for &id in order {
        let reader = source[id.index()];
        if !is_task(reader) {
            continue;
        }
        for edge in graph.node(id).inputs.iter().flatten() {
            for producer in made_of(edge.node) {
                if producer != reader && is_task(producer) {
                    readers[producer.index()].push(reader);
                }
            }
        }
    }
    for list in &mut readers {
        list.sort_unstable();
        list.dedup();
    }
    // Each task's output is alive from its step to its last reader's.
    let output_bytes = |id: NodeId| works[id.index()].as_ref().map_or(0.0, |w| w.output_bytes);
    let spans: Vec<(usize, usize, f64)> = tasks
        .iter()
        .map(|&id| {
            let first = step[id.index()];
            let last = if graph_output[id.index()] {
                tasks.len()
            } else {
                // A reader of a fused kernel's intermediate output may sit
                // before the kernel's last member in `order`; it runs after
                // the kernel all the same.
                readers[id.index()]
                    .iter()
                    .map(|r| step[r.index()])
                    .max()
                    .unwrap_or(first)
                    .max(first)
            };
            (first, last, output_bytes(id))
        })
        .collect();
    let over = overflowing_steps(&spans, tasks.len() + 1, l2_bytes);
    for (&id, &(first, last, size)) in tasks.iter().zip(&spans) {
        if graph_output[id.index()] || readers[id.index()].is_empty() {
            continue;
        }
        if over[last + 1] > over[first] {
            continue;
        }
        for &task in std::iter::once(&id).chain(readers[id.index()].iter()) {
            if let Some(w) = works[task.index()].as_mut() {
                let moved = size.min(w.dram_bytes);
                w.dram_bytes -= moved;
                w.l2_bytes += moved;
            }
        }
    }
}

#[cfg(test)]
#[path = "l2_tests.rs"]
mod tests;
