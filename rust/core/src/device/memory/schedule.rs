//! The execution schedule of a graph, subgraphs included, as steps; and
//! every tensor with its producer step, its readers and what it aliases.
//!
//! - Nodes run in topological order (`graph::topological_order`, which
//!   breaks TensorFlow v1 loop back edges as GE does), one step each.
//! - A node's bodies (If branches, While cond and body, a called function)
//!   run at the node: their nodes take the steps just before the node's
//!   own, body after body. Branches of an If therefore never overlap in
//!   time and share memory, as only one of them runs.
//! - A body's Data node with an `index` attribute is the caller's input of
//!   that index (it owns no memory); a body's outputs are read by the caller
//!   at its step.
//! - What GE deletes before it assigns memory (`device::dead_code`: the
//!   dead side of a TensorFlow v1 Switch on a known predicate, the bodies
//!   an If / Case on a known selector does not take) keeps its steps, but
//!   its tensors are [`Source::Dead`] and its reads do not count. A Switch
//!   or Merge reduced to an edge makes its output a view of its input; an
//!   If / Case on a known selector runs its one body, its outputs views of
//!   that body's results.
//! - Loops become `LoopRegion`s: the steps of a While's cond and body, and
//!   the nodes of each TensorFlow v1 frame (from its Enter nodes to its
//!   Exit nodes). `buffers.rs` keeps what crosses iterations alive over the
//!   whole region.

use super::views::reused_inputs;
use super::MemoryError;
use crate::device::dead_code::DeadCode;
use crate::device::formats::{constant_outputs, folds};
use crate::graph::names::tensor_name;
use crate::graph::{is_loop_back_edge, topological_order, Graph, NodeId, OutputRef};
use crate::op::OpRegistry;
use crate::types::{AttrValue, TensorDesc};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Where a tensor's memory comes from, before views and regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// A Data / Placeholder node of the top graph: a graph input.
    Input,
    /// A constant: weights.
    Weight,
    /// Computed by a node while the graph runs.
    Computed,
    /// Never computed: its producer is dead code GE deletes.
    Dead,
}

/// One output of one node, anywhere in the graph.
#[derive(Clone, Debug)]
pub(crate) struct Tensor<'g> {
    /// Its producer's name; the tensor's own name (`node:i`, in a body
    /// `caller/body/node:i`) is built only when asked for
    /// ([`Schedule::tensor_name`]): a million-node plan would otherwise
    /// allocate a million strings that only an error or the plan shows.
    pub node: &'g str,
    /// Which output of its producer.
    pub output: u32,
    /// The `caller/body/` prefix of its graph: an index into
    /// [`Schedule::prefixes`] (0: the top graph, no prefix).
    pub prefix: u32,
    pub desc: &'g TensorDesc,
    /// The step of its producer.
    pub step: u32,
    /// The producer's innermost loop.
    pub loop_id: Option<u32>,
    pub source: Source,
    /// The tensor whose memory it shares.
    pub view_of: Option<u32>,
    /// Steps and loops of its readers.
    pub readers: SmallVec<[Reader; 2]>,
    /// An output of the top graph (alive to the end).
    pub is_output: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reader {
    pub step: u32,
    pub loop_id: Option<u32>,
    /// Read through a v1 loop back edge (NextIteration -> Merge): by the
    /// next iteration.
    pub back_edge: bool,
    /// No run-time read: by a node GE's constant folding computes at build
    /// time (its inputs and outputs constants, no body, no control input),
    /// or one GE removes (a Switch or Merge reduced to an edge, an If /
    /// Case replaced by its body).
    pub at_build: bool,
}

/// Steps that run repeatedly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LoopRegion {
    pub parent: Option<u32>,
    /// First and last step of any node in it (nested loops included);
    /// `first > last` for a loop without nodes.
    pub first: u32,
    pub last: u32,
    /// A v1 frame (Exit nodes leave it), not a While's bodies.
    pub is_frame: bool,
}

#[derive(Debug)]
pub(crate) struct Schedule<'g> {
    pub tensors: Vec<Tensor<'g>>,
    pub loops: Vec<LoopRegion>,
    pub steps: u32,
    /// The name prefix of each graph scheduled (the top graph's is "").
    pub prefixes: Vec<String>,
}

impl Default for Schedule<'_> {
    fn default() -> Self {
        Schedule {
            tensors: Vec::new(),
            loops: Vec::new(),
            steps: 0,
            prefixes: vec![String::new()],
        }
    }
}

impl Schedule<'_> {
    /// The name of tensor `t`: `node:i`, or `caller/body/node:i` in a body.
    pub fn tensor_name(&self, t: usize) -> String {
        let tensor = &self.tensors[t];
        tensor_name(
            &self.prefixes[tensor.prefix as usize],
            tensor.node,
            tensor.output as usize,
        )
    }

    /// True when loop `inner` is `outer` or nested in it.
    pub fn within(&self, inner: Option<u32>, outer: u32) -> bool {
        let mut at = inner;
        while let Some(l) = at {
            if l == outer {
                return true;
            }
            at = self.loops[l as usize].parent;
        }
        false
    }
}

/// Op types whose bodies loop.
fn is_loop_op(op_type: &str) -> bool {
    matches!(op_type, "While" | "StatelessWhile" | "_While" | "For")
}

fn is_input_op(op_type: &str) -> bool {
    matches!(op_type, "Data" | "Placeholder")
}

/// The schedule of `graph`, its top-level nodes in `top_order` (a
/// topological order of them all) or, given `None`, in Kahn's order.
pub(crate) fn schedule_in_order<'g>(
    graph: &'g Graph,
    registry: &OpRegistry,
    top_order: Option<Vec<NodeId>>,
) -> Result<Schedule<'g>, MemoryError> {
    crate::graph::check_expansion(graph)?;
    let mut builder = Builder {
        registry,
        out: Schedule::default(),
        step_count: 0,
        top_order,
    };
    let outputs = builder.add_graph(graph, 0, &[], None, false)?;
    for t in outputs.into_iter().flatten() {
        builder.out.tensors[t as usize].is_output = true;
    }
    builder.out.steps = builder.step_count;
    builder.set_loop_spans();
    Ok(builder.out)
}

struct Builder<'g, 'r> {
    registry: &'r OpRegistry,
    out: Schedule<'g>,
    step_count: u32,
    /// The top graph's order, taken by the first (top) `add_graph`.
    top_order: Option<Vec<NodeId>>,
}

impl<'g> Builder<'g, '_> {
    fn next_step(&mut self) -> Result<u32, MemoryError> {
        let step = self.step_count;
        self.step_count = step.checked_add(1).ok_or(MemoryError::TooLarge)?;
        Ok(step)
    }

    fn new_loop(&mut self, parent: Option<u32>, is_frame: bool) -> Result<u32, MemoryError> {
        let id = u32::try_from(self.out.loops.len()).map_err(|_| MemoryError::TooLarge)?;
        self.out.loops.push(LoopRegion {
            parent,
            first: u32::MAX,
            last: 0,
            is_frame,
        });
        Ok(id)
    }

    /// Schedules `graph` (a body when `bound` holds its caller's inputs)
    /// inside loop `context`, all of it dead code when `dead`; returns the
    /// tensors of its outputs.
    fn add_graph(
        &mut self,
        graph: &'g Graph,
        prefix: u32,
        bound: &[Option<u32>],
        context: Option<u32>,
        dead: bool,
    ) -> Result<Vec<Option<u32>>, MemoryError> {
        let order = match self.top_order.take() {
            Some(order) => order,
            None => topological_order(graph)?,
        };
        let dead_code = DeadCode::of(graph, &order);
        // The format pass's notion of a constant (GE folds these before
        // planning): they live in the weights region.
        let constant = constant_outputs(graph, &order, &dead_code);
        // Tensor ids for every output first: a back edge reads a tensor
        // produced later in the order.
        let mut first_tensor = Vec::with_capacity(graph.len());
        for node in graph.nodes() {
            first_tensor.push(self.out.tensors.len() as u32);
            for (i, desc) in node.outputs.iter().enumerate() {
                self.out.tensors.push(Tensor {
                    node: &node.name,
                    output: i as u32,
                    prefix,
                    desc,
                    step: 0,
                    loop_id: None,
                    source: Source::Computed,
                    view_of: None,
                    readers: SmallVec::new(),
                    is_output: false,
                });
            }
        }
        if u32::try_from(self.out.tensors.len()).is_err() {
            return Err(MemoryError::TooLarge);
        }
        let tensor = |e: crate::graph::OutputRef| first_tensor[e.node.index()] + e.index;
        let mut node_loop: Vec<Option<u32>> = vec![context; graph.len()];
        let mut frames: FxHashMap<(Option<u32>, String), u32> = FxHashMap::default();
        for id in order {
            let node = graph.node(id);
            let node_dead = dead || dead_code.is_node_dead(id);
            let loop_id = self.loop_of(graph, id, &node_loop, context, &mut frames)?;
            node_loop[id.index()] = loop_id;
            let inputs: SmallVec<[Option<u32>; 4]> =
                node.inputs.iter().map(|e| e.map(tensor)).collect();
            // Bodies run at the node, just before its own step.
            let mut body_outputs = Vec::new();
            let body_loop = if is_loop_op(&node.op_type) && !node.subgraphs.is_empty() {
                // One loop for cond and body: both run every iteration.
                Some(self.new_loop(loop_id, false)?)
            } else {
                loop_id
            };
            for (k, sub) in node.subgraphs.iter().enumerate() {
                let caller = &self.out.prefixes[prefix as usize];
                let body_prefix = format!("{caller}{}/{}/", node.name, sub.name);
                let body =
                    u32::try_from(self.out.prefixes.len()).map_err(|_| MemoryError::TooLarge)?;
                self.out.prefixes.push(body_prefix);
                let body_dead = node_dead || !DeadCode::runs_body(graph, node, k);
                let outputs = self.add_graph(&sub.graph, body, &inputs, body_loop, body_dead)?;
                if !body_dead {
                    body_outputs.extend(outputs);
                }
            }
            let step = self.next_step()?;
            // What GE's constant folding runs at build time: every input a
            // constant (a node inference merely knows the value of, such as
            // an If on a known condition, still runs).
            let folded = !node.outputs.is_empty()
                && constant[id.index()].iter().all(|&c| c)
                && folds(node, &constant);
            // A Switch or Merge GE reduces to an edge does nothing at run
            // time: its output is a view of its input, whose readers read;
            // nor does an If / Case GE replaces by the body it takes: that
            // body's arguments are views of the node's inputs, and its
            // readers read them.
            let forwarded = dead_code.forwards(graph, id);
            let replaced = DeadCode::takes_one_body(graph, node);
            let at_build = folded || forwarded.is_some() || replaced;
            let reader = |back_edge| Reader {
                step,
                loop_id,
                back_edge,
                at_build,
            };
            for (edge, t) in node.inputs.iter().zip(&inputs) {
                // Dead code reads nothing; a live Merge reads only its live
                // inputs; a replaced If / Case, none.
                if let (Some(edge), Some(t), false) = (edge, t, node_dead || replaced) {
                    if !dead_code.is_dead(*edge) {
                        let back = is_loop_back_edge(node, graph.node(edge.node));
                        self.out.tensors[*t as usize].readers.push(reader(back));
                    }
                }
            }
            for t in body_outputs.iter().flatten() {
                self.out.tensors[*t as usize].readers.push(reader(false));
            }
            // An If / Case GE replaces by the body it takes hands on that
            // body's results: its outputs are views of them.
            let results = replaced.then_some(body_outputs);
            let mut views = match self.registry.get(&node.op_type) {
                Some(schema) => reused_inputs(node, schema),
                None => smallvec::smallvec![None; node.outputs.len()],
            };
            if let Some((input, taken)) = forwarded {
                if let Some(view) = views.get_mut(taken) {
                    *view = Some(input);
                }
            }
            for (i, view) in views.into_iter().enumerate() {
                let constant = constant[id.index()][i];
                let result = results.as_ref().and_then(|r| r.get(i).copied().flatten());
                let mut view_of = match result {
                    Some(r) => (self.out.tensors[r as usize].source != Source::Dead).then_some(r),
                    None => view.and_then(|input| inputs[input]),
                };
                if constant {
                    // A folded view of a weight (Identity, Reshape) shares it
                    // unless `prepare` stored the two in different layouts.
                    let desc = &node.outputs[i];
                    view_of = view_of.filter(|&v| {
                        let of = self.out.tensors[v as usize].desc;
                        of.storage_format == desc.storage_format
                            && of.storage_shape.num_elements() == desc.storage_shape.num_elements()
                    });
                }
                let t = &mut self.out.tensors[(first_tensor[id.index()] + i as u32) as usize];
                t.step = step;
                t.loop_id = loop_id;
                t.view_of = view_of;
                if node_dead || dead_code.is_dead(OutputRef::new(id, i as u32)) {
                    t.source = Source::Dead;
                    t.view_of = None;
                } else if constant {
                    t.source = Source::Weight;
                } else if is_input_op(&node.op_type) && context.is_none() && prefix == 0 {
                    t.source = Source::Input;
                } else if is_input_op(&node.op_type) {
                    // A body's argument: the caller's input of that index.
                    if let Some(k) = node.caller_input() {
                        t.view_of = bound.get(k).copied().flatten();
                    }
                }
            }
        }
        Ok(graph.outputs().iter().map(|&e| Some(tensor(e))).collect())
    }

    /// The innermost loop of `id`: TensorFlow's frame rules (an Enter opens
    /// the frame its `frame_name` names inside its input's, an Exit leaves
    /// its input's frame, other nodes are in their first input's frame).
    fn loop_of(
        &mut self,
        graph: &Graph,
        id: NodeId,
        node_loop: &[Option<u32>],
        context: Option<u32>,
        frames: &mut FxHashMap<(Option<u32>, String), u32>,
    ) -> Result<Option<u32>, MemoryError> {
        let node = graph.node(id);
        let input_loop = node
            .inputs
            .iter()
            .flatten()
            .find(|e| !is_loop_back_edge(node, graph.node(e.node)))
            .map(|e| e.node)
            .or_else(|| node.control_inputs.first().copied())
            .map_or(context, |p| node_loop[p.index()]);
        Ok(match node.op_type.as_str() {
            "Enter" | "RefEnter" => {
                let name = match node.attrs.get("frame_name") {
                    Some(AttrValue::Str(name)) => name.clone(),
                    _ => String::new(),
                };
                match frames.get(&(input_loop, name.clone())) {
                    Some(&frame) => Some(frame),
                    None => {
                        let frame = self.new_loop(input_loop, true)?;
                        frames.insert((input_loop, name), frame);
                        Some(frame)
                    }
                }
            }
            "Exit" | "RefExit" => match input_loop {
                Some(l) if self.out.loops[l as usize].is_frame => self.out.loops[l as usize].parent,
                other => other,
            },
            _ => input_loop,
        })
    }

    /// Each loop's first and last step, over its nodes and nested loops'.
    fn set_loop_spans(&mut self) {
        let Schedule { tensors, loops, .. } = &mut self.out;
        let mut widen = |mut at: Option<u32>, step: u32| {
            while let Some(l) = at {
                let region = &mut loops[l as usize];
                region.first = region.first.min(step);
                region.last = region.last.max(step);
                at = region.parent;
            }
        };
        // Dead code runs in no loop: a dead frame spans no step.
        for t in tensors.iter().filter(|t| t.source != Source::Dead) {
            widen(t.loop_id, t.step);
            for r in &t.readers {
                widen(r.loop_id, r.step);
            }
        }
    }
}
