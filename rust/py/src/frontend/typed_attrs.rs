//! The typed attribute getters of `FrameworkOp` (`get_int`, `get_floats` …):
//! one reader per Python type, a default that may be None, and a
//! ParseError naming the node, the attribute, the expected and the actual
//! type when the value does not fit.

use crate::convert::{dtype_to_py, tensor_to_py};
use crate::errors::{new_error, parse_error};
use opgraph_core::frontend::FrameworkOp;
use opgraph_core::op::closest_name;
use opgraph_core::types::AttrValue;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};

/// A getter's `default`: not given (a missing attribute is an error), or
/// given, None included (a missing attribute returns it).
pub enum Fallback {
    Missing,
    Value(Py<PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Fallback {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Fallback> {
        Ok(Fallback::Value(obj.to_owned().unbind()))
    }
}

/// What one getter reads: the Python type it returns (for messages) and
/// how a value converts, None when the value is of another type.
pub struct Reader {
    pub expected: &'static str,
    pub read: for<'py> fn(Python<'py>, &AttrValue) -> Option<PyResult<Bound<'py, PyAny>>>,
}

/// A ParseError about `op`, with its name and origin type as attributes.
pub fn op_parse_error(py: Python<'_>, op: &FrameworkOp, message: String) -> PyErr {
    let class = match parse_error(py) {
        Ok(class) => class,
        Err(e) => return e,
    };
    let kwargs = PyDict::new(py);
    if let Err(e) = kwargs
        .set_item("node", &op.name)
        .and_then(|()| kwargs.set_item("origin_op_type", op.op_type.as_str()))
    {
        return e;
    }
    new_error(class, message, Some(&kwargs))
}

/// Attribute `name` of `op` through `reader`, else `default`.
pub fn get<'py>(
    py: Python<'py>,
    op: &FrameworkOp,
    name: &str,
    default: Fallback,
    reader: &Reader,
) -> PyResult<Bound<'py, PyAny>> {
    match op.attrs.get(name) {
        Some(value) => (reader.read)(py, value).unwrap_or_else(|| {
            Err(op_parse_error(
                py,
                op,
                format!(
                    "framework op '{}' ({}): attribute '{name}' is a {}, expected {}",
                    op.name,
                    op.op_type,
                    value.attr_type(),
                    reader.expected
                ),
            ))
        }),
        None => match default {
            Fallback::Value(value) => Ok(value.into_bound(py)),
            Fallback::Missing => Err(op_parse_error(py, op, missing(op, name, reader.expected))),
        },
    }
}

/// "framework op 'conv' (Convolution) has no attribute 'kernel' (expected
/// an int); it has bias_term, kernel_size …; did you mean 'kernel_size'?"
fn missing(op: &FrameworkOp, name: &str, expected: &str) -> String {
    let present: Vec<&str> = op.attrs.iter().map(|(n, _)| n).collect();
    let listed = if present.is_empty() {
        "it has no attributes".to_owned()
    } else {
        format!("it has {}", present.join(", "))
    };
    let hint = closest_name(name, &present)
        .map(|near| format!("; did you mean '{near}'?"))
        .unwrap_or_default();
    format!(
        "framework op '{}' ({}) has no attribute '{name}' (expected {expected}) and no default \
         was given; {listed}{hint}",
        op.name, op.op_type
    )
}

fn list<'py, T: IntoPyObject<'py> + Copy>(
    py: Python<'py>,
    items: &[T],
) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyList::new(py, items.iter().copied())?.into_any())
}

fn empty_list(value: &AttrValue) -> bool {
    matches!(value,
        AttrValue::ListInt(v) if v.is_empty())
        || matches!(value, AttrValue::ListFloat(v) if v.is_empty())
        || matches!(value, AttrValue::ListStr(v) if v.is_empty())
        || matches!(value, AttrValue::ListBool(v) if v.is_empty())
        || matches!(value, AttrValue::ListDataType(v) if v.is_empty())
        || matches!(value, AttrValue::ListListInt(v) if v.is_empty())
}

pub const INT: Reader = Reader {
    expected: "an int",
    read: |py, v| match v {
        AttrValue::Int(i) => Some(
            i.into_pyobject(py)
                .map(|o| o.into_any())
                .map_err(Into::into),
        ),
        _ => None,
    },
};

/// An int reads as a float too (Caffe declares some ratios as int fields).
pub const FLOAT: Reader = Reader {
    expected: "a float",
    read: |py, v| {
        let f = match v {
            AttrValue::Float(f) => *f,
            AttrValue::Int(i) => *i as f64,
            _ => return None,
        };
        Some(
            f.into_pyobject(py)
                .map(|o| o.into_any())
                .map_err(Into::into),
        )
    },
};

pub const BOOL: Reader = Reader {
    expected: "a bool",
    read: |py, v| match v {
        AttrValue::Bool(b) => Some(Ok(PyBool::new(py, *b).to_owned().into_any())),
        _ => None,
    },
};

pub const STR: Reader = Reader {
    expected: "a str",
    read: |py, v| match v {
        AttrValue::Str(s) => Some(
            s.into_pyobject(py)
                .map(|o| o.into_any())
                .map_err(Into::into),
        ),
        _ => None,
    },
};

pub const INTS: Reader = Reader {
    expected: "a list of ints",
    read: |py, v| match v {
        AttrValue::ListInt(items) => Some(list(py, items)),
        other if empty_list(other) => Some(list::<i64>(py, &[])),
        _ => None,
    },
};

pub const FLOATS: Reader = Reader {
    expected: "a list of floats",
    read: |py, v| match v {
        AttrValue::ListFloat(items) => Some(list(py, items)),
        AttrValue::ListInt(items) => {
            let floats: Vec<f64> = items.iter().map(|&i| i as f64).collect();
            Some(list(py, &floats))
        }
        other if empty_list(other) => Some(list::<f64>(py, &[])),
        _ => None,
    },
};

pub const STRS: Reader = Reader {
    expected: "a list of strs",
    read: |py, v| match v {
        AttrValue::ListStr(items) => Some(PyList::new(py, items).map(|l| l.into_any())),
        other if empty_list(other) => Some(list::<i64>(py, &[])),
        _ => None,
    },
};

/// A shape: a list of ints in GE's convention (-1 unknown dim, [-2]
/// unknown rank), as TensorFlow shape attributes and Caffe dims read.
pub const SHAPE: Reader = Reader {
    expected: "a shape (a list of ints)",
    read: INTS.read,
};

pub const DTYPE: Reader = Reader {
    expected: "a DataType",
    read: |py, v| match v {
        AttrValue::DataType(d) => Some(dtype_to_py(py, *d)),
        _ => None,
    },
};

pub const TENSOR: Reader = Reader {
    expected: "a tensor",
    read: |py, v| match v {
        AttrValue::Tensor(t) => Some(tensor_to_py(py, t)),
        _ => None,
    },
};
