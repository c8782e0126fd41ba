//! Built-in math ops (issue 3): Identity, element-wise unary and
//! broadcasting binary ops (with integer value folding for shape
//! arithmetic), AddN, reductions, ArgMax / ArgMin, TopK, Softmax, Cumsum.

mod addn;
mod arg;
mod binary;
mod broadcast;
mod cumsum;
mod dtypes;
mod fold;
#[cfg(test)]
mod fold_tests;
mod identity;
mod range_rules;
mod reduce;
mod softmax;
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
    all
}
