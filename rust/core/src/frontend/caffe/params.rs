//! A layer's parameter messages with their structure, for plugins that need
//! what flattening ([`super::attrs`]) loses: two fields of one name in
//! different sub-messages, repeated fields that are empty, enum names.
//!
//! # Which fields
//! The layer's message-typed fields (`convolution_param`, a custom
//! `prior_box_param`, the repeated `param` …): singular ones when set,
//! repeated ones when not empty. Inside a message:
//! - a repeated field is always present, as a list (empty when unset);
//! - a singular scalar is present when set, or when it declares a proto2
//!   `[default = ...]` that Caffe would read (the flattened view's rule:
//!   presence-only fields such as `pad_h` stay absent until set);
//! - a singular message is present when set;
//! - an enum is its value name and number.

use super::attrs::{fields_by_number, fills_default, uint64, SKIPPED};
use crate::frontend::ParamValue;
use prost_reflect::{DynamicMessage, Kind, Value};

/// The layer's message-typed fields as structured values, by field name.
pub(super) fn layer_params(layer: &DynamicMessage) -> Vec<(String, ParamValue)> {
    let mut out = Vec::new();
    for field in fields_by_number(layer) {
        if SKIPPED.contains(&field.name()) || !matches!(field.kind(), Kind::Message(_)) {
            continue;
        }
        if layer.has_field(&field) {
            let v = layer.get_field(&field);
            out.push((field.name().to_owned(), scalar(&v, &field.kind())));
        }
    }
    out
}

fn message(message: &DynamicMessage) -> ParamValue {
    let mut fields = Vec::new();
    for field in fields_by_number(message) {
        let kind = field.kind();
        let present = field.is_list()
            || message.has_field(&field)
            || (!matches!(kind, Kind::Message(_)) && fills_default(message, &field));
        if present {
            let v = message.get_field(&field);
            fields.push((field.name().to_owned(), scalar(&v, &kind)));
        }
    }
    ParamValue::Message(fields)
}

fn scalar(v: &Value, kind: &Kind) -> ParamValue {
    match v {
        Value::Bool(b) => ParamValue::Bool(*b),
        Value::I32(i) => ParamValue::Int(i64::from(*i)),
        Value::I64(i) => ParamValue::Int(*i),
        Value::U32(u) => ParamValue::Int(i64::from(*u)),
        Value::U64(u) => uint64(*u).map_or(ParamValue::UInt(*u), ParamValue::Int),
        Value::F32(f) => ParamValue::Float(f64::from(*f)),
        Value::F64(f) => ParamValue::Float(*f),
        Value::String(s) => ParamValue::Str(s.clone()),
        Value::Bytes(b) => ParamValue::Bytes(b.to_vec()),
        Value::EnumNumber(number) => {
            let name = match kind {
                Kind::Enum(e) => e.get_value(*number).map(|v| v.name().to_owned()),
                _ => None,
            };
            ParamValue::Enum {
                name: name.unwrap_or_else(|| number.to_string()),
                number: *number,
            }
        }
        Value::Message(m) => message(m),
        Value::List(items) => ParamValue::List(items.iter().map(|i| scalar(i, kind)).collect()),
        // Maps do not occur in caffe.proto; a custom proto's map reads as
        // its entries.
        Value::Map(entries) => {
            ParamValue::List(entries.values().map(|v| scalar(v, kind)).collect())
        }
    }
}
