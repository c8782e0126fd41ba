//! NodeDef attributes → IR attribute values, with GE's TensorFlow → IR
//! mapping: s→Str, i→Int, f→Float, b→Bool, type→DataType, shape→ListInt,
//! tensor→Tensor, func→NamedAttrs, and lists likewise.
//!
//! Decisions where the IR has no exact counterpart:
//! - `s` is bytes in TensorFlow; invalid UTF-8 is replaced by U+FFFD (a
//!   Str cannot hold it, and rejecting the model for one binary attribute,
//!   e.g. an XlaCallModule module, would be worse).
//! - shape: unknown rank → `[-2]`, unknown dim → `-1` (GE's convention).
//! - list(shape) → ListListInt; list(func) → ListStr of the function names
//!   (what Case's `branches` needs; the per-function attrs, empty in frozen
//!   graphs, are dropped); list(tensor) → NamedAttrs with the tensors under
//!   "0", "1", …; an empty list → empty ListInt (the IR coerces an empty list
//!   to any list type).
//! - A `placeholder` (a function-body attr bound at instantiation) → Str
//!   `"$name"`, TensorFlow's own spelling for it in FunctionDefHelper.

use super::dtype::{ge_dtype, is_ref, tf_dtype_name};
use super::pb::attr_value::{ListValue, Value};
use super::pb::{self, NameAttrList, TensorShapeProto};
use super::tensor::tensor_attr;
use crate::types::{AttrValue, Attrs, DataType, NamedAttrs, UNKNOWN_RANK};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::fmt;

/// `bytes` as text, invalid UTF-8 replaced by U+FFFD.
pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// An attribute that could not be converted: its name and what is wrong.
#[derive(Debug)]
pub(super) struct BadAttr {
    pub name: String,
    pub why: String,
}

impl fmt::Display for BadAttr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "attr '{}' {}", self.name, self.why)
    }
}

/// Every attribute of a node (or function), converted, in key order.
pub(super) fn convert_attrs(attrs: &HashMap<String, pb::AttrValue>) -> Result<Attrs, BadAttr> {
    convert_sorted_attrs(&sorted_attrs(attrs))
}

/// A node's attributes by key, borrowed: a node has a handful, held inline.
pub(super) type SortedAttrs<'a> = SmallVec<[(&'a str, &'a pb::AttrValue); 8]>;

/// A map's entries by key.
pub(super) fn sorted_attrs(attrs: &HashMap<String, pb::AttrValue>) -> SortedAttrs<'_> {
    let mut sorted: SortedAttrs<'_> = attrs.iter().map(|(k, v)| (k.as_str(), v)).collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    sorted
}

/// Attributes already sorted by key, each key once, converted.
pub(super) fn convert_sorted_attrs(sorted: &[(&str, &pb::AttrValue)]) -> Result<Attrs, BadAttr> {
    let mut out = Attrs::with_capacity(sorted.len());
    for &(name, value) in sorted {
        let value = convert_value(value).map_err(|why| BadAttr {
            name: name.to_owned(),
            why,
        })?;
        out.push_new(name, value);
    }
    Ok(out)
}

fn convert_value(value: &pb::AttrValue) -> Result<AttrValue, String> {
    let Some(value) = &value.value else {
        return Err("has no value".into());
    };
    Ok(match value {
        Value::S(s) => AttrValue::Str(text(s)),
        Value::I(i) => AttrValue::Int(*i),
        Value::F(f) => AttrValue::Float(f64::from(*f)),
        Value::B(b) => AttrValue::Bool(*b),
        Value::Type(t) => AttrValue::DataType(dtype(*t)?),
        Value::Shape(shape) => AttrValue::ListInt(dims(shape)?),
        Value::Tensor(tensor) => tensor_attr(tensor)?,
        Value::List(list) => convert_list(list)?,
        Value::Func(func) => AttrValue::NamedAttrs(Box::new(named_attrs(func)?)),
        Value::Placeholder(name) => AttrValue::Str(format!("${name}")),
    })
}

fn convert_list(list: &ListValue) -> Result<AttrValue, String> {
    let kinds = [
        !list.s.is_empty(),
        !list.i.is_empty(),
        !list.f.is_empty(),
        !list.b.is_empty(),
        !list.r#type.is_empty(),
        !list.shape.is_empty(),
        !list.tensor.is_empty(),
        !list.func.is_empty(),
    ];
    if kinds.iter().filter(|&&k| k).count() > 1 {
        return Err("is a list mixing several kinds of values".into());
    }
    Ok(if !list.s.is_empty() {
        AttrValue::ListStr(list.s.iter().map(|s| text(s)).collect())
    } else if !list.f.is_empty() {
        AttrValue::ListFloat(list.f.iter().map(|&f| f64::from(f)).collect())
    } else if !list.b.is_empty() {
        AttrValue::ListBool(list.b.clone())
    } else if !list.r#type.is_empty() {
        let types: Result<Vec<DataType>, String> = list.r#type.iter().map(|&t| dtype(t)).collect();
        AttrValue::ListDataType(types?)
    } else if !list.shape.is_empty() {
        let shapes: Result<Vec<Vec<i64>>, String> = list.shape.iter().map(dims).collect();
        AttrValue::ListListInt(shapes?)
    } else if !list.tensor.is_empty() {
        let mut tensors = Attrs::new();
        for (i, tensor) in list.tensor.iter().enumerate() {
            tensors.set(i.to_string(), tensor_attr(tensor)?);
        }
        AttrValue::NamedAttrs(Box::new(NamedAttrs {
            name: String::new(),
            attrs: tensors,
        }))
    } else if !list.func.is_empty() {
        AttrValue::ListStr(list.func.iter().map(|f| f.name.clone()).collect())
    } else {
        // list(int), or an empty list of any kind.
        AttrValue::ListInt(list.i.clone())
    })
}

fn named_attrs(func: &NameAttrList) -> Result<NamedAttrs, String> {
    let attrs = convert_attrs(&func.attr)
        .map_err(|bad| format!("is function '{}' whose {bad}", func.name))?;
    Ok(NamedAttrs {
        name: func.name.clone(),
        attrs,
    })
}

fn dtype(value: i32) -> Result<DataType, String> {
    if is_ref(value) {
        return Err(format!(
            "is TensorFlow type {}, a reference type; attribute types must not be references",
            tf_dtype_name(value)
        ));
    }
    ge_dtype(value).ok_or_else(|| {
        format!(
            "is TensorFlow type {}, which opgraph does not support",
            tf_dtype_name(value)
        )
    })
}

/// A shape attribute as GE dims: unknown rank `[-2]`, unknown dim `-1`.
pub(super) fn dims(shape: &TensorShapeProto) -> Result<Vec<i64>, String> {
    if shape.unknown_rank {
        return Ok(vec![UNKNOWN_RANK]);
    }
    let dims: Vec<i64> = shape.dim.iter().map(|d| d.size).collect();
    if let Some(bad) = dims.iter().find(|&&d| d < -1) {
        return Err(format!(
            "is a shape with dim {bad}; dims must be >= 0, or -1 for unknown"
        ));
    }
    Ok(dims)
}
