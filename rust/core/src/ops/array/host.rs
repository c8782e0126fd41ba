//! Host evaluation for value folding of the array ops.
//!
//! Array ops move elements without computing on them, so folding works on
//! raw element bytes for any byte-aligned dtype: an [`Elems`] holds each
//! element as a known little-endian chunk or as unknown. Unknown elements
//! let a partially known shape vector (`Shape` of `[?, 224, 224, 3]`) keep
//! its known entries through gathers, slices, packs and concatenations.

// Index arithmetic here runs on tensors the engine has bounded: inputs by
// MAX_INPUT_ELEMS, outputs by the fold limit, so it stays far below usize.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by MAX_INPUT_ELEMS and the fold limit"
)]

use crate::infer::OpContext;
use crate::op::OpError;
use crate::ops::ranges::{self, ANY};
use crate::types::{DataType, HostTensor, Shape, TensorDesc, UNKNOWN_DIM};
use bytes::Bytes;

/// Bounds the element count of an input folding will expand (its value
/// already sits in memory; this caps the per-element copy). Values that
/// matter to shapes are small; a slice of a weight matrix (an ONNX LSTM's
/// gates, cut with Slice) is not worth a 32-byte-per-element copy of the
/// whole weight, which made folding the larger part of loading such models.
const MAX_INPUT_ELEMS: usize = 1 << 16;

/// A folded tensor of static shape, element by element (`None` = unknown).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Elems {
    pub dtype: DataType,
    pub dims: Vec<i64>,
    /// Raw little-endian bytes of each element, zero-extended.
    pub items: Vec<Option<u128>>,
    /// Per element, inclusive `(min, max)` bounds (`max == -1` unbounded)
    /// where the element is unknown: a shape vector's value range. Empty
    /// when nothing bounds any element.
    pub bounds: Vec<(i64, i64)>,
}

/// 2^53: every integer up to this magnitude is exact in an f64.
const EXACT_IN_F64: f64 = 9_007_199_254_740_992.0;

/// One element's value for host arithmetic.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Number {
    Int(i64),
    Float(f64),
}

/// Bytes per element when folding can move this dtype's elements as raw
/// chunks (byte-aligned, at most 16 bytes, not a handle or string).
fn width(dtype: DataType) -> Option<usize> {
    if matches!(
        dtype,
        DataType::String
            | DataType::StringRef
            | DataType::Resource
            | DataType::Variant
            | DataType::Undefined
    ) {
        return None;
    }
    let bits = dtype.bits()? as usize;
    (bits % 8 == 0 && (8..=128).contains(&bits)).then_some(bits / 8)
}

/// Sign- or zero-extends a raw integer element to `i64`.
fn raw_to_int(dtype: DataType, raw: u128) -> Option<i64> {
    Some(match dtype {
        DataType::Int8 => raw as u8 as i8 as i64,
        DataType::Int16 => raw as u16 as i16 as i64,
        DataType::Int32 => raw as u32 as i32 as i64,
        DataType::Int64 => raw as u64 as i64,
        DataType::Uint8 | DataType::Bool => raw as u8 as i64,
        DataType::Uint16 => raw as u16 as i64,
        DataType::Uint32 => raw as u32 as i64,
        DataType::Uint64 => i64::try_from(raw as u64).ok()?,
        _ => return None,
    })
}

/// The raw element of an integer dtype holding `v`, or `None` when `v` does
/// not fit (folding then leaves the element unknown rather than wrap).
fn int_to_raw(dtype: DataType, v: i64) -> Option<u128> {
    let fits = match dtype {
        DataType::Int8 => i8::try_from(v).is_ok(),
        DataType::Int16 => i16::try_from(v).is_ok(),
        DataType::Int32 => i32::try_from(v).is_ok(),
        DataType::Int64 => true,
        DataType::Uint8 => u8::try_from(v).is_ok(),
        DataType::Uint16 => u16::try_from(v).is_ok(),
        DataType::Uint32 => u32::try_from(v).is_ok(),
        DataType::Uint64 => v >= 0,
        DataType::Bool => v == 0 || v == 1,
        _ => false,
    };
    let bytes = width(dtype)? * 8;
    fits.then(|| (v as u128) & mask(bytes))
}

fn mask(bits: usize) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Element count of static `dims` (callers pass shapes the engine has
/// already bounded by the fold limit).
pub(crate) fn count(dims: &[i64]) -> usize {
    dims.iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d.max(0) as usize))
        .unwrap_or(usize::MAX)
}

/// Row-major strides of static `dims`.
pub(crate) fn strides(dims: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1].max(0) as usize;
    }
    s
}

/// Calls `f` with every multi-index of static `dims` in row-major order.
pub(crate) fn for_each_index(dims: &[i64], mut f: impl FnMut(&[i64])) {
    if dims.iter().any(|&d| d <= 0) {
        if dims.is_empty() {
            f(&[]);
        }
        return;
    }
    let mut index = vec![0i64; dims.len()];
    loop {
        f(&index);
        let mut axis = dims.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] < dims[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
}

impl Elems {
    /// All-unknown elements of a static shape.
    pub fn unknown(dtype: DataType, dims: &[i64]) -> Elems {
        Elems {
            dtype,
            dims: dims.to_vec(),
            items: vec![None; count(dims)],
            bounds: Vec::new(),
        }
    }

    /// True when input instance `i` records anything about its elements (a
    /// value, a partial shape value or a value range): folds whose result
    /// is unknown without it skip building [`Elems::unknown`] element by
    /// element (SSDlite compares 90 score tensors of 3,234 elements) unless
    /// the output is empty ([`Self::output_empty`]).
    pub fn input_informed(ctx: &OpContext<'_>, i: usize) -> bool {
        ctx.input_desc(i).is_some_and(|d| {
            d.value.is_some() || d.shape_value.is_some() || d.value_range.is_some()
        })
    }

    /// True when output `o` has a static shape with no elements: its value
    /// (empty) is known whatever the inputs hold.
    pub fn output_empty(ctx: &OpContext<'_>, o: usize) -> bool {
        ctx.output_desc(o)
            .is_some_and(|d| d.shape().num_elements() == Ok(Some(0)))
    }

    /// Input instance `i` as elements: its value, its partial shape value
    /// (for an int vector), or all unknown; `None` when its shape is not
    /// static, its dtype cannot be folded, or it is too large.
    pub fn input(ctx: &OpContext<'_>, i: usize) -> Option<Elems> {
        let desc = ctx.input_desc(i)?;
        let width = width(desc.dtype)?;
        let shape = desc.shape();
        let n = usize::try_from(shape.num_elements().ok()??).ok()?;
        if n > MAX_INPUT_ELEMS {
            return None;
        }
        if let Some(value) = &desc.value {
            return Elems::from_tensor(value, width);
        }
        let dims = shape.dims();
        if let (Some(partial), [len]) = (&desc.shape_value, dims) {
            if partial.dims().len() as i64 == *len {
                let items = partial
                    .dims()
                    .iter()
                    .map(|&d| {
                        (d != UNKNOWN_DIM)
                            .then(|| int_to_raw(desc.dtype, d))
                            .flatten()
                    })
                    .collect();
                return Some(Elems {
                    dtype: desc.dtype,
                    dims: dims.to_vec(),
                    items,
                    bounds: recorded_value_bounds(desc).unwrap_or_default(),
                });
            }
        }
        Some(Elems {
            bounds: recorded_value_bounds(desc).unwrap_or_default(),
            ..Elems::unknown(desc.dtype, dims)
        })
    }

    fn from_tensor(value: &HostTensor, width: usize) -> Option<Elems> {
        let dims = value.shape().dims().to_vec();
        if let Some(element) = value.splat_element() {
            // Read the one element; expanding the splat is not needed.
            let mut buf = [0u8; 16];
            buf.get_mut(..width)?.copy_from_slice(element.get(..width)?);
            return Some(Elems {
                dtype: value.dtype(),
                items: vec![Some(u128::from_le_bytes(buf)); count(&dims)],
                dims,
                bounds: Vec::new(),
            });
        }
        let data = value.bytes();
        let items = data
            .chunks_exact(width)
            .map(|c| {
                let mut buf = [0u8; 16];
                buf[..width].copy_from_slice(c);
                Some(u128::from_le_bytes(buf))
            })
            .collect::<Vec<_>>();
        (items.len() == count(&dims)).then(|| Elems {
            dtype: value.dtype(),
            dims,
            items,
            bounds: Vec::new(),
        })
    }

    /// Integer elements (`None` entries unknown) of an integer dtype.
    pub fn from_ints(dtype: DataType, dims: &[i64], values: &[Option<i64>]) -> Elems {
        Elems {
            dtype,
            dims: dims.to_vec(),
            items: values
                .iter()
                .map(|v| v.and_then(|v| int_to_raw(dtype, v)))
                .collect(),
            bounds: Vec::new(),
        }
    }

    /// Element `k` as a number (integer or float dtypes), when known.
    pub fn number_at(&self, k: usize) -> Option<Number> {
        let raw = (*self.items.get(k)?)?;
        raw_to_int(self.dtype, raw)
            .map(Number::Int)
            .or_else(|| raw_to_float(self.dtype, raw).map(Number::Float))
    }

    /// Elements from numbers (`None` entries unknown) in `dtype`: integers
    /// that do not fit and floats in an integer dtype become unknown.
    pub fn from_numbers(dtype: DataType, dims: &[i64], values: &[Option<Number>]) -> Elems {
        let raw = |n: Number| match n {
            Number::Int(v) => int_to_raw(dtype, v).or_else(|| float_to_raw(dtype, v as f64)),
            Number::Float(f) => float_to_raw(dtype, f),
        };
        Elems {
            dtype,
            dims: dims.to_vec(),
            items: values.iter().map(|v| v.and_then(raw)).collect(),
            bounds: Vec::new(),
        }
    }

    /// Element `k` as an integer, when known and of an integer dtype.
    pub fn int_at(&self, k: usize) -> Option<i64> {
        raw_to_int(self.dtype, (*self.items.get(k)?)?)
    }

    pub fn any_known(&self) -> bool {
        self.items.iter().any(Option::is_some)
    }

    /// The same elements viewed with new dims (Reshape, Squeeze, ...).
    pub fn reshaped(mut self, dims: &[i64]) -> Option<Elems> {
        (count(dims) == self.items.len()).then(|| {
            self.dims = dims.to_vec();
            self
        })
    }

    /// Records the elements on output `o`: the whole value when every
    /// element is known, else the known entries of an integer vector as a
    /// partial shape value (entries that are not valid dims become unknown),
    /// and the bounds of an integer scalar's or vector's unknown elements
    /// as its value range. A float scalar or vector keeps bounds too when
    /// its known elements are whole numbers: a size cast to float for an
    /// `arange` (YOLO's anchor grid).
    pub fn write(self, ctx: &mut OpContext<'_>, o: usize) -> Result<(), OpError> {
        if self.items.iter().all(Option::is_some) {
            let Some(width) = width(self.dtype) else {
                return Ok(());
            };
            let mut bytes = Vec::with_capacity(self.items.len() * width);
            for raw in self.items.iter().flatten() {
                bytes.extend_from_slice(&raw.to_le_bytes()[..width]);
            }
            if let Ok(t) =
                HostTensor::new(self.dtype, Shape::from_dims(&self.dims), Bytes::from(bytes))
            {
                ctx.set_output_value(o, t)?;
            }
            return Ok(());
        }
        let whole_floats = matches!(self.dtype, DataType::Float | DataType::Double)
            && (0..self.items.len()).all(|k| self.items[k].is_none() || self.whole_at(k).is_some());
        if self.dims.len() > 1 || !(self.dtype.is_index_type() || whole_floats) {
            return Ok(());
        }
        if self.dims.len() == 1 && self.any_known() && self.dtype.is_index_type() {
            let dims: Vec<i64> = (0..self.items.len())
                .map(|k| self.int_at(k).filter(|&d| d >= 0).unwrap_or(UNKNOWN_DIM))
                .collect();
            ctx.set_output_shape_value(o, Shape::from_dims(dims))?;
        }
        let bounded = (0..self.items.len())
            .any(|k| self.items[k].is_none() && self.bounds.get(k).is_some_and(|&b| b != ANY));
        if bounded {
            let bounds = (0..self.items.len()).map(|k| self.bound_at(k)).collect();
            ctx.set_output_value_range(o, bounds)?;
        }
        Ok(())
    }

    /// Gathers elements by flat source index (`None` = unknown element).
    pub fn pick(&self, dims: &[i64], sources: impl IntoIterator<Item = Option<usize>>) -> Elems {
        let sources: Vec<Option<usize>> = sources.into_iter().collect();
        let bounds = if self.bounds.is_empty() {
            Vec::new()
        } else {
            sources
                .iter()
                .map(|s| s.and_then(|s| self.bounds.get(s).copied()).unwrap_or(ANY))
                .collect()
        };
        Elems {
            dtype: self.dtype,
            dims: dims.to_vec(),
            items: sources
                .iter()
                .map(|s| s.and_then(|s| self.items.get(s).copied().flatten()))
                .collect(),
            bounds,
        }
    }

    /// Per element of 1-D input `i`, its bounds (see [`Elems::bound_at`]):
    /// what is known of a shape vector's entries, each a valid dim range.
    /// `None` when the input is not a vector that folding can read.
    pub fn vector_bounds(ctx: &OpContext<'_>, i: usize) -> Option<Vec<(i64, i64)>> {
        let e = Elems::input(ctx, i).filter(|e| e.dims.len() == 1)?;
        Some(
            (0..e.items.len())
                .map(|k| ranges::of_dim(UNKNOWN_DIM, Some(e.bound_at(k))))
                .collect(),
        )
    }

    /// Element `k` as an integer: an integer element, or a float one that
    /// is a whole number within f64's exact integers.
    pub fn whole_at(&self, k: usize) -> Option<i64> {
        match self.number_at(k)? {
            Number::Int(v) => Some(v),
            Number::Float(f) => (f.fract() == 0.0 && f.abs() <= EXACT_IN_F64).then_some(f as i64),
        }
    }

    /// Element `k`'s bounds: `(v, v)` when known, else its recorded bounds.
    pub fn bound_at(&self, k: usize) -> (i64, i64) {
        match self.whole_at(k) {
            Some(v) => (v, v),
            None => self.bounds.get(k).copied().unwrap_or(ANY),
        }
    }
}

/// The value range a scalar or vector `desc` records, when it has one bound
/// per element (of a known count): [`Elems::bounds`], and the operands of
/// integer size arithmetic.
pub(crate) fn recorded_value_bounds(desc: &TensorDesc) -> Option<Vec<(i64, i64)>> {
    let len = match desc.shape().dims() {
        [] => 1,
        &[len] => len,
        _ => return None,
    };
    match &desc.value_range {
        Some(r) if r.len() as i64 == len => Some(r.to_vec()),
        _ => None,
    }
}

/// Elements `start .. start + len` of `e` along `axis` (Split, Unpack).
pub(crate) fn slice_axis(e: &Elems, axis: usize, start: usize, len: usize) -> Elems {
    let mut dims = e.dims.clone();
    dims[axis] = len as i64;
    let (outer, inner) = outer_inner(&e.dims, axis);
    let span = e.dims[axis].max(0) as usize;
    let sources = (0..outer).flat_map(move |o| {
        (0..len * inner).map(move |k| Some(o * span * inner + start * inner + k))
    });
    e.pick(&dims, sources)
}

/// Products of the dims before `axis` and after it.
pub(crate) fn outer_inner(dims: &[i64], axis: usize) -> (usize, usize) {
    (count(&dims[..axis]), count(&dims[axis + 1..]))
}

/// Joins `parts` along `axis` of `dims` (the output dims): ConcatV2, and
/// Pack once each part has a 1 inserted at the axis.
pub(crate) fn join_axis(parts: &[Elems], axis: usize, dims: &[i64]) -> Option<Elems> {
    let first = parts.first()?;
    let outer = count(&dims[..axis]);
    let bounded = parts.iter().any(|p| !p.bounds.is_empty());
    let mut items = Vec::with_capacity(count(dims));
    let mut bounds = Vec::new();
    for o in 0..outer {
        for p in parts {
            let chunk = count(&p.dims[axis..]);
            let span = o * chunk..(o + 1) * chunk;
            items.extend_from_slice(p.items.get(span.clone())?);
            if bounded {
                bounds.extend(span.map(|k| p.bounds.get(k).copied().unwrap_or(ANY)));
            }
        }
    }
    (items.len() == count(dims)).then(|| Elems {
        dtype: first.dtype,
        dims: dims.to_vec(),
        items,
        bounds,
    })
}

/// The raw element `1` of `dtype` (OnesLike), for the numeric dtypes.
pub(crate) fn one(dtype: DataType) -> Option<u128> {
    Some(match dtype {
        DataType::Float => u128::from(1.0f32.to_bits()),
        DataType::Double => u128::from(1.0f64.to_bits()),
        DataType::Float16 => 0x3C00,
        DataType::Bf16 => 0x3F80,
        DataType::Complex64 => u128::from(1.0f32.to_bits()),
        DataType::Complex128 => u128::from(1.0f64.to_bits()),
        _ => return int_to_raw(dtype, 1),
    })
}

/// A scalar (or one-element) input read as `f64`, for Range's bounds.
pub(crate) fn scalar_f64(value: &HostTensor) -> Option<f64> {
    let data = value.bytes().as_ref();
    if value.shape().num_elements().ok()?? != 1 {
        return None;
    }
    Some(match value.dtype() {
        DataType::Float => f64::from(f32::from_le_bytes(data.get(..4)?.try_into().ok()?)),
        DataType::Double => f64::from_le_bytes(data.get(..8)?.try_into().ok()?),
        _ => *value.to_ints()?.first()? as f64,
    })
}

/// Encodes `v` as a raw element of a float dtype (Float / Double).
pub(crate) fn float_to_raw(dtype: DataType, v: f64) -> Option<u128> {
    match dtype {
        DataType::Float => Some(u128::from((v as f32).to_bits())),
        DataType::Double => Some(u128::from(v.to_bits())),
        _ => None,
    }
}

/// Decodes a raw element of a float dtype.
pub(crate) fn raw_to_float(dtype: DataType, raw: u128) -> Option<f64> {
    match dtype {
        DataType::Float => Some(f64::from(f32::from_bits(raw as u32))),
        DataType::Double => Some(f64::from_bits(raw as u64)),
        _ => None,
    }
}

/// Integer element conversions for Cast: int to int keeps the value when
/// it fits (the element is unknown otherwise), float to int truncates.
pub(crate) fn cast_raw(from: DataType, to: DataType, raw: u128) -> Option<u128> {
    if from == to {
        return Some(raw);
    }
    if let Some(v) = raw_to_int(from, raw) {
        if to == DataType::Bool {
            return Some(u128::from(v != 0));
        }
        return int_to_raw(to, v).or_else(|| float_to_raw(to, v as f64));
    }
    let f = raw_to_float(from, raw)?;
    if to == DataType::Bool {
        return Some(u128::from(f != 0.0));
    }
    if let Some(raw) = float_to_raw(to, f) {
        return Some(raw);
    }
    // Float to int: truncation toward zero when in range (NaN / out of
    // range is implementation-defined in TensorFlow; leave it unknown).
    let t = f.trunc();
    (t.is_finite() && t >= i64::MIN as f64 && t < i64::MAX as f64)
        .then(|| int_to_raw(to, t as i64))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_round_trip_through_raw_elements() {
        let e = Elems::from_ints(DataType::Int32, &[3], &[Some(-5), None, Some(7)]);
        assert_eq!(e.int_at(0), Some(-5));
        assert_eq!(e.int_at(1), None);
        assert_eq!(int_to_raw(DataType::Int8, 200), None);
        assert_eq!(raw_to_int(DataType::Int8, 0xff), Some(-1));
        assert_eq!(
            cast_raw(
                DataType::Int64,
                DataType::Int32,
                int_to_raw(DataType::Int64, -3).unwrap()
            ),
            int_to_raw(DataType::Int32, -3)
        );
        assert_eq!(
            cast_raw(
                DataType::Float,
                DataType::Int32,
                float_to_raw(DataType::Float, -2.7).unwrap()
            ),
            int_to_raw(DataType::Int32, -2)
        );
    }

    #[test]
    fn indices_walk_in_row_major_order() {
        let mut seen = Vec::new();
        for_each_index(&[2, 3], |i| seen.push(i.to_vec()));
        assert_eq!(seen.len(), 6);
        assert_eq!(seen[4], vec![1, 1]);
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        let mut scalar = 0;
        for_each_index(&[], |_| scalar += 1);
        assert_eq!(scalar, 1);
        let mut empty = 0;
        for_each_index(&[2, 0], |_| empty += 1);
        assert_eq!(empty, 0);
    }
}
