//! `FrameworkOp.param` and `param_path`: a Caffe layer's parameter messages
//! as nested Python values (messages as dicts, repeated fields as lists,
//! enums as `EnumValue`), beside the flattened attributes.

use super::typed_attrs::{op_parse_error, Fallback};
use opgraph_core::frontend::{FrameworkOp, ParamValue};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList};

/// A protobuf enum value: its name (its number when the enum does not name
/// it) and its number.
#[pyclass(module = "opgraph._core", name = "EnumValue", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyEnumValue {
    /// The value's name (its number as text when the enum does not name it).
    #[pyo3(get)]
    name: String,
    /// The value's number.
    #[pyo3(get)]
    number: i32,
}

#[pymethods]
impl PyEnumValue {
    #[new]
    fn new(name: String, number: i32) -> PyEnumValue {
        PyEnumValue { name, number }
    }

    fn __repr__(&self) -> String {
        format!("EnumValue({:?}, {})", self.name, self.number)
    }
}

pub fn param_to_py<'py>(py: Python<'py>, value: &ParamValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        ParamValue::Int(i) => i.into_pyobject(py)?.into_any(),
        ParamValue::UInt(u) => u.into_pyobject(py)?.into_any(),
        ParamValue::Float(f) => f.into_pyobject(py)?.into_any(),
        ParamValue::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        ParamValue::Str(s) => s.into_pyobject(py)?.into_any(),
        ParamValue::Bytes(b) => PyBytes::new(py, b).into_any(),
        ParamValue::Enum { name, number } => Bound::new(
            py,
            PyEnumValue {
                name: name.clone(),
                number: *number,
            },
        )?
        .into_any(),
        ParamValue::List(items) => {
            let items = items
                .iter()
                .map(|v| param_to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        ParamValue::Message(fields) => {
            let dict = PyDict::new(py);
            for (name, v) in fields {
                dict.set_item(name, param_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

fn names(fields: &[(String, ParamValue)]) -> String {
    if fields.is_empty() {
        return "none".into();
    }
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    names.join(", ")
}

/// Parameter message `name` of the layer as a dict.
pub fn param<'py>(
    py: Python<'py>,
    op: &FrameworkOp,
    name: &str,
    default: Fallback,
) -> PyResult<Bound<'py, PyAny>> {
    match op.params.iter().find(|(n, _)| n == name) {
        Some((_, value)) => param_to_py(py, value),
        None => match default {
            Fallback::Value(v) => Ok(v.into_bound(py)),
            Fallback::Missing => Err(op_parse_error(
                py,
                op,
                format!(
                    "framework op '{}' ({}) does not set parameter message '{name}'; it sets {}",
                    op.name,
                    op.op_type,
                    names(&op.params)
                ),
            )),
        },
    }
}

/// The value at a dotted path (`detection_output_param.nms_param.top_k`,
/// `param[0].lr_mult` for an element of a repeated field).
pub fn param_path<'py>(
    py: Python<'py>,
    op: &FrameworkOp,
    path: &str,
    default: Fallback,
) -> PyResult<Bound<'py, PyAny>> {
    match walk(op, path) {
        Ok(value) => param_to_py(py, value),
        Err(why) => match default {
            Fallback::Value(v) if why.absent => Ok(v.into_bound(py)),
            _ => Err(op_parse_error(
                py,
                op,
                format!(
                    "framework op '{}' ({}): parameter path '{path}' {}",
                    op.name, op.op_type, why.message
                ),
            )),
        },
    }
}

/// Why a path does not lead to a value; `absent` when a field is merely
/// not set (a default applies), not when the path is malformed.
struct PathError {
    message: String,
    absent: bool,
}

fn walk<'a>(op: &'a FrameworkOp, path: &str) -> Result<&'a ParamValue, PathError> {
    let malformed = |message: String| PathError {
        message,
        absent: false,
    };
    let mut fields: &[(String, ParamValue)] = &op.params;
    let mut current: Option<&ParamValue> = None;
    let mut walked = String::new();
    for segment in path.split('.') {
        let (name, index) = split_index(segment)
            .ok_or_else(|| malformed(format!("has a malformed segment '{segment}'")))?;
        if let Some(value) = current {
            let ParamValue::Message(inner) = value else {
                return Err(malformed(format!(
                    "goes past '{walked}', which is not a message"
                )));
            };
            fields = inner;
        }
        let Some((_, value)) = fields.iter().find(|(n, _)| n == name) else {
            let at = if walked.is_empty() {
                "the layer"
            } else {
                walked.as_str()
            };
            return Err(PathError {
                message: format!(
                    "has no field '{name}' set in {at} (set or defaulted there: {})",
                    names(fields)
                ),
                absent: true,
            });
        };
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(segment);
        current = Some(match index {
            None => value,
            Some(i) => match value {
                ParamValue::List(items) => items.get(i).ok_or_else(|| PathError {
                    message: format!("indexes '{name}', which has {} elements", items.len()),
                    absent: true,
                })?,
                _ => {
                    return Err(malformed(format!(
                        "indexes '{name}', which is not a repeated field"
                    )))
                }
            },
        });
    }
    current.ok_or_else(|| malformed("is empty".into()))
}

/// `name` or `name[i]`.
fn split_index(segment: &str) -> Option<(&str, Option<usize>)> {
    match segment.split_once('[') {
        None if !segment.is_empty() => Some((segment, None)),
        None => None,
        Some((name, rest)) => {
            let index = rest.strip_suffix(']')?.parse().ok()?;
            (!name.is_empty()).then_some((name, Some(index)))
        }
    }
}
