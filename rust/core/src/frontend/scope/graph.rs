//! GE's `ScopeGraph`: the framework ops of one graph, their scope tree and
//! who consumes what — everything a pass looks at while it decides what to
//! fuse. A pass sees it read-only (shared, so a Python pass can keep views).

use super::tree::{ScopeId, ScopeTree};
use crate::frontend::FrameworkOp;
use crate::name_index::NameIndex;

/// One consumer of an op's output: `op` reads output `output` as its data
/// input `input` (or as a control input when `input` is `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Consumer {
    pub op: usize,
    pub output: u32,
    pub input: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct ScopeGraph {
    ops: Vec<FrameworkOp>,
    tree: ScopeTree,
    /// Ops by name (the last op of a repeated name, as a map keeps).
    by_name: NameIndex,
    consumers: Vec<Vec<Consumer>>,
}

impl ScopeGraph {
    pub fn new(ops: Vec<FrameworkOp>) -> ScopeGraph {
        let tree = ScopeTree::build(&ops);
        ScopeGraph::with_tree(ops, tree)
    }

    /// The graph of `ops` around their already built (and matched) `tree`.
    pub(crate) fn with_tree(ops: Vec<FrameworkOp>, tree: ScopeTree) -> ScopeGraph {
        let name_at = |p: usize| ops[p].name.as_str();
        let mut by_name = NameIndex::with_capacity(ops.len());
        for (index, op) in ops.iter().enumerate() {
            by_name.insert(&op.name, index, name_at);
        }
        let mut consumers = vec![Vec::new(); ops.len()];
        for (index, op) in ops.iter().enumerate() {
            for (k, input) in op.inputs.iter().enumerate() {
                if let Some(producer) = by_name.get(&input.node, name_at) {
                    consumers[producer].push(Consumer {
                        op: index,
                        output: input.index,
                        input: u32::try_from(k).ok(),
                    });
                }
            }
            for control in &op.control_inputs {
                if let Some(producer) = by_name.get(control, name_at) {
                    consumers[producer].push(Consumer {
                        op: index,
                        output: 0,
                        input: None,
                    });
                }
            }
        }
        ScopeGraph {
            ops,
            tree,
            by_name,
            consumers,
        }
    }

    pub fn tree(&self) -> &ScopeTree {
        &self.tree
    }

    pub fn ops(&self) -> &[FrameworkOp] {
        &self.ops
    }

    pub fn into_ops(self) -> Vec<FrameworkOp> {
        self.ops
    }

    pub fn op(&self, index: usize) -> Option<&FrameworkOp> {
        self.ops.get(index)
    }

    /// The index of the op named `name` (GE's `GetNodesMap` lookup).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name, |p| &self.ops[p].name)
    }

    pub fn op_named(&self, name: &str) -> Option<&FrameworkOp> {
        self.index_of(name).and_then(|i| self.ops.get(i))
    }

    /// Who reads op `index`'s outputs (data and control), in graph order.
    pub fn consumers(&self, index: usize) -> &[Consumer] {
        self.consumers.get(index).map_or(&[], Vec::as_slice)
    }

    /// The op feeding data input `input` of op `index`.
    pub fn producer(&self, index: usize, input: usize) -> Option<usize> {
        let name = &self.ops.get(index)?.inputs.get(input)?.node;
        self.index_of(name)
    }

    /// Ops in `scope`'s subtree (GE's `AllNodesMap`) of type `op_type`.
    pub fn nodes_by_type(&self, scope: ScopeId, op_type: &str) -> Vec<usize> {
        self.tree
            .all_nodes(scope)
            .into_iter()
            .filter(|&i| self.ops.get(i).is_some_and(|op| op.op_type == op_type))
            .collect()
    }
}
