//! ONNX's Conv may leave out `kernel_shape` ("inferred from W"). The Conv
//! plugin picks Conv1D / Conv2D / Conv3D by the spatial rank its window
//! attributes give, so a Conv with none of them was taken as 2-D and a 1-D
//! or 3-D one refused. Where W's dims are known while decoding (W an
//! initializer, or a graph input declaring every dim), the node gets W's
//! spatial dims as `kernel_shape`, as ONNX defines it. A W read from an
//! enclosing graph or made by a node still leaves the plugin to assume 2-D.

use super::opset::split_origin;
use super::pb;
use crate::frontend::FrameworkOp;
use crate::types::AttrValue;
use rustc_hash::FxHashMap;

/// Gives each standard-domain Conv among `nodes` that has no `kernel_shape`
/// the spatial dims of its W, when W is one of `sources`: the graph's
/// initializer ops (decoded from `tensors`, in the same order), then its
/// inputs (their declared `shape`).
pub(super) fn complete_conv_kernels(
    nodes: &mut [FrameworkOp],
    sources: &[FrameworkOp],
    tensors: &[pb::TensorProto],
) {
    // Built on the first Conv that needs it: most models never do.
    let mut weights: Option<FxHashMap<&str, &[i64]>> = None;
    for op in nodes {
        // Every node of every load passes here: a suffix test first, the
        // split only for Convs.
        let standard = op.op_type.ends_with("::Conv")
            && matches!(split_origin(&op.op_type), Some(("ai.onnx", _, "Conv")));
        if !standard || op.attrs.get("kernel_shape").is_some() {
            continue;
        }
        let Some(w) = op.inputs.get(1).filter(|w| w.index == 0) else {
            continue;
        };
        let weights = weights.get_or_insert_with(|| known_dims(sources, tensors));
        let Some(spatial) = weights.get(w.node.as_str()).and_then(|d| d.get(2..)) else {
            continue;
        };
        if !spatial.is_empty() && spatial.iter().all(|&d| d >= 1) {
            op.attrs
                .set("kernel_shape", AttrValue::ListInt(spatial.to_vec()));
        }
    }
}

/// The dims of each source op by name: an initializer's, or an input's
/// declared ones (-1 where unknown).
fn known_dims<'a>(
    sources: &'a [FrameworkOp],
    tensors: &'a [pb::TensorProto],
) -> FxHashMap<&'a str, &'a [i64]> {
    let (initializers, inputs) = sources.split_at(tensors.len().min(sources.len()));
    let declared = inputs.iter().filter_map(|op| match op.attrs.get("shape") {
        Some(AttrValue::ListInt(dims)) => Some((op.name.as_str(), dims.as_slice())),
        _ => None,
    });
    initializers
        .iter()
        .zip(tensors)
        .map(|(op, tensor)| (op.name.as_str(), tensor.dims.as_slice()))
        .chain(declared)
        .collect()
}
