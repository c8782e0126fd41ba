//! What GE deletes from an inferred graph before it assigns memory or runs
//! anything, so the memory plan and the cost model leave it out: the dead
//! side of a TensorFlow v1 Switch whose predicate is known (every node the
//! dead output reaches, [`DeadOutputs`]; `SwitchDeadBranchElimination`) and
//! the bodies an If / Case with a known selector does not take
//! (`CondRemovePass`, [`taken_body`]).

use crate::graph::{is_merge, Graph, Node, NodeId, OutputRef};
use crate::infer::dead::DeadOutputs;
use crate::ops::control::branches::taken_body;

pub(crate) struct DeadCode {
    dead: Option<DeadOutputs>,
}

impl DeadCode {
    /// The dead code of `graph` (inferred), walked in `order`, a
    /// topological order of it.
    pub(crate) fn of(graph: &Graph, order: &[NodeId]) -> DeadCode {
        DeadCode {
            dead: DeadOutputs::of_inferred(graph, order),
        }
    }

    /// Whether node `id` never runs: it reads a dead tensor or waits on a
    /// dead node (a Merge: all its entering inputs are dead).
    pub(crate) fn is_node_dead(&self, id: NodeId) -> bool {
        self.dead.as_ref().is_some_and(|d| d.is_node_dead(id))
    }

    /// Whether `output` is never computed (a dead Switch output included).
    pub(crate) fn is_dead(&self, output: OutputRef) -> bool {
        self.dead.as_ref().is_some_and(|d| d.is_dead(output))
    }

    /// What GE reduces node `id` to when it is a live Switch on a known
    /// predicate or a Merge with one live input (`MergePass`): an edge
    /// from one of its inputs (the Switch's data, the Merge's live input)
    /// to one of its outputs (the output taken; the Merge's `y`), as
    /// `(input index, output index)`.
    pub(crate) fn forwards(&self, graph: &Graph, id: NodeId) -> Option<(usize, usize)> {
        let dead = self.dead.as_ref()?;
        if dead.is_node_dead(id) {
            return None;
        }
        let node = graph.node(id);
        if let Some(taken) = dead.switch_taken(graph, id) {
            node.inputs.first()?.as_ref()?;
            return Some((0, taken as usize));
        }
        if is_merge(node) {
            let live = dead.sole_live_input(graph, id)?;
            let input = node.inputs.iter().position(|&e| e == Some(live))?;
            return Some((input, 0));
        }
        None
    }

    /// Whether `node` is an If / Case whose selector is known: GE replaces
    /// it by the one body it takes.
    pub(crate) fn takes_one_body(graph: &Graph, node: &Node) -> bool {
        taken_body(graph, node).is_some()
    }

    /// Whether `node`'s body at `index` (in `node.subgraphs`) can run: not
    /// when the node is an If / Case whose selector picks another body.
    pub(crate) fn runs_body(graph: &Graph, node: &Node, index: usize) -> bool {
        taken_body(graph, node).is_none_or(|taken| taken == index)
    }
}
