//! Dead branches of TensorFlow v1 control flow. A Switch whose predicate is
//! known sends its data down one output only: the other output is *dead*,
//! and so is every node that reads a dead tensor or waits on a dead node
//! (a control edge), as TensorFlow's executor propagates deadness. A Merge
//! is dead only when every input entering it is; otherwise it takes its
//! live inputs alone. That is the graph GE's dead-branch elimination
//! (`SwitchDeadBranchElimination`, then `MergePass`) leaves: a `tf.cond`
//! on a constant gives its taken branch's shape, not the merge of both.
//!
//! Dead nodes are still inferred (their shapes are what they would be had
//! data reached them, as TensorFlow's shape functions give), so nothing
//! downstream of them changes but the Merges that join them. The memory
//! plan and the cost model read the same verdict back from the inferred
//! graph ([`DeadOutputs::of_inferred`]), and so does the format pass: GE
//! deletes dead nodes before it picks formats and assigns memory, so they
//! take none and cost nothing.

use crate::graph::{is_loop_back_edge, is_merge, Graph, NodeId, OutputRef};

/// Every output of a node is dead.
const ALL: u8 = u8::MAX;

/// Which outputs of each node are dead on the current pass: bit `i` for
/// output `i` (only a Switch has one output dead and not the other).
pub(crate) struct DeadOutputs {
    masks: Vec<u8>,
}

impl DeadOutputs {
    /// None when `graph` has no Switch, so nothing can be dead.
    pub(super) fn of(graph: &Graph) -> Option<DeadOutputs> {
        graph
            .node_ids()
            .any(|id| is_switch(graph, id))
            .then(|| DeadOutputs {
                masks: vec![0; graph.len()],
            })
    }

    /// The verdict on an inferred graph (its Switch predicates' values
    /// are stored), taken in `order`, a topological order of it: the
    /// engine's last pass, redone (a Merge decides by its entering inputs
    /// alone, so one pass settles). None when `graph` has no Switch.
    pub(crate) fn of_inferred(graph: &Graph, order: &[NodeId]) -> Option<DeadOutputs> {
        let mut dead = DeadOutputs::of(graph)?;
        for &id in order {
            dead.visit(graph, id);
        }
        Some(dead)
    }

    pub(crate) fn is_dead(&self, output: OutputRef) -> bool {
        let mask = self.masks[output.node.index()];
        mask == ALL || (output.index < 8 && mask & (1 << output.index) != 0)
    }

    /// Whether node `id` is dead as a whole.
    pub(crate) fn is_node_dead(&self, id: NodeId) -> bool {
        self.masks[id.index()] == ALL
    }

    /// Decides node `id`'s dead outputs from its producers, which the pass
    /// has visited (a loop's back edge keeps its previous pass's verdict).
    pub(super) fn visit(&mut self, graph: &Graph, id: NodeId) {
        let node = graph.node(id);
        let mask = if is_merge(node) {
            // A loop's back edge carries data only once the frame is
            // entered, so the entering inputs alone decide.
            let mut entering = node
                .inputs
                .iter()
                .flatten()
                .filter(|e| !is_loop_back_edge(node, graph.node(e.node)))
                .peekable();
            let all_dead = entering.peek().is_some() && entering.all(|&e| self.is_dead(e));
            if all_dead {
                ALL
            } else {
                0
            }
        } else if self.reads_dead(graph, id) {
            ALL
        } else if is_switch(graph, id) {
            match switch_predicate(graph, id) {
                // output_false (0) is dead when the predicate holds.
                Some(true) => 0b01,
                Some(false) => 0b10,
                None => 0,
            }
        } else {
            0
        };
        self.masks[id.index()] = mask;
    }

    /// The output a live Switch `id` sends its data to, when its
    /// predicate is known (the other output is dead).
    pub(crate) fn switch_taken(&self, graph: &Graph, id: NodeId) -> Option<u32> {
        if !is_switch(graph, id) {
            return None;
        }
        match self.masks[id.index()] {
            0b01 => Some(1),
            0b10 => Some(0),
            _ => None,
        }
    }

    /// The one input of Merge `id` that is live, when all its others are
    /// dead and it closes no loop (whose back edge carries data later).
    pub(crate) fn sole_live_input(&self, graph: &Graph, id: NodeId) -> Option<OutputRef> {
        let node = graph.node(id);
        let mut live = node.inputs.iter().flatten().filter(|&&e| !self.is_dead(e));
        let only = *live.next()?;
        let closes_loop = node
            .inputs
            .iter()
            .flatten()
            .any(|e| is_loop_back_edge(node, graph.node(e.node)));
        (live.next().is_none() && !closes_loop).then_some(only)
    }

    fn reads_dead(&self, graph: &Graph, id: NodeId) -> bool {
        let node = graph.node(id);
        node.inputs.iter().flatten().any(|&e| self.is_dead(e))
            || node.control_inputs.iter().any(|&c| self.is_node_dead(c))
    }
}

fn is_switch(graph: &Graph, id: NodeId) -> bool {
    matches!(graph.node(id).op_type.as_str(), "Switch" | "RefSwitch")
}

/// The Switch's predicate (input 1) when folding knows it.
fn switch_predicate(graph: &Graph, id: NodeId) -> Option<bool> {
    let edge = (*graph.node(id).inputs.get(1)?)?;
    graph.tensor(edge).value.as_ref()?.to_bool_scalar()
}
