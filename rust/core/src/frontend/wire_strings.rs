//! `string` fields kept as [`Bytes`] slices of the encoded message (no
//! copy), for the decoders that borrow node messages from the model file
//! (TensorFlow's NodeDef, ONNX's NodeProto). The wire handling is prost's
//! own (`prost::encoding`); what is added is the UTF-8 rule a generated
//! decoder applies to a `string` field, so that exactly the bytes the
//! generated message accepts are accepted.
//!
//! A singular field that occurs twice keeps the last occurrence, but the
//! generated decoder checks every occurrence: [`merge_string`] checks the
//! one being replaced. The occurrence kept, and every element of a repeated
//! field, is checked by the caller once it reads the field (a view of the
//! message), so each is checked once.

use bytes::{Buf, Bytes};
use prost::encoding::{bytes as wire_bytes, DecodeContext, WireType};
use prost::DecodeError;

/// Merges one occurrence of a `string` field into `value`, first rejecting
/// the occurrence it replaces if that is not UTF-8, as a `string` field's
/// decoder would have.
pub(crate) fn merge_string(
    wire_type: WireType,
    value: &mut Bytes,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    // Usually the field's first occurrence: nothing to check yet.
    if !value.is_empty() && std::str::from_utf8(value).is_err() {
        return Err(invalid_string());
    }
    wire_bytes::merge(wire_type, value, buf, ctx)
}

/// prost's own error for a `string` field that is not UTF-8 (what a
/// generated decoder returns), made by prost's string decoder on a
/// one-byte non-UTF-8 string.
pub(crate) fn invalid_string() -> DecodeError {
    let mut text = String::new();
    let mut not_utf8: &[u8] = &[1, 0xff];
    prost::encoding::string::merge(
        WireType::LengthDelimited,
        &mut text,
        &mut not_utf8,
        DecodeContext::default(),
    )
    .err()
    .unwrap_or_else(|| unreachable!("0xff alone is not UTF-8"))
}
