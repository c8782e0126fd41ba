//! Device passes for Ascend-style targets, what GE does to an inferred graph
//! before it runs: the target description ([`soc`]), the storage-format pass
//! ([`formats`]), the static memory planner ([`memory`]), device
//! descriptions with published figures ([`spec`]) and the cost model
//! ([`cost`]).

mod cond_remove;
pub mod cost;
mod dead_code;
mod error;
pub mod formats;
pub mod memory;
pub mod soc;
pub mod spec;

pub use error::DeviceError;
