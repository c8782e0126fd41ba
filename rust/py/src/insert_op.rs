//! ATC's `--insert_op_conf` (AIPP) file decoded by the core's text-format
//! parser; `opgraph.aipp` reads the JSON and raises its typed error.

use opgraph_core::frontend::insert_op::insert_op_config_json;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The config `text` as JSON (proto field names, default fields omitted);
/// `ValueError` with the line and column of what does not parse.
#[pyfunction]
pub fn parse_insert_op_config(py: Python<'_>, text: &str) -> PyResult<String> {
    crate::errors::guard_panics(py, "parsing an insert_op config", || {
        insert_op_config_json(text)
    })?
    .map_err(PyValueError::new_err)
}
