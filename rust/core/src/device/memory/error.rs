//! Why a memory plan could not be made.

use crate::graph::{CycleError, ExpansionError};
use crate::types::TensorDesc;

/// Bad input to the planner: every variant names the tensor or lifetime at
/// fault and says what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    #[error(
        "tensor '{tensor}' has the storage shape {shape}, with unknown dims and no upper bound; \
         a static plan needs every size: give the graph static input shapes (e.g. input_shapes= \
         when loading the model), bound the dims with shape ranges, or plan with allow_dynamic"
    )]
    UnknownSize { tensor: String, shape: String },
    #[error(
        "tensor '{tensor}' has the storage shape {shape}, with unknown dims; its shape range \
         would bound them, but this plan does not use shape ranges (use_shape_ranges=False); \
         plan with them, or give the graph static input shapes (input_shapes= when loading)"
    )]
    RangeNotUsed { tensor: String, shape: String },
    #[error(
        "constant '{tensor}' has the shape {shape}, with unknown dims: a weight without values \
         (e.g. a Caffe net loaded without its .caffemodel); load the weights, or plan with \
         allow_dynamic to leave it out"
    )]
    UnknownWeightSize { tensor: String, shape: String },
    #[error(
        "tensor '{tensor}' has no dtype (UNDEFINED); infer the graph (opgraph.infer) before \
         planning its memory"
    )]
    NotInferred { tensor: String },
    #[error("the byte size of tensor '{tensor}' ({detail}) overflows 64-bit byte counts")]
    SizeOverflow { tensor: String, detail: String },
    #[error("lifetime {index} ends at step {last}, before it starts at step {first}")]
    InvalidLifetime { index: usize, first: u32, last: u32 },
    #[error("the alignment must be at least 1 byte, got 0")]
    ZeroAlignment,
    #[error("the {what} overflows 64-bit byte counts")]
    Overflow { what: String },
    #[error("the graph has more than {max} steps or tensors to plan", max = u32::MAX)]
    TooLarge,
    #[error(transparent)]
    Cycle(#[from] CycleError),
    /// Bodies are laid out per call site: a graph whose inlining passes
    /// `MAX_EXPANDED_NODES` (one built with shared bodies, not loaded) is
    /// refused before the schedule grows.
    #[error(transparent)]
    Expanded(#[from] ExpansionError),
    /// The schedule asked for cannot order this graph.
    #[error("{0}")]
    Schedule(String),
}

impl MemoryError {
    pub(crate) fn overflow(what: impl Into<String>) -> MemoryError {
        MemoryError::Overflow { what: what.into() }
    }
}

impl MemoryError {
    /// The error for a tensor of unknown size: one whose shape range would
    /// have bounded it says so, rather than asking for a range it has.
    pub(crate) fn unknown_size(tensor: String, desc: &TensorDesc, use_ranges: bool) -> MemoryError {
        let shape = desc.storage_shape.to_string();
        if !use_ranges && desc.shape_range.is_some() {
            MemoryError::RangeNotUsed { tensor, shape }
        } else {
            MemoryError::UnknownSize { tensor, shape }
        }
    }
}
