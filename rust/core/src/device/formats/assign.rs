//! Choosing every tensor's storage: a forward sweep in execution order
//! stores each node's outputs as its rule decides (producers are settled
//! before their consumers look at them), then the constants are settled
//! backwards from what their consumers asked for.

use super::decide::{decide, Out, View};
use super::edges::{passed_through, Use};
use super::rules::{rule, Rule};
use super::spec::Storage;
use crate::device::dead_code::DeadCode;
use crate::device::soc::Soc;
use crate::device::DeviceError;
use crate::graph::{Graph, NodeId, OutputRef};
use crate::op::OpRegistry;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// An edge whose consumer needs its tensor stored as `storage`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Need {
    pub from: OutputRef,
    pub to: Use,
    pub storage: Storage,
}

/// What the sweep settled: the needs of every edge (TransData goes where
/// they are not met) and how many constants took a device format in place.
pub struct Assignment {
    pub needs: Vec<Need>,
    pub constants_converted: usize,
}

pub fn assign(
    graph: &mut Graph,
    registry: &OpRegistry,
    soc: &Soc,
    order: &[NodeId],
    constant: &[SmallVec<[bool; 1]>],
    dead_code: &DeadCode,
) -> Result<Assignment, DeviceError> {
    let mut needs = Vec::new();
    for &id in order {
        let view = View {
            graph,
            registry,
            soc,
            constant,
            dead_code,
        };
        let decision = decide(&view, id);
        let node = graph.node(id);
        for (input, need) in decision.inputs.iter().enumerate() {
            if let (Some(storage), Some(from)) = (need, node.inputs[input]) {
                needs.push(Need {
                    from,
                    to: Use { node: id, input },
                    storage: *storage,
                });
            }
        }
        for (o, out) in decision.outputs.iter().enumerate() {
            if constant[id.index()][o] {
                continue; // settled below, by its consumers
            }
            match *out {
                Out::Store(storage) => store(graph, id, o, storage, soc)?,
                Out::Copy(i) => {
                    if let Some(from) = graph.node(id).inputs.get(i).copied().flatten() {
                        let src = graph.tensor(from).clone();
                        let desc = &mut graph.node_mut(id).outputs[o];
                        desc.origin_format = src.origin_format;
                        desc.storage_format = src.storage_format;
                        desc.storage_shape = src.storage_shape;
                    }
                }
                Out::Free => {}
            }
        }
    }
    let constants_converted = settle_constants(graph, soc, order, constant, dead_code, &mut needs)?;
    Ok(Assignment {
        needs,
        constants_converted,
    })
}

fn store(
    graph: &mut Graph,
    id: NodeId,
    o: usize,
    storage: Storage,
    soc: &Soc,
) -> Result<(), DeviceError> {
    let node = graph.node_mut(id);
    let format = storage.format(&node.outputs[o]);
    storage
        .apply(&mut node.outputs[o], soc)
        .map_err(|e| DeviceError::Node {
            node: node.name.clone(),
            message: format!("output {o} cannot be stored as {format}: {e}"),
        })
}

/// Each constant takes the storage its consumers agree on (a weight is
/// converted once, in place, as GE pre-transforms weights); constants
/// whose consumers disagree stay plain and get TransData like any tensor.
/// A pass-through of a constant asks its own input for what it settled on.
fn settle_constants(
    graph: &mut Graph,
    soc: &Soc,
    order: &[NodeId],
    constant: &[SmallVec<[bool; 1]>],
    dead_code: &DeadCode,
    needs: &mut Vec<Need>,
) -> Result<usize, DeviceError> {
    let mut asked: FxHashMap<OutputRef, SmallVec<[Storage; 2]>> = FxHashMap::default();
    for need in needs.iter() {
        if constant[need.from.node.index()][need.from.index as usize] {
            asked.entry(need.from).or_default().push(need.storage);
        }
    }
    for &out in graph.outputs() {
        asked.entry(out).or_default().push(Storage::Plain);
    }
    let mut converted = 0;
    let mut settled_as: FxHashMap<OutputRef, Storage> = FxHashMap::default();
    // Switch outputs GE deletes that nothing reads, with their input.
    let mut unread = Vec::new();
    for &id in order.iter().rev() {
        for (o, _) in constant[id.index()].iter().enumerate().filter(|(_, &c)| c) {
            let edge = OutputRef::new(id, o as u32);
            let requests = asked.remove(&edge).unwrap_or_default();
            let first = requests.first().copied().unwrap_or(Storage::Plain);
            let agreed = requests.iter().all(|s| *s == first);
            let settled = if agreed { first } else { Storage::Plain };
            store(graph, id, o, settled, soc)?;
            settled_as.insert(edge, settled);
            // A pass-through constant (Identity of a weight, a Switch GE
            // reduces to an edge) reads its input; the weight itself is a
            // source.
            let input = passed_through(graph, dead_code, id, o);
            match input.and_then(|i| graph.node(id).inputs.get(i).copied().flatten()) {
                // A Switch's taken output no branch node reads asks
                // nothing of the weight behind it (GE deletes the Switch):
                // it is stored as the weight is, once that is settled.
                Some(from)
                    if requests.is_empty()
                        && rule(&graph.node(id).op_type) != Rule::PassThrough =>
                {
                    unread.push((id, o, from));
                }
                Some(from) => {
                    needs.push(Need {
                        from,
                        to: Use {
                            node: id,
                            input: input.unwrap_or(o),
                        },
                        storage: settled,
                    });
                    asked.entry(from).or_default().push(settled);
                }
                None => converted += usize::from(settled != Storage::Plain),
            }
        }
    }
    // Inputs first (the reverse of the walk above), so chains settle.
    for (id, o, from) in unread.into_iter().rev() {
        // A forwarded output is constant only when its input is, and that
        // input came later in the walk.
        debug_assert!(settled_as.contains_key(&from), "{from:?} not settled");
        let storage = settled_as.get(&from).copied().unwrap_or(Storage::Plain);
        store(graph, id, o, storage, soc)?;
        settled_as.insert(OutputRef::new(id, o as u32), storage);
    }
    Ok(converted)
}
