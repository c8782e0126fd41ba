//! Built-in nn ops (issue 3): convolution, pooling, normalisation, matrix
//! multiply, image resizing and cropping, non-max suppression, L2Loss and
//! the Caffe-style layers (`deconvolution` and `caffe_extra` hold GE's ops
//! for the Caffe layers no TensorFlow-style op covers). Each submodule
//! registers its prototypes; `dims` and `window` hold the shape rules they
//! share.

mod batch_norm;
mod bias;
mod caffe_extra;
#[cfg(test)]
mod caffe_extra_tests;
mod caffe_layers;
mod caffe_pooling;
mod combined_nms;
mod common_rnn;
mod concat_d;
mod conv2d;
mod conv3d;
pub(crate) mod conv_groups;
mod conv_variants;
mod crop_and_resize;
mod deconvolution;
pub(crate) mod dims;
mod einsum;
mod loss;
mod matmul;
mod nms;
mod normalization;
mod pooling;
mod pooling_v2;
pub(crate) mod range_rules;
mod resize;
mod roi_align;
#[cfg(test)]
mod tf_extra_tests;
mod weight_shapes;
mod window;

pub(crate) use caffe_extra::ARGMAX_NO_AXIS;

use crate::op::OpSchema;

pub(crate) fn schemas() -> Vec<OpSchema> {
    let mut all = Vec::new();
    all.extend(conv2d::schemas());
    all.extend(conv_variants::schemas());
    all.extend(conv3d::schemas());
    all.extend(pooling::schemas());
    all.extend(caffe_pooling::schemas());
    all.extend(matmul::schemas());
    all.extend(einsum::schemas());
    all.extend(bias::schemas());
    all.extend(batch_norm::schemas());
    all.extend(normalization::schemas());
    all.extend(caffe_layers::schemas());
    all.extend(caffe_extra::schemas());
    all.extend(deconvolution::schemas());
    all.extend(concat_d::schemas());
    all.extend(resize::schemas());
    all.extend(pooling_v2::schemas());
    all.extend(crop_and_resize::schemas());
    all.extend(roi_align::schemas());
    all.extend(common_rnn::schemas());
    all.extend(nms::schemas());
    all.extend(combined_nms::schemas());
    all.extend(loss::schemas());
    all
}
