//! Tensor sizes as the device holds them: the compute dtype a precision
//! mode gives a tensor, and element counts with C0 / fractal padding.

use super::{CostError, PrecisionMode};
use crate::types::{DataType, Format, TensorDesc};

/// Elements of one fractal side (M and N of a Cube block, and the row
/// count of a FRACTAL_NZ tile).
pub(crate) const FRACTAL: u64 = 16;

/// GE's C0 for `dtype`: the channel block of NC1HWC0 and the K depth of a
/// Cube instruction (16 for 16/32-bit floats, 32 for 8-bit, 64 for 4-bit).
pub(crate) fn c0(dtype: DataType) -> u64 {
    match dtype.bits() {
        Some(8) => 32,
        Some(4) => 64,
        _ => 16,
    }
}

/// The dtype a float tensor has on the device under `mode`; `cube` says
/// whether a Cube unit computes on it.
pub(crate) fn compute_dtype(dtype: DataType, mode: PrecisionMode, cube: bool) -> DataType {
    let is_float = matches!(dtype, DataType::Float | DataType::Double | DataType::Bf16);
    match mode {
        PrecisionMode::ForceFp16 if is_float => DataType::Float16,
        PrecisionMode::AllowFp32ToFp16 if is_float && cube => DataType::Float16,
        _ => dtype,
    }
}

pub(crate) fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b.max(1))
}

/// Static dims of `desc` as u64, or the error naming `node`.
pub(crate) fn static_dims(
    node: &str,
    op_type: &str,
    desc: &TensorDesc,
) -> Result<Vec<u64>, CostError> {
    Ok(known_dims(node, op_type, desc)?
        .iter()
        .map(|&d| d as u64)
        .collect())
}

/// The dims of `desc`'s shape when all are known, or the error naming `node`.
fn known_dims<'d>(node: &str, op_type: &str, desc: &'d TensorDesc) -> Result<&'d [i64], CostError> {
    let shape = desc.shape();
    if !shape.is_static() {
        return Err(CostError::UnknownShape {
            node: node.to_owned(),
            op_type: op_type.to_owned(),
            tensor: desc.summary(),
        });
    }
    Ok(shape.dims())
}

pub(crate) fn product(node: &str, dims: &[u64]) -> Result<u64, CostError> {
    product_of(node, dims.iter().copied())
}

/// The product of `dims`, or the overflow error naming `node`.
fn product_of(node: &str, mut dims: impl Iterator<Item = u64>) -> Result<u64, CostError> {
    dims.try_fold(1u64, |acc, d| acc.checked_mul(d))
        .ok_or_else(|| CostError::Overflow {
            node: node.to_owned(),
        })
}

/// Where the channel dim of a 4-D / 5-D activation sits, if `format` is an
/// activation layout GE stores as NC1HWC0.
fn channel_axis(format: Format, rank: usize) -> Option<usize> {
    match (format, rank) {
        (Format::Nchw, 4) | (Format::Ncdhw, 5) => Some(1),
        (Format::Nhwc, 4) => Some(3),
        (Format::Ndhwc, 5) => Some(4),
        _ => None,
    }
}

/// Elements the device stores for `desc` computed in `dtype`: the storage
/// shape when the format pass set one, otherwise the origin shape with the
/// channel dim of a 4-D/5-D activation padded up to C0 (GE keeps
/// convolution, pooling and the element-wise ops around them in NC1HWC0,
/// so the padding is paid either way).
pub(crate) fn stored_elements(
    node: &str,
    op_type: &str,
    desc: &TensorDesc,
    dtype: DataType,
) -> Result<u64, CostError> {
    // Called several times for every node of a graph: no allocation.
    if desc.storage_format != desc.origin_format && desc.storage_shape.is_static() {
        return product_of(node, desc.storage_shape.dims().iter().map(|&d| d as u64));
    }
    let dims = known_dims(node, op_type, desc)?;
    let padded = channel_axis(desc.origin_format, dims.len());
    let c0 = c0(dtype);
    product_of(
        node,
        dims.iter().enumerate().map(|(axis, &d)| {
            let d = d as u64;
            if padded == Some(axis) {
                ceil_div(d, c0) * c0
            } else {
                d
            }
        }),
    )
}

/// Bytes of `elements` values of `dtype`.
pub(crate) fn bytes(node: &str, dtype: DataType, elements: u64) -> Result<u64, CostError> {
    let bits = u64::from(dtype.bits().unwrap_or(32));
    elements
        .checked_mul(bits)
        .map(|b| b.div_ceil(8))
        .ok_or_else(|| CostError::Overflow {
            node: node.to_owned(),
        })
}

/// The stored bytes of `desc` under `mode` (`cube`: read or written by a Cube op).
pub(crate) fn stored_bytes(
    node: &str,
    op_type: &str,
    desc: &TensorDesc,
    mode: PrecisionMode,
    cube: bool,
) -> Result<u64, CostError> {
    let dtype = compute_dtype(desc.dtype, mode, cube);
    bytes(node, dtype, stored_elements(node, op_type, desc, dtype)?)
}
