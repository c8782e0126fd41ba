//! Core errors as the typed exceptions of `opgraph.errors`, with the node's
//! context as attributes and a user's original exception as `__cause__`.

use opgraph_core::builder::BuildError;
use opgraph_core::graph::GraphError;
use opgraph_core::infer::{Abort, InferFailure, NodeError, Stage};
use opgraph_core::internal::{catch_internal, InternalError};
use opgraph_core::message::capped_text;
use opgraph_core::op::RegistrationError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};

/// The exception classes, imported once from `opgraph.errors`.
macro_rules! error_classes {
    ($($fn_name:ident => $class:literal),* $(,)?) => {
        $(
            pub fn $fn_name(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
                static CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
                CLASS.import(py, "opgraph.errors", $class)
            }
        )*
    };
}

error_classes! {
    graph_error => "GraphError",
    cycle_error => "CycleError",
    registration_error => "RegistrationError",
    verify_error => "VerifyError",
    unknown_op_type_error => "UnknownOpTypeError",
    infer_shape_error => "InferShapeError",
    invalid_shape_error => "InvalidShapeError",
    infer_dtype_error => "InferDataTypeError",
    context_error => "ContextError",
    parse_error => "ParseError",
    device_error => "DeviceError",
    memory_plan_error => "MemoryPlanError",
    internal_error => "InternalError",
    shape_argument_error => "ShapeArgumentError",
    shape_type_error => "ShapeTypeError",
    memory_limit_error => "MemoryLimitError",
    param_shadowed_warning => "ParamShadowedWarning",
}

/// An exception of `class` with message `message` (capped, whatever the
/// model: see `opgraph_core::message`) and keyword attributes.
pub fn new_error(
    class: &Bound<'_, PyType>,
    message: impl Into<String>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyErr {
    match class.call((capped_text(message.into()),), kwargs) {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// An exception of `class` (one of the getters above; a failed import is
/// returned as it is) carrying only `message`.
pub fn exception(class: PyResult<&Bound<'_, PyType>>, message: impl Into<String>) -> PyErr {
    match class {
        Ok(class) => new_error(class, message, None),
        Err(err) => err,
    }
}

/// A ContextError: a context, operator or fusion result used wrongly.
pub fn context_err(py: Python<'_>, message: impl Into<String>) -> PyErr {
    exception(context_error(py), message)
}

pub fn graph_err(py: Python<'_>, e: &GraphError) -> PyErr {
    exception(graph_error(py), e.to_string())
}

pub fn build_err(py: Python<'_>, e: &BuildError) -> PyErr {
    let class = match e {
        BuildError::UnknownOp { .. } => unknown_op_type_error(py),
        _ => graph_error(py),
    };
    exception(class, e.to_string())
}

pub fn registration_err(py: Python<'_>, e: &RegistrationError) -> PyErr {
    exception(registration_error(py), e.to_string())
}

/// The name a user's function is reported by (its `__qualname__`).
pub fn callable_name(func: &Bound<'_, PyAny>) -> String {
    func.getattr("__qualname__")
        .and_then(|n| n.extract::<String>())
        .unwrap_or_else(|_| "the Python function".into())
}

/// `parse raised ValueError: bad k` for exception `e` from `func`.
pub fn raised_message(func: &Bound<'_, PyAny>, e: &PyErr) -> String {
    raised_by(func.py(), &callable_name(func), e)
}

/// `{who} raised ValueError: bad k` for exception `e`.
pub fn raised_by(py: Python<'_>, who: &str, e: &PyErr) -> String {
    let kind = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an exception".into());
    format!("{who} raised {kind}: {}", e.value(py))
}

/// The exception for one inference failure.
pub fn failure_to_py(py: Python<'_>, failure: InferFailure) -> PyErr {
    let result = match failure {
        InferFailure::Node(e) => node_error_to_py(py, e),
        InferFailure::Cycle { path, error } => (|| {
            let kwargs = PyDict::new(py);
            kwargs.set_item("nodes", &error.nodes)?;
            kwargs.set_item("path", path.join("/"))?;
            let message = InferFailure::Cycle { path, error }.to_string();
            Ok(new_error(cycle_error(py)?, message, Some(&kwargs)))
        })(),
    };
    result.unwrap_or_else(|e| e)
}

fn node_error_to_py(py: Python<'_>, e: NodeError) -> PyResult<PyErr> {
    let class = match e.stage {
        Stage::UnknownOp => unknown_op_type_error(py)?,
        Stage::Prototype | Stage::Verify => verify_error(py)?,
        Stage::InferDtype => infer_dtype_error(py)?,
        // A rule of opgraph's own rejecting the node's inputs or attributes;
        // a Python function's exception (a source) stays an InferShapeError.
        Stage::InferShape if e.source.is_none() => invalid_shape_error(py)?,
        Stage::InferShape | Stage::Subgraph => infer_shape_error(py)?,
        Stage::Internal => internal_error(py)?,
    };
    let kwargs = PyDict::new(py);
    kwargs.set_item("node", e.qualified_node())?;
    kwargs.set_item("op_type", &e.op_type)?;
    kwargs.set_item("inputs", &e.inputs)?;
    if e.stage == Stage::Internal {
        let bug = e
            .source
            .as_ref()
            .and_then(|s| s.downcast_ref::<InternalError>());
        kwargs.set_item("location", bug.and_then(|b| b.location.as_deref()))?;
    }
    let message = e.to_string();
    let err = new_error(class, message, Some(&kwargs));
    if let Some(source) = e.source {
        if let Ok(cause) = source.downcast::<PyErr>() {
            err.set_cause(py, Some(*cause));
        }
    }
    Ok(err)
}

/// The `InternalError` for a caught panic (opgraph's bug) during `during`
/// (`"the TensorFlow frontend loading 'm.pb'"`, `"the memory planner"` ...).
pub fn internal_err(py: Python<'_>, bug: &InternalError, during: &str) -> PyErr {
    let result = (|| {
        let kwargs = PyDict::new(py);
        kwargs.set_item("location", &bug.location)?;
        Ok(new_error(
            internal_error(py)?,
            format!("{bug} (in {during})"),
            Some(&kwargs),
        ))
    })();
    result.unwrap_or_else(|e| e)
}

/// Runs `f` with the GIL held, a panic becoming an `InternalError`. Every
/// binding runs core code through this or [`guard_panics_detached`], so no
/// panic reaches Python as anything but an `InternalError`.
pub fn guard_panics<T>(py: Python<'_>, during: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_internal(f).map_err(|bug| internal_err(py, &bug, during))
}

/// [`guard_panics`] with the GIL released (for passes that never call Python).
pub fn guard_panics_detached<T: Send>(
    py: Python<'_>,
    during: &str,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    py.detach(|| catch_internal(f))
        .map_err(|bug| internal_err(py, &bug, during))
}

/// A user function's `KeyboardInterrupt` or `SystemExit` (a BaseException
/// that is no Exception, which stopped the engine as an [`Abort`]) among
/// `failures`: it is raised as it is, not kept as one node's failure.
pub fn interruption(py: Python<'_>, failures: &[InferFailure]) -> Option<PyErr> {
    failures.iter().find_map(|failure| {
        let InferFailure::Node(e) = failure else {
            return None;
        };
        let abort = e.source.as_ref()?.downcast_ref::<Abort>()?;
        Some(abort.0.downcast_ref::<PyErr>()?.clone_ref(py))
    })
}

/// True when `failure` is opgraph's own bug rather than the model's fault.
pub fn is_internal(failure: &InferFailure) -> bool {
    matches!(failure, InferFailure::Node(e) if e.stage == Stage::Internal)
}
