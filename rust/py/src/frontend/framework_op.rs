//! `FrameworkOp`: a read-only copy of one framework node (GE's src
//! operator) handed to a parser plugin. Attributes are already IR values, so
//! they read like node attributes (tensors as numpy arrays).

use super::params;
use super::typed_attrs::{self as typed, Fallback};
use crate::convert::{attr_to_py, attrs_from_py, attrs_to_py};
use crate::errors::context_err;
use opgraph_core::frontend::tensorflow::{self, NodeInput};
use opgraph_core::frontend::{FrameworkInput, FrameworkOp};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One framework node, as a parser plugin receives it. A copy: keeping it
/// after the plugin returns is safe.
///
/// ``FrameworkOp(name, op_type, inputs=[], attrs=None, *, control_inputs=[],
/// fused_ops=[])`` builds one by hand to unit-test a plugin function; inputs
/// are ``node``, ``node:index`` or ``node:arg:index`` names:
///
/// >>> from opgraph.tensorflow import FrameworkOp
/// >>> op = FrameworkOp("add", "AddV2", ["x", "y:1"], {"T": 1})
/// >>> op.inputs, op.get_attr("T")
/// (['x:0', 'y:1'], 1)
#[pyclass(module = "opgraph._core", name = "FrameworkOp", frozen)]
pub struct PyFrameworkOp {
    pub op: FrameworkOp,
}

/// An input in TensorFlow's spelling: `node:i`, or `node:arg:i` inside a
/// function body.
pub fn input_name(input: &FrameworkInput) -> String {
    match &input.output_arg {
        Some(arg) => format!("{}:{arg}:{}", input.node, input.index),
        None => format!("{}:{}", input.node, input.index),
    }
}

/// Parses a data input, `node`, `node:i` or `node:arg:i`, as the decoder
/// reads TensorFlow's.
pub fn parse_input(text: &str) -> PyResult<FrameworkInput> {
    match tensorflow::parse_input(text, true) {
        Ok(NodeInput::Data(input)) => Ok(input),
        _ => Err(PyValueError::new_err(format!(
            "'{text}' is not an input name; expected 'node', 'node:index' or 'node:arg:index'"
        ))),
    }
}

#[pymethods]
impl PyFrameworkOp {
    /// A framework op built by hand, to unit-test a plugin function.
    #[new]
    #[pyo3(signature = (name, op_type, inputs = Vec::new(), attrs = None, *, control_inputs = Vec::new(), fused_ops = Vec::new()))]
    fn new(
        name: String,
        op_type: String,
        inputs: Vec<String>,
        attrs: Option<&Bound<'_, PyDict>>,
        control_inputs: Vec<String>,
        fused_ops: Vec<PyRef<'_, PyFrameworkOp>>,
    ) -> PyResult<PyFrameworkOp> {
        Ok(PyFrameworkOp {
            op: FrameworkOp {
                name,
                op_type: op_type.into(),
                inputs: inputs
                    .iter()
                    .map(|s| parse_input(s))
                    .collect::<PyResult<_>>()?,
                control_inputs: control_inputs.into(),
                attrs: attrs.map(attrs_from_py).transpose()?.unwrap_or_default(),
                fused_ops: fused_ops.iter().map(|op| op.op.clone()).collect(),
                params: Default::default(),
            },
        })
    }

    /// The framework node's name.
    #[getter]
    fn name(&self) -> &str {
        &self.op.name
    }

    /// The framework's op type (the origin op type, e.g. `TopKV2`).
    #[getter]
    fn op_type(&self) -> &str {
        &self.op.op_type
    }

    /// Data inputs in order, as `node:index` (`node:arg:index` in a body).
    #[getter]
    fn inputs(&self) -> Vec<String> {
        self.op.inputs.iter().map(input_name).collect()
    }

    /// Producers of the ordering-only (`^name`) inputs.
    #[getter]
    fn control_inputs(&self) -> Vec<String> {
        self.op.control_inputs.to_vec()
    }

    /// Every attribute as IR values (a fresh dict).
    #[getter]
    fn attrs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        attrs_to_py(py, &self.op.attrs)
    }

    /// Whether the framework node has attribute ``name``.
    fn has_attr(&self, name: &str) -> bool {
        self.op.attrs.get(name).is_some()
    }

    /// Attribute `name`; ContextError when the node does not set it.
    fn get_attr<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        match self.op.attrs.get(name) {
            Some(value) => attr_to_py(py, value),
            None => Err(context_err(
                py,
                format!(
                    "framework op '{}' ({}) has no attribute '{name}'",
                    self.op.name, self.op.op_type
                ),
            )),
        }
    }

    /// Attribute `name` as an int;
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_int<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::INT)
    }

    /// Attribute `name` as a float (an int attribute converts);
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_float<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::FLOAT)
    }

    /// Attribute `name` as a bool;
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_bool<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::BOOL)
    }

    /// Attribute `name` as a str;
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_str<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::STR)
    }

    /// Attribute `name` as a list of ints;
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_ints<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::INTS)
    }

    /// Attribute `name` as a list of floats;
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_floats<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::FLOATS)
    }

    /// Attribute `name` as a list of strs;
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_strs<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::STRS)
    }

    /// Attribute `name` as a shape (list of ints, -1 unknown dim, [-2] unknown rank);
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_shape<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::SHAPE)
    }

    /// Attribute `name` as a DataType;
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_dtype<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::DTYPE)
    }

    /// Attribute `name` as a tensor (numpy array);
    /// `default` when absent (ParseError when
    /// absent without a default, or of another type).
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn get_tensor<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        typed::get(py, &self.op, name, default, &typed::TENSOR)
    }

    /// Parameter message `name` (e.g. `prior_box_param`) with its structure.
    #[pyo3(signature = (name, default = Fallback::Missing))]
    fn param<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        params::param(py, &self.op, name, default)
    }

    /// The parameter value at a dotted path (`a_param.b.c`, `param[0].x`).
    #[pyo3(signature = (path, default = Fallback::Missing))]
    fn param_path<'py>(
        &self,
        py: Python<'py>,
        path: &str,
        default: Fallback,
    ) -> PyResult<Bound<'py, PyAny>> {
        params::param_path(py, &self.op, path, default)
    }

    /// Whether parameter message `name` is set.
    fn has_param(&self, name: &str) -> bool {
        self.op.params.iter().any(|(n, _)| n == name)
    }

    /// The names of the parameter messages set, in field-number order.
    #[getter]
    fn param_names(&self) -> Vec<String> {
        self.op.params.iter().map(|(n, _)| n.clone()).collect()
    }

    /// The ops a scope-fusion pass folded into this one, in graph order.
    #[getter]
    fn fused_ops(&self) -> Vec<PyFrameworkOp> {
        self.op
            .fused_ops
            .iter()
            .map(|op| PyFrameworkOp { op: op.clone() })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "FrameworkOp({:?}, {}, inputs={:?})",
            self.op.name,
            self.op.op_type,
            self.inputs()
        )
    }
}
