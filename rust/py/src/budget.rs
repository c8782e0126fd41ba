//! The memory check before a call whose allocations grow with the graph:
//! a failed allocation aborts the process, so a call that would not fit in
//! the memory the process may use raises MemoryLimitError before it starts.

use crate::errors::{exception, memory_limit_error};
use opgraph_core::budget::Budget;
use pyo3::prelude::*;

/// What a call may allocate per node of its graph, by call: generous
/// upper estimates (measured on million-node chains and residual graphs,
/// `tests/benchmarks/bench_scale.py`) rather than exact figures.
pub mod bytes_per_node {
    /// `Graph.nodes()`: one snapshot per node, names and attrs copied.
    pub const NODE_SNAPSHOTS: usize = 512;
    /// `infer`: the order and per-node bookkeeping; descriptors exist already.
    pub const INFER: usize = 128;
    /// `prepare`: format decisions, storage shapes and inserted TransData.
    pub const PREPARE: usize = 512;
    /// `plan_memory`: lifetimes, offsets and the plan's columns.
    pub const PLAN_MEMORY: usize = 512;
    /// `estimate_cost`: per-node times and the report's columns.
    pub const ESTIMATE_COST: usize = 1024;
}

/// MemoryLimitError when `nodes` × `per_node` more bytes would not fit.
pub fn ensure_room(py: Python<'_>, call: &str, nodes: usize, per_node: usize) -> PyResult<()> {
    Budget::for_this_process()
        .check_with(nodes.saturating_mul(per_node))
        .map_err(|e| {
            exception(
                memory_limit_error(py),
                format!("{call} on a graph of {nodes} nodes would not fit: {e}"),
            )
        })
}
