//! Reading the host values of ONNX-form inputs: float vectors (Resize's
//! scales) and "present" tests for optional inputs that exporters fill with
//! empty tensors instead of leaving them out.

use crate::infer::OpContext;
use crate::types::{DataType, HostTensor};

/// The elements of a FLOAT or DOUBLE tensor as f64; None for other dtypes.
pub(super) fn floats(value: &HostTensor) -> Option<Vec<f64>> {
    let data = value.bytes().as_ref();
    match value.dtype() {
        DataType::Float => Some(
            data.chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .collect(),
        ),
        DataType::Double => Some(
            data.chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
        ),
        _ => None,
    }
}

/// Whether optional input `i` is given: connected and not an empty tensor
/// (ONNX exporters write an empty initializer for "no scales"). `None` when
/// connected with an unknown length.
pub(super) fn given(ctx: &OpContext<'_>, i: usize) -> Option<bool> {
    let Some(desc) = ctx.input_desc(i) else {
        return Some(false);
    };
    let shape = desc.shape();
    match shape.num_elements() {
        Ok(Some(0)) => Some(false),
        Ok(Some(_)) => Some(true),
        _ => shape.dims().contains(&0).then_some(false),
    }
}

/// A list-of-float attribute (absent → empty; ints accepted).
#[allow(
    clippy::cast_precision_loss,
    reason = "an int attribute read as a float scale"
)]
pub(super) fn attr_floats(ctx: &OpContext<'_>, name: &str) -> Result<Vec<f64>, crate::op::OpError> {
    use crate::types::AttrValue;
    match ctx.attr(name) {
        None => Ok(Vec::new()),
        Some(AttrValue::ListFloat(v)) => Ok(v.clone()),
        Some(AttrValue::ListInt(v)) => Ok(v.iter().map(|&i| i as f64).collect()),
        Some(other) => crate::bail!(
            "attribute '{name}' is a {}, expected list[float]",
            other.attr_type()
        ),
    }
}
