//! Name lookup and producers-first order of framework ops. GraphDef lists
//! nodes in any order, so conversion sorts them (Kahn's algorithm, stable
//! by framework order). A TensorFlow v1 loop's back edge (NextIteration →
//! Merge) orders nothing, as GE breaks it; every other cycle is an error.

use super::Place;
use crate::frontend::{FrameworkOp, FrontendError};
use crate::name_index::NameIndex;
use std::collections::VecDeque;

/// Framework op index by name, for one graph or function body. The table
/// holds op indices only and compares against the ops' own names: on a
/// million-op graph a map keyed by `&str` would take 52 MB (24-byte slots)
/// where this takes 18.
pub(super) struct OpNames<'f> {
    ops: &'f [FrameworkOp],
    index: NameIndex,
}

impl OpNames<'_> {
    /// The index of the op named `name`.
    pub(super) fn get(&self, name: &str) -> Option<usize> {
        self.index.get(name, |i| self.ops[i].name.as_str())
    }
}

pub(super) fn index_names<'f>(
    ops: &'f [FrameworkOp],
    place: &Place,
) -> Result<OpNames<'f>, FrontendError> {
    let mut index = NameIndex::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        if !index.insert_new(&op.name, i, |k| ops[k].name.as_str()) {
            return Err(FrontendError::Graph(format!(
                "two nodes in {place} are named '{}'; node names must be unique",
                op.name
            )));
        }
    }
    Ok(OpNames { ops, index })
}

/// True for the edge closing a TensorFlow v1 loop: NextIteration feeding Merge.
pub(super) fn is_back_edge(consumer: &FrameworkOp, producer: &FrameworkOp) -> bool {
    matches!(consumer.op_type.as_str(), "Merge" | "RefMerge")
        && matches!(
            producer.op_type.as_str(),
            "NextIteration" | "RefNextIteration"
        )
}

/// Appends to `found` the producers `op` waits for, by framework index:
/// data inputs (less loop back edges) and control inputs; marks in
/// `consumed` every producer it names, back edges included. A name that is
/// not in the graph is an error.
fn push_producers(
    ops: &[FrameworkOp],
    names: &OpNames<'_>,
    op: &FrameworkOp,
    place: &Place,
    found: &mut Vec<usize>,
    consumed: &mut [bool],
) -> Result<(), FrontendError> {
    for (i, input) in op.inputs.iter().enumerate() {
        if input.is_absent() {
            continue;
        }
        let producer = lookup(names, &input.node, place, || {
            format!("node '{}' input {i}", op.name)
        })?;
        consumed[producer] = true;
        if !is_back_edge(op, &ops[producer]) {
            found.push(producer);
        }
    }
    for control in &op.control_inputs {
        let producer = lookup(names, control, place, || {
            format!("node '{}' control input", op.name)
        })?;
        consumed[producer] = true;
        found.push(producer);
    }
    Ok(())
}

/// The index of the op named `name`, or an error saying who referred to it.
pub(super) fn lookup(
    names: &OpNames<'_>,
    name: &str,
    place: &Place,
    referrer: impl FnOnce() -> String,
) -> Result<usize, FrontendError> {
    names.get(name).ok_or_else(|| {
        FrontendError::Graph(format!(
            "{} refers to '{name}', which is not a node in {place}",
            referrer()
        ))
    })
}

/// Framework ops in the order they convert in, and the graph's sinks.
pub(super) struct Ordered {
    /// Producers first.
    pub order: Vec<usize>,
    /// The ops whose outputs no op consumes (by data, control or loop back
    /// edge), in framework order: the default graph outputs.
    pub sinks: Vec<usize>,
}

/// `members` (framework indices, every producer of each also a member)
/// ordered producers first, ties keeping the order of `members`; with the
/// members nothing consumes, found by the same pass over the inputs (each
/// input name is looked up once here, not once per question asked of it).
pub(super) fn producers_first(
    ops: &[FrameworkOp],
    names: &OpNames<'_>,
    members: &[usize],
    place: &Place,
) -> Result<Ordered, FrontendError> {
    const ABSENT: usize = usize::MAX;
    let mut position = vec![ABSENT; ops.len()];
    for (p, &m) in members.iter().enumerate() {
        position[m] = p;
    }
    // Edges as flat arrays (compressed rows), not a vector per op: a
    // million-node graph would otherwise make millions of small allocations.
    // waits_on[p] = members p waits for, at wait_edges[wait_start[p]..wait_start[p + 1]].
    let mut wait_start = Vec::with_capacity(members.len() + 1);
    let mut wait_edges = Vec::with_capacity(members.len());
    let mut producers = Vec::new();
    let mut pending = vec![0u32; members.len()];
    let mut consumer_count = vec![0u32; members.len() + 1];
    let mut consumed = vec![false; ops.len()];
    for (p, &m) in members.iter().enumerate() {
        wait_start.push(wait_edges.len());
        producers.clear();
        push_producers(ops, names, &ops[m], place, &mut producers, &mut consumed)?;
        for &producer in &producers {
            let q = position[producer];
            if q == ABSENT {
                // Pruning keeps every producer of a kept op; an op outside the
                // members cannot be waited for.
                continue;
            }
            wait_edges.push(q);
            consumer_count[q] += 1;
            pending[p] += 1;
        }
    }
    wait_start.push(wait_edges.len());
    // consumers of q at consumer_edges[consumer_start[q]..consumer_start[q + 1]].
    let mut consumer_start = Vec::with_capacity(members.len() + 1);
    let mut total = 0usize;
    for &count in &consumer_count[..members.len()] {
        consumer_start.push(total);
        total += count as usize;
    }
    consumer_start.push(total);
    let mut fill = consumer_start.clone();
    let mut consumer_edges = vec![0usize; total];
    for p in 0..members.len() {
        for &q in &wait_edges[wait_start[p]..wait_start[p + 1]] {
            consumer_edges[fill[q]] = p;
            fill[q] += 1;
        }
    }
    let mut ready: VecDeque<usize> = (0..members.len()).filter(|&p| pending[p] == 0).collect();
    let mut order = Vec::with_capacity(members.len());
    while let Some(p) = ready.pop_front() {
        order.push(members[p]);
        for &c in &consumer_edges[consumer_start[p]..consumer_start[p + 1]] {
            pending[c] -= 1;
            if pending[c] == 0 {
                ready.push_back(c);
            }
        }
    }
    if order.len() == members.len() {
        let sinks = members.iter().copied().filter(|&m| !consumed[m]).collect();
        return Ok(Ordered { order, sinks });
    }
    let waits_on = |p: usize| &wait_edges[wait_start[p]..wait_start[p + 1]];
    let cycle = find_cycle(&pending, waits_on);
    let path: Vec<&str> = cycle
        .iter()
        .map(|&p| ops[members[p]].name.as_str())
        .collect();
    Err(FrontendError::Graph(format!(
        "{place} has a cycle through {} (only a TensorFlow v1 loop's NextIteration -> Merge edge may close one)",
        crate::message::capped_list(&path, " -> ")
    )))
}

/// A cycle among the ops Kahn could not order (`pending > 0`): each has a
/// stuck producer, so walking producers must revisit one. Returned producer
/// first, closed (the first name repeated at the end).
fn find_cycle<'w>(pending: &[u32], waits_on: impl Fn(usize) -> &'w [usize]) -> Vec<usize> {
    let stuck = |p: usize| pending[p] > 0;
    let Some(start) = (0..pending.len()).find(|&p| stuck(p)) else {
        return Vec::new();
    };
    let mut seen_at = vec![usize::MAX; pending.len()];
    let mut path = Vec::new();
    let mut at = start;
    while seen_at[at] == usize::MAX {
        seen_at[at] = path.len();
        path.push(at);
        match waits_on(at).iter().copied().find(|&q| stuck(q)) {
            Some(q) => at = q,
            None => return path,
        }
    }
    let mut cycle: Vec<usize> = path[seen_at[at]..].iter().rev().copied().collect();
    let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
    cycle.rotate_left(first);
    if let Some(&head) = cycle.first() {
        cycle.push(head);
    }
    cycle
}
