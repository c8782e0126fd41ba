//! Who reads each output, and which outputs are constants (weights).

use super::rules::{rule, Rule};
use crate::device::dead_code::DeadCode;
use crate::graph::{is_merge, Graph, Node, NodeId, OutputRef};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::hash::Hash;

/// One reader of a tensor: input `input` of node `node`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    pub node: NodeId,
    pub input: usize,
}

/// The readers of every output of one graph, and the graph outputs.
pub struct Consumers {
    uses: Vec<SmallVec<[SmallVec<[Use; 2]>; 1]>>,
}

impl Consumers {
    pub fn of(graph: &Graph) -> Consumers {
        let mut uses: Vec<SmallVec<[SmallVec<[Use; 2]>; 1]>> = graph
            .nodes()
            .iter()
            .map(|n| (0..n.outputs.len()).map(|_| SmallVec::new()).collect())
            .collect();
        for (id, node) in graph.node_ids().zip(graph.nodes()) {
            for (input, edge) in node.inputs.iter().enumerate() {
                if let Some(e) = edge {
                    uses[e.node.index()][e.index as usize].push(Use { node: id, input });
                }
            }
        }
        Consumers { uses }
    }

    pub fn of_output(&self, edge: OutputRef) -> &[Use] {
        &self.uses[edge.node.index()][edge.index as usize]
    }
}

/// Ops GE's constant folding leaves alone even on constant inputs:
/// control flow and assertions (TensorList ops are excluded by prefix).
const NOT_FOLDED: &[&str] = &[
    "Enter",
    "RefEnter",
    "Exit",
    "RefExit",
    "Merge",
    "RefMerge",
    "Switch",
    "RefSwitch",
    "NextIteration",
    "RefNextIteration",
    "LoopCond",
    "Assert",
];

/// Per node and output: true for a constant: the output of a Const, of a
/// pass-through (Identity, ...) of a constant, an output inference folded
/// to a host value, or the output of a node that reads only constants
/// (GE's constant folding turns such nodes into constants before it
/// selects formats: the Reshape of a weight, a batch norm's folded scale).
/// Constants are weights: the pass converts them in place instead of
/// inserting TransData.
///
/// Control flow GE's dead-branch elimination removes is seen through: a
/// Switch on a known predicate passes a constant to the output it takes,
/// and a Merge with one live input passes that input on (its
/// `value_index` becomes a constant); dead code is no constant, since GE
/// deletes it (`device::dead_code`).
pub(crate) fn constant_outputs(
    graph: &Graph,
    order: &[NodeId],
    dead_code: &DeadCode,
) -> Vec<SmallVec<[bool; 1]>> {
    let mut constant: Vec<SmallVec<[bool; 1]>> = graph
        .nodes()
        .iter()
        .map(|n| SmallVec::from_elem(false, n.outputs.len()))
        .collect();
    for &id in order {
        let node = graph.node(id);
        if dead_code.is_node_dead(id) {
            continue;
        }
        if let Some((input, taken)) = dead_code.forwards(graph, id) {
            let passed = node.inputs[input]
                .is_some_and(|from| constant[from.node.index()][from.index as usize]);
            let outputs = &mut constant[id.index()];
            if let Some(slot) = outputs.get_mut(taken) {
                *slot = passed;
            }
            if is_merge(node) {
                if let Some(value_index) = outputs.get_mut(1) {
                    *value_index = true;
                }
            }
            continue;
        }
        match rule(&node.op_type) {
            Rule::Source if node.op_type != "Data" && node.op_type != "Placeholder" => {
                constant[id.index()].fill(true);
            }
            Rule::PassThrough => {
                for o in 0..node.outputs.len() {
                    let from = node.inputs.get(o).copied().flatten();
                    constant[id.index()][o] =
                        from.is_some_and(|e| constant[e.node.index()][e.index as usize]);
                }
            }
            _ => {
                let folded = folds(node, &constant);
                for (o, desc) in node.outputs.iter().enumerate() {
                    constant[id.index()][o] = folded || desc.value.is_some();
                }
            }
        }
    }
    constant
}

/// The input output `o` of node `id` hands on unchanged, as its index:
/// input `o` of a pass-through (Identity of a weight), the input of a
/// Switch or Merge GE reduces to an edge ([`DeadCode::forwards`]). The
/// settled storage of a constant such output is asked of that input, so
/// one weight is converted once.
pub(crate) fn passed_through(
    graph: &Graph,
    dead_code: &DeadCode,
    id: NodeId,
    o: usize,
) -> Option<usize> {
    if rule(&graph.node(id).op_type) == Rule::PassThrough {
        return Some(o);
    }
    dead_code
        .forwards(graph, id)
        .and_then(|(input, taken)| (taken == o).then_some(input))
}

/// True when GE's constant folding would fold `node`: every present input
/// is a constant, its outputs have static shapes, and it is no control
/// flow, list op or body caller.
pub fn folds(node: &Node, constant: &[SmallVec<[bool; 1]>]) -> bool {
    let mut present = node.inputs.iter().flatten().peekable();
    present.peek().is_some()
        && present.all(|e| constant[e.node.index()][e.index as usize])
        && node.subgraphs.is_empty()
        && node.control_inputs.is_empty()
        && !NOT_FOLDED.contains(&node.op_type.as_str())
        && !node.op_type.starts_with("TensorList")
        && node.outputs.iter().all(|d| d.origin_shape.is_static())
}

/// Items grouped by key, the groups in first-seen order (conversions are
/// inserted deterministically, one per key).
pub struct Groups<K, T> {
    groups: Vec<(K, Vec<T>)>,
    index: FxHashMap<K, usize>,
}

impl<K: Copy + Eq + Hash, T> Groups<K, T> {
    pub fn new() -> Groups<K, T> {
        Groups {
            groups: Vec::new(),
            index: FxHashMap::default(),
        }
    }

    pub fn add(&mut self, key: K, item: T) {
        let at = *self.index.entry(key).or_insert_with(|| {
            self.groups.push((key, Vec::new()));
            self.groups.len() - 1
        });
        self.groups[at].1.push(item);
    }

    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn into_vec(self) -> Vec<(K, Vec<T>)> {
        self.groups
    }
}
