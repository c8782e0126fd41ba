#![cfg_attr(not(test), deny(clippy::arithmetic_side_effects))]
//! Built-in op types. Each module registers GE prototypes with their
//! verify / infer functions; `builtin_schemas` collects them all.
//!
//! Areas: `array` (views, shapes, slicing, gathering), `math` (element-wise,
//! reductions, softmax), `nn` (convolution, pooling, normalisation, matrix
//! multiply, Caffe-style layers), `control` (If / While / calls, TF v1
//! control flow, NoOp), `list` (TensorFlow's TensorList ops), `tensor_array`
//! (TensorFlow's TensorArray ops, control flow v1's arrays), `sequence`
//! (ONNX's sequence ops beyond the TensorList ones).

mod array;
pub(crate) mod common;
pub(crate) mod control;
mod data;
mod list;
mod math;
pub(crate) mod nn;
mod onnx_form;
pub(crate) mod ranges;
mod sequence;
mod tensor_array;
pub mod tf_dtypes;

pub use math::broadcast_shapes;
pub(crate) use nn::ARGMAX_NO_AXIS;

use crate::op::OpSchema;

/// Every built-in prototype.
pub fn builtin_schemas() -> Vec<OpSchema> {
    let mut all = Vec::new();
    all.extend(data::schemas());
    all.extend(array::schemas());
    all.extend(math::schemas());
    all.extend(nn::schemas());
    all.extend(control::schemas());
    all.extend(list::schemas());
    all.extend(tensor_array::schemas());
    all.extend(onnx_form::schemas());
    all.extend(sequence::schemas());
    all
}
