//! What a Python pass hands back: `ScopesResult` (its choices) and
//! `FusionScopesResult` with `InnerNodeInfo` (how each choice is fused).
//! A `FusionScopesResult` is only valid inside `generate_fusion_result`.

use super::views::{PyScope, PyScopeNode};
use crate::convert::{attr_from_py, attrs_to_py, type_name};
use crate::errors::context_err;
use opgraph_core::frontend::scope::{FusionScopesResult, InnerNode, ScopesResult};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// One choice of `last_match_scopes_and_ops`: scopes and single ops to fuse.
#[pyclass(module = "opgraph._core", name = "ScopesResult")]
pub struct PyScopesResult {
    pub inner: ScopesResult,
}

/// How one choice is fused: name, type, index maps, inner nodes.
#[pyclass(module = "opgraph._core", name = "FusionScopesResult")]
pub struct PyFusionScopesResult {
    inner: FusionScopesResult,
    live: bool,
}

/// One node of a many-to-many result (GE's `InnerNodeInfo`).
#[pyclass(module = "opgraph._core", name = "InnerNodeInfo", frozen)]
pub struct PyInnerNodeInfo {
    result: Py<PyFusionScopesResult>,
    index: usize,
}

#[pymethods]
impl PyScopesResult {
    #[new]
    fn new() -> Self {
        PyScopesResult {
            inner: ScopesResult::default(),
        }
    }

    /// The scopes to fuse (replacing earlier ones).
    fn set_scopes(&mut self, scopes: Vec<PyRef<'_, PyScope>>) {
        let names = scopes
            .iter()
            .map(|s| s.graph.tree().name(s.id).to_owned())
            .collect();
        self.inner.set_scopes(names);
    }

    /// Single ops to fuse, as ScopeNodes or names (replacing earlier ones).
    fn set_nodes(&mut self, nodes: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let mut names = Vec::with_capacity(nodes.len());
        for node in &nodes {
            if let Ok(name) = node.cast::<PyString>() {
                names.push(name.to_str()?.to_owned());
            } else if node.is_instance_of::<PyScopeNode>() {
                names.push(node.getattr("name")?.extract()?);
            } else {
                return Err(PyTypeError::new_err(format!(
                    "set_nodes takes ScopeNodes or op names, got {}",
                    type_name(node)
                )));
            }
        }
        self.inner.set_nodes(names);
        Ok(())
    }

    /// The chosen scopes' full names.
    #[getter]
    fn scopes(&self) -> Vec<String> {
        self.inner.scopes.clone()
    }

    /// The chosen ops' names.
    #[getter]
    fn nodes(&self) -> Vec<String> {
        self.inner.nodes.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<ScopesResult scopes={:?} nodes={:?}>",
            self.inner.scopes, self.inner.nodes
        )
    }
}

impl PyFusionScopesResult {
    pub fn live(inner: FusionScopesResult) -> Self {
        PyFusionScopesResult { inner, live: true }
    }

    /// Ends the result's validity and hands its content back.
    pub fn finish(&mut self) -> FusionScopesResult {
        self.live = false;
        std::mem::take(&mut self.inner)
    }

    fn check(&self, py: Python<'_>) -> PyResult<()> {
        if self.live {
            return Ok(());
        }
        Err(context_err(
            py,
            "a FusionScopesResult can only be used inside generate_fusion_result",
        ))
    }

    fn inner_mut(&mut self, py: Python<'_>) -> PyResult<&mut FusionScopesResult> {
        self.check(py)?;
        Ok(&mut self.inner)
    }
}

#[pymethods]
impl PyFusionScopesResult {
    /// Sets the fused op's name.
    fn set_name(&mut self, py: Python<'_>, name: String) -> PyResult<()> {
        self.inner_mut(py)?.set_name(name);
        Ok(())
    }

    /// Sets the fused op's type (``SCOPE_TO_MULTI_NODES`` for a many-to-many result).
    fn set_type(&mut self, py: Python<'_>, op_type: String) -> PyResult<()> {
        self.inner_mut(py)?.set_type(op_type);
        Ok(())
    }

    /// Sets a free-text description of the fusion.
    fn set_description(&mut self, py: Python<'_>, description: String) -> PyResult<()> {
        self.inner_mut(py)?.set_description(description);
        Ok(())
    }

    /// Fused op `inner_op_name`'s data input k becomes fused input
    /// `index_map[k]` (FUSION_DISABLE_INDEX or -1: not an input).
    fn insert_inputs(
        &mut self,
        py: Python<'_>,
        inner_op_name: String,
        index_map: Vec<i32>,
    ) -> PyResult<()> {
        self.inner_mut(py)?.insert_inputs(inner_op_name, index_map);
        Ok(())
    }

    /// Fused op `inner_op_name`'s output k becomes fused output
    /// `index_map[k]` (FUSION_DISABLE_INDEX or -1: not an output).
    fn insert_outputs(
        &mut self,
        py: Python<'_>,
        inner_op_name: String,
        index_map: Vec<i32>,
    ) -> PyResult<()> {
        self.inner_mut(py)?.insert_outputs(inner_op_name, index_map);
        Ok(())
    }

    /// Adds a node of a many-to-many result (type ScopeToMultiNodes).
    fn add_inner_node(
        slf: &Bound<'_, Self>,
        name: String,
        op_type: String,
    ) -> PyResult<PyInnerNodeInfo> {
        let py = slf.py();
        let mut this = slf.borrow_mut();
        let result = this.inner_mut(py)?;
        result.add_inner_node(name, op_type);
        let index = result.inner_nodes.len() - 1;
        Ok(PyInnerNodeInfo {
            result: slf.clone().unbind(),
            index,
        })
    }

    /// The fused op's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// The fused op's type.
    #[getter]
    fn r#type(&self) -> String {
        self.inner.op_type.clone()
    }

    /// The description set by :meth:`set_description`.
    #[getter]
    fn description(&self) -> String {
        self.inner.description.clone()
    }

    /// The full names of the scopes being fused.
    #[getter]
    fn scopes(&self) -> Vec<String> {
        self.inner.scopes.clone()
    }

    /// The single ops being fused (from ScopesResult.set_nodes).
    #[getter]
    fn nodes(&self) -> Vec<String> {
        self.inner.nodes.clone()
    }

    /// The input index maps, by inner op name.
    #[getter]
    fn inputs(&self) -> Vec<(String, Vec<i32>)> {
        self.inner.input_maps().to_vec()
    }

    /// The output index maps, by inner op name.
    #[getter]
    fn outputs(&self) -> Vec<(String, Vec<i32>)> {
        self.inner.output_maps().to_vec()
    }

    fn __repr__(&self) -> String {
        format!(
            "<FusionScopesResult {:?} ({:?})>",
            self.inner.name, self.inner.op_type
        )
    }
}

impl PyInnerNodeInfo {
    fn with_node<T>(&self, py: Python<'_>, f: impl FnOnce(&mut InnerNode) -> T) -> PyResult<T> {
        let mut result = self.result.bind(py).try_borrow_mut()?;
        let inner = result.inner_mut(py)?;
        // `index` came from add_inner_node on this very result.
        Ok(f(&mut inner.inner_nodes[self.index]))
    }

    fn read<T>(&self, py: Python<'_>, f: impl FnOnce(&InnerNode) -> T) -> PyResult<T> {
        let result = self.result.bind(py).try_borrow()?;
        result.check(py)?;
        Ok(f(&result.inner.inner_nodes[self.index]))
    }
}

#[pymethods]
impl PyInnerNodeInfo {
    /// Adds a data input: `(INPUT_FROM_FUSION_SCOPE, fused input)` or
    /// `(inner node name, its output)`; index -1 makes a control edge.
    fn insert_input<'py>(
        slf: &Bound<'py, Self>,
        node: String,
        index: i32,
    ) -> PyResult<Bound<'py, Self>> {
        slf.get().with_node(slf.py(), |n| {
            n.insert_input(node, index);
        })?;
        Ok(slf.clone())
    }

    /// Declares the node's next output: `(OUTPUT_TO_FUSION_SCOPE, fused
    /// output)` or `(inner node name, its input)`.
    fn insert_output<'py>(
        slf: &Bound<'py, Self>,
        node: String,
        index: i32,
    ) -> PyResult<Bound<'py, Self>> {
        slf.get().with_node(slf.py(), |n| {
            n.insert_output(node, index);
        })?;
        Ok(slf.clone())
    }

    /// Sets an attribute of the node's framework op.
    fn set_attr<'py>(
        slf: &Bound<'py, Self>,
        name: String,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let value = attr_from_py(value)?;
        slf.get().with_node(slf.py(), |n| {
            n.set_attr(name, value);
        })?;
        Ok(slf.clone())
    }

    /// The inner node's name.
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        self.read(py, |n| n.name.clone())
    }

    /// The inner node's framework op type.
    #[getter]
    fn r#type(&self, py: Python<'_>) -> PyResult<String> {
        self.read(py, |n| n.op_type.clone())
    }

    /// Its data inputs as added by :meth:`insert_input`.
    #[getter]
    fn inputs(&self, py: Python<'_>) -> PyResult<Vec<(String, i32)>> {
        self.read(py, |n| n.inputs.clone())
    }

    /// Its outputs as declared by :meth:`insert_output`.
    #[getter]
    fn outputs(&self, py: Python<'_>) -> PyResult<Vec<(String, i32)>> {
        self.read(py, |n| n.outputs.clone())
    }

    /// The attributes set by :meth:`set_attr` (a fresh dict).
    #[getter]
    fn attrs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        attrs_to_py(py, &self.read(py, |n| n.attrs.clone())?)
    }
}
