//! The inference engine: GE's topological verify / infer-dtype / infer-shape
//! traversal, bodies included.

use super::check::port_counts;
use super::dead::DeadOutputs;
use super::error::{InferFailure, NodeError, Stage};
use super::guards::{body_may_not_run, Guards};
use super::run_node::{internal_failure, run_node, EngineView, StageResult};
use crate::graph::{is_loop_back_edge, is_merge, topological_order, Graph, Node, NodeId, Subgraph};
use crate::internal::catch_internal;
use crate::op::{OpError, OpRegistry, OpSchema};
use crate::types::{same_name, AttrValue, TensorDesc};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::Arc;

#[derive(Clone, Copy, Debug)]
pub struct InferOptions {
    /// Keep going after a failure and report every failing node; nodes fed
    /// by a failed node are skipped rather than reported again.
    pub collect_errors: bool,
    /// Value folding evaluates a node on the host only when each of its
    /// outputs has at most this many elements (shape vectors, scalars), so
    /// inference never computes real activations.
    pub fold_limit: usize,
}

/// Default [`InferOptions::fold_limit`]: ample for shape arithmetic.
pub const DEFAULT_FOLD_LIMIT: usize = 4096;

impl Default for InferOptions {
    fn default() -> Self {
        InferOptions {
            collect_errors: false,
            fold_limit: DEFAULT_FOLD_LIMIT,
        }
    }
}

/// Verifies and infers every node of `graph` (and of its bodies) in
/// topological order.
pub fn infer_graph(
    graph: &mut Graph,
    registry: &OpRegistry,
    options: InferOptions,
) -> Result<(), Vec<InferFailure>> {
    infer_in(graph, registry, options, false)
}

/// [`infer_graph`] on a graph that may not run when its caller does (a
/// loop's body): a value it cannot fold is left unknown, not an error.
pub(super) fn infer_conditional(
    graph: &mut Graph,
    registry: &OpRegistry,
    options: InferOptions,
) -> Result<(), Vec<InferFailure>> {
    infer_in(graph, registry, options, true)
}

fn infer_in(
    graph: &mut Graph,
    registry: &OpRegistry,
    options: InferOptions,
    conditional: bool,
) -> Result<(), Vec<InferFailure>> {
    let mut engine = Engine {
        registry,
        schemas: SchemaCache::new(registry),
        options,
        inferred: FxHashMap::default(),
        path: Vec::new(),
        failures: Vec::new(),
        back_edges_known: false,
        conditional,
        unknown: TensorDesc::default(),
    };
    engine.run(graph);
    if engine.failures.is_empty() {
        Ok(())
    } else {
        Err(engine.failures)
    }
}

/// One inference of a shared body: the body as the call site held it, the
/// caller's input descriptors, and the inferred body (shared in turn by
/// every call site with the same inputs).
struct InferredBody {
    /// Keeps a shared body alive, so its address (the memo key) is not
    /// reused while the run lasts.
    _original: Option<Arc<Graph>>,
    caller_inputs: Vec<Option<TensorDesc>>,
    /// Inferred as code that may not run (see [`Engine::conditional`]).
    conditional: bool,
    result: Arc<Graph>,
    ok: bool,
}

struct Engine<'r> {
    registry: &'r OpRegistry,
    schemas: SchemaCache<'r>,
    options: InferOptions,
    /// Bodies inferred in this run, by the address of the body a call site
    /// held: a library function called from many places is inferred once
    /// per distinct input signature, not once per call path.
    inferred: FxHashMap<*const Graph, Vec<InferredBody>>,
    path: Vec<String>,
    failures: Vec<InferFailure>,
    /// False on the first pass over a TF v1 loop frame: a Merge then sees
    /// its NextIteration input as not yet inferred (`unknown`).
    back_edges_known: bool,
    /// The graph being inferred may not run when the top graph does (a
    /// body its node may not pick, or a loop's): a value it cannot fold
    /// stays unknown instead of failing the graph (`guards.rs`).
    conditional: bool,
    unknown: TensorDesc,
}

/// Passes over a TF v1 loop frame before giving up on a fixpoint; the merge
/// rule only widens, so real loops settle in a few.
const LOOP_PASSES: usize = 16;

impl Engine<'_> {
    /// Infers one graph; false when it stopped early.
    fn run(&mut self, graph: &mut Graph) -> bool {
        let order = match topological_order(graph) {
            Ok(order) => order,
            Err(error) => {
                self.failures.push(InferFailure::Cycle {
                    path: self.path.clone(),
                    error,
                });
                return false;
            }
        };
        let loop_merges: Vec<NodeId> = graph
            .node_ids()
            .filter(|&id| has_back_edge(graph, id))
            .collect();
        let outer = std::mem::replace(&mut self.back_edges_known, false);
        // Kept across passes: a loop's Merge reads its back edge's verdict
        // from the pass before, as it reads the back edge's descriptor.
        let mut dead = DeadOutputs::of(graph);
        let mut ok = self.pass(graph, &order, &mut dead);
        // GE's loop handling: infer the frame again with the back edges'
        // values until the Merge outputs stop changing.
        if ok && !loop_merges.is_empty() {
            self.back_edges_known = true;
            ok = self.settle_loops(graph, &order, &loop_merges, &mut dead);
        }
        self.back_edges_known = outer;
        ok
    }

    fn settle_loops(
        &mut self,
        graph: &mut Graph,
        order: &[NodeId],
        merges: &[NodeId],
        dead: &mut Option<DeadOutputs>,
    ) -> bool {
        let snapshot = |g: &Graph| -> Vec<Vec<TensorDesc>> {
            merges.iter().map(|&m| g.node(m).outputs.clone()).collect()
        };
        for _ in 0..LOOP_PASSES {
            let before = snapshot(graph);
            if !self.pass(graph, order, dead) {
                return false;
            }
            if snapshot(graph) == before {
                return true;
            }
        }
        let message = format!("its loop frame did not settle in {LOOP_PASSES} passes");
        let error = self.error(graph, merges[0], Stage::InferShape, OpError::new(message));
        self.failures.push(InferFailure::Node(*error));
        false
    }

    /// One pass over `order`; false when it stopped early or a node failed.
    fn pass(
        &mut self,
        graph: &mut Graph,
        order: &[NodeId],
        dead: &mut Option<DeadOutputs>,
    ) -> bool {
        // Nodes that failed or were skipped. Only consulted once something
        // has failed, so a clean run never looks at a node's producers here.
        let mut failed = vec![false; graph.len()];
        let mut any_failed = false;
        let mut guards = Guards::default();
        for &id in order {
            if let Some(dead) = dead.as_mut() {
                dead.visit(graph, id);
            }
            if any_failed && fed_by_failure(graph.node(id), &failed) {
                failed[id.index()] = true;
                continue;
            }
            if let Err(error) = self.infer_node(graph, id, dead.as_ref(), &mut guards) {
                failed[id.index()] = true;
                any_failed = true;
                let aborts = error.aborts();
                self.failures.push(InferFailure::Node(*error));
                if !self.options.collect_errors || aborts {
                    return false;
                }
            }
        }
        !any_failed
    }

    /// Errors are boxed: they are rare, and a small `Result` keeps the
    /// per-node path lean.
    fn infer_node(
        &mut self,
        graph: &mut Graph,
        id: NodeId,
        dead: Option<&DeadOutputs>,
        guards: &mut Guards,
    ) -> Result<(), Box<NodeError>> {
        let Some(schema) = self.schemas.get(&graph.node(id).op_type) else {
            let msg = format!(
                "no op type '{}' is registered; register a prototype for it with opgraph.register",
                graph.node(id).op_type
            );
            return Err(self.error(graph, id, Stage::UnknownOp, OpError::new(msg)));
        };
        normalize_counts(graph, id, schema);
        if let Some(shapes_of) = &schema.weight_shapes {
            super::weights::complete_weights(graph, id, schema, shapes_of)
                .map_err(|e| self.error(graph, id, Stage::Verify, e))?;
        }
        if !graph.node(id).subgraphs.is_empty() {
            // A node that may not run runs none of its bodies for sure.
            let may_not_run = self.conditional
                || dead.is_some_and(|d| d.is_node_dead(id))
                || guards.may_not_run(graph, id, dead);
            self.infer_bodies(graph, id, may_not_run)?;
        }

        let mut outputs = std::mem::take(&mut graph.node_mut(id).outputs);
        if !schema.source {
            outputs.iter_mut().for_each(TensorDesc::reset);
        }
        let engine = EngineView {
            registry: self.registry,
            options: self.options,
        };
        let result = {
            let node = graph.node(id);
            // Filled in place rather than collected: moving a just-written
            // SmallVec stalls on store forwarding.
            let mut inputs: SmallVec<[Option<&TensorDesc>; 6]> = SmallVec::new();
            inputs.extend(node.inputs.iter().map(|e| e.map(|e| graph.tensor(e))));
            if !self.back_edges_known && has_back_edge(graph, id) {
                for (slot, edge) in inputs.iter_mut().zip(&node.inputs) {
                    if edge.is_some_and(|e| is_loop_back_edge(node, graph.node(e.node))) {
                        *slot = Some(&self.unknown);
                    }
                }
            }
            // A live Merge joins its live inputs only: a dead one reads as
            // not yet inferred, which Merge skips.
            let mut sole_live = None;
            if let Some(dead) = dead.filter(|d| is_merge(node) && !d.is_node_dead(id)) {
                for (slot, edge) in inputs.iter_mut().zip(&node.inputs) {
                    if edge.is_some_and(|e| dead.is_dead(e)) {
                        *slot = Some(&self.unknown);
                    }
                }
                sole_live = dead.sole_live_input(graph, id);
            }
            // A dead node never runs: nothing is computed for it (a branch
            // may divide by the zero its predicate guards against).
            let folds = dead.is_none_or(|d| !d.is_node_dead(id));
            let mut fold_failure = None;
            // A panic is opgraph's bug: its own stage, never the node's fault.
            let mut result = catch_internal(|| {
                run_node(
                    node,
                    schema,
                    &inputs,
                    &mut outputs,
                    &engine,
                    folds,
                    &mut fold_failure,
                )
            })
            .unwrap_or_else(|bug| Err((Stage::Internal, internal_failure(bug))));
            if let Some(e) = fold_failure {
                // What cannot be folded where it may never run is left for
                // run time, as GE's folding leaves it (`guards.rs`).
                result = if !schema.source
                    && (self.conditional || guards.may_not_run(graph, id, dead))
                {
                    infer_unfolded(node, schema, &inputs, &mut outputs, &engine)
                } else {
                    Err((Stage::InferShape, e))
                };
            }
            // GE's MergePass replaces a Merge left one input by that input:
            // its value and list facts go through, not just its shape.
            if let (Ok(()), Some(edge)) = (&result, sole_live) {
                outputs[0] = graph.tensor(edge).clone();
            }
            result
        };
        graph.node_mut(id).outputs = outputs;
        result.map_err(|(stage, e)| self.error(graph, id, stage, e))
    }

    /// Binds the caller's inputs to each body's indexed Data nodes, then
    /// infers the body. A body shared by several call sites (one library
    /// function) is inferred once per distinct caller signature: the first
    /// call site with that signature infers a copy, the others share it.
    /// `may_not_run` says the node itself may not run.
    fn infer_bodies(
        &mut self,
        graph: &mut Graph,
        id: NodeId,
        may_not_run: bool,
    ) -> Result<(), Box<NodeError>> {
        // Which bodies may not run (read before the bodies are taken out:
        // an If's branches are found by name).
        let conditional: Vec<bool> = (0..graph.node(id).subgraphs.len())
            .map(|k| may_not_run || body_may_not_run(graph, graph.node(id), k))
            .collect();
        let mut bodies = std::mem::take(&mut graph.node_mut(id).subgraphs);
        let mut caller_inputs: Vec<Option<TensorDesc>> = graph
            .node(id)
            .inputs
            .iter()
            .map(|e| e.map(|e| graph.tensor(e).clone()))
            .collect();
        if let Some(adapt) = self
            .registry
            .get(&graph.node(id).op_type)
            .and_then(|s| s.body_inputs)
        {
            adapt(&graph.node(id).attrs, &mut caller_inputs);
        }
        let mut outcome = Ok(());
        for (body, &conditional) in bodies.iter_mut().zip(&conditional) {
            let key = Arc::as_ptr(&body.graph);
            let known = self.inferred.get(&key).and_then(|seen| {
                seen.iter()
                    // A clean inference as surely running stands for one
                    // as possibly not: no fold failed in it.
                    .find(|s| {
                        s.caller_inputs == caller_inputs
                            && (s.conditional == conditional || (s.ok && !s.conditional))
                    })
                    .map(|s| (Arc::clone(&s.result), s.ok))
            });
            let ok = match known {
                Some((result, ok)) => {
                    body.graph = result;
                    ok
                }
                None => {
                    // Kept only when shared: a body this call site alone
                    // holds is inferred in place (its address stays its own).
                    let original =
                        (Arc::strong_count(&body.graph) > 1).then(|| Arc::clone(&body.graph));
                    let outer = std::mem::replace(&mut self.conditional, conditional);
                    let inferred = self.infer_body(graph.node(id), body, &caller_inputs);
                    self.conditional = outer;
                    let ok = match inferred {
                        Ok(ok) => ok,
                        Err(message) => {
                            outcome = Err(OpError::new(format!("body '{}': {message}", body.name)));
                            break;
                        }
                    };
                    self.inferred.entry(key).or_default().push(InferredBody {
                        _original: original,
                        caller_inputs: caller_inputs.clone(),
                        conditional,
                        result: Arc::clone(&body.graph),
                        ok,
                    });
                    ok
                }
            };
            if !ok {
                outcome = Err(OpError::new(format!(
                    "body '{}' failed inference (see its errors)",
                    body.name
                )));
                break;
            }
        }
        graph.node_mut(id).subgraphs = bodies;
        outcome.map_err(|e| self.error(graph, id, Stage::Subgraph, e))
    }

    /// Infers `body` of `caller` with `caller_inputs` bound (copying it first
    /// if another call site shares it): whether it inferred cleanly, or why
    /// the inputs do not bind.
    fn infer_body(
        &mut self,
        caller: &Node,
        body: &mut Subgraph,
        caller_inputs: &[Option<TensorDesc>],
    ) -> Result<bool, String> {
        self.path.push(caller.name.clone());
        self.path.push(body.name.clone());
        let graph = body.graph_mut();
        if let Err(message) = bind_body_inputs(graph, caller_inputs) {
            self.path.truncate(self.path.len() - 2);
            return Err(message);
        }
        let ok = self.run(graph);
        self.path.truncate(self.path.len() - 2);
        Ok(ok)
    }

    fn error(&self, graph: &Graph, id: NodeId, stage: Stage, e: OpError) -> Box<NodeError> {
        let node = graph.node(id);
        let names = self
            .registry
            .get(&node.op_type)
            .map(|s| instance_names(&s.inputs, &node.input_counts, node.inputs.len()))
            .unwrap_or_else(|| {
                (0..node.inputs.len())
                    .map(|i| format!("input{i}"))
                    .collect()
            });
        let inputs = node
            .inputs
            .iter()
            .zip(names)
            .map(|(edge, name)| match edge {
                Some(e) => format!("{name}={}", graph.tensor(*e).summary()),
                None => format!("{name}=absent"),
            })
            .collect();
        Box::new(NodeError {
            node: node.name.clone(),
            op_type: node.op_type.to_string(),
            stage,
            message: e.message,
            inputs,
            path: self.path.clone(),
            source: e.source,
        })
    }
}

/// Registry lookups for the engine. A graph uses a few op types over and
/// over, so the schema last found for each op-type length is tried first:
/// most nodes then cost one string comparison instead of a hash lookup.
struct SchemaCache<'r> {
    registry: &'r OpRegistry,
    by_len: [Option<&'r Arc<OpSchema>>; 32],
}

impl<'r> SchemaCache<'r> {
    fn new(registry: &'r OpRegistry) -> Self {
        SchemaCache {
            registry,
            by_len: [None; 32],
        }
    }

    fn get(&mut self, op_type: &str) -> Option<&'r Arc<OpSchema>> {
        let slot = self.by_len.get_mut(op_type.len());
        if let Some(Some(schema)) = slot.as_deref() {
            // The registry keys each schema by its own op type.
            if same_name(&schema.op_type, op_type) {
                return Some(schema);
            }
        }
        let schema = self.registry.get(op_type)?;
        if let Some(slot) = slot {
            *slot = Some(schema);
        }
        Some(schema)
    }
}

/// Infers a node again without folding its value (rare: kept out of the
/// per-node path).
#[cold]
#[inline(never)]
fn infer_unfolded(
    node: &Node,
    schema: &OpSchema,
    inputs: &[Option<&TensorDesc>],
    outputs: &mut [TensorDesc],
    engine: &EngineView<'_>,
) -> StageResult {
    // Not `TensorDesc::reset`: a second caller took that out of line on
    // the per-node path (measured: 37 instructions a node).
    for output in outputs.iter_mut() {
        *output = TensorDesc::default();
    }
    catch_internal(|| run_node(node, schema, inputs, outputs, engine, false, &mut None))
        .unwrap_or_else(|bug| Err((Stage::Internal, internal_failure(bug))))
}

/// True when node `id` is a Merge closing a TF v1 loop.
fn has_back_edge(graph: &Graph, id: NodeId) -> bool {
    let node = graph.node(id);
    // Checked per node on every pass: rule out non-Merge nodes by op type
    // before looking at producers.
    is_merge(node)
        && node
            .inputs
            .iter()
            .flatten()
            .any(|e| is_loop_back_edge(node, graph.node(e.node)))
}

/// True when a data or control producer of `node` failed (or was skipped).
fn fed_by_failure(node: &Node, failed: &[bool]) -> bool {
    node.inputs
        .iter()
        .flatten()
        .map(|e| e.node)
        .chain(node.control_inputs.iter().copied())
        .any(|p| failed[p.index()])
}

/// Fills a node's per-port instance counts from its prototype when the
/// builder left them empty (a mismatch is reported by the prototype check).
fn normalize_counts(graph: &mut Graph, id: NodeId, schema: &OpSchema) {
    let node = graph.node_mut(id);
    if node.input_counts.is_empty() {
        if let Some(counts) = port_counts(&schema.inputs, node.inputs.len()) {
            node.input_counts = counts;
        }
    }
    if node.output_counts.is_empty() {
        if let Some(counts) = port_counts(&schema.outputs, node.outputs.len()) {
            node.output_counts = counts.into_iter().collect();
        }
    }
}

pub(crate) fn bind_body_inputs(
    body: &mut Graph,
    caller_inputs: &[Option<TensorDesc>],
) -> Result<(), String> {
    for id in body.node_ids() {
        let node = body.node(id);
        if node.op_type != "Data" {
            continue;
        }
        let Some(AttrValue::Int(index)) = node.attrs.get("index") else {
            continue;
        };
        let desc = usize::try_from(*index)
            .ok()
            .and_then(|i| caller_inputs.get(i))
            .ok_or_else(|| {
                format!(
                    "Data node '{}' takes caller input {index}, but the caller has {} inputs",
                    node.name,
                    caller_inputs.len()
                )
            })?;
        if let Some(desc) = desc {
            body.node_mut(id).outputs[0] = desc.clone();
        }
    }
    Ok(())
}

/// `x`, `x1`-style names for input instances (dynamic ports get a suffix).
fn instance_names(ports: &[crate::op::PortDef], counts: &[u32], instances: usize) -> Vec<String> {
    let mut names = Vec::with_capacity(instances);
    if counts.len() != ports.len() {
        return (0..instances).map(|i| format!("input{i}")).collect();
    }
    for (port, &count) in ports.iter().zip(counts) {
        if port.param_type == crate::op::ParamType::Dynamic {
            names.extend((0..count).map(|k| format!("{}{k}", port.name)));
        } else {
            names.extend((0..count).map(|_| port.name.clone()));
        }
    }
    names.resize_with(instances, || "input?".into());
    names
}
