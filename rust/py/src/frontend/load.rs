//! `load_tensorflow`, `load_caffe` and `load_onnx`: decode → (scope passes) → plugins,
//! through one guarded runner that releases the GIL (Python plugins
//! re-attach for their own calls) and keeps any internal panic out of
//! Python.

use super::errors::frontend_err;
use crate::convert::shape_arg;
use crate::errors::{guard_panics_detached, param_shadowed_warning};
use crate::graph::PyGraph;
use opgraph_core::frontend::caffe::{self, CaffeFiles};
use opgraph_core::frontend::convert::ConvertOptions;
use opgraph_core::frontend::onnx;
use opgraph_core::frontend::plugin::{global_plugins, Framework};
use opgraph_core::frontend::scope::PassRun;
use opgraph_core::frontend::tensorflow::{self, LoadOptions};
use opgraph_core::frontend::{FrontendError, PluginRegistry};
use opgraph_core::graph::Graph;
use opgraph_core::op::{global_registry, OpRegistry};
use opgraph_core::types::Shape;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// `(name, shape)` pairs from Python, as core shapes.
fn input_shapes(given: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<Vec<(String, Shape)>> {
    given
        .into_iter()
        .map(|(name, shape)| {
            let shape = shape_arg(&shape, Some(&name))?;
            Ok((name, shape))
        })
        .collect()
}

/// Runs `load` with the registered plugins and op types, the GIL released;
/// frontend errors become ParseError, a panic an InternalError naming `path`.
fn run_loader(
    py: Python<'_>,
    framework: Framework,
    path: &Path,
    load: impl FnOnce(&PluginRegistry, &OpRegistry) -> Result<Graph, FrontendError> + Send,
) -> PyResult<PyGraph> {
    let plugins = global_plugins();
    let ops = global_registry();
    let during = format!(
        "the {} frontend loading '{}'",
        framework.name(),
        path.display()
    );
    match guard_panics_detached(py, &during, || load(&plugins, &ops))? {
        Ok(graph) => Ok(PyGraph::from_graph(graph)),
        Err(e) => Err(frontend_err(py, e)),
    }
}

/// One fused scope: the fused op's name and type and the ops it replaced.
type FusedTuple = (String, String, Vec<String>);
/// One declined scope: the op it would have been, its type, the scopes and
/// ops chosen, and why.
type DeclinedTuple = (String, String, Vec<String>, String);
/// One registered pass: name, status, fused and declined scopes.
type PassRunTuple = (String, &'static str, Vec<FusedTuple>, Vec<DeclinedTuple>);

fn pass_run_tuple(run: PassRun) -> PassRunTuple {
    (
        run.pass,
        run.status.as_str(),
        run.fused
            .into_iter()
            .map(|r| (r.name, r.op_type, r.replaced))
            .collect(),
        run.declined
            .into_iter()
            .map(|d| (d.name, d.op_type, d.scopes, d.reason))
            .collect(),
    )
}

/// Loads a frozen TensorFlow GraphDef (`.pb` or `.pbtxt`) as an uninferred
/// Graph with the registered parser plugins and op types, with what every
/// registered scope pass did.
#[pyfunction]
#[pyo3(signature = (path, input_shapes = Vec::new(), outputs = Vec::new(), enable_scope_passes = Vec::new(), disable_scope_passes = Vec::new()))]
pub fn load_tensorflow(
    py: Python<'_>,
    path: PathBuf,
    input_shapes: Vec<(String, Bound<'_, PyAny>)>,
    outputs: Vec<String>,
    enable_scope_passes: Vec<String>,
    disable_scope_passes: Vec<String>,
) -> PyResult<(PyGraph, Vec<PassRunTuple>)> {
    let options = LoadOptions {
        convert: ConvertOptions {
            input_shapes: self::input_shapes(input_shapes)?,
            outputs,
        },
        enable_scope_passes,
        disable_scope_passes,
    };
    let mut runs = Vec::new();
    let graph = run_loader(py, Framework::TensorFlow, &path, |plugins, ops| {
        let (graph, passes) = tensorflow::load_reported(&path, &options, plugins, ops)?;
        runs = passes;
        Ok(graph)
    })?;
    Ok((graph, runs.into_iter().map(pass_run_tuple).collect()))
}

/// Loads a Caffe network definition (`.prototxt`), optionally its weights
/// (`.caffemodel`) and users' `custom.proto` files, as an uninferred Graph
/// with the registered parser plugins and op types.
#[pyfunction]
#[pyo3(signature = (prototxt, weights = None, custom_protos = Vec::new(), input_shapes = Vec::new(), outputs = Vec::new()))]
pub fn load_caffe(
    py: Python<'_>,
    prototxt: PathBuf,
    weights: Option<PathBuf>,
    custom_protos: Vec<PathBuf>,
    input_shapes: Vec<(String, Bound<'_, PyAny>)>,
    outputs: Vec<String>,
) -> PyResult<PyGraph> {
    let options = ConvertOptions {
        input_shapes: self::input_shapes(input_shapes)?,
        outputs,
    };
    let files = CaffeFiles {
        prototxt,
        weights,
        custom_protos,
    };
    let mut warnings = Vec::new();
    let graph = run_loader(py, Framework::Caffe, &files.prototxt, |plugins, ops| {
        let (graph, found) = caffe::load_reported(&files, &options, plugins, ops)?;
        warnings = found;
        Ok(graph)
    })?;
    let category = param_shadowed_warning(py)?;
    for warning in warnings {
        let message = std::ffi::CString::new(warning).unwrap_or_default();
        PyErr::warn(py, category, &message, 1)?;
    }
    Ok(graph)
}

/// What `load_onnx` says besides the graph: every main-graph value's
/// tensor (`node:i`), the opsets by domain, the IR version, the producer,
/// each input's symbolic dims, and the values pruned because no output
/// needs them.
type OnnxReportTuple = (
    Vec<(String, String)>,
    Vec<(String, i64)>,
    i64,
    String,
    Vec<(String, Vec<String>)>,
    Vec<String>,
);

/// Loads an ONNX model (`.onnx`, external data beside it) as an uninferred
/// Graph with the registered parser plugins and op types. The value map
/// (and the list of values pruned because no output needs them) is left
/// empty unless `with_values` (naming thousands of values costs more than a
/// small model's whole load).
#[pyfunction]
#[pyo3(signature = (path, input_shapes = Vec::new(), outputs = Vec::new(), with_values = true))]
pub fn load_onnx(
    py: Python<'_>,
    path: PathBuf,
    input_shapes: Vec<(String, Bound<'_, PyAny>)>,
    outputs: Vec<String>,
    with_values: bool,
) -> PyResult<(PyGraph, OnnxReportTuple)> {
    let options = ConvertOptions {
        input_shapes: self::input_shapes(input_shapes)?,
        outputs,
    };
    let mut report = None;
    let graph = run_loader(py, Framework::Onnx, &path, |plugins, ops| {
        let (graph, model) = onnx::load_reported(&path, &options, plugins, ops)?;
        let (values, pruned) = if with_values {
            model.value_tensors_in(&graph)
        } else {
            (Vec::new(), Vec::new())
        };
        report = Some((
            values,
            model.opsets,
            model.ir_version,
            model.producer,
            model.symbols,
            pruned,
        ));
        Ok(graph)
    })?;
    Ok((graph, report.unwrap_or_default()))
}
