//! `infer(graph)` and the enumeration tables the Python enums are checked against.

use crate::errors::failure_to_py;
use crate::graph::PyGraph;
use opgraph_core::graph::Graph;
use opgraph_core::infer::{infer_graph, InferOptions, DEFAULT_FOLD_LIMIT};
use opgraph_core::op::{global_registry, OpOrigin, OpRegistry};
use opgraph_core::types::{DataType, Format};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// True when some node (bodies included) uses an op registered from Python.
/// A body shared by several call sites is looked at once (`seen`).
fn uses_user_ops(graph: &Graph, registry: &OpRegistry, seen: &mut HashSet<*const Graph>) -> bool {
    graph.nodes().iter().any(|n| {
        registry
            .get(&n.op_type)
            .is_some_and(|s| s.origin == OpOrigin::User)
            || n.subgraphs.iter().any(|s| {
                seen.insert(Arc::as_ptr(&s.graph)) && uses_user_ops(&s.graph, registry, seen)
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
    let g = &mut graph.graph;
    // Op functions' panics are caught per node by the engine; this guard keeps
    // any other internal panic from crossing into Python as well.
    let run = |g: &mut Graph| catch_unwind(AssertUnwindSafe(|| infer_graph(g, &registry, options)));
    let result = if uses_user_ops(g, &registry, &mut HashSet::new()) {
        // Python callbacks need the GIL; holding it avoids re-acquiring per node.
        run(g)
    } else {
        py.detach(|| run(g))
    };
    let result = result.map_err(|_| {
        PyRuntimeError::new_err("internal error in the opgraph engine (please report it); the graph may be partially inferred")
    })?;
    match result {
        Ok(()) => Ok(Vec::new()),
        Err(failures) if collect_errors => Ok(failures
            .into_iter()
            .map(|f| failure_to_py(py, f).into_value(py).into_any())
            .collect()),
        Err(failures) => Err(failures
            .into_iter()
            .next()
            .map(|f| failure_to_py(py, f))
            .unwrap_or_else(|| PyRuntimeError::new_err("inference failed without an error"))),
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
