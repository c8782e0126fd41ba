//! The Ascend cost model: per-op time from a device description, and the
//! whole-graph latency (single stream and critical path).
//!
//! - Cube ops (convolutions, matrix multiplies) are counted in fractal
//!   blocks after padding M / K / N (and C to C0) up, split over the AI
//!   cores by output blocks; their operands move once from memory and are
//!   shared between cores through L2 when they fit.
//! - Vector ops cost elements x instructions per element over the vector
//!   width of the cores the data is split across; depthwise convolution is
//!   a vector op.
//! - Activations passed between kernels stay in L2 when the live ones fit.
//! - time = max(compute, memory) + the task launch overhead; views and
//!   constants are free, element-wise ops fused into their producer's
//!   kernel cost only their vector work and extra operands, ops without an
//!   AI Core kernel run on the AI CPU; a concatenation or slice whose
//!   parts are contiguous blocks of the whole is done in place (no task).
//!
//! Storage shapes come from the format pass when it ran; otherwise 4-D
//! activations are padded to C0 here, so the padding is paid either way.

mod classify;
mod columns;
mod confusion;
mod cube;
mod fusion;
mod in_place;
mod l2;
mod recurrent;
mod report;
mod rows;
mod schedule;
mod tensor;
mod upper_bounds;
mod vector;
mod work;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_graph;
#[cfg(test)]
mod tests_onnx_conv;

pub use columns::{ColumnRows, CostColumns};
pub use report::{Bound, CostReport, NodeCost};
pub use rows::Rows;

use crate::device::spec::DeviceSpec;
use crate::graph::Graph;

/// ATC's `--precision_mode` for float models: which ops compute in fp16.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PrecisionMode {
    /// Every float op in fp16 (ATC's default for inference).
    #[default]
    ForceFp16,
    /// Cube ops in fp16 (the Cube has no fp32 mode), others as the model has them.
    AllowFp32ToFp16,
    /// Every op in the model's dtype (fp32 Cube ops need a Cube fp32 mode).
    MustKeepOriginDtype,
}

impl PrecisionMode {
    pub const ALL: [PrecisionMode; 3] = [
        PrecisionMode::ForceFp16,
        PrecisionMode::AllowFp32ToFp16,
        PrecisionMode::MustKeepOriginDtype,
    ];

    /// ATC's spelling.
    pub fn name(self) -> &'static str {
        match self {
            PrecisionMode::ForceFp16 => "force_fp16",
            PrecisionMode::AllowFp32ToFp16 => "allow_fp32_to_fp16",
            PrecisionMode::MustKeepOriginDtype => "must_keep_origin_dtype",
        }
    }

    pub fn from_name(name: &str) -> Option<PrecisionMode> {
        PrecisionMode::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// The node attribute that overrides the graph's precision mode for one
/// node (a string, one of [`PrecisionMode::name`]): what ATC's
/// `--keep_dtype`, `--customize_dtypes` and `--op_precision_mode` set per op.
pub const PRECISION_MODE_ATTR: &str = "_precision_mode";

/// The precision mode `node` asks for in [`PRECISION_MODE_ATTR`], if any.
pub(crate) fn node_precision(node: &crate::graph::Node) -> Option<PrecisionMode> {
    match node.attrs.get(PRECISION_MODE_ATTR) {
        Some(crate::types::AttrValue::Str(name)) => PrecisionMode::from_name(name),
        _ => None,
    }
}

/// How to estimate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostOptions {
    pub precision: PrecisionMode,
    /// Fuse element-wise ops into the kernel that feeds them, as ATC's UB
    /// fusion does.
    pub fuse: bool,
    /// Iterations of every While loop; `None` counts bodies once (flagged).
    pub loop_trip_count: Option<u64>,
    /// Keep activations passed between kernels in L2 when the live ones fit.
    pub l2_residency: bool,
    /// Cost unknown dims at their shape ranges' upper bounds (a worst case,
    /// flagged); otherwise an unknown size is an error.
    pub at_upper_bounds: bool,
}

impl Default for CostOptions {
    fn default() -> Self {
        CostOptions {
            precision: PrecisionMode::ForceFp16,
            fuse: true,
            loop_trip_count: None,
            l2_residency: true,
            at_upper_bounds: false,
        }
    }
}

/// Why a graph could not be costed; each names the node.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CostError {
    #[error("node '{node}' ({op_type}) has a tensor of unknown size {tensor}; the cost model needs static shapes: give the model's input shapes (input_shapes= when loading) and infer the graph first, or, where sizes depend on data and have shape ranges, cost them at their upper bounds (at_upper_bounds)")]
    UnknownShape {
        node: String,
        op_type: String,
        tensor: String,
    },
    #[error("the sizes of node '{node}' overflow 64 bits")]
    Overflow { node: String },
    #[error("node '{node}' ({op_type}) has no {input} connected")]
    MissingInput {
        node: String,
        op_type: String,
        input: &'static str,
    },
    #[error("node '{node}' ({op_type}) cannot be costed: {reason}")]
    Unsupported {
        node: String,
        op_type: String,
        reason: String,
    },
    #[error("{}{message}", if .path.is_empty() { String::new() } else { format!("in '{}': ", .path) })]
    Cycle { path: String, message: String },
}

impl CostError {
    /// The same error with the node named by its path from the top graph.
    fn in_body(self, prefix: &str) -> CostError {
        if prefix.is_empty() {
            return self;
        }
        match self {
            CostError::UnknownShape {
                node,
                op_type,
                tensor,
            } => CostError::UnknownShape {
                node: format!("{prefix}{node}"),
                op_type,
                tensor,
            },
            CostError::Overflow { node } => CostError::Overflow {
                node: format!("{prefix}{node}"),
            },
            CostError::MissingInput {
                node,
                op_type,
                input,
            } => CostError::MissingInput {
                node: format!("{prefix}{node}"),
                op_type,
                input,
            },
            CostError::Unsupported {
                node,
                op_type,
                reason,
            } => CostError::Unsupported {
                node: format!("{prefix}{node}"),
                op_type,
                reason,
            },
            other => other,
        }
    }
}

/// Estimates `graph` (inferred, with static shapes) on `spec`.
pub fn estimate_cost(
    graph: &Graph,
    spec: &DeviceSpec,
    options: &CostOptions,
) -> Result<CostReport, CostError> {
    estimate_cost_into(graph, spec, options)
}

/// [`estimate_cost`] with the rows in `R`: [`ColumnRows`] builds the
/// columns as the walk goes (a million-node report never holds a record
/// per node; finish them with [`ColumnRows::finish`]).
pub fn estimate_cost_into<R: Rows>(
    graph: &Graph,
    spec: &DeviceSpec,
    options: &CostOptions,
) -> Result<CostReport<R>, CostError> {
    let bounded = options
        .at_upper_bounds
        .then(|| upper_bounds::at_upper_bounds(graph))
        .filter(|(_, count)| *count > 0);
    let graph = bounded.as_ref().map_or(graph, |(g, _)| g);
    let mut walk = schedule::Walk::<R>::default();
    if let Some((_, count)) = &bounded {
        walk.flags.push(format!(
            "{count} tensors of run-time size are costed at their shape ranges' upper bounds: a worst case"
        ));
    }
    let times = schedule::walk_graph(graph, spec, options, "", 1.0, &mut walk)?;
    let (critical_path_us, critical_path) = schedule::critical_path(graph, &times)?;
    let total_us = walk.rows.time_from(0);
    let (rows, flags, task_count) = walk.finished_flags();
    Ok(CostReport {
        device: spec.name.clone(),
        precision: options.precision.name().to_owned(),
        nodes: rows,
        total_us,
        critical_path_us,
        critical_path,
        task_count,
        flags,
    })
}
