//! `infer(graph)` and the enumeration tables the Python enums are checked against.

use crate::budget::{bytes_per_node, ensure_room};
use crate::errors::{
    device_error, exception, failure_to_py, guard_panics, guard_panics_detached, interruption,
    is_internal,
};
use crate::graph::PyGraph;
use opgraph_core::graph::Graph;
use opgraph_core::infer::{infer_graph, InferOptions, DEFAULT_FOLD_LIMIT};
use opgraph_core::op::{global_registry, OpOrigin, OpRegistry};
use opgraph_core::types::{DataType, Format};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::collections::HashSet;
use std::sync::Arc;

/// True when some node (bodies included) uses an op registered from Python.
/// A body shared by several call sites is looked at once (`seen`).
pub(crate) fn uses_user_ops(
    graph: &Graph,
    registry: &OpRegistry,
    seen: &mut HashSet<*const Graph>,
) -> bool {
    graph.nodes().iter().any(|n| {
        registry
            .get(&n.op_type)
            .is_some_and(|s| s.origin == OpOrigin::User)
            || n.subgraphs.iter().any(|s| {
                seen.insert(Arc::as_ptr(&s.graph)) && uses_user_ops(&s.graph, registry, seen)
            })
    })
}

/// The first output, bodies included, that prepare stored in a device
/// format, as `(node, output, format)`. Inference resets every computed
/// output, so inferring such a graph again would silently drop the formats
/// (and with them the storage sizes the memory plan and the cost model
/// read); sources (inputs, weights) keep theirs but are not looked at.
fn prepared_output(
    graph: &Graph,
    registry: &OpRegistry,
    seen: &mut HashSet<*const Graph>,
) -> Option<(String, usize, Format)> {
    graph.nodes().iter().find_map(|n| {
        // The schema is looked up only for a node with a stored output:
        // nearly every node of an unprepared graph has none.
        let stored = n
            .outputs
            .iter()
            .position(|d| d.storage_format != d.origin_format)
            .filter(|_| registry.get(&n.op_type).is_some_and(|s| !s.source))
            .map(|i| (n.name.clone(), i, n.outputs[i].storage_format));
        stored.or_else(|| {
            n.subgraphs.iter().find_map(|s| {
                seen.insert(Arc::as_ptr(&s.graph))
                    .then(|| prepared_output(&s.graph, registry, seen))
                    .flatten()
            })
        })
    })
}

/// Verifies and infers every node. Raises the first failure; with
/// `collect_errors=True` returns every failure instead (empty when all passed).
#[pyfunction]
#[pyo3(signature = (graph, collect_errors = false, fold_limit = None))]
pub fn infer(
    py: Python<'_>,
    graph: &mut PyGraph,
    collect_errors: bool,
    fold_limit: Option<usize>,
) -> PyResult<Vec<Py<PyAny>>> {
    let registry = global_registry();
    let options = InferOptions {
        collect_errors,
        fold_limit: fold_limit.unwrap_or(DEFAULT_FOLD_LIMIT),
    };
    graph.usable(py)?;
    if let Some((node, output, format)) =
        prepared_output(&graph.graph, &registry, &mut HashSet::new())
    {
        return Err(exception(
            device_error(py),
            format!(
                "graph '{}' is prepared for a device (node '{node}' output {output} is stored \
                 as {}); inferring it again would drop the storage formats prepare chose: infer \
                 before prepare, or load the model again",
                graph.graph.name,
                format.name()
            ),
        ));
    }
    let during = "the inference engine";
    let g = &mut graph.graph;
    ensure_room(py, "infer", g.len(), bytes_per_node::INFER)?;
    // Op functions' panics are caught per node by the engine (Stage::Internal);
    // this guard turns any other panic into an InternalError as well.
    let result = if uses_user_ops(g, &registry, &mut HashSet::new()) {
        // Python callbacks need the GIL; holding it avoids re-acquiring per node.
        guard_panics(py, during, || infer_graph(g, &registry, options))
    } else {
        guard_panics_detached(py, during, || infer_graph(g, &registry, options))
    };
    let failures = match result {
        Ok(Ok(())) => return Ok(Vec::new()),
        Ok(Err(failures)) => failures,
        Err(internal) => {
            graph.poison(py, &internal);
            return Err(internal);
        }
    };
    if let Some(interrupt) = interruption(py, &failures) {
        return Err(interrupt);
    }
    // opgraph's own bug is never one node failure among others: the graph
    // may be half inferred, so it is poisoned and the bug raised.
    if let Some(bug) = failures.iter().position(is_internal) {
        let internal = failures
            .into_iter()
            .nth(bug)
            .map(|f| failure_to_py(py, f))
            .unwrap_or_else(|| PyRuntimeError::new_err("unreachable"));
        graph.poison(py, &internal);
        return Err(internal);
    }
    if collect_errors {
        Ok(failures
            .into_iter()
            .map(|f| failure_to_py(py, f).into_value(py).into_any())
            .collect())
    } else {
        Err(failures
            .into_iter()
            .next()
            .map(|f| failure_to_py(py, f))
            .unwrap_or_else(|| PyRuntimeError::new_err("inference failed without an error")))
    }
}

/// `(name, GE number, bits or None)` for every DataType.
#[pyfunction]
pub fn data_type_table() -> Vec<(String, i64, Option<u32>)> {
    DataType::ALL
        .iter()
        .map(|d| (d.name().to_owned(), d.ge_value(), d.bits()))
        .collect()
}

/// `(name, GE number)` for every Format.
#[pyfunction]
pub fn format_table() -> Vec<(String, i64)> {
    Format::ALL
        .iter()
        .map(|f| (f.name().to_owned(), f.ge_value()))
        .collect()
}
