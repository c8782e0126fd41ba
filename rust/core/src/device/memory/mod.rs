//! The static memory planner: GE's tensor sizes, lifetimes from the
//! execution order, views sharing their input's memory, and offsets for
//! every activation in one arena by several strategies (the smallest kept),
//! reported beside the theoretical lower bound.
//!
//! Two entries: [`plan_memory`] for an inferred graph, and
//! [`plan_lifetimes`] for a bare lifetime set (benchmarks, property tests).
//!
//! Decisions:
//! - Sizes: GE's `TensorUtils::GetTensorMemorySizeInBytes` rule on the
//!   storage shape and dtype (sub-byte types packed): round up to 32, plus
//!   32 (`size.rs`); offsets aligned to GE's `MEM_ALIGN_SIZE` of 512, so
//!   every buffer takes its size rounded up to 512 in the arena and the
//!   lower bound counts those rounded sizes.
//! - Unknown dims: sized by the shape range's upper bounds when every
//!   unknown dim has one (and the storage view still equals the origin
//!   view); otherwise an error naming the tensor, or, with
//!   `PlanOptions::allow_dynamic`, the tensor is left out of the plan
//!   (region `Dynamic`), as GE runs unknown-shape parts dynamically.
//! - Schedule: one step per node in topological order; a node's bodies run
//!   at the node (`schedule.rs`). Loops (While bodies, TensorFlow v1
//!   frames): a buffer that crosses iterations lives over the whole loop;
//!   one produced and read within an iteration keeps its steps
//!   (`buffers.rs`).
//! - Views: outputs marked `reuses_input` in their prototype share their
//!   input's buffer, whose lifetime extends to the view's readers
//!   (`views.rs`).
//! - Regions: graph inputs, graph outputs and constants are laid out one
//!   after another in their own regions; only activations are planned.

mod any_order;
mod arena;
mod buffers;
mod check;
mod error;
#[cfg(test)]
mod graph_tests;
mod lifetimes;
mod lower_bound;
mod order;
mod plan;
mod refine;
mod schedule;
mod size;
mod strategies;
#[cfg(test)]
mod test_util;
mod views;

pub use any_order::MAX_ANY_ORDER_STEPS;
pub use arena::{plan_lifetimes, ArenaOptions, ArenaPlan, StrategyResult};
pub use buffers::Region;
pub use check::check_placement;
pub use error::MemoryError;
pub use lifetimes::Lifetime;
pub use order::ScheduleKind;
pub use plan::{plan_memory, MemoryPlan, PlanOptions, PlannedTensor, MAX_AUTO_SCHEDULE_NODES};
pub use refine::REFINE_BUDGET;
pub(crate) use size::largest_shapes;
pub use size::{
    align_up, ge_padded_size, static_tensor_size, tensor_size, DATA_ALIGN, MAX_ALIGNMENT,
    OFFSET_ALIGN,
};
pub use strategies::Strategy;
