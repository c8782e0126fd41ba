//! ONNX's Conv may leave out `kernel_shape` ("inferred from W"). The Conv
//! plugin picks Conv1D / Conv2D / Conv3D by the spatial rank its window
//! attributes give, so a Conv with none of them was taken as 2-D and a 1-D
//! or 3-D one refused. Where W's dims are known while decoding (W an
//! initializer, a Constant node of the same graph, or a graph input
//! declaring every dim), the node gets W's spatial dims as `kernel_shape`,
//! as ONNX defines it. A W read from an enclosing graph or computed by
//! other nodes still leaves the plugin to assume 2-D.

use super::opset::split_origin;
use super::pb;
use crate::frontend::FrameworkOp;
use crate::types::AttrValue;
use rustc_hash::FxHashMap;

/// Gives each standard-domain Conv among `nodes` that has no `kernel_shape`
/// the spatial dims of its W, when W is one of `sources` (the graph's
/// initializer ops, decoded from `tensors` in the same order, then its
/// inputs with their declared `shape`) or a Constant among `nodes`.
pub(super) fn complete_conv_kernels(
    nodes: &mut [FrameworkOp],
    sources: &[FrameworkOp],
    tensors: &[pb::TensorProto],
) {
    // Every node of every load passes here: a suffix test first, the split
    // only for Convs; most models have no Conv to complete.
    let pending: Vec<usize> = (0..nodes.len())
        .filter(|&i| is_standard(&nodes[i], "Conv") && nodes[i].attrs.get("kernel_shape").is_none())
        .collect();
    if pending.is_empty() {
        return;
    }
    let kernels: Vec<(usize, Vec<i64>)> = {
        let weights = known_dims(nodes, sources, tensors);
        pending
            .into_iter()
            .filter_map(|i| {
                let w = nodes[i].inputs.get(1).filter(|w| w.index == 0)?;
                let spatial = weights.get(w.node.as_str())?.get(2..)?;
                let complete = !spatial.is_empty() && spatial.iter().all(|&d| d >= 1);
                complete.then(|| (i, spatial.to_vec()))
            })
            .collect()
    };
    for (i, spatial) in kernels {
        nodes[i]
            .attrs
            .set("kernel_shape", AttrValue::ListInt(spatial));
    }
}

/// Whether `op` is the standard domain's `op_type`.
fn is_standard(op: &FrameworkOp, op_type: &str) -> bool {
    op.op_type
        .strip_suffix(op_type)
        .is_some_and(|rest| rest.ends_with("::"))
        && matches!(split_origin(&op.op_type), Some(("ai.onnx", _, t)) if t == op_type)
}

/// The dims of each op by name that W may be: an initializer's, an input's
/// declared ones (-1 where unknown), a Constant node's value's.
fn known_dims<'a>(
    nodes: &'a [FrameworkOp],
    sources: &'a [FrameworkOp],
    tensors: &'a [pb::TensorProto],
) -> FxHashMap<&'a str, &'a [i64]> {
    let (initializers, inputs) = sources.split_at(tensors.len().min(sources.len()));
    let declared = inputs.iter().filter_map(|op| match op.attrs.get("shape") {
        Some(AttrValue::ListInt(dims)) => Some((op.name.as_str(), dims.as_slice())),
        _ => None,
    });
    let constants = nodes
        .iter()
        .filter(|op| is_standard(op, "Constant"))
        .filter_map(|op| match op.attrs.get("value") {
            Some(AttrValue::Tensor(t)) => Some((op.name.as_str(), t.shape().dims())),
            _ => None,
        });
    initializers
        .iter()
        .zip(tensors)
        .map(|(op, tensor)| (op.name.as_str(), tensor.dims.as_slice()))
        .chain(declared)
        .chain(constants)
        .collect()
}
