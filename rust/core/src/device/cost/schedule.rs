//! The whole graph: every node estimated in execution order, bodies of
//! While / If / calls included, then the single-stream total and the
//! critical path over parallel streams. Dead code GE deletes
//! (`device::dead_code`) costs nothing: a dead node's row says so, and an
//! If / Case on a known selector counts the branch it takes.

use super::classify::{classify, OpClass, DEAD};
use super::report::{Bound, NodeCost};
use super::rows::Rows;
use super::work::Work;
use super::{confusion, cube, fusion, in_place, l2, vector, CostError, CostOptions};
use crate::device::dead_code::DeadCode;
use crate::device::spec::DeviceSpec;
use crate::graph::names::prefixed;
use crate::graph::{is_loop_back_edge, topological_order, Graph, Node, NodeId, Subgraph};
use crate::ops::control::branches::taken_body;

/// The class of a concatenation or slice done in place (no task).
pub(crate) const IN_PLACE: &str = "in place";
/// The report's note on a format conversion the ConfusionTranspose fusion
/// leaves out ([`confusion`]).
const ABSORBED_NOTE: &str = "not run: ATC fuses the Reshape and Transpose beside it into ConfusionTransposeD, which reads and writes FRACTAL_NZ";
/// The report's note on a node of dead code.
const DEAD_NOTE: &str =
    "not run: a Switch on a known predicate sends it no data (GE deletes the dead branch)";
/// The report's note on a Switch or Merge GE reduces to an edge.
const EDGE_NOTE: &str =
    "not run: GE reduces it to an edge (a Switch on a known predicate, a Merge with one live input)";

/// Rows and facts gathered while walking a graph and its bodies.
#[derive(Default)]
pub(crate) struct Walk<R> {
    pub rows: R,
    pub flags: Vec<String>,
    pub tasks: u64,
    /// Op types without a cost rule and the nodes of each, in the order
    /// met: one flag per type, not per node (a QDQ-quantized network has
    /// dozens of QuantizeLinear nodes).
    pub uncosted: Vec<(String, Vec<String>)>,
}

/// Nodes named in an uncosted op type's flag before "… N more".
const UNCOSTED_NAMED: usize = 3;

impl<R> Walk<R> {
    fn note_uncosted(&mut self, op_type: &str, node: String) {
        match self.uncosted.iter_mut().find(|(t, _)| t == op_type) {
            Some((_, nodes)) => nodes.push(node),
            None => self.uncosted.push((op_type.to_owned(), vec![node])),
        }
    }

    fn absorb_uncosted(&mut self, other: Vec<(String, Vec<String>)>) {
        for (op_type, nodes) in other {
            for node in nodes {
                self.note_uncosted(&op_type, node);
            }
        }
    }

    /// The flags with one line per uncosted op type appended.
    pub fn finished_flags(mut self) -> (R, Vec<String>, u64) {
        for (op_type, nodes) in &self.uncosted {
            let named = nodes
                .iter()
                .take(UNCOSTED_NAMED)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ");
            let more = match nodes.len().saturating_sub(UNCOSTED_NAMED) {
                0 => String::new(),
                n => format!(" … {n} more"),
            };
            let count = match nodes.len() {
                1 => "1 node".to_owned(),
                n => format!("{n} nodes"),
            };
            self.flags.push(format!(
                "no cost rule for op type {op_type} ({count}: {named}{more}): each counted as one vector pass"
            ));
        }
        (self.rows, self.flags, self.tasks)
    }
}

fn free_row(name: String, node: &Node, note: Option<String>) -> NodeCost {
    NodeCost {
        name,
        op_type: node.op_type.clone(),
        time_us: 0.0,
        bound: Bound::Free,
        flops: 0.0,
        padded_flops: 0.0,
        bytes: 0.0,
        l2_bytes: 0.0,
        compute_us: 0.0,
        cube_us: 0.0,
        vector_us: 0.0,
        memory_us: 0.0,
        overhead_us: 0.0,
        count: 0.0,
        fused_into: None,
        note,
    }
}

pub(super) fn node_work(
    graph: &Graph,
    node: &Node,
    class: OpClass,
    spec: &DeviceSpec,
    opts: &CostOptions,
) -> Result<Option<Work>, CostError> {
    let own;
    let opts = match super::node_precision(node) {
        Some(precision) if precision != opts.precision => {
            own = CostOptions {
                precision,
                ..opts.clone()
            };
            &own
        }
        _ => opts,
    };
    Ok(Some(match class {
        OpClass::Free(_) | OpClass::Subgraph | OpClass::Edge(_) => return Ok(None),
        OpClass::Cube => cube::cube_work(graph, node, spec, opts)?,
        OpClass::Depthwise => vector::depthwise_work(graph, node, spec, opts, 0, 1)?,
        OpClass::Recurrent => super::recurrent::recurrent_work(graph, node, spec, opts)?,
        OpClass::Vector { passes, basis, .. } => {
            vector::vector_work(graph, node, spec, opts, passes, basis)?
        }
        OpClass::Unknown => {
            vector::vector_work(graph, node, spec, opts, 1.0, super::classify::Basis::Output)?
        }
        OpClass::AiCpu => vector::ai_cpu_work(graph, node, spec)?,
    }))
}

/// Estimates every node of `graph` (names prefixed with `prefix`), each
/// executed `count` times, appending rows to `walk`. Returns each node's
/// time by id (a caller's is its bodies' total) for the critical path.
pub(crate) fn walk_graph<R: Rows>(
    graph: &Graph,
    spec: &DeviceSpec,
    opts: &CostOptions,
    prefix: &str,
    count: f64,
    walk: &mut Walk<R>,
) -> Result<Vec<f64>, CostError> {
    let order = topological_order(graph).map_err(|e| CostError::Cycle {
        path: prefix.trim_end_matches('/').to_owned(),
        message: e.to_string(),
    })?;
    let mut classes: Vec<OpClass> = graph.nodes().iter().map(classify).collect();
    let dead_code = DeadCode::of(graph, &order);
    for (id, class) in graph.node_ids().zip(classes.iter_mut()) {
        if dead_code.is_node_dead(id) {
            *class = OpClass::Free(DEAD);
        } else if let Some((input, _)) = dead_code.forwards(graph, id) {
            *class = OpClass::Edge(input);
        }
    }
    // Dead code and edges keep their class (and their row's note).
    let removed =
        |class: OpClass| class == OpClass::Free(DEAD) || matches!(class, OpClass::Edge(_));
    let absorbed = confusion::absorbed_conversions(graph);
    for (class, &gone) in classes.iter_mut().zip(&absorbed) {
        if gone && !removed(*class) {
            *class = OpClass::Free("view");
        }
    }
    let counts = fusion::consumer_counts(graph, &classes);
    for (i, placed) in in_place::in_place(graph, &order, &classes, &counts)
        .into_iter()
        .enumerate()
    {
        if placed && !removed(classes[i]) {
            classes[i] = OpClass::Free(IN_PLACE);
        }
    }
    let constant = fusion::constant_nodes(graph, &order, &classes);
    let mut works: Vec<Option<Work>> = vec![None; graph.len()];
    for &id in &order {
        if constant[id.index()] {
            continue;
        }
        let node = graph.node(id);
        works[id.index()] = node_work(graph, node, classes[id.index()], spec, opts)
            .map_err(|e| e.in_body(prefix))?;
    }
    let anchors = if opts.fuse {
        fusion::fuse(graph, &order, &classes, &constant, &mut works)
    } else {
        vec![None; graph.len()]
    };
    if opts.l2_residency {
        l2::keep_activations_in_l2(
            graph,
            &order,
            &classes,
            &anchors,
            &mut works,
            spec.l2_bytes as f64,
        );
    }
    // A fused kernel finishes with its last member: its time sits there on
    // the critical path.
    let mut last_member: Vec<NodeId> = graph.node_ids().collect();
    for &id in &order {
        if let Some(anchor) = anchors[id.index()] {
            last_member[anchor.index()] = id;
        }
    }
    let mut times = vec![0.0; graph.len()];
    walk.rows.reserve(graph.len());
    for &id in &order {
        let node = graph.node(id);
        let name = prefixed(prefix, &node.name);
        let i = id.index();
        if let Some(anchor) = anchors[i] {
            let mut row = free_row(name, node, None);
            row.bound = Bound::Fused;
            row.count = count;
            row.fused_into = Some(prefixed(prefix, &graph.node(anchor).name));
            walk.rows.push(row);
            continue;
        }
        if classes[i] == OpClass::Subgraph {
            let at = walk.rows.len();
            walk.rows.push(free_row(name.clone(), node, None));
            let (total, note) = walk_bodies(graph, node, &name, spec, opts, count, walk)?;
            walk.rows.set_note_and_count(at, note, count);
            times[i] = total;
            continue;
        }
        let Some(work) = &works[i] else {
            let note = if classes[i] == OpClass::Free(DEAD) {
                Some(DEAD_NOTE.to_owned())
            } else if matches!(classes[i], OpClass::Edge(_)) {
                Some(EDGE_NOTE.to_owned())
            } else if constant[i] {
                Some("computed at build time (constant inputs)".to_owned())
            } else if classes[i] == OpClass::Free(IN_PLACE) {
                Some("in place: its parts are contiguous blocks of the whole (no copy)".to_owned())
            } else if absorbed[i] {
                Some(ABSORBED_NOTE.to_owned())
            } else {
                None
            };
            walk.rows.push(free_row(name, node, note));
            continue;
        };
        let t = work.time(spec);
        let note = match classes[i] {
            OpClass::AiCpu => Some("no AI Core kernel: AI CPU fallback".to_owned()),
            OpClass::Unknown => {
                walk.note_uncosted(&node.op_type, name.clone());
                Some("no cost rule: one vector pass".to_owned())
            }
            _ => None,
        };
        walk.tasks += count.round() as u64;
        times[last_member[i].index()] += t.time_us * count;
        walk.rows.push(NodeCost {
            name,
            op_type: node.op_type.clone(),
            time_us: t.time_us * count,
            bound: t.bound,
            flops: work.flops * count,
            padded_flops: work.padded_flops * count,
            bytes: work.dram_bytes * count,
            l2_bytes: work.l2_bytes * count,
            compute_us: t.compute_us * count,
            cube_us: t.cube_us * count,
            vector_us: t.vector_us * count,
            memory_us: t.memory_us * count,
            overhead_us: t.overhead_us * count,
            count,
            fused_into: None,
            note,
        });
    }
    Ok(times)
}

fn is_loop(node: &Node) -> bool {
    node.op_type.contains("While")
}

fn is_branch(node: &Node) -> bool {
    node.op_type.contains("If") || node.op_type == "Case"
}

/// Walks the bodies `node` (in `graph`) calls: a loop's cond and body
/// `trip count` times, the branch of an If / Case its known selector takes
/// or else the costliest, every body of a call. Returns the time added and
/// a note for the caller's row.
fn walk_bodies<R: Rows>(
    graph: &Graph,
    node: &Node,
    name: &str,
    spec: &DeviceSpec,
    opts: &CostOptions,
    count: f64,
    walk: &mut Walk<R>,
) -> Result<(f64, String), CostError> {
    let walk_body = |sub: &Subgraph, count: f64, walk: &mut Walk<R>| {
        walk_graph(
            &sub.graph,
            spec,
            opts,
            &format!("{name}/{}/", sub.name),
            count,
            walk,
        )
    };
    if let Some(taken) = taken_body(graph, node) {
        let sub = &node.subgraphs[taken];
        let from = walk.rows.len();
        walk_body(sub, count, walk)?;
        let total = walk.rows.time_from(from);
        return Ok((
            total,
            format!("branch {} counted (its selector is known)", sub.name),
        ));
    }
    if is_branch(node) && node.subgraphs.len() > 1 {
        let mut best: Option<(f64, Walk<R>, &str)> = None;
        for sub in &node.subgraphs {
            let mut branch = Walk::<R>::default();
            walk_body(sub, count, &mut branch)?;
            let total = branch.rows.time_from(0);
            if best.as_ref().is_none_or(|(t, _, _)| total > *t) {
                best = Some((total, branch, &sub.name));
            }
        }
        let (total, branch, chosen) = best.expect("more than one branch");
        walk.rows.append(branch.rows);
        walk.flags.extend(branch.flags);
        walk.absorb_uncosted(branch.uncosted);
        walk.tasks += branch.tasks;
        walk.flags.push(format!(
            "{name}: the costliest branch ({chosen}) is counted"
        ));
        return Ok((total, format!("branch {chosen} counted (the costliest)")));
    }
    let trips = if is_loop(node) {
        match opts.loop_trip_count {
            Some(n) => n as f64,
            None => {
                walk.flags.push(format!(
                    "{name}: loop trip count unknown, body counted once (set loop_trip_count)"
                ));
                1.0
            }
        }
    } else {
        1.0
    };
    let from = walk.rows.len();
    for sub in &node.subgraphs {
        walk_body(sub, count * trips, walk)?;
    }
    let total = walk.rows.time_from(from);
    let note = if is_loop(node) {
        format!("loop bodies counted {trips} time(s)")
    } else {
        "calls its bodies once".to_owned()
    };
    Ok((total, note))
}

/// The longest path through `graph` weighted by `times` (data and control
/// edges; loop back edges ignored): its length and the nodes on it that
/// take time, in order.
pub(crate) fn critical_path(graph: &Graph, times: &[f64]) -> Result<(f64, Vec<String>), CostError> {
    let order = topological_order(graph).map_err(|e| CostError::Cycle {
        path: String::new(),
        message: e.to_string(),
    })?;
    let mut finish = vec![0.0f64; graph.len()];
    let mut via: Vec<Option<NodeId>> = vec![None; graph.len()];
    for &id in &order {
        let node = graph.node(id);
        let preds = node
            .inputs
            .iter()
            .flatten()
            .map(|e| e.node)
            .chain(node.control_inputs.iter().copied())
            .filter(|&p| !is_loop_back_edge(node, graph.node(p)));
        let mut start = 0.0;
        for p in preds {
            if finish[p.index()] > start
                || (via[id.index()].is_none() && finish[p.index()] >= start)
            {
                start = finish[p.index()];
                via[id.index()] = Some(p);
            }
        }
        finish[id.index()] = start + times[id.index()];
    }
    let Some(mut at) = order
        .iter()
        .copied()
        .max_by(|a, b| finish[a.index()].total_cmp(&finish[b.index()]))
    else {
        return Ok((0.0, Vec::new()));
    };
    let length = finish[at.index()];
    let mut path = Vec::new();
    loop {
        if times[at.index()] > 0.0 {
            path.push(graph.node(at).name.clone());
        }
        match via[at.index()] {
            Some(p) => at = p,
            None => break,
        }
    }
    path.reverse();
    Ok((length, path))
}
