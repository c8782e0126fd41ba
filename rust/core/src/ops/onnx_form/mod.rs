//! IR ops with ONNX semantics where no built-in op matches: N-d pooling
//! with ONNX padding rules, Resize / Upsample, Gemm, the ONNX normalisations,
//! ConvTranspose, NonMaxSuppression and ONNX's extra activations. Each file
//! says which ONNX ops and opsets it serves and how it differs from the
//! TensorFlow op of a similar name.

mod activations;
mod conv_transpose;
mod dims;
mod gemm;
mod nms;
mod norm;
mod one_hot;
mod pool;
mod resize;
mod values;
mod window;

use crate::op::OpSchema;

pub(super) fn schemas() -> Vec<OpSchema> {
    let mut all = Vec::new();
    all.extend(pool::schemas());
    all.extend(gemm::schemas());
    all.extend(norm::schemas());
    all.extend(conv_transpose::schemas());
    all.extend(nms::schemas());
    all.extend(activations::schemas());
    all.extend(one_hot::schemas());
    all.extend(resize::schemas());
    all
}
