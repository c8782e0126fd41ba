//! The graph IR: nodes in a dense arena addressed by typed ids, edges as
//! (producer, output index) pairs, subgraphs owned by the node that calls them.

mod expansion;
pub mod names;
mod node;
mod topo;

pub use expansion::{
    check_expansion, expanded_nodes, expansion, Expansion, ExpansionError, MAX_EXPANDED_NODES,
};
pub use node::{Node, NodeId, OutputRef, Subgraph};
pub use topo::{is_loop_back_edge, is_merge, topological_order, CycleError};

use crate::types::TensorDesc;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;

/// Something a graph edit was asked to do that would break the graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("a node named '{0}' already exists in this graph")]
    DuplicateName(String),
    #[error("node '{node}' input {input} refers to output {index} of '{producer}', which has {available} outputs")]
    NoSuchOutput {
        node: String,
        input: usize,
        producer: String,
        index: u32,
        available: usize,
    },
    #[error("node '{node}' refers to a node id ({id}) that is not in this graph")]
    NoSuchNode { node: String, id: u32 },
    #[error("node '{node}' has {count} inputs; index {index} is out of range")]
    NoSuchInput {
        node: String,
        index: usize,
        count: usize,
    },
    #[error("there is no node named '{0}' in this graph")]
    UnknownName(String),
}

/// A computation graph. Subgraphs are `Graph`s held by their caller node,
/// shared between the call sites of one function.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub name: String,
    nodes: Vec<Node>,
    /// Node ids hashed by their node's name ([`name_hash`]): the name is
    /// stored once, in the node, not again as a key of a map.
    by_name: HashTable<NodeId>,
    /// Graph inputs (Data nodes), in input order.
    inputs: Vec<NodeId>,
    /// Graph outputs, in output order.
    outputs: Vec<OutputRef>,
}

impl Graph {
    pub fn new(name: impl Into<String>) -> Graph {
        Graph {
            name: name.into(),
            ..Graph::default()
        }
    }

    /// Room for `additional` more nodes without growing the arena and name
    /// index by doubling (which briefly holds both the old and new arrays).
    pub fn reserve(&mut self, additional: usize) {
        self.nodes.reserve_exact(additional);
        let nodes = &self.nodes;
        self.by_name
            .reserve(additional, |id| name_hash(&nodes[id.index()].name));
    }

    /// Adds `node`, checking its name and that every input edge refers to an
    /// existing output. Nodes only refer to earlier nodes here; `set_input`
    /// can rewire later (which is how loops, and cycles, come about).
    pub fn add_node(&mut self, node: Node) -> Result<NodeId, GraphError> {
        let hash = name_hash(&node.name);
        if self.find_hashed(hash, &node.name).is_some() {
            return Err(GraphError::DuplicateName(node.name));
        }
        for (input, edge) in node.inputs.iter().enumerate() {
            if let Some(edge) = edge {
                self.check_edge(&node.name, input, *edge)?;
            }
        }
        for &ctrl in &node.control_inputs {
            self.check_id(&node.name, ctrl)?;
        }
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(node);
        let nodes = &self.nodes;
        self.by_name
            .insert_unique(hash, id, |id| name_hash(&nodes[id.index()].name));
        Ok(id)
    }

    /// Marks `id` as the next graph input.
    pub fn add_input(&mut self, id: NodeId) {
        self.inputs.push(id);
    }

    pub fn set_outputs(&mut self, outputs: Vec<OutputRef>) -> Result<(), GraphError> {
        for (i, edge) in outputs.iter().enumerate() {
            self.check_edge("<graph outputs>", i, *edge)?;
        }
        self.outputs = outputs;
        Ok(())
    }

    /// Points input `input` of `node` at `edge` (or makes it absent).
    pub fn set_input(
        &mut self,
        node: NodeId,
        input: usize,
        edge: Option<OutputRef>,
    ) -> Result<(), GraphError> {
        let name = self.node(node).name.clone();
        if let Some(edge) = edge {
            self.check_edge(&name, input, edge)?;
        }
        let count = self.node(node).inputs.len();
        let slot =
            self.nodes[node.index()]
                .inputs
                .get_mut(input)
                .ok_or(GraphError::NoSuchInput {
                    node: name,
                    index: input,
                    count,
                })?;
        *slot = edge;
        Ok(())
    }

    fn check_id(&self, node: &str, id: NodeId) -> Result<(), GraphError> {
        if id.index() < self.nodes.len() {
            Ok(())
        } else {
            Err(GraphError::NoSuchNode {
                node: node.to_owned(),
                id: id.0,
            })
        }
    }

    fn check_edge(&self, node: &str, input: usize, edge: OutputRef) -> Result<(), GraphError> {
        self.check_id(node, edge.node)?;
        let producer = &self.nodes[edge.node.index()];
        if edge.index as usize >= producer.outputs.len() {
            return Err(GraphError::NoSuchOutput {
                node: node.to_owned(),
                input,
                producer: producer.name.clone(),
                index: edge.index,
                available: producer.outputs.len(),
            });
        }
        Ok(())
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn node_ids(&self) -> impl ExactSizeIterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    pub fn find(&self, name: &str) -> Option<NodeId> {
        self.find_hashed(name_hash(name), name)
    }

    fn find_hashed(&self, hash: u64, name: &str) -> Option<NodeId> {
        self.by_name
            .find(hash, |id| self.nodes[id.index()].name == name)
            .copied()
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn inputs(&self) -> &[NodeId] {
        &self.inputs
    }

    pub fn outputs(&self) -> &[OutputRef] {
        &self.outputs
    }

    /// The descriptor of the tensor `edge` names.
    pub fn tensor(&self, edge: OutputRef) -> &TensorDesc {
        &self.nodes[edge.node.index()].outputs[edge.index as usize]
    }

    /// The graph taken apart, for a pass that builds a new one from it
    /// without copying its nodes: (name, nodes, inputs, outputs).
    pub(crate) fn into_parts(self) -> (String, Vec<Node>, Vec<NodeId>, Vec<OutputRef>) {
        (self.name, self.nodes, self.inputs, self.outputs)
    }

    /// Total node count with every body counted at each call site
    /// (saturating; see [`expanded_nodes`]).
    pub fn total_nodes(&self) -> usize {
        usize::try_from(expanded_nodes(self)).unwrap_or(usize::MAX)
    }
}

impl Graph {
    /// Adds a Data node carrying `desc` as graph input `index` (its input order).
    pub fn add_input_node(
        &mut self,
        name: &str,
        desc: TensorDesc,
    ) -> Result<OutputRef, GraphError> {
        let index = self.inputs.len() as i64;
        let mut node = Node::new(name, "Data", Vec::new(), 1);
        node.outputs[0] = desc;
        node.attrs.set("index", crate::types::AttrValue::Int(index));
        let id = self.add_node(node)?;
        self.inputs.push(id);
        Ok(OutputRef::new(id, 0))
    }

    /// Adds a Const node holding `value`.
    pub fn add_const_node(
        &mut self,
        name: &str,
        value: crate::types::HostTensor,
    ) -> Result<OutputRef, GraphError> {
        let mut node = Node::new(name, "Const", Vec::new(), 1);
        node.outputs[0] = TensorDesc::constant(value, crate::types::Format::Nd);
        Ok(OutputRef::new(self.add_node(node)?, 0))
    }
}

/// The hash [`Graph`]'s name index files a node under.
fn name_hash(name: &str) -> u64 {
    FxBuildHasher.hash_one(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, inputs: Vec<Option<OutputRef>>, outputs: usize) -> Node {
        Node::new(name, "Op", inputs, outputs)
    }

    /// A million-node graph holds one node, one descriptor (a heap block
    /// of its own) and, while it loads, one framework op and its inputs
    /// per node: a field added to any of them costs a megabyte per byte at
    /// that scale, against the scale budget of 1 KB per node for the whole
    /// pipeline. The bounds are today's sizes; a descriptor of at most 160
    /// bytes takes mimalloc's 160-byte block, where 168 took a 192-byte one.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn per_node_records_stay_small() {
        use crate::frontend::{FrameworkInput, FrameworkOp};
        use crate::types::TensorDesc;
        use std::mem::size_of;
        assert!(
            size_of::<Node>() <= 184,
            "Node: {} bytes",
            size_of::<Node>()
        );
        assert!(
            size_of::<TensorDesc>() <= 160,
            "TensorDesc: {} bytes",
            size_of::<TensorDesc>()
        );
        assert!(
            size_of::<FrameworkOp>() <= 120,
            "FrameworkOp: {} bytes",
            size_of::<FrameworkOp>()
        );
        assert!(
            size_of::<FrameworkInput>() <= 48,
            "FrameworkInput: {} bytes",
            size_of::<FrameworkInput>()
        );
    }

    #[test]
    fn edges_are_checked() {
        let mut g = Graph::new("g");
        let a = g.add_node(node("a", vec![], 1)).unwrap();
        assert_eq!(
            g.add_node(node("a", vec![], 1)),
            Err(GraphError::DuplicateName("a".into()))
        );
        let bad = g.add_node(node("b", vec![Some(OutputRef::new(a, 1))], 1));
        assert!(matches!(
            bad,
            Err(GraphError::NoSuchOutput {
                index: 1,
                available: 1,
                ..
            })
        ));
        let b = g
            .add_node(node("b", vec![Some(OutputRef::new(a, 0))], 1))
            .unwrap();
        assert_eq!(g.find("b"), Some(b));
        assert!(g.set_input(b, 3, None).is_err());
    }
}
