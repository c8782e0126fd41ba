//! ONNX's Conv may leave out `kernel_shape` ("inferred from W"). The Conv
//! plugin picks Conv1D / Conv2D / Conv3D by the spatial rank its window
//! attributes give, so a Conv with none of them was taken as 2-D and a 1-D
//! or 3-D one refused. Where W is an initializer its dims are known while
//! decoding: the node gets W's spatial dims as `kernel_shape`, as ONNX
//! defines it.

use super::pb;
use crate::frontend::FrameworkOp;
use crate::types::AttrValue;
use rustc_hash::FxHashMap;

/// Gives each standard-domain Conv among `nodes` that has no `kernel_shape`
/// the spatial dims of its W, when W is one of `initializers` (the const
/// ops decoded from `tensors`, in the same order).
pub(super) fn complete_conv_kernels(
    nodes: &mut [FrameworkOp],
    initializers: &[FrameworkOp],
    tensors: &[pb::TensorProto],
) {
    // Built on the first Conv that needs it: most models never do.
    let mut weights: Option<FxHashMap<&str, &[i64]>> = None;
    for op in nodes {
        let standard = op.op_type.starts_with("ai.onnx::") && op.op_type.ends_with("::Conv");
        if !standard || op.attrs.get("kernel_shape").is_some() {
            continue;
        }
        let Some(w) = op.inputs.get(1).filter(|w| w.index == 0) else {
            continue;
        };
        let weights = weights.get_or_insert_with(|| {
            initializers
                .iter()
                .zip(tensors)
                .map(|(op, tensor)| (op.name.as_str(), tensor.dims.as_slice()))
                .collect()
        });
        if let Some(spatial) = weights.get(w.node.as_str()).and_then(|d| d.get(2..)) {
            if !spatial.is_empty() {
                op.attrs
                    .set("kernel_shape", AttrValue::ListInt(spatial.to_vec()));
            }
        }
    }
}
