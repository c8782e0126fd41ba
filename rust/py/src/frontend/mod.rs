//! The frontend bindings: framework ops and the IR operator a parser plugin
//! fills, Python callables as parser plugins, `auto_mapping`,
//! `load_tensorflow`, `load_caffe` and `load_onnx`.

mod callbacks;
pub(crate) mod errors;
pub(crate) mod framework_op;
mod load;
mod operator;
mod params;
mod register;
mod typed_attrs;

use pyo3::prelude::*;

/// Adds the frontend classes and functions to `opgraph._core`.
pub fn add_to_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<framework_op::PyFrameworkOp>()?;
    m.add_class::<operator::PyOperator>()?;
    m.add_class::<params::PyEnumValue>()?;
    m.add_function(wrap_pyfunction!(register::register_parser_plugin, m)?)?;
    m.add_function(wrap_pyfunction!(register::parser_plugins, m)?)?;
    m.add_function(wrap_pyfunction!(register::auto_mapping, m)?)?;
    m.add_function(wrap_pyfunction!(register::auto_mapping_dynamic, m)?)?;
    m.add_function(wrap_pyfunction!(load::load_tensorflow, m)?)?;
    m.add_function(wrap_pyfunction!(load::load_caffe, m)?)?;
    m.add_function(wrap_pyfunction!(load::load_onnx, m)?)?;
    Ok(())
}
