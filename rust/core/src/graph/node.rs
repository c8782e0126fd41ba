//! Nodes, their ids and their edges.

use super::Graph;
use crate::types::{Attrs, OpTypeName, TensorDesc};
use smallvec::SmallVec;
use std::sync::Arc;
use thin_vec::ThinVec;

/// Dense index of a node in its graph's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One output of one node: the unit an edge carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutputRef {
    pub node: NodeId,
    pub index: u32,
}

impl OutputRef {
    pub fn new(node: NodeId, index: u32) -> OutputRef {
        OutputRef { node, index }
    }
}

/// A named body (If branch, While cond/body, PartitionedCall function).
/// Its Data nodes with an `index` attribute take the caller's inputs.
///
/// The body is shared: every call site of one library function holds the
/// same graph (as TensorFlow and GE hold one FunctionDef), so nested calls
/// cost memory per function, not per call path. A pass that changes a body
/// goes through [`Subgraph::graph_mut`], which copies it first if another
/// call site still shares it.
#[derive(Clone, Debug)]
pub struct Subgraph {
    pub name: String,
    pub graph: Arc<Graph>,
}

impl Subgraph {
    /// A body not shared with any other call site (yet).
    pub fn new(name: impl Into<String>, graph: Graph) -> Subgraph {
        Subgraph {
            name: name.into(),
            graph: Arc::new(graph),
        }
    }

    /// The body, for changing: copied first when another call site shares it.
    pub fn graph_mut(&mut self) -> &mut Graph {
        Arc::make_mut(&mut self.graph)
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub op_type: OpTypeName,
    pub attrs: Attrs,
    /// Input instances in order; `None` is an absent optional input.
    pub inputs: Vec<Option<OutputRef>>,
    /// Instances per prototype input (1 for REQUIRED/OPTIONAL, n for
    /// DYNAMIC). Empty means one instance per prototype input.
    pub input_counts: SmallVec<[u32; 4]>,
    /// Instances per prototype output, as `input_counts`.
    pub output_counts: SmallVec<[u32; 2]>,
    /// Ordering-only dependencies (TensorFlow's `^name`). This and
    /// `subgraphs` are thin vectors (one word): most nodes have neither.
    pub control_inputs: ThinVec<super::NodeId>,
    pub outputs: Vec<TensorDesc>,
    pub subgraphs: ThinVec<Subgraph>,
}

impl Node {
    /// A node with `output_count` not-yet-inferred outputs.
    pub fn new(
        name: impl Into<String>,
        op_type: impl Into<OpTypeName>,
        inputs: Vec<Option<OutputRef>>,
        output_count: usize,
    ) -> Node {
        Node {
            name: name.into(),
            op_type: op_type.into(),
            attrs: Attrs::new(),
            inputs,
            input_counts: SmallVec::new(),
            output_counts: SmallVec::new(),
            control_inputs: ThinVec::new(),
            outputs: vec![TensorDesc::default(); output_count],
            subgraphs: ThinVec::new(),
        }
    }

    pub fn subgraph(&self, name: &str) -> Option<&Graph> {
        self.subgraphs
            .iter()
            .find(|s| s.name == name)
            .map(|s| &*s.graph)
    }

    /// For a body's argument (a Data node): the caller's input instance it
    /// takes, its `index` attribute; `None` without one or for a negative one.
    pub fn caller_input(&self) -> Option<usize> {
        match self.attrs.get("index") {
            Some(crate::types::AttrValue::Int(i)) => usize::try_from(*i).ok(),
            _ => None,
        }
    }
}
