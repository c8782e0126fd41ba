//! GE's CondRemovePass: an If / Case whose selector is known is replaced by
//! the body it takes, spliced into its caller, before `prepare` picks
//! storage formats. A kernel's output that enters the body then keeps its
//! device format (no conversion to a plain format and back at the body's
//! boundary), its weights are converted with the caller's, and UB fusion
//! sees the body's ops next to their producers, as GE's does.
//!
//! A spliced node is named `{caller}/{body}/{node}`, the name the memory
//! plan and the cost report give a body's node (with a numeric suffix in
//! the rare case the caller already has a node of that name).
//!
//! Ordering is kept as TensorFlow's function inliner keeps it: the body's
//! sources wait on what the replaced node waited on, and what waited on
//! the replaced node waits on what produces the body's results, the
//! node's inputs and its own waits.

use super::dead_code::DeadCode;
use super::DeviceError;
use crate::graph::{Graph, Node, NodeId, OutputRef};
use crate::ops::control::branches::taken_body;
use rustc_hash::FxHashSet;
use std::collections::VecDeque;
use std::sync::Arc;

/// Replaces every live If / Case of `graph` whose selector is known by the
/// body it takes; `dead_code` is `graph`'s. Returns how many it replaced.
/// A body that itself holds such a node leaves it in the caller, for the
/// next call: the caller repeats until nothing is replaced.
///
/// The graph is rebuilt by moving its nodes; the errors this can return
/// are internal ones (an edge `can_splice` should have ruled out), after
/// which the graph is left empty (Python poisons a graph `prepare` failed
/// on part way).
pub(crate) fn splice_taken_bodies(
    graph: &mut Graph,
    dead_code: &DeadCode,
) -> Result<usize, DeviceError> {
    // Only nodes with bodies can be replaced: most graphs have none, and
    // pay one pass over their nodes, no allocation.
    let taken = graph.node_ids().filter_map(|id| {
        let node = graph.node(id);
        // A dead If stays dead: its body's Consts must not come alive.
        if node.subgraphs.is_empty() || dead_code.is_node_dead(id) {
            return None;
        }
        let k = taken_body(graph, node).filter(|&k| can_splice(node, k))?;
        Some((id, k))
    });
    let mut spliced = Vec::new();
    let mut splice_of = Vec::new();
    for (id, k) in taken {
        if splice_of.is_empty() {
            splice_of = vec![None; graph.len()];
        }
        splice_of[id.index()] = Some(spliced.len());
        spliced.push(Splice::of(graph.node(id), k));
    }
    if spliced.is_empty() {
        return Ok(0);
    }
    let replaced = spliced.len();
    name_spliced_nodes(graph, &mut spliced);
    let (name, nodes, inputs, outputs) = std::mem::take(graph).into_parts();
    let mut builder = Builder {
        graph: Graph::new(name),
        new_id: vec![None; nodes.len()],
        splice_of,
        spliced,
    };
    let edges = builder.add_nodes(nodes)?;
    builder.wire(edges)?;
    let mut graph_outputs = Vec::with_capacity(outputs.len());
    for edge in outputs {
        let edge = builder
            .resolve(edge)
            .ok_or_else(|| lost_edge("<outputs>"))?;
        graph_outputs.push(edge);
    }
    for input in inputs {
        let id = builder.new_id[input.index()].ok_or_else(|| lost_edge("<inputs>"))?;
        builder.graph.add_input(id);
    }
    builder.graph.set_outputs(graph_outputs)?;
    *graph = builder.graph;
    Ok(replaced)
}

/// Whether `node`'s body `k` can replace it: every argument of the body
/// names one of the node's inputs that is present, and the body returns
/// one result per output of the node.
fn can_splice(node: &Node, k: usize) -> bool {
    let body = &node.subgraphs[k].graph;
    body.outputs().len() == node.outputs.len()
        && body.nodes().iter().all(|b| {
            !is_argument(b)
                || b.caller_input()
                    .is_some_and(|i| matches!(node.inputs.get(i), Some(Some(_))))
        })
}

/// A body's argument: a Data node taking one of the caller's inputs.
fn is_argument(node: &Node) -> bool {
    node.op_type.as_str() == "Data"
}

/// One If / Case being replaced, and what its place in the graph needs.
struct Splice {
    caller: String,
    body_name: String,
    body: Arc<Graph>,
    inputs: Vec<Option<OutputRef>>,
    controls: Vec<NodeId>,
    /// The body's nodes that produce its results (arguments excepted): what
    /// a node waiting on the replaced one waits on.
    results: Vec<NodeId>,
    /// Per body node: its name in the caller (`None` for arguments).
    names: Vec<Option<String>>,
    /// Per body node: its id in the new graph (`None` for arguments).
    ids: Vec<Option<NodeId>>,
}

impl Splice {
    fn of(node: &Node, k: usize) -> Splice {
        let body = &node.subgraphs[k];
        let graph = &body.graph;
        let mut seen = FxHashSet::default();
        let results = graph
            .outputs()
            .iter()
            .map(|r| r.node)
            .filter(|&b| !is_argument(graph.node(b)) && seen.insert(b))
            .collect();
        Splice {
            caller: node.name.clone(),
            body_name: body.name.clone(),
            body: Arc::clone(graph),
            inputs: node.inputs.clone(),
            controls: node.control_inputs.to_vec(),
            results,
            names: Vec::new(),
            ids: vec![None; graph.len()],
        }
    }

    /// Whether body node `b` reads nothing and waits on nothing of the
    /// body but its arguments: it waits on what the replaced node waited on.
    fn is_source(&self, b: &Node) -> bool {
        let argument = |id: NodeId| is_argument(self.body.node(id));
        b.inputs.iter().flatten().all(|e| argument(e.node))
            && b.control_inputs.iter().all(|&c| argument(c))
    }
}

/// Names every spliced node `{caller}/{body}/{node}`, or with a numeric
/// suffix where that name is already taken in the caller.
fn name_spliced_nodes(graph: &Graph, spliced: &mut [Splice]) {
    let mut claimed: FxHashSet<String> = FxHashSet::default();
    for splice in spliced {
        splice.names = splice
            .body
            .nodes()
            .iter()
            .map(|node| {
                (!is_argument(node)).then(|| {
                    let base = format!("{}/{}/{}", splice.caller, splice.body_name, node.name);
                    let mut name = base.clone();
                    let mut suffix = 1;
                    while graph.find(&name).is_some() || claimed.contains(&name) {
                        name = format!("{base}_{suffix}");
                        suffix += 1;
                    }
                    claimed.insert(name.clone());
                    name
                })
            })
            .collect();
    }
}

/// The graph being built and where each old node went.
struct Builder {
    graph: Graph,
    /// Per old node: its id in the new graph (`None` for a replaced node).
    new_id: Vec<Option<NodeId>>,
    /// Per old node: its entry in `spliced` when it is replaced.
    splice_of: Vec<Option<usize>>,
    spliced: Vec<Splice>,
}

/// A node added with its edges cleared, and the edges it had (old ids, or
/// body ids for a body's node).
struct Pending {
    id: NodeId,
    inputs: Vec<Option<OutputRef>>,
    controls: Vec<NodeId>,
    /// For a body's node: its splice and whether it is a source of the body.
    from_body: Option<(usize, bool)>,
}

impl Builder {
    /// Adds the old nodes in their order, each replaced node's body nodes
    /// in its place, with no edges yet (an edge may point at a node added
    /// later: a loop's back edge).
    fn add_nodes(&mut self, nodes: Vec<Node>) -> Result<Vec<Pending>, DeviceError> {
        self.graph.reserve(nodes.len());
        let mut pending = Vec::with_capacity(nodes.len());
        for (old, node) in nodes.into_iter().enumerate() {
            let Some(s) = self.splice_of[old] else {
                let added = self.add_cleared(node, None)?;
                self.new_id[old] = Some(added.id);
                pending.push(added);
                continue;
            };
            let body = Arc::clone(&self.spliced[s].body);
            for (b, body_node) in body.nodes().iter().enumerate() {
                let Some(name) = self.spliced[s].names[b].clone() else {
                    continue;
                };
                let source = self.spliced[s].is_source(body_node);
                let mut copy = body_node.clone();
                copy.name = name;
                let added = self.add_cleared(copy, Some((s, source)))?;
                self.spliced[s].ids[b] = Some(added.id);
                pending.push(added);
            }
        }
        Ok(pending)
    }

    /// Adds `node` with no edges, keeping the edges it had for `wire`.
    fn add_cleared(
        &mut self,
        mut node: Node,
        from_body: Option<(usize, bool)>,
    ) -> Result<Pending, DeviceError> {
        let cleared = vec![None; node.inputs.len()];
        let inputs = std::mem::replace(&mut node.inputs, cleared);
        let controls = std::mem::take(&mut node.control_inputs).to_vec();
        Ok(Pending {
            id: self.graph.add_node(node)?,
            inputs,
            controls,
            from_body,
        })
    }

    /// Gives every added node its edges, in the new graph's ids.
    fn wire(&mut self, pending: Vec<Pending>) -> Result<(), DeviceError> {
        for Pending {
            id,
            inputs,
            controls,
            from_body,
        } in pending
        {
            let splice = from_body.map(|(s, _)| s);
            let name = self.graph.node(id).name.clone();
            let resolve = |edge| match splice {
                None => self.resolve(edge),
                Some(s) => self.resolve_in_body(s, edge),
            };
            let wired = inputs
                .into_iter()
                .map(|edge| {
                    edge.map(|e| resolve(e).ok_or_else(|| lost_edge(&name)))
                        .transpose()
                })
                .collect::<Result<Vec<_>, _>>()?;
            let mut waits = Vec::new();
            for &control in &controls {
                match splice {
                    None => self.control_targets(control, &mut waits),
                    // A wait on a body node is a wait on what replaced it
                    // (an argument: on what the caller passes).
                    Some(s) => waits.extend(
                        self.resolve_in_body(s, OutputRef::new(control, 0))
                            .map(|e| e.node),
                    ),
                }
            }
            if let Some((s, true)) = from_body {
                for &control in &self.spliced[s].controls {
                    self.control_targets(control, &mut waits);
                }
            }
            let node = self.graph.node_mut(id);
            node.inputs = wired;
            // Order kept (the memory schedule reads a control-only node's
            // frame off its first wait), duplicates dropped.
            let mut seen = FxHashSet::default();
            node.control_inputs = waits
                .into_iter()
                .filter(|&w| w != id && seen.insert(w))
                .collect();
        }
        Ok(())
    }

    /// The new graph's edge for the old graph's `edge`: a replaced node's
    /// output is its body's result, which may be one of its own inputs
    /// handed on (and so, in turn, another replaced node's output).
    fn resolve(&self, mut edge: OutputRef) -> Option<OutputRef> {
        for _ in 0..=self.spliced.len() {
            let Some(s) = self.splice_of[edge.node.index()] else {
                return Some(OutputRef::new(self.new_id[edge.node.index()]?, edge.index));
            };
            let result = *self.spliced[s].body.outputs().get(edge.index as usize)?;
            match self.in_body(s, result)? {
                Ok(spliced) => return Some(spliced),
                Err(outer) => edge = outer,
            }
        }
        None
    }

    /// The new graph's edge for `edge` inside the body of splice `s`.
    fn resolve_in_body(&self, s: usize, edge: OutputRef) -> Option<OutputRef> {
        match self.in_body(s, edge)? {
            Ok(spliced) => Some(spliced),
            Err(outer) => self.resolve(outer),
        }
    }

    /// Where `edge` inside the body of splice `s` comes from: a spliced
    /// node's output (`Ok`, in the new graph), or for an argument the
    /// caller's input it takes (`Err`, an edge of the old graph).
    fn in_body(&self, s: usize, edge: OutputRef) -> Option<Result<OutputRef, OutputRef>> {
        let splice = &self.spliced[s];
        let producer = splice.body.node(edge.node);
        if !is_argument(producer) {
            let id = splice.ids[edge.node.index()]?;
            return Some(Ok(OutputRef::new(id, edge.index)));
        }
        Some(Err((*splice.inputs.get(producer.caller_input()?)?)?))
    }

    /// What waiting on old node `old` becomes: waiting on it, or, for a
    /// replaced node, on its arguments' producers, its selector's, what
    /// produces its body's results and what it waited on, in that order
    /// (the memory schedule reads a control-only node's frame off its first
    /// wait, and the inputs are in the node's own frame). A work queue:
    /// replaced nodes may wait on replaced nodes.
    fn control_targets(&self, old: NodeId, waits: &mut Vec<NodeId>) {
        let mut work = VecDeque::from([old]);
        let mut expanded = FxHashSet::default();
        while let Some(old) = work.pop_front() {
            let Some(s) = self.splice_of[old.index()] else {
                waits.extend(self.new_id[old.index()]);
                continue;
            };
            if !expanded.insert(s) {
                continue;
            }
            let splice = &self.spliced[s];
            let (selector, arguments) = splice.inputs.split_first().unwrap_or((&None, &[]));
            let inputs = arguments.iter().chain([selector]).flatten();
            waits.extend(inputs.filter_map(|&e| self.resolve(e)).map(|e| e.node));
            waits.extend(splice.results.iter().filter_map(|b| splice.ids[b.index()]));
            work.extend(&splice.controls);
        }
    }
}

/// An edge that could not be carried over; `can_splice` rules this out.
fn lost_edge(node: &str) -> DeviceError {
    DeviceError::Node {
        node: node.to_owned(),
        message: "an edge was lost replacing an If / Case by the body it takes".to_owned(),
    }
}
