//! Built-in math ops (issue 3): Identity, element-wise unary and
//! broadcasting binary ops (with integer value folding for shape
//! arithmetic), AddN, reductions, ArgMax / ArgMin, TopK, Softmax, the
//! cumulative ops, float classification (IsNan ...) and ClipByValue.

mod addn;
mod arg;
mod binary;
mod broadcast;
mod classify;
mod clip;
mod cumsum;
mod dtypes;
mod fold;
pub(crate) mod fold_elementwise;
#[cfg(test)]
mod fold_tests;
mod identity;
mod range_rules;
mod reduce;
mod reduce_fold;
mod softmax;
#[cfg(test)]
mod tf_extra_tests;
mod topk;
mod unary;

pub use broadcast::broadcast_shapes;

use crate::op::OpSchema;

pub(crate) fn schemas() -> Vec<OpSchema> {
    let mut all = identity::schemas();
    all.extend(unary::schemas());
    all.extend(binary::schemas());
    all.extend(addn::schemas());
    all.extend(reduce::schemas());
    all.extend(arg::schemas());
    all.extend(topk::schemas());
    all.extend(softmax::schemas());
    all.extend(cumsum::schemas());
    all.extend(classify::schemas());
    all.extend(clip::schemas());
    all
}
