//! `prepare(graph, soc)` (the storage-format pass), the format check, the
//! storage-shape formulas and the list of known socs.

use crate::budget::{bytes_per_node, ensure_room};
use crate::convert::{dtype_from_py, format_from_py, shape_from_py};
use crate::errors::{device_error, exception, guard_panics, guard_panics_detached, new_error};
use crate::graph::PyGraph;
use opgraph_core::device::formats::{self, PrepareOptions};
use opgraph_core::device::soc::{soc_versions as known_socs, Soc};
use opgraph_core::device::DeviceError;
use opgraph_core::op::global_registry;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `prepare`'s report as plain values; `opgraph.device` wraps it in a dataclass.
type ReportTuple = (
    String,
    String,
    bool,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    Vec<(i64, usize)>,
);

fn device_err(py: Python<'_>, e: DeviceError) -> PyErr {
    let node = match &e {
        DeviceError::NotInferred { node, .. }
        | DeviceError::AlreadyPrepared { node, .. }
        | DeviceError::Node { node, .. } => Some(node.clone()),
        _ => None,
    };
    let result = (|| {
        let kwargs = PyDict::new(py);
        kwargs.set_item("node", node)?;
        Ok(new_error(device_error(py)?, e.to_string(), Some(&kwargs)))
    })();
    result.unwrap_or_else(|err: PyErr| err)
}

fn soc_from(py: Python<'_>, name: &str) -> PyResult<Soc> {
    Soc::from_name(name).map_err(|e| device_err(py, e))
}

/// Chooses every tensor's storage format for `soc` (the graph must be inferred).
#[pyfunction]
#[pyo3(signature = (graph, soc, allow_fp32_to_fp16 = false))]
pub fn prepare(
    py: Python<'_>,
    graph: &mut PyGraph,
    soc: &str,
    allow_fp32_to_fp16: bool,
) -> PyResult<ReportTuple> {
    let options = PrepareOptions {
        soc: soc_from(py, soc)?,
        allow_fp32_to_fp16,
    };
    let registry = global_registry();
    graph.usable(py)?;
    let g = &mut graph.graph;
    ensure_room(py, "prepare", g.len(), bytes_per_node::PREPARE)?;
    // The pass never calls Python, so the GIL is released for its whole run.
    let result = guard_panics_detached(py, "the storage-format pass", || {
        formats::prepare(g, &registry, &options)
    });
    let report = graph.poison_on_panic(py, result)?.map_err(|e| {
        if !e.left_graph_unchanged() {
            graph.poison_partly_prepared(e.to_string());
        }
        device_err(py, e)
    })?;
    Ok((
        report.soc.version.to_owned(),
        report.soc.family.name().to_owned(),
        report.allow_fp32_to_fp16,
        report.trans_data_inserted,
        report.casts_inserted,
        report.weights_converted,
        report.weights_cast_to_fp16,
        report.graphs,
        report.conds_replaced,
        report
            .tensors_by_format
            .iter()
            .map(|(f, n)| (f.ge_value(), *n))
            .collect(),
    ))
}

/// Every place the graph's storage does not fit what its consumers need.
#[pyfunction]
pub fn check_formats(py: Python<'_>, graph: &PyGraph, soc: &str) -> PyResult<Vec<String>> {
    let soc = soc_from(py, soc)?;
    let registry = global_registry();
    graph.usable(py)?;
    let g = &graph.graph;
    let found = guard_panics_detached(py, "the storage-format check", || {
        formats::check_formats(g, &registry, &soc)
    });
    let found = graph.poison_on_panic(py, found)?;
    Ok(found.iter().map(ToString::to_string).collect())
}

/// GE's storage shape of a tensor; :func:`opgraph.storage_shape` documents the rules.
#[pyfunction]
#[pyo3(signature = (shape, origin_format, storage_format, dtype, groups = 1, soc = "Ascend910B"))]
pub fn storage_shape(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    origin_format: &Bound<'_, PyAny>,
    storage_format: &Bound<'_, PyAny>,
    dtype: &Bound<'_, PyAny>,
    groups: i64,
    soc: &str,
) -> PyResult<Vec<i64>> {
    let shape = shape_from_py(shape)?;
    let (from, to) = (
        format_from_py(origin_format)?,
        format_from_py(storage_format)?,
    );
    let dtype = dtype_from_py(dtype)?;
    let soc = soc_from(py, soc)?;
    guard_panics(py, "the storage-shape formulas", || {
        formats::storage_shape(&shape, from, to, dtype, groups, &soc)
    })?
    .map(|s| s.dims().to_vec())
    .map_err(|e| {
        exception(
            device_error(py),
            format!("cannot store {dtype}{shape} ({from}) as {to}: {e}"),
        )
    })
}

/// The soc names `prepare` accepts: the family names, then ATC's soc_versions.
#[pyfunction]
pub fn soc_versions() -> Vec<&'static str> {
    known_socs()
}
