//! ATC's ConfusionTranspose fusion (FE graph passes
//! `ReshapeTransposeFusionPass` and `TransposeReshapeFusionPass`): a
//! Reshape whose readers are all Transposes, or a Transpose whose one
//! reader is a Reshape, becomes one `ConfusionTransposeD` when the shapes on
//! both sides are whole FRACTAL_NZ blocks (last two dims multiples of 16,
//! all known). That kernel reads and writes FRACTAL_NZ, so the format
//! conversions (TransData) the format pass put around the pair never run:
//! here they pass their input through, as views do. The Transpose's own
//! data movement is still paid. This is how a transformer's attention
//! heads are split and merged (`[B, S, H] -> [B, S, heads, H/heads] ->
//! [B, heads, S, H/heads]` and back) without leaving FRACTAL_NZ.

use crate::graph::{Graph, NodeId, OutputRef};

/// The NZ fractal's side: a dim that is a multiple of it fills whole blocks.
const NZ_BLOCK: i64 = 16;

fn is_reshape(op_type: &str) -> bool {
    op_type == "Reshape"
}

fn is_transpose(op_type: &str) -> bool {
    matches!(op_type, "Transpose" | "TransposeD")
}

/// Whether a shape's last two dims (its one dim, at rank 1) are known
/// multiples of [`NZ_BLOCK`], as both passes require.
fn whole_blocks(graph: &Graph, tensor: OutputRef) -> bool {
    let shape = &graph.tensor(tensor).origin_shape;
    if !shape.is_static() {
        return false;
    }
    let dims = shape.dims();
    let tail = &dims[dims.len().saturating_sub(2)..];
    !tail.is_empty() && tail.iter().all(|d| d % NZ_BLOCK == 0)
}

/// For each node, whether it is a TransData that the ConfusionTranspose
/// fusion leaves out. Only a prepared graph has TransData; without any,
/// nothing else is looked at.
pub(crate) fn absorbed_conversions(graph: &Graph) -> Vec<bool> {
    let op_type = |id: NodeId| graph.node(id).op_type.as_str();
    let mut absorbed = vec![false; graph.len()];
    if !graph.nodes().iter().any(|n| n.op_type == "TransData") {
        return absorbed;
    }
    // Readers of the ops the passes look at (a pair, and a TransData before
    // it); a conversion that is also a graph output must run.
    let involved = |id: NodeId| {
        let t = op_type(id);
        is_reshape(t) || is_transpose(t) || t == "TransData"
    };
    let mut readers: Vec<Vec<NodeId>> = vec![Vec::new(); graph.len()];
    for (id, node) in graph.node_ids().zip(graph.nodes()) {
        for edge in node.inputs.iter().flatten() {
            if involved(edge.node) {
                readers[edge.node.index()].push(id);
            }
        }
    }
    let mut is_output = vec![false; graph.len()];
    for edge in graph.outputs() {
        is_output[edge.node.index()] = true;
    }
    let data_input = |id: NodeId| graph.node(id).inputs.first().copied().flatten();
    let conversion = |id: NodeId| op_type(id) == "TransData" && !is_output[id.index()];
    // A fused pair: its first op, and the ops whose outputs leave it.
    let mut absorb_around = |first: NodeId, last: &[NodeId]| {
        if let Some(edge) = data_input(first) {
            let producer = edge.node;
            // The conversion goes only if the pair is all it feeds.
            if conversion(producer) && readers[producer.index()] == [first] {
                absorbed[producer.index()] = true;
            }
        }
        for &end in last {
            for &reader in &readers[end.index()] {
                if conversion(reader) {
                    absorbed[reader.index()] = true;
                }
            }
        }
    };
    for id in graph.node_ids() {
        let Some(input) = data_input(id) else {
            continue;
        };
        let own = &readers[id.index()];
        if is_reshape(op_type(id))
            && !own.is_empty()
            && own.iter().all(|&r| is_transpose(op_type(r)))
            && whole_blocks(graph, input)
        {
            absorb_around(id, own);
        } else if is_transpose(op_type(id))
            && own.len() == 1
            && is_reshape(op_type(own[0]))
            && whole_blocks(graph, input)
            && whole_blocks(graph, OutputRef::new(own[0], 0))
        {
            let reshape = own[0];
            absorb_around(id, &[reshape]);
        }
    }
    absorbed
}
