//! Pattern features and patterns (GE's `NodeOpTypeFeature`,
//! `NodeAttrFeature`, `ScopeFeature`, `ScopePattern`) as Python values.

use crate::convert::type_name;
use opgraph_core::frontend::scope::{
    NodeAttrFeature, NodeOpTypeFeature, ScopeAttrValue, ScopeFeature, ScopePattern,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

/// Ops of `op_type` in the scope (sub-scopes included): their number `n`
/// (-1 when there are none) must equal `num`, or with `step` satisfy
/// `n % step == num`.
#[pyclass(module = "opgraph._core", name = "NodeOpTypeFeature", frozen)]
#[derive(Clone)]
pub struct PyNodeOpTypeFeature {
    pub inner: NodeOpTypeFeature,
}

/// Some direct op of `op_type` in the scope has attribute `attr` equal to
/// `value` (bool, int, float or str).
#[pyclass(module = "opgraph._core", name = "NodeAttrFeature", frozen)]
#[derive(Clone)]
pub struct PyNodeAttrFeature {
    pub inner: NodeAttrFeature,
}

/// Sub-scope conditions: `num` descendants of `sub_type`, last name
/// `suffix`, a descendant whose last name contains `sub_scope_mask`.
#[pyclass(module = "opgraph._core", name = "ScopeFeature", frozen)]
#[derive(Clone)]
pub struct PyScopeFeature {
    pub inner: ScopeFeature,
}

/// A set of features a scope must all have; a matching scope gets
/// `sub_type`.
#[pyclass(module = "opgraph._core", name = "ScopePattern")]
#[derive(Clone)]
pub struct PyScopePattern {
    pub inner: ScopePattern,
}

#[pymethods]
impl PyNodeOpTypeFeature {
    #[new]
    #[pyo3(signature = (op_type, num, step = 0))]
    fn new(op_type: String, num: i32, step: i32) -> Self {
        PyNodeOpTypeFeature {
            inner: NodeOpTypeFeature::new(op_type, num, step),
        }
    }

    /// The op type counted.
    #[getter]
    fn op_type(&self) -> String {
        self.inner.op_type.clone()
    }

    /// The count required (or the remainder, with ``step``).
    #[getter]
    fn num(&self) -> i32 {
        self.inner.num
    }

    /// The modulus applied to the count (0: exact count).
    #[getter]
    fn step(&self) -> i32 {
        self.inner.step
    }

    fn __repr__(&self) -> String {
        let f = &self.inner;
        format!(
            "NodeOpTypeFeature({:?}, {}, step={})",
            f.op_type, f.num, f.step
        )
    }
}

fn attr_value(value: &Bound<'_, PyAny>) -> PyResult<ScopeAttrValue> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(ScopeAttrValue::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(ScopeAttrValue::Int(value.extract()?));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(ScopeAttrValue::Float(value.extract::<f64>()? as f32));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(ScopeAttrValue::Str(s.to_str()?.to_owned()));
    }
    Err(PyTypeError::new_err(format!(
        "a NodeAttrFeature value is a bool, int, float or str, got {}",
        type_name(value)
    )))
}

#[pymethods]
impl PyNodeAttrFeature {
    #[new]
    fn new(op_type: String, attr: String, value: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyNodeAttrFeature {
            inner: NodeAttrFeature::new(op_type, attr, attr_value(value)?),
        })
    }

    /// The op type whose attribute is checked.
    #[getter]
    fn op_type(&self) -> String {
        self.inner.op_type.clone()
    }

    /// The attribute's name.
    #[getter]
    fn attr(&self) -> String {
        self.inner.attr.clone()
    }

    /// The value the attribute must equal.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match &self.inner.value {
            ScopeAttrValue::Int(v) => v.into_pyobject(py)?.into_any(),
            ScopeAttrValue::Float(v) => f64::from(*v).into_pyobject(py)?.into_any(),
            ScopeAttrValue::Str(v) => v.into_pyobject(py)?.into_any(),
            ScopeAttrValue::Bool(v) => PyBool::new(py, *v).to_owned().into_any(),
        })
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let value = self.value(py)?.repr()?;
        Ok(format!(
            "NodeAttrFeature({:?}, {:?}, {value})",
            self.inner.op_type, self.inner.attr
        ))
    }
}

#[pymethods]
impl PyScopeFeature {
    #[new]
    #[pyo3(signature = (sub_type, num, suffix = "", sub_scope_mask = "", step = 0))]
    fn new(sub_type: String, num: i32, suffix: &str, sub_scope_mask: &str, step: i32) -> Self {
        PyScopeFeature {
            inner: ScopeFeature::new(sub_type, num, suffix, sub_scope_mask, step),
        }
    }

    /// The sub-type descendants must have ("": no condition).
    #[getter]
    fn sub_type(&self) -> String {
        self.inner.sub_type.clone()
    }

    /// How many descendants of ``sub_type`` are required (or the remainder, with ``step``).
    #[getter]
    fn num(&self) -> i32 {
        self.inner.num
    }

    /// The last name the scope must have ("": no condition).
    #[getter]
    fn suffix(&self) -> String {
        self.inner.suffix.clone()
    }

    /// Text some descendant's last name must contain ("": no condition).
    #[getter]
    fn sub_scope_mask(&self) -> String {
        self.inner.sub_scope_mask.clone()
    }

    /// The modulus applied to the count (0: exact count).
    #[getter]
    fn step(&self) -> i32 {
        self.inner.step
    }

    fn __repr__(&self) -> String {
        let f = &self.inner;
        format!(
            "ScopeFeature({:?}, {}, suffix={:?}, sub_scope_mask={:?}, step={})",
            f.sub_type, f.num, f.suffix, f.sub_scope_mask, f.step
        )
    }
}

#[pymethods]
impl PyScopePattern {
    #[new]
    #[pyo3(signature = (sub_type = ""))]
    fn new(sub_type: &str) -> Self {
        PyScopePattern {
            inner: ScopePattern::new(sub_type),
        }
    }

    /// The sub-type a matching scope gets.
    #[getter]
    fn sub_type(&self) -> String {
        self.inner.sub_type.clone()
    }

    /// The op-type count features, in the order added.
    #[getter]
    fn node_op_type_features(&self) -> Vec<PyNodeOpTypeFeature> {
        let features = self.inner.node_op_type_features.iter();
        features
            .map(|f| PyNodeOpTypeFeature { inner: f.clone() })
            .collect()
    }

    /// The attribute features, in the order added.
    #[getter]
    fn node_attr_features(&self) -> Vec<PyNodeAttrFeature> {
        let features = self.inner.node_attr_features.iter();
        features
            .map(|f| PyNodeAttrFeature { inner: f.clone() })
            .collect()
    }

    /// The sub-scope features, in the order added.
    #[getter]
    fn scope_features(&self) -> Vec<PyScopeFeature> {
        let features = self.inner.scope_features.iter();
        features
            .map(|f| PyScopeFeature { inner: f.clone() })
            .collect()
    }

    /// Sets the sub-type a matching scope gets; returns the pattern.
    fn set_sub_type(mut slf: PyRefMut<'_, Self>, sub_type: String) -> PyRefMut<'_, Self> {
        slf.inner.sub_type = sub_type;
        slf
    }

    /// Adds an op-type count feature; returns the pattern (calls chain).
    fn add_node_op_type_feature<'a>(
        mut slf: PyRefMut<'a, Self>,
        feature: PyRef<'_, PyNodeOpTypeFeature>,
    ) -> PyRefMut<'a, Self> {
        slf.inner.node_op_type_features.push(feature.inner.clone());
        slf
    }

    /// Adds an attribute feature; returns the pattern.
    fn add_node_attr_feature<'a>(
        mut slf: PyRefMut<'a, Self>,
        feature: PyRef<'_, PyNodeAttrFeature>,
    ) -> PyRefMut<'a, Self> {
        slf.inner.node_attr_features.push(feature.inner.clone());
        slf
    }

    /// Adds a sub-scope feature; returns the pattern.
    fn add_scope_feature<'a>(
        mut slf: PyRefMut<'a, Self>,
        feature: PyRef<'_, PyScopeFeature>,
    ) -> PyRefMut<'a, Self> {
        slf.inner.scope_features.push(feature.inner.clone());
        slf
    }

    fn __repr__(&self) -> String {
        let p = &self.inner;
        format!(
            "<ScopePattern {:?}: {} op-type, {} attr, {} scope features>",
            p.sub_type,
            p.node_op_type_features.len(),
            p.node_attr_features.len(),
            p.scope_features.len()
        )
    }
}
