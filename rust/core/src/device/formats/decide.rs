//! What one node needs of its inputs' storage and how it stores its
//! outputs, given its rule, its attributes and (for the format-following
//! rules) how its inputs are stored now. The pass and the validity checker
//! both ask this, so "what a consumer needs" has one definition.

use super::rules::{rule, Rule};
use super::spec::{readable_as, Device, Storage};
use super::{follow, prefer};
use crate::device::dead_code::DeadCode;
use crate::device::soc::Soc;
use crate::frontend::convert::INPUT_FORMATS_ATTR;
use crate::graph::{Graph, Node, NodeId, OutputRef};
use crate::op::OpRegistry;
use crate::types::{AttrValue, Format, TensorDesc};
use smallvec::SmallVec;

/// How a node stores one output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Out {
    Store(Storage),
    /// Exactly as input `i` is stored (pass-through ops).
    Copy(usize),
    /// Set by the pass and checked elsewhere: constants (converted for
    /// their consumers) and TransData (by its attributes).
    Free,
}

/// One node's storage contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Per input: the storage it must arrive in; `None` takes it as it is
    /// (absent inputs, broadcast scalars, pass-through and TransData inputs).
    pub inputs: SmallVec<[Option<Storage>; 4]>,
    pub outputs: SmallVec<[Out; 2]>,
}

/// The graph as the pass sees it.
pub struct View<'a> {
    pub graph: &'a Graph,
    pub registry: &'a OpRegistry,
    pub soc: &'a Soc,
    /// Per node and output: a constant (see `edges::constant_outputs`).
    pub constant: &'a [SmallVec<[bool; 1]>],
    /// What GE deletes or reduces to an edge before it picks formats.
    pub(crate) dead_code: &'a DeadCode,
}

impl<'a> View<'a> {
    pub(super) fn input(&self, node: &Node, i: usize) -> Option<&'a TensorDesc> {
        let graph: &'a Graph = self.graph;
        node.inputs
            .get(i)
            .copied()
            .flatten()
            .map(|e| graph.tensor(e))
    }

    pub(super) fn edge(node: &Node, i: usize) -> Option<OutputRef> {
        node.inputs.get(i).copied().flatten()
    }

    pub fn is_constant(&self, e: OutputRef) -> bool {
        self.constant[e.node.index()][e.index as usize]
    }

    /// The node's attribute, or its prototype's default.
    pub(super) fn attr<'n>(&'n self, node: &'n Node, name: &str) -> Option<&'n AttrValue> {
        node.attrs.get(name).or_else(|| {
            self.registry
                .get(&node.op_type)?
                .attr_def(name)?
                .default
                .as_ref()
        })
    }

    pub(super) fn attr_int(&self, node: &Node, name: &str) -> Option<i64> {
        match self.attr(node, name)? {
            AttrValue::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The layout the frontend recorded for input `i`, when it is one of `allowed`.
    pub(super) fn recorded_layout(
        &self,
        node: &Node,
        i: usize,
        allowed: &[Format],
    ) -> Option<Format> {
        match node.attrs.get(INPUT_FORMATS_ATTR) {
            Some(AttrValue::ListStr(names)) => names
                .get(i)
                .and_then(|n| Format::from_name(n))
                .filter(|f| allowed.contains(f)),
            _ => None,
        }
    }

    /// The layout of activation input `i`: as recorded by the frontend,
    /// else the op's `data_format`, when it is one of `allowed`.
    pub(super) fn input_layout(&self, node: &Node, i: usize, allowed: &[Format]) -> Option<Format> {
        let declared = match self.attr(node, "data_format") {
            Some(AttrValue::Str(s)) => Format::from_name(s).filter(|f| allowed.contains(f)),
            _ => None,
        };
        self.recorded_layout(node, i, allowed).or(declared)
    }
}

pub(super) const ACTIVATION_LAYOUTS: &[Format] = &[Format::Nchw, Format::Nhwc];
pub(super) const FILTER_LAYOUTS: &[Format] = &[Format::Nchw, Format::Nhwc, Format::Hwcn];

/// The contract of node `id`.
pub fn decide(view: &View<'_>, id: NodeId) -> Decision {
    let node = view.graph.node(id);
    // Dead code is deleted and a Switch or Merge GE reduces to an edge
    // passes its input on, in whatever storage it comes: no conversion
    // goes into either.
    if view.dead_code.is_node_dead(id) {
        return Decision {
            inputs: node.inputs.iter().map(|_| None).collect(),
            outputs: node.outputs.iter().map(|_| Out::Free).collect(),
        };
    }
    if let Some((input, taken)) = view.dead_code.forwards(view.graph, id) {
        return Decision {
            inputs: node.inputs.iter().map(|_| None).collect(),
            outputs: (0..node.outputs.len())
                .map(|o| {
                    if o == taken {
                        Out::Copy(input)
                    } else {
                        Out::Free
                    }
                })
                .collect(),
        };
    }
    let decided = match rule(&node.op_type) {
        Rule::Source | Rule::TransData => Some(free(node)),
        Rule::PassThrough => Some(Decision {
            inputs: node.inputs.iter().map(|_| None).collect(),
            outputs: (0..node.outputs.len()).map(Out::Copy).collect(),
        }),
        Rule::Convolution {
            x,
            filter,
            depthwise,
        } => prefer::convolution(view, node, x, filter, depthwise),
        Rule::Activation {
            x,
            channel_axis_attr,
        } => prefer::activation(view, node, x, channel_axis_attr),
        Rule::MatMul => prefer::matmul(view, node),
        Rule::FullyConnection => prefer::fully_connection(view, node),
        Rule::Elementwise => follow::elementwise(view, node),
        Rule::PerChannel => follow::per_channel(view, node),
        Rule::Concat(axis) => follow::concat(view, node, axis),
        Rule::SpatialReduce => prefer::spatial_reduce(view, node),
        Rule::Softmax => follow::softmax(view, node),
        Rule::ChannelSlice => prefer::channel_slice(view, node),
        Rule::Plain => None,
    };
    let mut decision = decided.unwrap_or_else(|| plain(node));
    // Folded constants are weights: stored as their consumers agree. A
    // node folded whole runs on the host at build time, so the device
    // storage of its inputs does not matter to it.
    let constant = &view.constant[id.index()];
    let folded = !constant.is_empty() && constant.iter().all(|&c| c);
    for (o, out) in decision.outputs.iter_mut().enumerate() {
        if constant[o] && !matches!(out, Out::Copy(_)) {
            *out = Out::Free;
        }
    }
    if folded && !matches!(rule(&node.op_type), Rule::PassThrough | Rule::Source) {
        decision.inputs.iter_mut().for_each(|need| *need = None);
    }
    decision
}

/// Plain in, plain out.
pub fn plain(node: &Node) -> Decision {
    Decision {
        inputs: node
            .inputs
            .iter()
            .map(|e| e.map(|_| Storage::Plain))
            .collect(),
        outputs: node
            .outputs
            .iter()
            .map(|_| Out::Store(Storage::Plain))
            .collect(),
    }
}

fn free(node: &Node) -> Decision {
    let data = node.op_type == "Data" || node.op_type == "Placeholder";
    Decision {
        inputs: node.inputs.iter().map(|_| None).collect(),
        outputs: node
            .outputs
            .iter()
            .map(|_| {
                if data {
                    Out::Store(Storage::Plain)
                } else {
                    Out::Free
                }
            })
            .collect(),
    }
}

/// `plain`, with input `i` needing `storage` (absent inputs stay `None`).
pub(super) fn with_input(mut d: Decision, i: usize, storage: Storage) -> Decision {
    if let Some(slot @ Some(_)) = d.inputs.get_mut(i) {
        *slot = Some(storage);
    }
    d
}

pub(super) fn five_hd(layout: Format) -> Storage {
    Storage::Device(Device::Nc1hwc0 { layout })
}

pub(super) const NZ: Storage = Storage::Device(Device::FractalNz);

/// Activation `x` and output 0 as NC1HWC0 read through `layout`, when both
/// are 4-D tensors that can be read that way.
pub(super) fn five_hd_io(
    view: &View<'_>,
    node: &Node,
    x: usize,
    layout: Format,
) -> Option<Decision> {
    let x_desc = view.input(node, x)?;
    let y = node.outputs.first()?;
    if !readable_as(x_desc, layout) || !readable_as(y, layout) {
        return None;
    }
    let mut d = with_input(plain(node), x, five_hd(layout));
    d.outputs[0] = Out::Store(five_hd(layout));
    Some(d)
}
