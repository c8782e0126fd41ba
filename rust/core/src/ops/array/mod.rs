//! Built-in array ops (issue 3): views, shapes, slicing, gathering and
//! joining, block moves between space and batch, band matrices, and the ops
//! whose output size is data-dependent (Where, Unique). Each submodule
//! registers its prototypes; `host` folds their values on the host.

mod band_part;
mod cast;
mod concat;
mod depth;
mod fill;
mod gather;
pub(super) mod host;
mod nonzero;
#[cfg(test)]
mod onnx_semantics_tests;
mod pad;
pub(crate) mod range_rules;
mod reshape;
mod reverse_sequence;
mod select;
mod shape_of;
mod slice;
mod space_batch;
mod split;
mod strided_slice;
#[cfg(test)]
mod tf_extra_tests;
mod trans_data;
mod transpose;
mod unique;
#[cfg(test)]
mod value_range_tests;
pub(crate) mod views;

use crate::infer::OpContext;
use crate::op::OpSchema;
use crate::types::DataType;

/// Index / shape-vector dtypes (TensorFlow's `Tidx`, `Tshape`, `out_type`).
const INDEX: &[DataType] = &[DataType::Int32, DataType::Int64];

pub(crate) fn schemas() -> Vec<OpSchema> {
    let mut all = Vec::new();
    all.extend(reshape::schemas());
    all.extend(shape_of::schemas());
    all.extend(cast::schemas());
    all.extend(views::schemas());
    all.extend(fill::schemas());
    all.extend(concat::schemas());
    all.extend(split::schemas());
    all.extend(slice::schemas());
    all.extend(strided_slice::schemas());
    all.extend(gather::schemas());
    all.extend(transpose::schemas());
    all.extend(reverse_sequence::schemas());
    all.extend(trans_data::schemas());
    all.extend(pad::schemas());
    all.extend(select::schemas());
    all.extend(depth::schemas());
    all.extend(space_batch::schemas());
    all.extend(band_part::schemas());
    all.extend(nonzero::schemas());
    all.extend(unique::schemas());
    all
}

/// The whole value of value-depend input `i` as integers, when known.
fn int_value(ctx: &OpContext<'_>, i: usize) -> Option<Vec<i64>> {
    ctx.input_value(i)?.to_ints()
}

/// Two descriptions of the same dim: equal, or one unknown.
fn merge_dim(a: i64, b: i64, what: &str) -> Result<i64, crate::op::OpError> {
    match (a, b) {
        _ if a == b => Ok(a),
        (crate::types::UNKNOWN_DIM, d) | (d, crate::types::UNKNOWN_DIM) => Ok(d),
        _ => crate::bail!("{what}: dims {a} and {b} do not match"),
    }
}

/// The one integer of a scalar (or one-element) value-depend input.
fn int_scalar(
    ctx: &OpContext<'_>,
    i: usize,
    name: &str,
) -> Result<Option<i64>, crate::op::OpError> {
    match int_value(ctx, i).as_deref() {
        None => Ok(None),
        Some([v]) => Ok(Some(*v)),
        Some(v) => crate::bail!("input '{name}' must hold one value, got {v:?}"),
    }
}
