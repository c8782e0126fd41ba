//! Verify and inference: the per-node context and the graph traversal.

mod check;
mod context;
pub(crate) mod dead;
mod engine;
mod error;
mod guards;
pub mod probe;
mod run_node;
mod weights;

pub use context::OpContext;
pub use engine::{infer_graph, InferOptions, DEFAULT_FOLD_LIMIT};
pub use error::{Abort, InferFailure, NodeError, Stage};

#[cfg(test)]
mod guards_tests;
#[cfg(test)]
mod tests;
