//! Building one IR graph (the model's top graph or a function body) from
//! its framework ops in producers-first order: name resolution, control
//! inputs, loop back edges patched at the end, graph inputs and outputs.
//! How a single op becomes a node is in `node`.

use super::order::{is_back_edge, lookup, OpNames};
use super::ports::OutputLayout;
use super::resolve::PluginResolver;
use super::support::FunctionRef;
use super::Place;
use crate::budget::Budget;
use crate::frontend::{FrameworkGraph, FrameworkInput, FrameworkOp, FrontendError, FunctionIndex};
use crate::graph::{Graph, NodeId, OutputRef, Subgraph};
use crate::op::OpRegistry;
use crate::types::{AttrValue, Shape};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// Control lists up to this long are deduplicated by a linear search.
const SHORT_CONTROL_LIST: usize = 16;

/// What one IR node and its conversion bookkeeping take, about (a
/// million-node Relu chain holds 1.03 KiB per node once converted;
/// `tests/benchmarks/bench_scale.py`): conversion stops up front when the
/// graph it would build cannot fit.
const IR_BYTES_PER_NODE: usize = 1200;

/// What every graph of one conversion shares.
pub(super) struct Context<'f> {
    pub framework: &'f FrameworkGraph,
    pub plugins: PluginResolver<'f>,
    pub ops: &'f OpRegistry,
    /// The framework's library by name.
    pub functions: FunctionIndex<'f>,
    /// Functions being converted, outermost first: meeting one of them
    /// again is recursion, which a static graph cannot express.
    pub calls: Vec<String>,
    /// Every body converted so far, by (function, where its arguments
    /// start among the caller's inputs): each is converted once and shared
    /// by all its call sites.
    pub bodies: FxHashMap<(&'f str, usize), ConvertedBody>,
    /// The deepest body nesting (1 = a body that calls nothing) among the
    /// bodies of the graph being built: a function's own depth is one more.
    pub nested: usize,
}

/// A converted function body and what its call sites need to know of it.
#[derive(Clone)]
pub(super) struct ConvertedBody {
    pub graph: Arc<Graph>,
    /// How deeply bodies nest in it, itself included.
    pub depth: usize,
}

/// What a framework op became.
pub(super) enum Converted {
    Node {
        id: NodeId,
        outputs: OutputLayout,
    },
    /// Dropped (NoOp): consumers of its control edge wait for `controls`.
    Dropped {
        controls: Vec<NodeId>,
    },
}

/// A loop back edge to wire later: (flat input position, the reference).
pub(super) type LateInput<'f> = (usize, &'f FrameworkInput);

/// A Merge input fed by a NextIteration that comes later in the order: wired
/// to a stand-in first, pointed at the NextIteration when the graph is done.
struct BackEdge<'f> {
    merge: NodeId,
    flat: usize,
    consumer: &'f str,
    input: &'f FrameworkInput,
}

pub(super) struct GraphBuilder<'c, 'f> {
    pub(super) cx: &'c mut Context<'f>,
    pub(super) ops: &'f [FrameworkOp],
    pub(super) names: OpNames<'f>,
    pub(super) place: Place,
    pub(super) graph: Graph,
    pub(super) converted: Vec<Option<Converted>>,
    back_edges: Vec<BackEdge<'f>>,
    /// Data nodes made from `_Arg` ops, with their `index` attribute.
    pub(super) args: Vec<(i64, NodeId)>,
    /// Added to every `_Arg` index: where the body's arguments start among
    /// its caller's inputs.
    pub(super) arg_offset: i64,
    /// Graph inputs from Placeholder-like ops (top graph only), by framework index.
    pub(super) placeholders: Vec<(usize, NodeId)>,
    /// `ConvertOptions::input_shapes` (top graph only).
    pub(super) input_shapes: &'f [(String, Shape)],
}

impl<'c, 'f> GraphBuilder<'c, 'f> {
    pub(super) fn new(
        cx: &'c mut Context<'f>,
        ops: &'f [FrameworkOp],
        names: OpNames<'f>,
        place: Place,
        arg_offset: i64,
    ) -> Self {
        let graph = Graph::new(match &place {
            Place::Top => cx.framework.name.clone(),
            Place::Function(name) => name.clone(),
        });
        GraphBuilder {
            cx,
            ops,
            names,
            place,
            graph,
            converted: (0..ops.len()).map(|_| None).collect(),
            back_edges: Vec::new(),
            args: Vec::new(),
            arg_offset,
            placeholders: Vec::new(),
            input_shapes: &[],
        }
    }

    /// Converts the ops at `order` (framework indices, producers first).
    pub(super) fn convert_all(&mut self, order: &[usize]) -> Result<(), FrontendError> {
        let budget = Budget::for_this_process();
        budget.check_with(order.len().saturating_mul(IR_BYTES_PER_NODE))?;
        self.graph.reserve(order.len());
        for &k in order {
            budget.check()?;
            self.convert_op(k)?;
        }
        Ok(())
    }

    /// The output of a converted op that `input` (input `pos` of
    /// `consumer`, or a graph output) names.
    pub(super) fn resolve(
        &self,
        referrer: &dyn Fn() -> String,
        input: &FrameworkInput,
    ) -> Result<OutputRef, FrontendError> {
        let producer = lookup(&self.names, &input.node, &self.place, referrer)?;
        self.resolve_at(referrer, input, producer)
    }

    /// [`GraphBuilder::resolve`] with the producer's framework index known
    /// (a name lookup in a million-entry map is a cache miss or two).
    fn resolve_at(
        &self,
        referrer: &dyn Fn() -> String,
        input: &FrameworkInput,
        producer: usize,
    ) -> Result<OutputRef, FrontendError> {
        let (id, layout) = match &self.converted[producer] {
            Some(Converted::Node { id, outputs }) => (*id, outputs),
            Some(Converted::Dropped { .. }) => {
                return Err(FrontendError::Graph(format!(
                    "{} refers to output {} of '{}', a {} with no outputs",
                    referrer(),
                    input.index,
                    input.node,
                    self.ops[producer].op_type
                )))
            }
            None => {
                return Err(FrontendError::Graph(format!(
                    "{} refers to '{}', which was not converted before it (internal ordering error in opgraph)",
                    referrer(),
                    input.node
                )))
            }
        };
        let index = layout
            .flat_index(input)
            .map_err(|m| FrontendError::Graph(format!("{} refers to {m}", referrer())))?;
        Ok(OutputRef::new(id, index))
    }

    /// The data inputs of `op` (after edits) as IR edges. Loop back edges
    /// whose NextIteration is not converted yet get a stand-in (another
    /// input of the Merge) and are recorded for [`GraphBuilder::finish`].
    pub(super) fn resolve_inputs(
        &self,
        op: &'f FrameworkOp,
        inputs: &[&'f FrameworkInput],
    ) -> Result<(Vec<Option<OutputRef>>, Vec<LateInput<'f>>), FrontendError> {
        let mut edges: Vec<Option<OutputRef>> = Vec::with_capacity(inputs.len());
        let mut later = Vec::new();
        for (pos, &input) in inputs.iter().enumerate() {
            if input.is_absent() {
                edges.push(None);
                continue;
            }
            let referrer = || format!("node '{}' input {pos}", op.name);
            let producer = lookup(&self.names, &input.node, &self.place, referrer)?;
            if is_back_edge(op, &self.ops[producer]) && self.converted[producer].is_none() {
                later.push((pos, input));
                edges.push(None);
            } else {
                edges.push(Some(self.resolve_at(&referrer, input, producer)?));
            }
        }
        if !later.is_empty() {
            let Some(stand_in) = edges.iter().flatten().next().copied() else {
                return Err(FrontendError::Graph(format!(
                    "Merge '{}' has only loop back edges (NextIteration inputs); one input must enter the loop",
                    op.name
                )));
            };
            for &(pos, _) in &later {
                edges[pos] = Some(stand_in);
            }
        }
        Ok((edges, later))
    }

    /// Records back edges of `merge` to patch in [`GraphBuilder::finish`].
    pub(super) fn defer_back_edges(
        &mut self,
        merge: NodeId,
        consumer: &'f str,
        later: Vec<LateInput<'f>>,
    ) {
        self.back_edges
            .extend(later.into_iter().map(|(flat, input)| BackEdge {
                merge,
                flat,
                consumer,
                input,
            }));
    }

    /// The IR nodes `op`'s control inputs stand for (through dropped ops),
    /// each once, in first-seen order.
    pub(super) fn control_inputs(&self, op: &FrameworkOp) -> Result<Vec<NodeId>, FrontendError> {
        let mut ids: Vec<NodeId> = Vec::new();
        // Keras' frozen graphs end in a NoOp waiting on every variable read
        // (hundreds of control inputs): a linear `contains` per id would be
        // quadratic there, so once the list is long a set takes over.
        let mut seen: FxHashSet<NodeId> = FxHashSet::default();
        for name in &op.control_inputs {
            let p = lookup(&self.names, name, &self.place, || {
                format!("node '{}' control input", op.name)
            })?;
            let found: &[NodeId] = match &self.converted[p] {
                Some(Converted::Node { id, .. }) => std::slice::from_ref(id),
                Some(Converted::Dropped { controls }) => controls,
                None => &[],
            };
            for &id in found {
                let new = if ids.len() >= SHORT_CONTROL_LIST {
                    if seen.is_empty() {
                        seen.extend(ids.iter().copied());
                    }
                    seen.insert(id)
                } else {
                    !ids.contains(&id)
                };
                if new {
                    ids.push(id);
                }
            }
        }
        Ok(ids)
    }

    /// The bodies `op`'s function attributes call, converted, named as the
    /// IR control ops expect; `arg_offset` is where their arguments start
    /// among the node's inputs.
    pub(super) fn function_bodies(
        &mut self,
        op: &FrameworkOp,
        refs: Vec<FunctionRef>,
        arg_offset: usize,
    ) -> Result<Vec<Subgraph>, FrontendError> {
        refs.into_iter()
            .map(|r| {
                let graph = super::convert_function(self.cx, &r.function, arg_offset, || {
                    format!("node '{}' attribute '{}'", op.name, r.subgraph)
                })?;
                Ok(Subgraph {
                    name: r.subgraph,
                    graph,
                })
            })
            .collect()
    }

    /// Patches the loop back edges, registers graph inputs (arguments by
    /// index, then Placeholders in framework order, numbered) and sets the
    /// graph outputs.
    pub(super) fn finish(mut self, outputs: &[FrameworkInput]) -> Result<Graph, FrontendError> {
        for edge in std::mem::take(&mut self.back_edges) {
            let referrer = || format!("node '{}' input {}", edge.consumer, edge.flat);
            let target = self.resolve(&referrer, edge.input)?;
            self.graph
                .set_input(edge.merge, edge.flat, Some(target))
                .map_err(|e| FrontendError::Graph(e.to_string()))?;
        }
        self.args.sort_by_key(|&(index, _)| index);
        for &(_, id) in &self.args {
            self.graph.add_input(id);
        }
        self.placeholders.sort_by_key(|&(k, _)| k);
        for (index, &(_, id)) in self.placeholders.iter().enumerate() {
            self.graph
                .node_mut(id)
                .attrs
                .set("index", AttrValue::Int(index as i64));
            self.graph.add_input(id);
        }
        let what = match self.place {
            Place::Top => "graph output",
            Place::Function(_) => "function output",
        };
        let mut refs = Vec::with_capacity(outputs.len());
        for (i, output) in outputs.iter().enumerate() {
            refs.push(self.resolve(&|| format!("{what} {i}"), output)?);
        }
        self.graph
            .set_outputs(refs)
            .map_err(|e| FrontendError::Graph(e.to_string()))?;
        Ok(self.graph)
    }

    /// Every output of each op in `sinks` that became an IR node computing
    /// something (graph inputs and constants are not outputs).
    pub(super) fn sink_outputs(&self, sinks: &[usize]) -> Vec<FrameworkInput> {
        let mut outputs = Vec::new();
        for &k in sinks {
            if let Some(Converted::Node {
                id,
                outputs: layout,
            }) = &self.converted[k]
            {
                let op_type = self.graph.node(*id).op_type.as_str();
                if !matches!(op_type, "Data" | "Placeholder" | "Const") {
                    let name = &self.ops[k].name;
                    outputs.extend((0..layout.total()).map(|i| FrameworkInput::new(name, i)));
                }
            }
        }
        outputs
    }
}
