//! `TensorDesc`: a tensor descriptor as Python sees it (built by users for
//! standalone inference contexts, returned by `Graph.desc` and contexts).

use crate::convert::{
    dtype_from_py, dtype_to_py, format_from_py, format_to_py, shape_from_py, shape_to_py,
    tensor_from_py, tensor_to_py,
};
use opgraph_core::types::{Format, TensorDesc};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// A tensor descriptor: dtype, origin and storage format and shape, shape
/// range and host value.
///
/// ``TensorDesc(dtype, shape, format=None, *, value=None, shape_range=None)``
/// builds one (format ND by default; ``value`` a numpy-convertible host value;
/// ``shape_range`` inclusive ``(min, max)`` per dim), e.g. for
/// :meth:`InferShapeContext.standalone`:
///
/// >>> import numpy as np
/// >>> from opgraph import DataType, TensorDesc
/// >>> TensorDesc(DataType.FLOAT, [1, 3, 224, 224], "NCHW")
/// TensorDesc(float[1, 3, 224, 224], NCHW)
/// >>> TensorDesc(DataType.INT64, [2], value=np.array([4, 5])).value
/// array([4, 5])
#[pyclass(module = "opgraph._core", name = "TensorDesc", frozen)]
pub struct PyTensorDesc {
    pub desc: TensorDesc,
}

#[pymethods]
impl PyTensorDesc {
    #[new]
    #[pyo3(signature = (dtype, shape, format = None, *, value = None, shape_range = None))]
    fn new(
        dtype: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
        format: Option<&Bound<'_, PyAny>>,
        value: Option<&Bound<'_, PyAny>>,
        shape_range: Option<Vec<(i64, i64)>>,
    ) -> PyResult<PyTensorDesc> {
        let format = format
            .map(format_from_py)
            .transpose()?
            .unwrap_or(Format::Nd);
        let mut desc = TensorDesc::new(dtype_from_py(dtype)?, shape_from_py(shape)?, format);
        if let Some(value) = value.map(tensor_from_py).transpose()? {
            if value.dtype() != desc.dtype || value.shape() != desc.shape() {
                return Err(PyValueError::new_err(format!(
                    "the value is {} {} but the descriptor says {} {}",
                    value.dtype(),
                    value.shape(),
                    desc.dtype,
                    desc.shape()
                )));
            }
            desc.value = Some(value);
        }
        desc.shape_range = shape_range.map(Into::into);
        Ok(PyTensorDesc { desc })
    }

    /// The element type.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        dtype_to_py(py, self.desc.dtype)
    }

    /// The origin shape (what inference works on).
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        shape_to_py(py, &self.desc.origin_shape)
    }

    /// The origin format.
    #[getter]
    fn format<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        format_to_py(py, self.desc.origin_format)
    }

    /// The format the device stores it in (the origin format until
    /// :func:`~opgraph.prepare` chooses one).
    #[getter]
    fn storage_format<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        format_to_py(py, self.desc.storage_format)
    }

    /// The shape in the storage format (e.g. NC1HWC0's five dims).
    #[getter]
    fn storage_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        shape_to_py(py, &self.desc.storage_shape)
    }

    /// Inclusive ``(min, max)`` per dim (``max == -1``: unbounded), or None when not set.
    #[getter]
    fn shape_range(&self) -> Option<Vec<(i64, i64)>> {
        self.desc.shape_range.as_deref().map(<[_]>::to_vec)
    }

    /// For a 1-D integer tensor holding a shape: what folding knows of it
    /// element by element (-1 unknown), when the full value is not known.
    #[getter]
    fn shape_value<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.desc
            .shape_value
            .as_ref()
            .map(|s| shape_to_py(py, s))
            .transpose()
    }

    /// For a scalar or 1-D integer tensor whose value is not fully known:
    /// inclusive ``(min, max)`` per element (``max == -1``: unbounded), GE's
    /// value range; ``(0, -1)`` says nothing of its element, which may be
    /// negative. ``Shape`` of an ``x`` with a shape range records it, and a
    /// cast of such sizes to float keeps it. None when not set.
    #[getter]
    fn value_range(&self) -> Option<Vec<(i64, i64)>> {
        self.desc.value_range.as_deref().map(<[_]>::to_vec)
    }

    /// The host value as a numpy array, when known.
    #[getter]
    fn value<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.desc
            .value
            .as_ref()
            .map(|v| tensor_to_py(py, v))
            .transpose()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyTensorDesc>()
            .is_ok_and(|o| o.get().desc == self.desc)
    }

    fn __repr__(&self) -> String {
        let mut s = format!(
            "TensorDesc({}, {}",
            self.desc.summary(),
            self.desc.origin_format
        );
        if self.desc.storage_format != self.desc.origin_format
            || self.desc.storage_shape != self.desc.origin_shape
        {
            s += &format!(
                ", storage {}{}",
                self.desc.storage_format, self.desc.storage_shape
            );
        }
        if self.desc.value.is_some() {
            s += ", value";
        }
        s + ")"
    }
}
