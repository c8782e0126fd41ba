//! Built-in control ops (issue 3): body calls (PartitionedCall), functional
//! control flow (If / Case / While, ONNX's Loop and Scan), TensorFlow v1 control flow (Switch,
//! Merge, Enter, Exit, NextIteration, LoopCond), NoOp and Assert. `merge_rule`
//! is the one place that joins the descriptors of alternative tensors.

mod assert;
mod body;
pub(crate) mod branches;
mod call;
mod loop_op;
pub(crate) mod merge_rule;
mod noop;
mod scan;
mod v1;
mod while_loop;

use crate::op::OpSchema;

pub(crate) fn schemas() -> Vec<OpSchema> {
    let mut all = call::schemas();
    all.extend(branches::schemas());
    all.extend(while_loop::schemas());
    all.extend(loop_op::schemas());
    all.extend(scan::schemas());
    all.extend(v1::schemas());
    all.extend(noop::schemas());
    all.extend(assert::schemas());
    all
}
