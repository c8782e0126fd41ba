//! Concatenations and slices that move no data: when every part is one
//! contiguous block of the whole as the device stores it, the graph
//! compiler lays the parts out inside the whole (producers write straight
//! into their place in a concatenation's output; a slice is an offset into
//! its input) and the op runs no task.
//!
//! A part is one contiguous block when the storage dims before the axis
//! joined or cut are all 1 and no part is padded there. In NC1HWC0 that is
//! a channel concatenation or slice at batch 1 whose channel counts (and
//! offsets) are whole C0 blocks: DPN's dual paths and Inception's branches
//! at batch 1. At a larger batch the same op interleaves the parts per
//! image and copies them, so this is where a batch sweep's batch-1 point
//! differs from the rest by more than per-image work, unless every part is
//! a convolution's output: a Conv2D writes each image's block at a stride
//! (StridedWrite), so Inception's branch concatenations stay free.

use super::classify::OpClass;
use crate::graph::{Graph, Node, NodeId};
use crate::types::TensorDesc;

const CONCAT: &[&str] = &["Concat", "ConcatV2", "ConcatD"];
const SLICE: &[&str] = &[
    "Slice",
    "SliceD",
    "StridedSlice",
    "StridedSliceV2",
    "StridedSliceD",
];
const SPLIT: &[&str] = &["Split", "SplitV", "SplitD", "SplitVD", "OnnxSplit"];

/// The storage dims of `desc` when static and unpadded (as many stored
/// elements as the origin shape has), else `None`.
fn unpadded_storage(desc: &TensorDesc) -> Option<Vec<u64>> {
    let stored = if desc.storage_shape.is_static() && desc.storage_shape.rank().is_some() {
        &desc.storage_shape
    } else {
        &desc.origin_shape
    };
    if !stored.is_static() || !desc.origin_shape.is_static() {
        return None;
    }
    let dims: Vec<u64> = stored.dims().iter().map(|&d| d as u64).collect();
    let origin: u64 = desc.origin_shape.dims().iter().map(|&d| d as u64).product();
    (dims.iter().product::<u64>() == origin).then_some(dims)
}

/// The one axis where `part` differs from `whole` (same rank), if exactly one.
fn cut_axis(whole: &[u64], part: &[u64]) -> Option<usize> {
    if whole.len() != part.len() {
        return None;
    }
    let mut axes = (0..whole.len()).filter(|&i| whole[i] != part[i]);
    let axis = axes.next()?;
    axes.next().is_none().then_some(axis)
}

/// Whether `whole` and its `parts` (unpadded storage dims) are laid out as
/// consecutive blocks: they differ on one axis only, sum to the whole along
/// it, and every storage dim before it is 1 (but the outermost when
/// `strided`: each image's part is then one block, at a stride).
fn consecutive_blocks(whole: &[u64], parts: &[Vec<u64>], exact_sum: bool, strided: bool) -> bool {
    let Some(axis) = parts.iter().find_map(|p| cut_axis(whole, p)) else {
        return false;
    };
    let same_elsewhere = parts
        .iter()
        .all(|p| p.len() == whole.len() && (0..whole.len()).all(|i| i == axis || p[i] == whole[i]));
    let along: u64 = parts.iter().map(|p| p[axis]).sum();
    let sums = if exact_sum {
        along == whole[axis]
    } else {
        along <= whole[axis]
    };
    let outer = usize::from(strided).min(axis);
    same_elsewhere && sums && whole[outer..axis].iter().all(|&d| d == 1)
}

/// Whether `part` is written by a convolution's kernel (the convolution,
/// or element-wise ops that fuse into it): a Conv2D writes its output at a
/// stride into a concatenation's (TBE's StridedWrite fused into it), so a
/// channel concatenation of convolutions is in place at any batch.
fn written_by_convolution(
    graph: &Graph,
    classes: &[OpClass],
    readers: &[u32],
    part: NodeId,
) -> bool {
    let mut at = part;
    loop {
        let node = graph.node(at);
        match classes[at.index()] {
            OpClass::Cube => return node.op_type.starts_with("Conv"),
            OpClass::Vector { fusable: true, .. } => match node.inputs.first().copied().flatten() {
                Some(edge) if readers[edge.node.index()] == 1 => at = edge.node,
                _ => return false,
            },
            _ => return false,
        }
    }
}

/// The data inputs of a concatenation or split: not host constants (the
/// axis or sizes input).
fn data_inputs<'g>(graph: &'g Graph, node: &Node) -> Vec<(NodeId, &'g TensorDesc)> {
    node.inputs
        .iter()
        .flatten()
        .map(|e| (e.node, graph.tensor(*e)))
        .filter(|(_, d)| d.value.is_none())
        .collect()
}

/// The storage C0 of a tensor held in a 5-D blocked layout (its last
/// storage dim when the storage rank exceeds the origin rank), else 1.
fn block(desc: &TensorDesc) -> i64 {
    match (desc.storage_shape.rank(), desc.origin_shape.rank()) {
        (Some(s), Some(o)) if s > o => desc.storage_shape.dims().last().copied().unwrap_or(1),
        _ => 1,
    }
}

/// Whether a slice's constant offsets (input 1) start whole blocks and its
/// strides (StridedSlice: the last constant input) are 1.
fn slice_offsets_whole(graph: &Graph, node: &Node, input: &TensorDesc) -> bool {
    let constant = |i: usize| {
        node.inputs
            .get(i)
            .copied()
            .flatten()
            .and_then(|e| graph.tensor(e).value.as_ref())
            .and_then(|v| v.to_ints())
    };
    if node.op_type.starts_with("StridedSlice") {
        let strides_at = if node.op_type == "StridedSliceV2" {
            4
        } else {
            3
        };
        if node.inputs.get(strides_at).copied().flatten().is_some()
            && !constant(strides_at).is_some_and(|s| s.iter().all(|&x| x == 1))
        {
            return false;
        }
    }
    let c0 = block(input);
    let begin = match node.op_type.as_str() {
        "SliceD" | "StridedSliceD" => match node.attrs.get("begin").or(node.attrs.get("offsets")) {
            Some(crate::types::AttrValue::ListInt(v)) => Some(v.clone()),
            _ => None,
        },
        _ => constant(1),
    };
    begin.is_some_and(|b| b.iter().all(|&x| x >= 0 && x % c0 == 0))
}

/// Whether `producer` writes its own output buffer on the device (a kernel,
/// not a graph input, a constant or a view of another tensor).
fn writes_own_buffer(class: OpClass) -> bool {
    !matches!(
        class,
        OpClass::Free(_) | OpClass::Subgraph | OpClass::AiCpu | OpClass::Edge(_)
    )
}

/// The nodes (by id) that run no task because their parts are contiguous
/// blocks of the whole. A concatenation also needs every part written by a
/// kernel that feeds nothing else (it can write into one place only) and
/// is not itself in place; a slice is an offset into its input whatever
/// produced it.
pub(crate) fn in_place(
    graph: &Graph,
    order: &[NodeId],
    classes: &[OpClass],
    readers: &[u32],
) -> Vec<bool> {
    let mut out = vec![false; graph.len()];
    // In execution order, so a part's own decision is known first.
    for &id in order {
        let node = graph.node(id);
        let op = node.op_type.as_str();
        let Some(whole_out) = node.outputs.first() else {
            continue;
        };
        out[id.index()] = if CONCAT.contains(&op) {
            let parts = data_inputs(graph, node);
            let Some(whole) = unpadded_storage(whole_out) else {
                continue;
            };
            let dims: Option<Vec<Vec<u64>>> =
                parts.iter().map(|(_, d)| unpadded_storage(d)).collect();
            let strided = parts
                .iter()
                .all(|&(p, _)| written_by_convolution(graph, classes, readers, p));
            parts.len() >= 2
                && parts.iter().all(|&(p, _)| {
                    writes_own_buffer(classes[p.index()])
                        && !out[p.index()]
                        && readers[p.index()] == 1
                        && graph.node(p).outputs.len() == 1
                })
                && dims.is_some_and(|d| consecutive_blocks(&whole, &d, true, strided))
        } else if SLICE.contains(&op) || SPLIT.contains(&op) {
            let Some(&(_, input)) = data_inputs(graph, node)
                .iter()
                .find(|(_, d)| d.storage_shape.rank() == whole_out.storage_shape.rank())
            else {
                continue;
            };
            let Some(whole) = unpadded_storage(input) else {
                continue;
            };
            let dims: Option<Vec<Vec<u64>>> = node.outputs.iter().map(unpadded_storage).collect();
            dims.is_some_and(|d| consecutive_blocks(&whole, &d, SPLIT.contains(&op), false))
                && (SPLIT.contains(&op) || slice_offsets_whole(graph, node, input))
        } else {
            false
        };
    }
    out
}
