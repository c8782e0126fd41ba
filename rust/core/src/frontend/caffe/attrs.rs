//! A layer's parameters as the attributes of its framework op, with the
//! rules of GE's Caffe parser (`CaffeModelParser::ParseOperatorAttrs`,
//! which walks the LayerParameter with protobuf reflection) plus what the
//! IR can hold that GE's attributes cannot.
//!
//! # Which fields
//! Every set field of the layer message, except `name`, `type`, `phase`,
//! `include`, `exclude` and `blobs` (the op's name and type, what selected
//! the layer, and its weights, which are inputs). `bottom` and `top` stay,
//! as in GE: a plugin needs them to tell bottoms from weight inputs and to
//! count outputs. V1 layers likewise (`layer`, a V0 layer, is rejected
//! earlier).
//!
//! # Field → attribute
//! - int32, int64, sint*, fixed*, uint32, enum → Int; uint64 → Int (a value
//!   above i64::MAX is an error naming the field). float, double → Float
//!   (the IR's Float is f64, so doubles are exact). bool → Bool. string →
//!   Str; bytes → Str with invalid UTF-8 replaced by U+FFFD.
//! - An enum is its number (GE) and, in addition, its value name in a Str
//!   attribute `<field>_name` (e.g. `pool` = 1, `pool_name` = "AVE"), unless
//!   a real field already has that name.
//! - A repeated scalar is a list (ListInt, ListFloat, ListBool, ListStr;
//!   enums ListInt plus ListStr `<field>_name`).
//! - A repeated message is one Str attribute holding JSON, as GE's
//!   `Pb2Json::RepeatedMessage2Json`: `{"<field>": [ {...}, ... ]}`, pretty
//!   printed with 2-space indents, proto field names, enums as numbers,
//!   64-bit integers as JSON numbers, only set fields.
//! - A singular message is flattened: its fields become attributes of the
//!   op by their plain names (`convolution_param { num_output: 8 }` →
//!   `num_output` = 8), recursively, down to 5 message levels counting the
//!   layer (GE's limit; deeper is an error).
//!
//! # Defaults
//! For every flattened message (not the layer itself), fields that are not
//! set but declare a proto2 `[default = ...]` are included with that
//! default, so plugins see Caffe's defaults (`bias_term` = true, `pool` =
//! MAX, `dropout_ratio` = 0.5 …). Fields without a declared default stay
//! absent (`kernel_h`, `stride_h`, `num_output`), so presence still means
//! "given". Exceptions, where Caffe reads a field only when it is set and a
//! filled-in default would hide that: `pad_h`/`pad_w` of
//! ConvolutionParameter and PoolingParameter (they override `pad`),
//! `concat_dim` and `slice_dim` (they override `axis`), and
//! LossParameter's `normalization` (its absence defers to `normalize`).
//!
//! # Name clashes
//! Flattening puts every level in one namespace. The shallowest field wins
//! (a layer's `*_param` fields beat the fields of its fillers); at the same
//! depth a set field beats a filled-in default, then the first in
//! field-number order of the enclosing messages wins (`weight_filler`'s
//! `type` over `bias_filler`'s). Enum `_name` attributes come last. GE
//! instead lets the last field written win; opgraph keeps the outer, given
//! value.
//!
//! A dropped field that the net sets (not a filled-in default) is reported
//! in [`LayerAttrs::shadowed`], so the loader can warn once per layer type;
//! the structured view ([`super::params`]) keeps every field.

use super::message::as_int;
use crate::types::{AttrValue, Attrs};
use prost_reflect::{
    DynamicMessage, FieldDescriptor, Kind, ReflectMessage, SerializeOptions, Value,
};
use std::borrow::Cow;

/// Layer fields that are not attributes.
pub(super) const SKIPPED: &[&str] = &[
    "name", "type", "phase", "include", "exclude", "blobs", "layer",
];

/// GE's deepest message level, counting the layer as 1.
pub const MAX_MESSAGE_DEPTH: usize = 5;

/// Fields whose declared default is not filled in: Caffe tests their
/// presence (`has_pad_h()` …). By message name, then field name.
const PRESENCE_ONLY: &[(&str, &str)] = &[
    ("ConvolutionParameter", "pad_h"),
    ("ConvolutionParameter", "pad_w"),
    ("PoolingParameter", "pad_h"),
    ("PoolingParameter", "pad_w"),
    ("ConcatParameter", "concat_dim"),
    ("SliceParameter", "slice_dim"),
    ("LossParameter", "normalization"),
];

/// The suffix of the Str attribute naming an enum value.
pub const ENUM_NAME_SUFFIX: &str = "_name";

/// A layer's flattened attributes and the set fields flattening dropped.
pub(super) struct LayerAttrs {
    pub attrs: Attrs,
    /// `(kept path, dropped path)` for each set field whose name an earlier
    /// field took (`convolution_param.weight_filler.type`,
    /// `convolution_param.bias_filler.type`).
    pub shadowed: Vec<(String, String)>,
}

/// The attributes of `layer`, or why one field cannot be one.
pub(super) fn layer_attrs(layer: &DynamicMessage) -> Result<LayerAttrs, String> {
    let mut out = Flattened::default();
    // Breadth first: all fields of one depth before the next depth.
    let mut level: Vec<(&DynamicMessage, String)> = vec![(layer, String::new())];
    let mut depth = 1;
    while !level.is_empty() {
        if depth > MAX_MESSAGE_DEPTH {
            return Err(format!(
                "field '{}' nests messages more than {MAX_MESSAGE_DEPTH} levels deep (counting \
                 the layer), the most GE flattens into attributes",
                level[0].1
            ));
        }
        let mut next = Vec::new();
        // Set fields of this depth first, then the defaults of this depth.
        let mut defaults = Vec::new();
        for (message, path) in &level {
            for field in fields_by_number(message) {
                let path = field_path(path, &field);
                if depth == 1 && SKIPPED.contains(&field.name()) {
                    continue;
                }
                if message.has_field(&field) {
                    match message.get_field(&field) {
                        Cow::Borrowed(Value::Message(nested)) => next.push((nested, path)),
                        value => out.add(&field, &value, &path, true)?,
                    }
                } else if depth > 1 && fills_default(message, &field) {
                    defaults.push((*message, field, path));
                }
            }
        }
        for (message, field, path) in defaults {
            out.add(&field, &message.get_field(&field), &path, false)?;
        }
        level = next;
        depth += 1;
    }
    Ok(out.finish())
}

/// Attributes in the making: real fields first, enum names after.
#[derive(Default)]
struct Flattened {
    attrs: Attrs,
    /// The field path each attribute came from, in `attrs` order.
    paths: Vec<String>,
    enum_names: Vec<(String, AttrValue)>,
    shadowed: Vec<(String, String)>,
}

impl Flattened {
    /// Adds field `path`; `set` tells a value the net gives from a filled-in
    /// default (only a given value lost to a clash is reported).
    fn add(
        &mut self,
        field: &FieldDescriptor,
        value: &Value,
        path: &str,
        set: bool,
    ) -> Result<(), String> {
        let name = field.name();
        let kind = field.kind();
        let attr = match (value, &kind) {
            (Value::List(items), Kind::Message(_)) => AttrValue::Str(
                repeated_json(name, items)
                    .map_err(|e| format!("field '{path}' cannot be written as JSON: {e}"))?,
            ),
            (Value::List(items), kind) => {
                list_attr(items, kind).map_err(|why| format!("field '{path}' {why}"))?
            }
            (value, _) => scalar_attr(value).map_err(|why| format!("field '{path}' {why}"))?,
        };
        if let Some(names) = enum_value_names(value, &kind) {
            self.enum_names
                .push((format!("{name}{ENUM_NAME_SUFFIX}"), names));
        }
        let taken = self.attrs.iter().position(|(n, _)| n == name);
        match taken {
            None => {
                self.attrs.set(name, attr);
                self.paths.push(path.to_owned());
            }
            Some(i) if set => self.shadowed.push((self.paths[i].clone(), path.to_owned())),
            Some(_) => {}
        }
        Ok(())
    }

    fn finish(mut self) -> LayerAttrs {
        for (name, value) in std::mem::take(&mut self.enum_names) {
            set_if_absent(&mut self.attrs, &name, value);
        }
        LayerAttrs {
            attrs: self.attrs,
            shadowed: self.shadowed,
        }
    }
}

fn set_if_absent(attrs: &mut Attrs, name: &str, value: AttrValue) {
    if attrs.get(name).is_none() {
        attrs.set(name, value);
    }
}

fn field_path(parent: &str, field: &FieldDescriptor) -> String {
    if parent.is_empty() {
        field.name().to_owned()
    } else {
        format!("{parent}.{}", field.name())
    }
}

pub(super) fn fields_by_number(message: &DynamicMessage) -> Vec<FieldDescriptor> {
    let mut fields: Vec<FieldDescriptor> = message.descriptor().fields().collect();
    fields.sort_by_key(FieldDescriptor::number);
    fields
}

/// Whether an unset field of a flattened message shows its default.
pub(super) fn fills_default(message: &DynamicMessage, field: &FieldDescriptor) -> bool {
    let declared = field.field_descriptor_proto().default_value.is_some();
    let owner = message.descriptor();
    declared
        && !field.is_list()
        && !PRESENCE_ONLY
            .iter()
            .any(|&(m, f)| m == owner.name() && f == field.name())
}

fn scalar_attr(value: &Value) -> Result<AttrValue, String> {
    Ok(match value {
        Value::Bool(b) => AttrValue::Bool(*b),
        Value::F32(f) => AttrValue::Float(f64::from(*f)),
        Value::F64(f) => AttrValue::Float(*f),
        Value::String(s) => AttrValue::Str(s.clone()),
        Value::Bytes(b) => AttrValue::Str(String::from_utf8_lossy(b).into_owned()),
        Value::U64(u) => AttrValue::Int(uint64(*u)?),
        other => AttrValue::Int(
            as_int(other).ok_or_else(|| format!("has a value opgraph cannot read ({other:?})"))?,
        ),
    })
}

pub(super) fn uint64(value: u64) -> Result<i64, String> {
    i64::try_from(value).map_err(|_| {
        format!(
            "is the uint64 {value}, above the largest int attribute ({})",
            i64::MAX
        )
    })
}

fn list_attr(items: &[Value], kind: &Kind) -> Result<AttrValue, String> {
    let scalars: Result<Vec<AttrValue>, String> = items.iter().map(scalar_attr).collect();
    let scalars = scalars?;
    Ok(match kind {
        Kind::Bool => AttrValue::ListBool(
            scalars
                .iter()
                .filter_map(|v| match v {
                    AttrValue::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect(),
        ),
        Kind::Float | Kind::Double => AttrValue::ListFloat(
            scalars
                .iter()
                .filter_map(|v| match v {
                    AttrValue::Float(f) => Some(*f),
                    _ => None,
                })
                .collect(),
        ),
        Kind::String | Kind::Bytes => AttrValue::ListStr(
            scalars
                .into_iter()
                .filter_map(|v| match v {
                    AttrValue::Str(s) => Some(s),
                    _ => None,
                })
                .collect(),
        ),
        _ => AttrValue::ListInt(
            scalars
                .iter()
                .filter_map(|v| match v {
                    AttrValue::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
        ),
    })
}

/// The value name(s) of an enum field: Str, or ListStr for a list. A
/// number the enum does not declare is named by its number.
fn enum_value_names(value: &Value, kind: &Kind) -> Option<AttrValue> {
    let Kind::Enum(descriptor) = kind else {
        return None;
    };
    let name = |number: i32| {
        descriptor
            .get_value(number)
            .map_or_else(|| number.to_string(), |v| v.name().to_owned())
    };
    match value {
        Value::EnumNumber(n) => Some(AttrValue::Str(name(*n))),
        Value::List(items) => Some(AttrValue::ListStr(
            items
                .iter()
                .filter_map(|v| v.as_enum_number().map(name))
                .collect(),
        )),
        _ => None,
    }
}

/// GE's JSON for a repeated message field.
fn repeated_json(name: &str, items: &[Value]) -> Result<String, serde_json::Error> {
    let options = SerializeOptions::new()
        .use_proto_field_name(true)
        .use_enum_numbers(true)
        .stringify_64_bit_integers(false)
        .skip_default_fields(true);
    let mut list = Vec::with_capacity(items.len());
    for item in items.iter().filter_map(Value::as_message) {
        list.push(item.serialize_with_options(serde_json::value::Serializer, &options)?);
    }
    let mut object = serde_json::Map::new();
    object.insert(name.to_owned(), serde_json::Value::Array(list));
    serde_json::to_string_pretty(&serde_json::Value::Object(object))
}
