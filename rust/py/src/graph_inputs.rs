//! Validation behind `Graph.set_input_shape`, `set_input_shape_range` and
//! `set_input_desc`: what a graph input may be changed to, checked before
//! anything changes, each refusal a `ShapeArgumentError` naming the input.

use crate::errors::{exception, shape_argument_error};
use opgraph_core::graph::{Graph, NodeId};
use opgraph_core::types::TensorDesc;
use pyo3::prelude::*;

fn refuse(py: Python<'_>, message: String) -> PyErr {
    exception(shape_argument_error(py), message)
}

/// The output descriptor of graph input `id`, named `name`, or an error when
/// the node is not a graph input (a Data or Placeholder node).
pub(crate) fn input_desc<'g>(
    py: Python<'_>,
    graph: &'g Graph,
    id: NodeId,
    name: &str,
) -> PyResult<&'g TensorDesc> {
    let node = graph.node(id);
    if !matches!(node.op_type.as_str(), "Data" | "Placeholder") {
        return Err(refuse(
            py,
            format!("'{name}' is a {} node, not a graph input", node.op_type),
        ));
    }
    Ok(&node.outputs[0])
}

/// Checks `shape_range` (inclusive `(min, max)` per dim, `max == -1`
/// unbounded) against input `name`'s descriptor: one range per dim, each
/// holding the dim when it is known.
pub(crate) fn check_shape_range(
    py: Python<'_>,
    desc: &TensorDesc,
    name: &str,
    shape_range: &[(i64, i64)],
) -> PyResult<()> {
    let dims = desc.shape().dims();
    if desc.shape().rank() != Some(shape_range.len()) {
        return Err(refuse(
            py,
            format!(
                "input '{name}' has shape {dims:?}; a shape range needs one (min, max) per dim, \
                 got {}",
                shape_range.len()
            ),
        ));
    }
    for (i, (&(lo, hi), &dim)) in shape_range.iter().zip(dims).enumerate() {
        let inside = dim < 0 || (lo <= dim && (hi == -1 || dim <= hi));
        if lo < 0 || (hi != -1 && hi < lo) || !inside {
            return Err(refuse(
                py,
                format!(
                    "input '{name}': dim {i} range ({lo}, {hi}) is not a range of non-negative \
                     sizes (min <= max, max -1 for unbounded) holding the dim ({dim})"
                ),
            ));
        }
    }
    Ok(())
}

/// Checks a new `shape` for input `name`: its rank, each dim a size or -1,
/// inside the input's shape range, and the input not yet given a device
/// storage format by `prepare`.
pub(crate) fn check_input_shape(
    py: Python<'_>,
    desc: &TensorDesc,
    name: &str,
    shape: &[i64],
) -> PyResult<()> {
    if let Some(rank) = desc.shape().rank() {
        if rank != shape.len() {
            return Err(refuse(
                py,
                format!(
                    "input '{name}' has rank {rank} (shape {}); the new shape {shape:?} has rank {}",
                    desc.shape(),
                    shape.len()
                ),
            ));
        }
    }
    if let Some(i) = shape.iter().position(|&d| d < -1) {
        return Err(refuse(
            py,
            format!(
                "input '{name}': dim {i} of {shape:?} is {}; a dim is a size (>= 0) or -1 \
                 (unknown)",
                shape[i]
            ),
        ));
    }
    if let Some(ranges) = &desc.shape_range {
        let outside = shape
            .iter()
            .zip(ranges)
            .position(|(&d, &(lo, hi))| d >= 0 && (d < lo || (hi != -1 && d > hi)));
        if let Some(i) = outside {
            return Err(refuse(
                py,
                format!(
                    "input '{name}': dim {i} of {shape:?} lies outside the input's shape range {:?}",
                    ranges[i]
                ),
            ));
        }
    }
    if desc.storage_format != desc.origin_format {
        // Its storage shape depends on the SoC, which only prepare knows.
        return Err(refuse(
            py,
            format!(
                "input '{name}' is stored as {} by prepare; set its shape before preparing the \
                 graph",
                desc.storage_format.name()
            ),
        ));
    }
    Ok(())
}
