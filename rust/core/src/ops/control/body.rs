//! What the body-calling ops share: reading a body's (already inferred)
//! outputs and copying a descriptor to one of the node's outputs.

use crate::bail;
use crate::infer::OpContext;
use crate::op::OpError;
use crate::types::TensorDesc;

/// The output descriptors of body `name`, which the engine inferred (with
/// the caller's inputs bound to its indexed Data nodes) before the node's
/// own functions run.
pub(super) fn body_outputs<'a>(
    ctx: &OpContext<'a>,
    name: &str,
) -> Result<Vec<&'a TensorDesc>, OpError> {
    let Some(body) = ctx.subgraph(name) else {
        bail!("it has no body named '{name}'");
    };
    Ok(body.outputs().iter().map(|&e| body.tensor(e)).collect())
}

/// Checks that body `name` has as many outputs as the node (`caller` says
/// what the node is in the message: "call", "If" ...).
pub(super) fn check_output_count(
    ctx: &OpContext<'_>,
    caller: &str,
    name: &str,
    outputs: &[&TensorDesc],
) -> Result<(), OpError> {
    if outputs.len() != ctx.output_count() {
        bail!(
            "its body '{name}' has {} outputs but the {caller} has {}",
            outputs.len(),
            ctx.output_count()
        );
    }
    Ok(())
}

/// Output `i` becomes `desc` (dtype, shape, format, range and value; a
/// list handle's contents too).
pub(super) fn set_output(
    ctx: &mut OpContext<'_>,
    i: usize,
    desc: &TensorDesc,
) -> Result<(), OpError> {
    ctx.set_output_dtype(i, desc.dtype)?;
    ctx.set_output_shape(i, desc.origin_shape.clone())?;
    ctx.set_output_format(i, desc.origin_format)?;
    if let Some(range) = &desc.shape_range {
        ctx.set_output_shape_range(i, range.clone())?;
    }
    if let Some(value) = &desc.value {
        ctx.set_output_value(i, value.clone())?;
    }
    // A list handle keeps what it holds: element dtype, count and shape.
    if let Some(list) = desc.list {
        ctx.set_output_list(i, list)?;
        if let Some(element) = &desc.shape_value {
            ctx.set_output_shape_value(i, (**element).clone())?;
        }
    }
    Ok(())
}
