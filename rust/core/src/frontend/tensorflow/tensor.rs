//! TensorProto → host tensor. `tensor_content` is borrowed (a slice of the
//! decoded buffer, so of the memory-mapped file); the typed value fields are
//! expanded with TensorFlow's rule: fewer values than elements repeat the
//! last value, no values at all mean zeros. One value (or none) for many
//! elements stays a splat ([`HostTensor::splat`]): 4 bytes, not the 1 GiB a
//! 90-byte Const of shape [16384, 16384] would expand to.
//!
//! Tensors GE cannot hold as host bytes — DT_STRING (GE sizes a string
//! element as a 16-byte descriptor, not its text), DT_RESOURCE, DT_VARIANT,
//! and the sub-byte types (TensorFlow stores one element per byte, GE packs
//! them) — become an *opaque tensor*: an [`AttrValue::NamedAttrs`] named
//! [`OPAQUE_TENSOR`] with `dtype` (DataType) and `shape` (ListInt), plus
//! `string_val` (ListStr, values as stored, before the repeat rule) for
//! strings. A Const holding one has a known dtype and shape but no value.

use super::dtype::{ge_dtype, is_ref, tf_dtype_name};
use super::{attrs, pb};
use crate::types::{AttrValue, Attrs, DataType, HostTensor, NamedAttrs, Shape};
use bytes::Bytes;

pub use crate::frontend::framework::OPAQUE_TENSOR;

/// The most bytes one constant may expand to from its typed value fields.
/// A splat (one value for many elements) is tiny in the file but not in
/// memory; past this, decoding fails instead of exhausting memory.
pub const MAX_EXPANDED_BYTES: usize = 1 << 30;

/// `tensor` as an attribute value: [`AttrValue::Tensor`], or an opaque tensor.
/// The error says what is wrong, for the caller to prefix with the node.
pub(super) fn tensor_attr(tensor: &pb::TensorProto) -> Result<AttrValue, String> {
    if is_ref(tensor.dtype) {
        return Err(format!(
            "is a tensor of TensorFlow type {}, a reference type; a tensor value cannot have one",
            tf_dtype_name(tensor.dtype)
        ));
    }
    let dtype = ge_dtype(tensor.dtype).ok_or_else(|| {
        format!(
            "is a tensor of TensorFlow type {}, which opgraph does not support",
            tf_dtype_name(tensor.dtype)
        )
    })?;
    let shape = static_shape(tensor.tensor_shape.as_ref())?;
    if dtype == DataType::String && !tensor.tensor_content.is_empty() {
        let strings = string_list(&tensor.tensor_content, element_count(&shape)?)?;
        return Ok(opaque(dtype, &shape, &strings));
    }
    if is_opaque(dtype) {
        return Ok(opaque(dtype, &shape, &tensor.string_val));
    }
    let count = element_count(&shape)?;
    let value = if tensor.tensor_content.is_empty() {
        match typed_values(tensor, dtype, count)? {
            Expanded::Dense(data) => HostTensor::new(dtype, shape, data),
            Expanded::Splat(element) => HostTensor::splat(dtype, shape, element),
        }
    } else {
        HostTensor::new(dtype, shape, tensor.tensor_content.clone())
    };
    value
        .map(AttrValue::Tensor)
        .map_err(|e| format!("is a tensor whose content does not match its shape: {e}"))
}

/// A DT_STRING `tensor_content`: TensorFlow's string list encoding, the
/// `count` lengths as varint32s, then the bytes of every string in order
/// (and nothing else), as TensorFlow's DecodeStringList requires.
fn string_list(content: &Bytes, count: usize) -> Result<Vec<Bytes>, String> {
    let bad = |why: String| {
        format!("is a string tensor whose tensor_content is not a string list: {why}")
    };
    let mut rest: &[u8] = content;
    let mut lengths = Vec::new();
    for i in 0..count {
        // Each length is at least one byte, so a short buffer fails early.
        if rest.is_empty() {
            return Err(bad(format!("it holds {i} lengths for {count} strings")));
        }
        let len = prost::encoding::decode_varint(&mut rest)
            .map_err(|e| bad(format!("length {i}: {e}")))?;
        let len = u32::try_from(len)
            .map_err(|_| bad(format!("length {i} is {len}, more than a varint32")))?;
        lengths.push(len as usize);
    }
    let total: u128 = lengths.iter().map(|&n| n as u128).sum();
    if total != rest.len() as u128 {
        return Err(bad(format!(
            "the {count} lengths add up to {total} bytes but {} follow them",
            rest.len()
        )));
    }
    let mut at = content.len() - rest.len();
    Ok(lengths
        .into_iter()
        .map(|n| {
            let s = content.slice(at..at + n);
            at += n;
            s
        })
        .collect())
}

fn is_opaque(dtype: DataType) -> bool {
    matches!(
        dtype,
        DataType::String | DataType::Resource | DataType::Variant
    ) || dtype.bits().is_some_and(|bits| bits < 8)
}

fn opaque(dtype: DataType, shape: &Shape, strings: &[Bytes]) -> AttrValue {
    let mut attrs = Attrs::new();
    attrs.set("dtype", AttrValue::DataType(dtype));
    attrs.set("shape", AttrValue::ListInt(shape.dims().to_vec()));
    if dtype == DataType::String {
        let values = strings.iter().map(|s| attrs::text(s)).collect();
        attrs.set("string_val", AttrValue::ListStr(values));
    }
    AttrValue::NamedAttrs(Box::new(NamedAttrs {
        name: OPAQUE_TENSOR.to_owned(),
        attrs,
    }))
}

/// A constant's shape: absent means a scalar; every dim must be known.
fn static_shape(shape: Option<&pb::TensorShapeProto>) -> Result<Shape, String> {
    let Some(shape) = shape else {
        return Ok(Shape::scalar());
    };
    let dims: Vec<i64> = shape.dim.iter().map(|d| d.size).collect();
    if shape.unknown_rank || dims.iter().any(|&d| d < 0) {
        return Err(format!(
            "is a tensor of shape {dims:?}{}, but a tensor value needs every dim known (>= 0)",
            if shape.unknown_rank {
                " with unknown rank"
            } else {
                ""
            }
        ));
    }
    Shape::new(dims).map_err(|e| format!("is a tensor with a bad shape: {e}"))
}

fn element_count(shape: &Shape) -> Result<usize, String> {
    match shape.num_elements() {
        Ok(Some(n)) => usize::try_from(n).map_err(|_| format!("has {n} elements")),
        _ => Err(format!("is a tensor of shape {shape} whose size overflows")),
    }
}

/// The elements from the typed field `dtype` uses, expanded to `count`.
fn typed_values(t: &pb::TensorProto, dtype: DataType, count: usize) -> Result<Expanded, String> {
    let n = Expansion {
        count,
        width: dtype
            .bytes_for(1)
            .and_then(|w| usize::try_from(w).ok())
            .unwrap_or(0),
    };
    // TensorFlow keeps 8- and 16-bit integers in int32 and truncates them.
    match dtype {
        DataType::Float => n.expand(&t.float_val, |v, o| o.extend(v.to_le_bytes())),
        DataType::Double => n.expand(&t.double_val, |v, o| o.extend(v.to_le_bytes())),
        DataType::Int32 | DataType::Qint32 => {
            n.expand(&t.int_val, |v, o| o.extend(v.to_le_bytes()))
        }
        DataType::Int16 | DataType::Qint16 => {
            n.expand(&t.int_val, |v, o| o.extend((v as i16).to_le_bytes()))
        }
        DataType::Uint16 | DataType::Quint16 => {
            n.expand(&t.int_val, |v, o| o.extend((v as u16).to_le_bytes()))
        }
        DataType::Int8 | DataType::Qint8 => n.expand(&t.int_val, |v, o| o.push(v as i8 as u8)),
        DataType::Uint8 | DataType::Quint8 => n.expand(&t.int_val, |v, o| o.push(v as u8)),
        DataType::Int64 => n.expand(&t.int64_val, |v, o| o.extend(v.to_le_bytes())),
        DataType::Uint32 => n.expand(&t.uint32_val, |v, o| o.extend(v.to_le_bytes())),
        DataType::Uint64 => n.expand(&t.uint64_val, |v, o| o.extend(v.to_le_bytes())),
        DataType::Bool => n.expand(&t.bool_val, |v, o| o.push(u8::from(v))),
        // half_val holds the 16 bits of a HALF or BFLOAT16 in an int32.
        DataType::Float16 | DataType::Bf16 => {
            n.expand(&t.half_val, |v, o| o.extend((v as u16).to_le_bytes()))
        }
        DataType::Complex64 => n.expand(&pairs(&t.scomplex_val)?, |[re, im], o| {
            o.extend(re.to_le_bytes());
            o.extend(im.to_le_bytes());
        }),
        DataType::Complex128 => n.expand(&pairs(&t.dcomplex_val)?, |[re, im], o| {
            o.extend(re.to_le_bytes());
            o.extend(im.to_le_bytes());
        }),
        other => Err(format!(
            "is a {other} tensor, which has no typed value field"
        )),
    }
}

/// Complex values are stored as (real, imaginary) pairs.
fn pairs<T: Copy>(parts: &[T]) -> Result<Vec<[T; 2]>, String> {
    if parts.len() % 2 != 0 {
        return Err(format!(
            "is a complex tensor with {} parts, not (real, imaginary) pairs",
            parts.len()
        ));
    }
    Ok(parts.chunks_exact(2).map(|p| [p[0], p[1]]).collect())
}

/// Typed values as a tensor's content: every element, or one element that
/// repeats over the whole shape (kept symbolic, see [`HostTensor::splat`]).
enum Expanded {
    Dense(Bytes),
    Splat(Bytes),
}

/// `count` elements of `width` bytes to be written from typed values.
struct Expansion {
    count: usize,
    width: usize,
}

impl Expansion {
    /// `values` written out with `write` (which must write `width` bytes)
    /// and padded to `count` elements by TensorFlow's rule.
    fn expand<T: Copy>(
        &self,
        values: &[T],
        write: impl Fn(T, &mut Vec<u8>),
    ) -> Result<Expanded, String> {
        if values.len() > self.count {
            return Err(format!(
                "is a tensor of {} elements holding {} values",
                self.count,
                values.len()
            ));
        }
        let total = match self.count.checked_mul(self.width) {
            Some(total) if total <= MAX_EXPANDED_BYTES => total,
            _ => {
                return Err(format!(
                    "is a tensor of {} elements from {} typed values, more than the \
                     {MAX_EXPANDED_BYTES} bytes opgraph expands typed values to \
                     (tensor_content has no such limit)",
                    self.count,
                    values.len()
                ))
            }
        };
        // One value (or none: zeros) for several elements is a splat. It
        // stays under the same cap, so expanding it later is bounded too.
        if values.len() <= 1 && self.count > 1 && self.width > 0 {
            let mut element = Vec::with_capacity(self.width);
            match values.first() {
                Some(&v) => write(v, &mut element),
                None => element.resize(self.width, 0),
            }
            return Ok(Expanded::Splat(Bytes::from(element)));
        }
        let mut out = Vec::new();
        out.try_reserve_exact(total).map_err(|_| {
            format!("expands to {total} bytes, more than this machine can allocate")
        })?;
        if values.is_empty() {
            out.resize(total, 0);
            return Ok(Expanded::Dense(Bytes::from(out)));
        }
        for &v in values {
            write(v, &mut out);
        }
        // Repeat the last element, doubling the copied run each time.
        let run_start = out.len().saturating_sub(self.width);
        while out.len() < total {
            let take = (out.len() - run_start).min(total - out.len());
            if take == 0 {
                break; // a zero-width writer; HostTensor::new reports the size
            }
            out.extend_from_within(run_start..run_start + take);
        }
        Ok(Expanded::Dense(Bytes::from(out)))
    }
}
