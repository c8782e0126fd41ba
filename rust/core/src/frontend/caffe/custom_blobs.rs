//! Weight blobs of custom layers, declared by their plugins.
//!
//! The Caffe frontend knows the blobs of its built-in layer types
//! (`weightless`); a layer type it does not know gets blobs only from a
//! `.caffemodel`. A user plugin may declare them instead (`blob_shapes`: a
//! function of the layer's parameters), so a deploy prototxt with custom
//! layers loads without weights, as Caffe sizes a layer's blobs in its
//! `LayerSetUp`. Dims only the input tells are -1 here and are completed at
//! inference by the IR op's `weight_shapes`. When a weights file does give
//! the blobs, each must agree with what the plugin declares.

use super::net::{blob_op, opaque_float, CONST};
use crate::frontend::{
    Framework, FrameworkGraph, FrameworkInput, FrameworkOp, FrontendError, PluginRegistry,
};
use crate::types::AttrValue;
use rustc_hash::{FxHashMap, FxHashSet};

/// Adds the declared blobs of every layer whose plugin declares them and
/// that has none, and checks the given ones of those that have some.
pub(super) fn declare_plugin_blobs(
    framework: &mut FrameworkGraph,
    plugins: &PluginRegistry,
) -> Result<(), FrontendError> {
    let declaring = |op: &FrameworkOp| {
        plugins
            .get(Framework::Caffe, &op.op_type)
            .and_then(|p| p.blob_shapes.clone())
    };
    if !framework.ops.iter().any(|op| declaring(op).is_some()) {
        return Ok(());
    }
    let mut names: FxHashSet<String> = framework.ops.iter().map(|op| op.name.clone()).collect();
    let given_shapes: FxHashMap<String, Vec<i64>> = framework
        .ops
        .iter()
        .filter(|op| op.op_type == CONST)
        .filter_map(|op| Some((op.name.clone(), blob_shape(op)?)))
        .collect();
    let mut ops = Vec::with_capacity(framework.ops.len());
    for mut op in std::mem::take(&mut framework.ops) {
        if let Some(blob_shapes) = declaring(&op) {
            let declared = blob_shapes(&op).map_err(|error| FrontendError::Plugin {
                node: op.name.clone(),
                origin_op_type: op.op_type.to_string(),
                error,
            })?;
            let given = given_blobs(&op);
            if given.is_empty() {
                for (i, shape) in declared.into_iter().enumerate() {
                    check_declared(&op, i, &shape)?;
                    let blob = blob_op(&op.name, i, opaque_float(shape));
                    if !names.insert(blob.name.clone()) {
                        return Err(FrontendError::Graph(format!(
                            "layer '{}': its blob {i} would be named '{}', which another layer \
                             or blob already is",
                            op.name, blob.name
                        )));
                    }
                    op.inputs.push(FrameworkInput::new(blob.name.clone(), 0));
                    ops.push(blob);
                }
            } else {
                check_given(&op, &declared, &given, &given_shapes)?;
            }
        }
        ops.push(op);
    }
    framework.ops = ops;
    Ok(())
}

/// A declared shape: each dim a size or -1.
fn check_declared(op: &FrameworkOp, i: usize, shape: &[i64]) -> Result<(), FrontendError> {
    match shape.iter().find(|&&d| d < -1) {
        Some(d) => Err(FrontendError::Decode(format!(
            "layer '{}' (type {}): its plugin declares blob {i} with shape {shape:?}, whose dim \
             {d} is neither a size nor -1 (known only from the input)",
            op.name, op.op_type
        ))),
        None => Ok(()),
    }
}

/// The names of `op`'s blob inputs (`<layer>/blobs/<i>`, in order).
fn given_blobs(op: &FrameworkOp) -> Vec<String> {
    (0..)
        .map(|i| format!("{}/blobs/{i}", op.name))
        .take_while(|name| op.inputs.iter().any(|input| input.node == *name))
        .collect()
}

/// The shape of blob op `blob`'s value (given by a weights file or the net).
fn blob_shape(blob: &FrameworkOp) -> Option<Vec<i64>> {
    match blob.attrs.get("value")? {
        AttrValue::Tensor(tensor) => Some(tensor.shape().dims().to_vec()),
        AttrValue::NamedAttrs(opaque) => match opaque.attrs.get("shape")? {
            AttrValue::ListInt(dims) => Some(dims.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Given blobs must be as many as declared, each of the declared rank and
/// agreeing with every declared size.
fn check_given(
    op: &FrameworkOp,
    declared: &[Vec<i64>],
    given: &[String],
    given_shapes: &FxHashMap<String, Vec<i64>>,
) -> Result<(), FrontendError> {
    let refuse = |why: String| {
        FrontendError::Decode(format!("layer '{}' (type {}): {why}", op.name, op.op_type))
    };
    if given.len() != declared.len() {
        return Err(refuse(format!(
            "the weights give {} blobs but its plugin declares {}",
            given.len(),
            declared.len()
        )));
    }
    for (i, (name, want)) in given.iter().zip(declared).enumerate() {
        let Some(have) = given_shapes.get(name) else {
            continue;
        };
        let agrees =
            have.len() == want.len() && have.iter().zip(want).all(|(&h, &w)| w < 0 || h == w);
        if !agrees {
            return Err(refuse(format!(
                "blob {i} has shape {have:?} but its plugin declares {want:?} (-1: any size)"
            )));
        }
    }
    Ok(())
}
