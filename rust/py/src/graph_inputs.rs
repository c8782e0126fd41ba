//! What `Graph.add_input`, `set_input_shape`, `set_input_shape_range` and
//! `set_input_desc` do: a graph input made or changed, everything checked
//! before anything changes. A shape that does not fit the input is a
//! `ShapeArgumentError` naming it; an unknown name is a `GraphError`.

use crate::convert::{dtype_from_py, format_from_py, shape_arg, shape_range_arg};
use crate::errors::{exception, graph_err, shape_argument_error};
use opgraph_core::graph::{Graph, GraphError, NodeId};
use opgraph_core::types::{range_problem, Format, RangeProblem, TensorDesc};
use pyo3::prelude::*;

/// Node `name` of `graph`, or the GraphError that there is none.
pub(crate) fn find_node(py: Python<'_>, graph: &Graph, name: &str) -> PyResult<NodeId> {
    graph
        .find(name)
        .ok_or_else(|| graph_err(py, &GraphError::UnknownName(name.into())))
}

fn refuse(py: Python<'_>, message: String) -> PyErr {
    exception(shape_argument_error(py), message)
}

/// Graph input `name` (a Data or Placeholder node) and its descriptor, or
/// an error when there is no such node or it is not a graph input.
fn find_input<'g>(
    py: Python<'_>,
    graph: &'g Graph,
    name: &str,
) -> PyResult<(NodeId, &'g TensorDesc)> {
    let id = find_node(py, graph, name)?;
    let node = graph.node(id);
    if !matches!(node.op_type.as_str(), "Data" | "Placeholder") {
        return Err(refuse(
            py,
            format!("'{name}' is a {} node, not a graph input", node.op_type),
        ));
    }
    Ok((id, &node.outputs[0]))
}

/// The descriptor of a new graph input (`Graph.add_input`), its shape range
/// checked against its shape.
pub(crate) fn new_input(
    py: Python<'_>,
    name: &str,
    dtype: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    format: Option<&Bound<'_, PyAny>>,
    shape_range: Option<&Bound<'_, PyAny>>,
) -> PyResult<TensorDesc> {
    let format = format
        .map(format_from_py)
        .transpose()?
        .unwrap_or(Format::Nd);
    let mut desc = TensorDesc::new(dtype_from_py(dtype)?, shape_arg(shape, Some(name))?, format);
    if let Some(range) = shape_range {
        let range = shape_range_arg(range, name)?;
        check_shape_range(py, &desc, name, &range)?;
        desc.shape_range = Some(range.into());
    }
    Ok(desc)
}

/// `Graph.set_input_shape_range`.
pub(crate) fn set_shape_range(
    py: Python<'_>,
    graph: &mut Graph,
    name: &str,
    shape_range: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let (id, desc) = find_input(py, graph, name)?;
    let shape_range = shape_range_arg(shape_range, name)?;
    check_shape_range(py, desc, name, &shape_range)?;
    graph.node_mut(id).outputs[0].shape_range = Some(shape_range.into());
    Ok(())
}

/// `Graph.set_input_shape`: the shape checked as the loaders' `input_shapes`
/// are (a typed error naming the dim), then against the input.
pub(crate) fn set_shape(
    py: Python<'_>,
    graph: &mut Graph,
    name: &str,
    shape: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let (id, desc) = find_input(py, graph, name)?;
    let shape = shape_arg(shape, Some(name))?;
    check_input_shape(py, desc, name, shape.dims())?;
    graph.node_mut(id).outputs[0].set_shape(shape);
    Ok(())
}

/// `Graph.set_input_desc`: a new descriptor, the format kept when not given.
pub(crate) fn set_desc(
    py: Python<'_>,
    graph: &mut Graph,
    name: &str,
    dtype: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    format: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let (id, desc) = find_input(py, graph, name)?;
    let format = match format {
        Some(format) => format_from_py(format)?,
        None => desc.origin_format,
    };
    let desc = TensorDesc::new(dtype_from_py(dtype)?, shape_arg(shape, Some(name))?, format);
    graph.node_mut(id).outputs[0] = desc;
    Ok(())
}

/// Checks `shape_range` (inclusive `(min, max)` per dim, `max == -1`
/// unbounded) against input `name`'s descriptor: one range per dim, each
/// holding the dim when it is known.
fn check_shape_range(
    py: Python<'_>,
    desc: &TensorDesc,
    name: &str,
    shape_range: &[(i64, i64)],
) -> PyResult<()> {
    let dims = desc.shape().dims();
    match range_problem(desc.shape(), shape_range) {
        None => Ok(()),
        Some(RangeProblem::Count { ranges, .. }) => Err(refuse(
            py,
            format!(
                "input '{name}' has shape {dims:?}; a shape range needs one (min, max) per dim, \
                 got {ranges}"
            ),
        )),
        Some(RangeProblem::Dim {
            dim,
            range: (lo, hi),
            size,
        }) => Err(refuse(
            py,
            format!(
                "input '{name}': dim {dim} range ({lo}, {hi}) is not a range of non-negative \
                 sizes (min <= max, max -1 for unbounded) holding the dim ({size})"
            ),
        )),
    }
}

/// Checks a new `shape` for input `name`: its rank, each dim a size or -1,
/// inside the input's shape range, and the input not yet given a device
/// storage format by `prepare`.
fn check_input_shape(py: Python<'_>, desc: &TensorDesc, name: &str, shape: &[i64]) -> PyResult<()> {
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
