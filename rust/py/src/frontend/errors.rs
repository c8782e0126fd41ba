//! Frontend errors as `opgraph.errors.ParseError` / `RegistrationError`:
//! the node and origin op type, the scope pass, or every unsupported op
//! type as attributes, and a user plugin's or pass's own exception as
//! `__cause__`.

use crate::errors::{exception, memory_limit_error, new_error, parse_error, registration_error};
use opgraph_core::frontend::plugin::PluginRegistrationError;
use opgraph_core::frontend::{FrontendError, PluginError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The ParseError for a failed load or scope-pass run.
pub fn frontend_err(py: Python<'_>, e: FrontendError) -> PyErr {
    build(py, e).unwrap_or_else(|err| err)
}

fn build(py: Python<'_>, e: FrontendError) -> PyResult<PyErr> {
    if let FrontendError::Memory(_) = e {
        return Ok(exception(memory_limit_error(py), e.to_string()));
    }
    let kwargs = PyDict::new(py);
    let message = e.to_string();
    let source = match e {
        FrontendError::Unsupported(ops) => {
            let ops: Vec<(String, usize, String)> = ops
                .into_iter()
                .map(|op| (op.op_type, op.count, op.example_node))
                .collect();
            kwargs.set_item("unsupported", ops)?;
            None
        }
        FrontendError::Plugin {
            node,
            origin_op_type,
            error,
        } => {
            kwargs.set_item("node", node)?;
            kwargs.set_item("origin_op_type", origin_op_type)?;
            error.source
        }
        FrontendError::ScopePass { pass, error } => {
            kwargs.set_item("scope_pass", pass)?;
            error.source
        }
        FrontendError::Decode(_) | FrontendError::Graph(_) | FrontendError::Memory(_) => None,
    };
    let err = new_error(parse_error(py)?, message, Some(&kwargs));
    chain(py, &err, source);
    Ok(err)
}

/// A Python exception carried as a core error's source becomes `__cause__`.
fn chain(py: Python<'_>, err: &PyErr, source: Option<Box<dyn std::error::Error + Send + Sync>>) {
    if let Some(source) = source {
        if let Ok(cause) = source.downcast::<PyErr>() {
            err.set_cause(py, Some(*cause));
        }
    }
}

/// A plugin helper (auto_mapping) rejecting its op, raised inside the plugin.
pub fn plugin_err(py: Python<'_>, e: PluginError) -> PyErr {
    let err = exception(parse_error(py), e.message);
    chain(py, &err, e.source);
    err
}

pub fn registration_err(py: Python<'_>, e: &PluginRegistrationError) -> PyErr {
    exception(registration_error(py), e.to_string())
}
