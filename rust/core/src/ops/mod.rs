//! Built-in op types. Each module registers GE prototypes with their
//! verify / infer functions; `builtin_schemas` collects them all.

mod broadcast;
mod conv2d;
mod data;
mod elementwise;
mod partitioned_call;
mod reshape;

pub use broadcast::broadcast_shapes;

use crate::op::OpSchema;

/// Every built-in prototype.
pub fn builtin_schemas() -> Vec<OpSchema> {
    let mut all = Vec::new();
    all.extend(data::schemas());
    all.extend(elementwise::schemas());
    all.extend(reshape::schemas());
    all.extend(conv2d::schemas());
    all.extend(partitioned_call::schemas());
    all
}
