//! `AttributeProto` → IR attribute values: INT → Int, FLOAT → Float,
//! STRING → Str (UTF-8), TENSOR → Tensor (or an opaque tensor), and the
//! list kinds → lists. GRAPH and GRAPHS (subgraph bodies) are converted by
//! [`super::graph`], which turns them into functions.

use super::external::ExternalFiles;
use super::pb;
use super::pb::attribute_proto::AttributeType as Kind;
use super::tensor::tensor_value;
use crate::types::AttrValue;

/// The attribute's kind: `type`, or for files that leave it unset (old
/// exporters), the field that holds a value.
pub(super) fn kind_of(attr: &pb::AttributeProto) -> Kind {
    match Kind::try_from(attr.r#type) {
        Ok(kind) if kind != Kind::Undefined => kind,
        _ if attr.g.is_some() => Kind::Graph,
        _ if attr.t.is_some() => Kind::Tensor,
        _ if !attr.graphs.is_empty() => Kind::Graphs,
        _ if !attr.tensors.is_empty() => Kind::Tensors,
        _ if !attr.ints.is_empty() => Kind::Ints,
        _ if !attr.floats.is_empty() => Kind::Floats,
        _ if !attr.strings.is_empty() => Kind::Strings,
        _ if !attr.s.is_empty() => Kind::String,
        _ if attr.f != 0.0 => Kind::Float,
        _ => Kind::Int,
    }
}

/// The value of a non-graph attribute; the error says what is wrong, for
/// the caller to prefix with the node and attribute.
pub(super) fn attr_value(
    attr: &pb::AttributeProto,
    external: &mut ExternalFiles,
) -> Result<AttrValue, String> {
    Ok(match kind_of(attr) {
        Kind::Int => AttrValue::Int(attr.i),
        Kind::Float => AttrValue::Float(f64::from(attr.f)),
        Kind::String => AttrValue::Str(utf8(&attr.s)?),
        Kind::Ints => AttrValue::ListInt(attr.ints.clone()),
        Kind::Floats => AttrValue::ListFloat(attr.floats.iter().map(|&f| f64::from(f)).collect()),
        Kind::Strings => AttrValue::ListStr(
            attr.strings
                .iter()
                .map(|s| utf8(s))
                .collect::<Result<_, _>>()?,
        ),
        Kind::Tensor => match &attr.t {
            Some(t) => tensor_value(t, external).map_err(|e| format!("holds a tensor that {e}"))?,
            None => return Err("is a TENSOR attribute without a tensor".into()),
        },
        other => {
            return Err(format!(
                "is of kind {}, which opgraph does not read",
                other.as_str_name()
            ))
        }
    })
}

fn utf8(bytes: &[u8]) -> Result<String, String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        format!(
            "holds a string that is not UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}
