//! TransData insertion: where a consumer needs a tensor stored otherwise
//! than its producer stores it, a TransData node converts it on that
//! edge. One TransData per (tensor, target storage), shared by every
//! consumer that needs that storage; graph outputs are converted back to
//! their origin format.

use super::assign::Need;
use super::edges::Groups;
use super::spec::{Device, FilterDims, Storage};
use crate::device::soc::Soc;
use crate::device::DeviceError;
use crate::graph::{Graph, Node, NodeId, OutputRef};
use crate::types::AttrValue;

/// The op type of the conversion node (registered as an IR op).
pub const TRANS_DATA: &str = "TransData";

/// Where a converted tensor goes: a node input or a graph output position.
#[derive(Clone, Copy)]
enum Target {
    Input { node: NodeId, input: usize },
    GraphOutput(usize),
}

/// Inserts the TransData nodes `needs` call for; returns how many.
pub fn insert_trans_data(
    graph: &mut Graph,
    needs: &[Need],
    soc: &Soc,
) -> Result<usize, DeviceError> {
    let mut groups = Groups::new();
    for need in needs {
        if !need.storage.holds(graph.tensor(need.from), soc) {
            let target = Target::Input {
                node: need.to.node,
                input: need.to.input,
            };
            groups.add((need.from, need.storage), target);
        }
    }
    for (k, &out) in graph.outputs().iter().enumerate() {
        if !Storage::Plain.holds(graph.tensor(out), soc) {
            groups.add((out, Storage::Plain), Target::GraphOutput(k));
        }
    }
    let mut outputs = graph.outputs().to_vec();
    let inserted = groups.len();
    for ((from, storage), targets) in groups.into_vec() {
        let converted = add_trans_data(graph, from, storage, soc)?;
        for target in targets {
            match target {
                Target::Input { node, input } => graph.set_input(node, input, Some(converted))?,
                Target::GraphOutput(k) => outputs[k] = converted,
            }
        }
    }
    graph.set_outputs(outputs)?;
    Ok(inserted)
}

/// A TransData node reading `from` and storing it as `storage`.
fn add_trans_data(
    graph: &mut Graph,
    from: OutputRef,
    storage: Storage,
    soc: &Soc,
) -> Result<OutputRef, DeviceError> {
    let producer = graph.node(from.node);
    let src = graph.tensor(from);
    let mut desc = src.clone();
    desc.value = None;
    desc.shape_value = None;
    desc.value_range = None;
    let src_format = src.storage_format;
    storage
        .apply(&mut desc, soc)
        .map_err(|e| DeviceError::Node {
            node: producer.name.clone(),
            message: format!(
                "output {} cannot be converted to {}: {e}",
                from.index,
                storage.format(src)
            ),
        })?;
    let dst_format = desc.storage_format;
    let base = if from.index == 0 {
        format!("{}/TransData_{}", producer.name, dst_format)
    } else {
        format!("{}:{}/TransData_{}", producer.name, from.index, dst_format)
    };
    let name = unique_name(graph, base);
    let mut node = Node::new(name, TRANS_DATA, vec![Some(from)], 1);
    node.outputs[0] = desc;
    node.attrs
        .set("src_format", AttrValue::Str(src_format.name().into()));
    node.attrs
        .set("dst_format", AttrValue::Str(dst_format.name().into()));
    if let Storage::Device(Device::FractalZ {
        dims: FilterDims::Conv { groups },
        ..
    }) = storage
    {
        node.attrs.set("groups", AttrValue::Int(groups));
    }
    Ok(OutputRef::new(graph.add_node(node)?, 0))
}

fn unique_name(graph: &Graph, base: String) -> String {
    if graph.find(&base).is_none() {
        return base;
    }
    (1..)
        .map(|k| format!("{base}_{k}"))
        .find(|n| graph.find(n).is_none())
        .unwrap_or(base)
}
