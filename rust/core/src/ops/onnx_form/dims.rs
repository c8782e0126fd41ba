//! Dim checks the ONNX-form ops share: dims that must agree (unknown agrees
//! with anything) and per-channel vectors.

use crate::bail;
use crate::op::OpError;
use crate::types::{Shape, UNKNOWN_DIM};

/// The one value two dims that must be equal stand for; an error naming
/// `what` when both are known and differ.
pub(super) fn merge_dim(a: i64, b: i64, what: &str) -> Result<i64, OpError> {
    match (a, b) {
        (UNKNOWN_DIM, d) | (d, UNKNOWN_DIM) => Ok(d),
        _ if a == b => Ok(a),
        _ => bail!("{what}: {a} != {b}"),
    }
}

/// Checks a 1-D per-channel input against `channels` and returns the
/// channel count both agree on.
pub(super) fn channel_vector(shape: &Shape, channels: i64, what: &str) -> Result<i64, OpError> {
    if shape.is_unknown_rank() {
        return Ok(channels);
    }
    match shape.dims() {
        &[n] => merge_dim(
            n,
            channels,
            &format!("{what} has a length other than the channels of x"),
        ),
        _ => bail!("{what} must be 1-D (one value per channel), got shape {shape}"),
    }
}
