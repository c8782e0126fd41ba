//! Conversions between core values and Python objects: enums as the
//! `opgraph.DataType` / `opgraph.Format` IntEnums, shapes as tuples,
//! host tensors as numpy arrays, attribute values as plain Python values.

use crate::errors::{new_error, shape_argument_error, shape_type_error};
use numpy::{PyArray1, PyUntypedArray, PyUntypedArrayMethods};
use opgraph_core::types::{
    AttrType, AttrValue, Attrs, DataType, Format, HostTensor, Shape, ShapeError, MAX_RANK,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyBytes, PyDict, PyFloat, PyInt, PyIterator, PyList, PyString, PyTuple, PyType,
};

static DATA_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static FORMAT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn data_type_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    DATA_TYPE.import(py, "opgraph.dtype", "DataType")
}

pub fn dtype_to_py(py: Python<'_>, dtype: DataType) -> PyResult<Bound<'_, PyAny>> {
    data_type_class(py)?.call1((dtype.ge_value(),))
}

pub fn format_to_py(py: Python<'_>, format: Format) -> PyResult<Bound<'_, PyAny>> {
    FORMAT
        .import(py, "opgraph.format", "Format")?
        .call1((format.ge_value(),))
}

pub fn dtype_from_py(obj: &Bound<'_, PyAny>) -> PyResult<DataType> {
    let value: i64 = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected an opgraph.DataType, got {}",
            type_name(obj)
        ))
    })?;
    DataType::from_ge(value)
        .ok_or_else(|| PyValueError::new_err(format!("{value} is not a GE DataType number")))
}

pub fn format_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Format> {
    if let Ok(name) = obj.cast::<PyString>() {
        let name = name.to_str()?;
        return Format::from_name(name)
            .ok_or_else(|| PyValueError::new_err(format!("'{name}' is not a GE format name")));
    }
    let value: i64 = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected an opgraph.Format, got {}",
            type_name(obj)
        ))
    })?;
    Format::from_ge(value)
        .ok_or_else(|| PyValueError::new_err(format!("{value} is not a GE Format number")))
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

pub fn shape_to_py<'py>(py: Python<'py>, shape: &Shape) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, shape.dims())
}

/// A shape from any sequence of ints, checked against GE's conventions.
pub fn shape_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Shape> {
    shape_arg(obj, None)
}

/// A user-supplied shape (of graph input `input`, when it has a name),
/// checked against GE's conventions: each dim fits int64 and is >= 0 or -1
/// (unknown); `[-2]` alone is an unknown rank; at most [`MAX_RANK`] dims.
/// A bad value raises `ShapeArgumentError` (a ValueError), a value that is
/// not a sequence of ints `ShapeTypeError` (a TypeError), both naming the
/// input and the dim.
pub fn shape_arg(obj: &Bound<'_, PyAny>, input: Option<&str>) -> PyResult<Shape> {
    let py = obj.py();
    let what = match input {
        Some(name) => format!("invalid shape for input '{name}'"),
        None => "invalid shape".to_owned(),
    };
    let fail = |type_error: bool, dim: Option<usize>, message: String| {
        shape_error(py, type_error, input, dim, message)
    };
    let items = sequence_items(obj, input, &what, "a sequence of ints")?;
    let mut dims = Vec::new();
    for (index, item) in items.enumerate() {
        let item = item?;
        if index >= MAX_RANK {
            let rank = index + 1 + obj.len().map_or(0, |n| n.saturating_sub(index + 1));
            return Err(fail(
                false,
                None,
                format!("{what}: rank {rank} exceeds the maximum rank {MAX_RANK}"),
            ));
        }
        dims.push(int64_item(
            &item,
            |type_error, message| fail(type_error, Some(index), message),
            || {
                format!(
                    "{what}: dim {index} is {item}, which does not fit int64 \
                     (dims are >= 0, or -1 for unknown)"
                )
            },
            |got| format!("{what}: dim {index} is {got}; dims are ints (-1 unknown)"),
        )?);
    }
    Shape::new(&dims).map_err(|e| {
        let dim = match e {
            ShapeError::BadDim { index, .. } => Some(index),
            _ => None,
        };
        fail(false, dim, format!("{what} {dims:?}: {e}"))
    })
}

/// `value` as an int64, else `fail`'s typed error: a Python int beyond
/// int64 is an argument error with `too_large`'s message, anything else a
/// type error with `not_int`'s, given the value's type and repr.
fn int64_item(
    value: &Bound<'_, PyAny>,
    fail: impl FnOnce(bool, String) -> PyErr,
    too_large: impl FnOnce() -> String,
    not_int: impl FnOnce(&str) -> String,
) -> PyResult<i64> {
    match value.extract::<i64>() {
        Ok(v) => Ok(v),
        Err(_) if value.is_instance_of::<PyInt>() => Err(fail(false, too_large())),
        Err(_) => {
            let repr = value.repr().map(|r| r.to_string()).unwrap_or_default();
            Err(fail(true, not_int(&format!("{} {repr}", type_name(value)))))
        }
    }
}

fn is_text(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>()
}

/// The items of `obj`, a sequence other than text; else a `ShapeTypeError`
/// ("{what}: expected {expected}, got str").
fn sequence_items<'py>(
    obj: &Bound<'py, PyAny>,
    input: Option<&str>,
    what: &str,
    expected: &str,
) -> PyResult<Bound<'py, PyIterator>> {
    match obj.try_iter() {
        Ok(items) if !is_text(obj) => Ok(items),
        _ => Err(shape_error(
            obj.py(),
            true,
            input,
            None,
            format!("{what}: expected {expected}, got {}", type_name(obj)),
        )),
    }
}

/// A `ShapeTypeError` (`type_error`: the value is not of the right kind) or
/// `ShapeArgumentError` (a value out of range), naming the input and dim.
fn shape_error(
    py: Python<'_>,
    type_error: bool,
    input: Option<&str>,
    dim: Option<usize>,
    message: String,
) -> PyErr {
    let result = (|| {
        let kwargs = PyDict::new(py);
        kwargs.set_item("input", input)?;
        kwargs.set_item("dim", dim)?;
        let class = if type_error {
            shape_type_error(py)?
        } else {
            shape_argument_error(py)?
        };
        Ok(new_error(class, message, Some(&kwargs)))
    })();
    result.unwrap_or_else(|e| e)
}

/// A user-supplied shape range of graph input `input`: one `(min, max)`
/// pair of ints per dim. Not a sequence of int pairs raises
/// `ShapeTypeError`, a bound beyond int64 `ShapeArgumentError`, both
/// naming the input and the dim; whether the bounds fit the input's shape
/// is the caller's check.
pub fn shape_range_arg(obj: &Bound<'_, PyAny>, input: &str) -> PyResult<Vec<(i64, i64)>> {
    let py = obj.py();
    let what = format!("invalid shape range for input '{input}'");
    let fail = |type_error: bool, dim: Option<usize>, message: String| {
        shape_error(py, type_error, Some(input), dim, message)
    };
    let items = sequence_items(
        obj,
        Some(input),
        &what,
        "a sequence of (min, max) pairs of ints",
    )?;
    let mut ranges = Vec::new();
    for (index, item) in items.enumerate() {
        let item = item?;
        let bounds: Option<Vec<Bound<'_, PyAny>>> = item
            .try_iter()
            .ok()
            .filter(|_| !is_text(&item))
            .and_then(|bounds| bounds.collect::<PyResult<Vec<_>>>().ok());
        let pair = match bounds.as_deref() {
            Some([lo, hi]) => [lo, hi],
            _ => {
                return Err(fail(
                    true,
                    Some(index),
                    format!(
                        "{what}: dim {index} is {}; expected a (min, max) pair of ints",
                        item.repr().map(|r| r.to_string()).unwrap_or_default()
                    ),
                ))
            }
        };
        let mut bound = [0i64; 2];
        for (slot, value) in bound.iter_mut().zip(pair) {
            *slot = int64_item(
                value,
                |type_error, message| fail(type_error, Some(index), message),
                || {
                    format!(
                        "{what}: dim {index} has bound {value}, which does not fit int64 \
                         (-1 as max: unbounded)"
                    )
                },
                |got| format!("{what}: dim {index} has bound {got}; bounds are ints"),
            )?;
        }
        ranges.push((bound[0], bound[1]));
    }
    Ok(ranges)
}

fn numpy_name(dtype: DataType) -> Option<&'static str> {
    Some(match dtype {
        DataType::Float => "float32",
        DataType::Float16 => "float16",
        DataType::Double => "float64",
        DataType::Int8 => "int8",
        DataType::Int16 => "int16",
        DataType::Int32 => "int32",
        DataType::Int64 => "int64",
        DataType::Uint8 => "uint8",
        DataType::Uint16 => "uint16",
        DataType::Uint32 => "uint32",
        DataType::Uint64 => "uint64",
        DataType::Bool => "bool",
        DataType::Complex64 => "complex64",
        DataType::Complex128 => "complex128",
        _ => return None,
    })
}

fn dtype_from_numpy_name(name: &str) -> Option<DataType> {
    [
        DataType::Float,
        DataType::Float16,
        DataType::Double,
        DataType::Int8,
        DataType::Int16,
        DataType::Int32,
        DataType::Int64,
        DataType::Uint8,
        DataType::Uint16,
        DataType::Uint32,
        DataType::Uint64,
        DataType::Bool,
        DataType::Complex64,
        DataType::Complex128,
    ]
    .into_iter()
    .find(|&d| numpy_name(d) == Some(name))
}

/// A host tensor as a numpy array (a copy: the array owns its memory).
pub fn tensor_to_py<'py>(py: Python<'py>, tensor: &HostTensor) -> PyResult<Bound<'py, PyAny>> {
    let name = numpy_name(tensor.dtype()).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{} tensors have no numpy equivalent",
            tensor.dtype()
        ))
    })?;
    let dims: Vec<usize> = tensor.shape().dims().iter().map(|&d| d as usize).collect();
    if let Some(element) = tensor.splat_element() {
        // A splat is one element broadcast over the shape: a read-only view
        // of 1 element, not the expanded bytes (which may be a GiB).
        let one = PyArray1::<u8>::from_slice(py, element).call_method1("view", (name,))?;
        let numpy = py.import("numpy")?;
        return numpy.call_method1("broadcast_to", (one.get_item(0)?, PyTuple::new(py, dims)?));
    }
    let bytes = PyArray1::<u8>::from_slice(py, tensor.bytes());
    bytes
        .call_method1("view", (name,))?
        .call_method1("reshape", (PyTuple::new(py, dims)?,))
}

/// A numpy array (or anything `numpy.asarray` accepts) as a host tensor.
pub fn tensor_from_py(obj: &Bound<'_, PyAny>) -> PyResult<HostTensor> {
    let py = obj.py();
    let numpy = py.import("numpy")?;
    // asarray(order="C") keeps 0-d arrays 0-d (ascontiguousarray would not).
    let kwargs = PyDict::new(py);
    kwargs.set_item("order", "C")?;
    let mut array = numpy.call_method("asarray", (obj,), Some(&kwargs))?;
    let descr = array.cast::<PyUntypedArray>()?.dtype();
    if !descr.getattr("isnative")?.extract::<bool>()? {
        let native = descr.call_method1("newbyteorder", ("=",))?;
        array = array.call_method1("astype", (native,))?;
    }
    let untyped = array.cast::<PyUntypedArray>()?;
    let name: String = untyped.dtype().getattr("name")?.extract()?;
    let dtype = dtype_from_numpy_name(&name).ok_or_else(|| {
        PyTypeError::new_err(format!("numpy dtype {name} has no opgraph DataType"))
    })?;
    let dims: Vec<i64> = untyped.shape().iter().map(|&d| d as i64).collect();
    let raw = array.call_method0("tobytes")?;
    let bytes = bytes::Bytes::copy_from_slice(raw.cast::<PyBytes>()?.as_bytes());
    HostTensor::new(dtype, Shape::from_dims(dims), bytes)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A function reference or named attribute group (GE's `NamedAttrs`):
/// ``NamedAttrs(name, attrs=None)``.
#[pyclass(module = "opgraph._core", name = "NamedAttrs", frozen)]
pub struct PyNamedAttrs {
    pub name: String,
    pub attrs: Attrs,
}

#[pymethods]
impl PyNamedAttrs {
    #[new]
    #[pyo3(signature = (name, attrs = None))]
    fn new(name: String, attrs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Ok(PyNamedAttrs {
            name,
            attrs: attrs.map(attrs_from_py).transpose()?.unwrap_or_default(),
        })
    }

    /// The function's or group's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Its attributes (a fresh dict).
    #[getter]
    fn attrs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        attrs_to_py(py, &self.attrs)
    }

    fn __repr__(&self) -> String {
        format!("NamedAttrs({:?}, <{} attrs>)", self.name, self.attrs.len())
    }
}

pub fn attrs_from_py(dict: &Bound<'_, PyDict>) -> PyResult<Attrs> {
    let mut attrs = Attrs::new();
    for (key, value) in dict.iter() {
        let name: String = key
            .extract()
            .map_err(|_| PyTypeError::new_err("attribute names must be str"))?;
        let value = attr_from_py(&value).map_err(|e| {
            PyTypeError::new_err(format!("attribute '{name}': {}", e.value(dict.py())))
        })?;
        attrs.set(name, value);
    }
    Ok(attrs)
}

pub fn attrs_to_py<'py>(py: Python<'py>, attrs: &Attrs) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, value) in attrs.iter() {
        dict.set_item(name, attr_to_py(py, value)?)?;
    }
    Ok(dict)
}

fn is_data_type(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    obj.is_instance(data_type_class(obj.py())?)
}

/// A Python value as an attribute: bool, DataType, int, float, str,
/// numpy array, NamedAttrs, or a list of one kind (list of int lists too).
pub fn attr_from_py(obj: &Bound<'_, PyAny>) -> PyResult<AttrValue> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(AttrValue::Bool(obj.extract()?));
    }
    if is_data_type(obj)? {
        return Ok(AttrValue::DataType(dtype_from_py(obj)?));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(AttrValue::Int(obj.extract()?));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(AttrValue::Float(obj.extract()?));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(AttrValue::Str(obj.extract()?));
    }
    if let Ok(named) = obj.cast::<PyNamedAttrs>() {
        let named = named.get();
        return Ok(AttrValue::NamedAttrs(Box::new(
            opgraph_core::types::NamedAttrs {
                name: named.name.clone(),
                attrs: named.attrs.clone(),
            },
        )));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return list_attr_from_py(obj);
    }
    if obj.is_instance(&obj.py().import("numpy")?.getattr("ndarray")?)? {
        return Ok(AttrValue::Tensor(tensor_from_py(obj)?));
    }
    // A numpy dtype or scalar type where a DataType belongs is the usual slip.
    let numpy_dtype = obj.is_instance_of::<pyo3::types::PyType>()
        || obj.is_instance(&obj.py().import("numpy")?.getattr("dtype")?)?;
    Err(PyTypeError::new_err(format!(
        "{} {} is not a supported attribute type{}",
        type_name(obj),
        obj.repr().map(|r| r.to_string()).unwrap_or_default(),
        if numpy_dtype {
            "; a dtype attribute takes an opgraph.DataType, e.g. DataType.FLOAT16"
        } else {
            ""
        }
    )))
}

fn list_attr_from_py(obj: &Bound<'_, PyAny>) -> PyResult<AttrValue> {
    let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
    let all = |f: &dyn Fn(&Bound<'_, PyAny>) -> PyResult<bool>| -> PyResult<bool> {
        for item in &items {
            if !f(item)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let kind = |obj: &Bound<'_, PyAny>| type_name(obj);
    if items.is_empty() {
        return Ok(AttrValue::ListInt(vec![]));
    }
    if all(&|i| Ok(i.is_instance_of::<PyBool>()))? {
        return Ok(AttrValue::ListBool(obj.extract()?));
    }
    if all(&is_data_type)? {
        return Ok(AttrValue::ListDataType(
            items.iter().map(dtype_from_py).collect::<PyResult<_>>()?,
        ));
    }
    if all(&|i| Ok(i.is_instance_of::<PyInt>() && !i.is_instance_of::<PyBool>()))? {
        return Ok(AttrValue::ListInt(obj.extract()?));
    }
    if all(&|i| Ok(i.is_instance_of::<PyFloat>() || i.is_instance_of::<PyInt>()))? {
        return Ok(AttrValue::ListFloat(obj.extract()?));
    }
    if all(&|i| Ok(i.is_instance_of::<PyString>()))? {
        return Ok(AttrValue::ListStr(obj.extract()?));
    }
    if all(&|i| Ok(i.is_instance_of::<PyList>() || i.is_instance_of::<PyTuple>()))? {
        if let Ok(lists) = obj.extract::<Vec<Vec<i64>>>() {
            return Ok(AttrValue::ListListInt(lists));
        }
    }
    let kinds: Vec<String> = items.iter().map(kind).collect();
    Err(PyTypeError::new_err(format!(
        "a list attribute holds one kind of value (int, float, bool, str, DataType or list of ints), got [{}]",
        kinds.join(", ")
    )))
}

pub fn attr_to_py<'py>(py: Python<'py>, value: &AttrValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        AttrValue::Int(i) => i.into_pyobject(py)?.into_any(),
        AttrValue::Float(f) => f.into_pyobject(py)?.into_any(),
        AttrValue::Str(s) => s.into_pyobject(py)?.into_any(),
        AttrValue::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        AttrValue::DataType(d) => dtype_to_py(py, *d)?,
        AttrValue::ListInt(v) => PyList::new(py, v)?.into_any(),
        AttrValue::ListFloat(v) => PyList::new(py, v)?.into_any(),
        AttrValue::ListStr(v) => PyList::new(py, v)?.into_any(),
        AttrValue::ListBool(v) => PyList::new(py, v)?.into_any(),
        AttrValue::ListDataType(v) => {
            let items = v
                .iter()
                .map(|d| dtype_to_py(py, *d))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        AttrValue::ListListInt(v) => PyList::new(py, v)?.into_any(),
        AttrValue::Tensor(t) => tensor_to_py(py, t)?,
        AttrValue::NamedAttrs(n) => Bound::new(
            py,
            PyNamedAttrs {
                name: n.name.clone(),
                attrs: n.attrs.clone(),
            },
        )?
        .into_any(),
    })
}

/// Attribute type names as the Python layer spells them.
pub fn attr_type_from_name(name: &str) -> PyResult<AttrType> {
    AttrType::ALL
        .iter()
        .copied()
        .find(|t| t.name() == name)
        .ok_or_else(|| PyValueError::new_err(format!("'{name}' is not an attribute type")))
}
