//! `Operator`: the IR operator a parser plugin fills (GE's dst
//! `ge::Operator`). During a plugin call it owns the converter's draft, which
//! is moved back when the call returns; the object is then expired, so a
//! plugin that keeps it gets an error instead of edits that go nowhere.

use crate::convert::{
    attr_from_py, attr_to_py, attrs_to_py, dtype_from_py, format_from_py, format_to_py,
    tensor_from_py,
};
use crate::errors::context_err;
use opgraph_core::frontend::OpDraft;
use opgraph_core::op::global_registry;
use opgraph_core::types::AttrValue;
use pyo3::prelude::*;
use pyo3::types::PyDict;

enum State {
    /// Plugins (parse_params, fusion_parse_params) fill it.
    Writable(OpDraft),
    /// parse_op_to_graph reads the filled op.
    ReadOnly(OpDraft),
    /// Its plugin call returned; the draft went back to the converter.
    Expired,
}

/// The IR operator a parser plugin fills (GE's ``ge::Operator``): its
/// attributes, dynamic port sizes and formats. It is valid only during the
/// plugin call it was passed to; using it afterwards raises
/// :class:`~opgraph.ContextError`. ``Operator(name, op_type)`` builds one by
/// hand to unit-test a plugin function:
///
/// >>> from opgraph._core import Operator
/// >>> op = Operator("conv1", "Conv2D")
/// >>> op.set_attr("strides", [1, 1, 1, 1])
/// >>> op.get_attr("strides")
/// [1, 1, 1, 1]
#[pyclass(module = "opgraph._core", name = "Operator")]
pub struct PyOperator {
    state: State,
}

impl PyOperator {
    pub fn writable(draft: OpDraft) -> PyOperator {
        PyOperator {
            state: State::Writable(draft),
        }
    }

    pub fn read_only(draft: OpDraft) -> PyOperator {
        PyOperator {
            state: State::ReadOnly(draft),
        }
    }

    /// Ends the plugin call: the draft as the plugin left it.
    pub fn take(&mut self) -> Option<OpDraft> {
        match std::mem::replace(&mut self.state, State::Expired) {
            State::Writable(draft) | State::ReadOnly(draft) => Some(draft),
            State::Expired => None,
        }
    }

    pub fn draft(&self, py: Python<'_>) -> PyResult<&OpDraft> {
        match &self.state {
            State::Writable(draft) | State::ReadOnly(draft) => Ok(draft),
            State::Expired => Err(expired(py)),
        }
    }

    pub fn draft_mut(&mut self, py: Python<'_>) -> PyResult<&mut OpDraft> {
        match &mut self.state {
            State::Writable(draft) => Ok(draft),
            State::ReadOnly(draft) => Err(context_err(
                py,
                format!(
                    "operator '{}' is read-only here: parse_op_to_graph builds a body from the parsed op and cannot change it",
                    draft.name
                ),
            )),
            State::Expired => Err(expired(py)),
        }
    }
}

impl PyOperator {
    /// Sets attribute `name` when the op's prototype declares it (or takes
    /// extra attributes, or the op type is not registered: the converter
    /// reports that); a misspelt name is an error, not a silent extra.
    fn set_checked(&mut self, py: Python<'_>, name: String, value: AttrValue) -> PyResult<()> {
        let draft = self.draft_mut(py)?;
        if let Some(schema) = global_registry().get(&draft.op_type) {
            if let Some(why) = schema.undeclared_attr(&name) {
                return Err(context_err(
                    py,
                    format!("operator '{}' cannot set attribute: {why}", draft.name),
                ));
            }
        }
        draft.set_attr(name, value);
        Ok(())
    }
}

fn expired(py: Python<'_>) -> PyErr {
    context_err(
        py,
        "this Operator is no longer valid: a plugin can only use it during the call that received it",
    )
}

#[pymethods]
impl PyOperator {
    /// An operator built by hand, to unit-test a plugin function.
    #[new]
    fn new(name: String, op_type: String) -> PyOperator {
        PyOperator::writable(OpDraft::new(name, op_type))
    }

    /// The IR node's name.
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.draft(py)?.name.clone())
    }

    /// The IR op type the plugin produces.
    #[getter]
    fn op_type(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.draft(py)?.op_type.clone())
    }

    /// Every attribute set so far (a fresh dict).
    #[getter]
    fn attrs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        attrs_to_py(py, &self.draft(py)?.attrs)
    }

    /// Whether attribute ``name`` has been set.
    fn has_attr(&self, py: Python<'_>, name: &str) -> PyResult<bool> {
        Ok(self.draft(py)?.attrs.get(name).is_some())
    }

    /// Attribute `name`; ContextError when it is not set.
    fn get_attr<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let draft = self.draft(py)?;
        match draft.attrs.get(name) {
            Some(value) => attr_to_py(py, value),
            None => Err(context_err(
                py,
                format!(
                    "operator '{}' ({}) has no attribute '{name}'",
                    draft.name, draft.op_type
                ),
            )),
        }
    }

    /// Sets attribute `name` (values convert as in `Graph.add_node`).
    fn set_attr(&mut self, py: Python<'_>, name: String, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let value = attr_from_py(value)?;
        self.set_checked(py, name, value)
    }

    /// Sets attribute `name` to an int. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_int(&mut self, py: Python<'_>, name: String, value: i64) -> PyResult<()> {
        self.set_checked(py, name, AttrValue::Int(value))
    }

    /// Sets attribute `name` to a float. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_float(&mut self, py: Python<'_>, name: String, value: f64) -> PyResult<()> {
        self.set_checked(py, name, AttrValue::Float(value))
    }

    /// Sets attribute `name` to a bool. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_bool(&mut self, py: Python<'_>, name: String, value: bool) -> PyResult<()> {
        self.set_checked(py, name, AttrValue::Bool(value))
    }

    /// Sets attribute `name` to a string. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_str(&mut self, py: Python<'_>, name: String, value: String) -> PyResult<()> {
        self.set_checked(py, name, AttrValue::Str(value))
    }

    /// Sets attribute `name` to a list of ints. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_ints(&mut self, py: Python<'_>, name: String, value: Vec<i64>) -> PyResult<()> {
        self.set_checked(py, name, AttrValue::ListInt(value))
    }

    /// Sets attribute `name` to a list of floats. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_floats(&mut self, py: Python<'_>, name: String, value: Vec<f64>) -> PyResult<()> {
        self.set_checked(py, name, AttrValue::ListFloat(value))
    }

    /// Sets attribute `name` to a list of bools. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_bools(&mut self, py: Python<'_>, name: String, value: Vec<bool>) -> PyResult<()> {
        self.set_checked(py, name, AttrValue::ListBool(value))
    }

    /// Sets attribute `name` to a list of strings. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_strs(&mut self, py: Python<'_>, name: String, value: Vec<String>) -> PyResult<()> {
        self.set_checked(py, name, AttrValue::ListStr(value))
    }

    /// Sets attribute `name` to a DataType. A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_dtype(
        &mut self,
        py: Python<'_>,
        name: String,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let dtype = dtype_from_py(value)?;
        self.set_checked(py, name, AttrValue::DataType(dtype))
    }

    /// Sets attribute `name` to a tensor (a numpy array). A name the op's prototype does not
    /// declare raises `ContextError` listing the declared ones (unless the
    /// prototype takes extra attributes).
    fn set_tensor(
        &mut self,
        py: Python<'_>,
        name: String,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let tensor = tensor_from_py(value)?;
        self.set_checked(py, name, AttrValue::Tensor(tensor))
    }

    /// Sizes DYNAMIC input port `port` to `count` instances.
    fn set_dynamic_input(&mut self, py: Python<'_>, port: &str, count: u32) -> PyResult<()> {
        self.draft_mut(py)?.set_dynamic_input(port, count);
        Ok(())
    }

    /// Sizes DYNAMIC output port `port` to `count` instances.
    fn set_dynamic_output(&mut self, py: Python<'_>, port: &str, count: u32) -> PyResult<()> {
        self.draft_mut(py)?.set_dynamic_output(port, count);
        Ok(())
    }

    /// Instance counts of the sized DYNAMIC input ports, by port name.
    #[getter]
    fn dynamic_inputs(&self, py: Python<'_>) -> PyResult<Vec<(String, u32)>> {
        Ok(self.draft(py)?.dynamic_inputs.clone())
    }

    /// Instance counts of the sized DYNAMIC output ports, by port name.
    #[getter]
    fn dynamic_outputs(&self, py: Python<'_>) -> PyResult<Vec<(String, u32)>> {
        Ok(self.draft(py)?.dynamic_outputs.clone())
    }

    /// Format (origin and current) of input `index`.
    fn set_input_format(
        &mut self,
        py: Python<'_>,
        index: u32,
        format: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let format = format_from_py(format)?;
        self.draft_mut(py)?.set_input_format(index, format);
        Ok(())
    }

    /// Format (origin and current) of output `index`.
    fn set_output_format(
        &mut self,
        py: Python<'_>,
        index: u32,
        format: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let format = format_from_py(format)?;
        self.draft_mut(py)?.set_output_format(index, format);
        Ok(())
    }

    /// The format input `index` gets (its own, else `data_format`'s), or None.
    fn input_format<'py>(
        &self,
        py: Python<'py>,
        index: u32,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let format = self.draft(py)?.input_format(index);
        format.map(|f| format_to_py(py, f)).transpose()
    }

    /// The format output `index` gets (its own, else `data_format`'s), or None.
    fn output_format<'py>(
        &self,
        py: Python<'py>,
        index: u32,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let format = self.draft(py)?.output_format(index);
        format.map(|f| format_to_py(py, f)).transpose()
    }

    fn __repr__(&self) -> String {
        match &self.state {
            State::Writable(d) | State::ReadOnly(d) => {
                format!(
                    "Operator({:?}, {}, <{} attrs>)",
                    d.name,
                    d.op_type,
                    d.attrs.len()
                )
            }
            State::Expired => "Operator(<expired>)".into(),
        }
    }
}
