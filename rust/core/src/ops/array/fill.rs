//! Tensors made from a few values: Fill, Range, ZerosLike, OnesLike, and
//! OnnxRange: ONNX's Range, whose empty ranges are no error, whose bounds
//! may also be one-element vectors (ONNX's own function bodies, AffineGrid's
//! among them, pass `[1]`-shaped limits, and onnxruntime takes them), and
//! whose values are `start + i * delta` rather than a running sum.

use super::host::{one, scalar_f64, Elems, Number};
use super::{int_value, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, with_arg, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::ranges;
use crate::types::{DataType, HostTensor, Shape, MAX_RANK, UNKNOWN_DIM};

/// TensorFlow's Range `Tidx`.
const RANGE_TYPES: &[DataType] = &[
    DataType::Float,
    DataType::Double,
    DataType::Int32,
    DataType::Int64,
    DataType::Int8,
    DataType::Int16,
    DataType::Uint16,
    DataType::Uint32,
    DataType::Float16,
    DataType::Bf16,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let fill = OpSchema::new("Fill")
        .input(
            PortDef::new("dims", ParamType::Required)
                .dtype_list(INDEX)
                .value_depend(ValueDepend::Required),
        )
        .input(PortDef::new("value", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).follow("value", FollowType::Dtype))
        .infer_shape(op_fn(infer_fill))
        .fold(op_fn(fold_fill));
    let bound = |name: &str| {
        PortDef::new(name, ParamType::Required)
            .dtypes(RANGE_TYPES)
            .value_depend(ValueDepend::Optional)
    };
    let range = |op_type: &str, flavor: Flavor| {
        OpSchema::new(op_type)
            .input(bound("start"))
            .input(bound("limit"))
            .input(bound("delta"))
            .output(PortDef::new("y", ParamType::Required).dtypes(RANGE_TYPES))
            .infer_shape(with_arg(infer_range, flavor))
            .fold(with_arg(fold_range, flavor))
    };
    let like = |op_type: &str, fold: fn(&mut OpContext<'_>) -> Result<(), OpError>| {
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required))
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
            .fold(op_fn(fold))
    };
    vec![
        fill,
        range("Range", Flavor::TensorFlow),
        range("OnnxRange", Flavor::Onnx),
        like("ZerosLike", |ctx| fill_like(ctx, Some(0))),
        like("OnesLike", |ctx| {
            let dtype = ctx.input_dtype(0)?;
            fill_like(ctx, one(dtype))
        }),
    ]
}

/// The dims vector's value, or its known entries, or just its length.
fn infer_fill(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let dims_shape = ctx.input_shape(0)?;
    if dims_shape.rank().is_some_and(|r| r != 1) {
        bail!("input 'dims' must be a 1-D vector, got shape {dims_shape}");
    }
    let value_shape = ctx.input_shape(1)?;
    if value_shape.rank().is_some_and(|r| r != 0) {
        bail!("input 'value' must be a scalar, got shape {value_shape}");
    }
    if let Some(dims) = int_value(ctx, 0) {
        if let Some(bad) = dims.iter().find(|&&d| d < 0) {
            bail!("input 'dims' holds {bad}; dims must be >= 0");
        }
        return ctx.set_output_shape(0, checked_shape(&dims)?);
    }
    let out = match (ctx.input_shape_value(0), dims_shape.dims()) {
        (Some(partial), _) => partial,
        // TensorFlow's TensorShape holds at most MAX_RANK dims, as Reshape says.
        (None, [len]) if *len > MAX_RANK as i64 => {
            bail!("input 'dims' has {len} elements, more than the maximum rank {MAX_RANK}")
        }
        (None, [len]) if *len >= 0 => Shape::unknown_dims(*len as usize),
        _ => Shape::unknown_rank(),
    };
    ctx.set_output_shape(0, out)?;
    ranges::set_from_shape_input(ctx, 0, 0)
}

/// A shape from known dims whose element count must fit int64.
pub(super) fn checked_shape(dims: &[i64]) -> Result<Shape, OpError> {
    let shape =
        Shape::new(dims).map_err(|e| OpError::new(format!("invalid shape {dims:?}: {e}")))?;
    if shape.num_elements().is_err() {
        bail!("the element count of shape {shape} overflows int64");
    }
    Ok(shape)
}

fn fold_fill(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(value) = Elems::input(ctx, 1) else {
        return Ok(());
    };
    let Some(dims) = ctx.output_desc(0).map(|d| d.shape().dims().to_vec()) else {
        return Ok(());
    };
    let n = super::host::count(&dims);
    value
        .pick(&dims, std::iter::repeat_n(Some(0), n))
        .write(ctx, 0)
}

fn fill_like(ctx: &mut OpContext<'_>, raw: Option<u128>) -> Result<(), OpError> {
    let Some(raw) = raw else {
        return Ok(());
    };
    let Some(desc) = ctx.output_desc(0) else {
        return Ok(());
    };
    let dims = desc.shape().dims().to_vec();
    let elems = Elems {
        dtype: desc.dtype,
        items: vec![Some(raw); super::host::count(&dims)],
        dims,
        bounds: Vec::new(),
    };
    elems.write(ctx, 0)
}

/// Whose Range: TensorFlow's (scalar bounds, an empty range is an error,
/// values a running sum) or ONNX's (see the module doc).
#[derive(Clone, Copy, PartialEq)]
enum Flavor {
    TensorFlow,
    Onnx,
}

/// The three bounds when all are known, as integers or as floats.
enum Bounds {
    Int(i64, i64, i64),
    Float(f64, f64, f64),
}

fn bounds(ctx: &OpContext<'_>, flavor: Flavor) -> Result<Option<Bounds>, OpError> {
    for i in 0..3 {
        let shape = ctx.input_shape(i)?;
        let one_element = shape.rank() == Some(1)
            && flavor == Flavor::Onnx
            && matches!(shape.dims()[0], 1 | UNKNOWN_DIM);
        if shape.rank().is_some_and(|r| r != 0) && !one_element {
            let name = ["start", "limit", "delta"][i];
            bail!("input '{name}' must be a scalar, got shape {shape}");
        }
    }
    let values: Vec<&HostTensor> = match (0..3).map(|i| ctx.input_value(i)).collect() {
        Some(v) => v,
        None => return Ok(None),
    };
    if values[0].dtype().is_index_type() || values[0].to_ints().is_some() {
        let ints: Option<Vec<i64>> = values
            .iter()
            .map(|v| v.to_ints()?.first().copied())
            .collect();
        if let Some([s, l, d]) = ints.as_deref() {
            return Ok(Some(Bounds::Int(*s, *l, *d)));
        }
        return Ok(None);
    }
    let floats: Option<Vec<f64>> = values.iter().map(|v| scalar_f64(v)).collect();
    Ok(floats.map(|f| Bounds::Float(f[0], f[1], f[2])))
}

/// TensorFlow's size: `ceil(|limit - start| / |delta|)`, with the sign of
/// `delta` pointing from start to limit.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; divisors were checked >= 1 above"
)]
fn range_len(bounds: &Bounds, flavor: Flavor) -> Result<i64, OpError> {
    let (forward, backward, zero) = match *bounds {
        Bounds::Int(s, l, d) => (d > 0 && s > l, d < 0 && s < l, d == 0),
        Bounds::Float(s, l, d) => (d > 0.0 && s > l, d < 0.0 && s < l, d == 0.0),
    };
    if zero {
        bail!("Range needs a non-zero delta");
    }
    if (forward || backward) && flavor == Flavor::Onnx {
        return Ok(0); // ONNX: max(ceil((limit - start) / delta), 0)
    }
    if forward {
        bail!("Range needs start <= limit when delta > 0");
    }
    if backward {
        bail!("Range needs start >= limit when delta < 0");
    }
    match *bounds {
        Bounds::Int(s, l, d) => {
            let (span, step) = ((i128::from(l) - i128::from(s)).abs(), i128::from(d).abs());
            i64::try_from((span + step - 1) / step)
                .map_err(|_| OpError::new("the Range length overflows int64".to_string()))
        }
        Bounds::Float(s, l, d) => {
            let n = ((l - s) / d).abs().ceil();
            if !n.is_finite() || n >= i64::MAX as f64 {
                bail!("the Range length ({n}) is not a valid dim");
            }
            Ok(n as i64)
        }
    }
}

fn infer_range(ctx: &mut OpContext<'_>, flavor: Flavor) -> Result<(), OpError> {
    let len = match bounds(ctx, flavor)? {
        Some(b) => range_len(&b, flavor)?,
        None => UNKNOWN_DIM,
    };
    ctx.set_output_shape(0, Shape::from_dims([len]))?;
    match len_range(ctx) {
        Some(r) if len == UNKNOWN_DIM => ranges::set_if_bounded(ctx, 0, vec![r]),
        _ => Ok(()),
    }
}

/// A scalar bound known only within its value range: `(lowest, highest)`,
/// `None` highest when unbounded above. Known values are their own range.
type Span = (Number, Option<Number>);

fn span(ctx: &OpContext<'_>, i: usize) -> Option<Span> {
    let e = Elems::input(ctx, i).filter(|e| e.items.len() == 1)?;
    if let Some(n) = e.number_at(0) {
        return Some((n, Some(n)));
    }
    // A value range bounds sizes; ANY (0, -1) says nothing of a value.
    let &(lo, hi) = e.bounds.first().filter(|&&r| ranges::is_size(r))?;
    Some((
        Number::Int(lo),
        (hi != ranges::UNBOUNDED).then_some(Number::Int(hi)),
    ))
}

/// Whole numbers up to 2^20: `(limit - start) / delta` of such values is
/// computed exactly enough in f32 (TensorFlow, onnxruntime) and in f64
/// (here) that both round up to the same length.
fn exact_in_f32(n: Number) -> bool {
    match n {
        Number::Int(v) => v.unsigned_abs() <= 1 << 20,
        Number::Float(f) => f.fract() == 0.0 && f.abs() <= f64::from(1u32 << 20),
    }
}

/// The output length's range when `start` or `limit` is known only within
/// a value range (a feature map's size, often cast to float for an
/// `arange`) and `delta` is known. The length never falls as the limit
/// rises or the start falls (delta > 0; the reverse for delta < 0), so its
/// extremes are at the corners. They use ONNX's `max(ceil(...), 0)`: where
/// TensorFlow would fail instead, fewer lengths occur, never more.
fn len_range(ctx: &OpContext<'_>) -> Option<ranges::Range> {
    let (delta, _) = span(ctx, 2).filter(|(lo, hi)| Some(*lo) == *hi)?;
    let ((s_lo, s_hi), (l_lo, l_hi)) = (span(ctx, 0)?, span(ctx, 1)?);
    let ints = ctx.input_dtype(0).ok()?.is_index_type();
    let len = |s: Number, l: Number| {
        let b = match (s, l, delta) {
            (Number::Int(s), Number::Int(l), Number::Int(d)) if ints => Bounds::Int(s, l, d),
            _ => Bounds::Float(as_f64(s), as_f64(l), as_f64(delta)),
        };
        range_len(&b, Flavor::Onnx).ok()
    };
    let rising = as_f64(delta) > 0.0;
    let (low, high) = if rising {
        (s_hi.zip(Some(l_lo)), l_hi.map(|l| (s_lo, l)))
    } else {
        (l_hi.map(|l| (s_lo, l)), s_hi.zip(Some(l_lo)))
    };
    // Elsewhere the runtime's f32 arithmetic may round a length across an
    // integer that f64 does not: one more either way keeps the range true.
    let exact = ints
        || [s_lo, l_lo, delta]
            .into_iter()
            .chain(s_hi)
            .chain(l_hi)
            .all(exact_in_f32);
    let slack = i64::from(!exact);
    let min = low
        .and_then(|(s, l)| len(s, l))
        .map_or(0, |m| m.saturating_sub(slack).max(0));
    let max = high
        .and_then(|(s, l)| len(s, l))
        .and_then(|m| m.checked_add(slack))
        .map_or(ranges::UNBOUNDED, |m| m.max(min));
    Some((min, max))
}

fn as_f64(n: Number) -> f64 {
    match n {
        Number::Int(v) => v as f64,
        Number::Float(f) => f,
    }
}

fn fold_range(ctx: &mut OpContext<'_>, flavor: Flavor) -> Result<(), OpError> {
    let Some(b) = bounds(ctx, flavor)? else {
        return Ok(());
    };
    let dtype = ctx.input_dtype(0)?;
    let n = range_len(&b, flavor)?;
    // TensorFlow accumulates `value += delta` in the element type; ONNX
    // computes each `start + i * delta` (numpy's arange, in f64).
    let items: Vec<Option<u128>> = match b {
        Bounds::Float(s, _, d) if flavor == Flavor::Onnx => (0..n)
            .map(|i| super::host::float_to_raw(dtype, s + i as f64 * d))
            .collect(),
        Bounds::Int(s, _, d) => {
            let e = Elems::from_ints(
                dtype,
                &[n],
                &(0..n)
                    .map(|i| s.checked_add(i.checked_mul(d)?))
                    .collect::<Vec<_>>(),
            );
            e.items
        }
        Bounds::Float(s, _, d) if dtype == DataType::Float => {
            let (mut v, d) = (s as f32, d as f32);
            (0..n)
                .map(|_| {
                    let raw = u128::from(v.to_bits());
                    v += d;
                    Some(raw)
                })
                .collect()
        }
        Bounds::Float(s, _, d) if dtype == DataType::Double => {
            let mut v = s;
            (0..n)
                .map(|_| {
                    let raw = u128::from(v.to_bits());
                    v += d;
                    Some(raw)
                })
                .collect()
        }
        Bounds::Float(..) => return Ok(()),
    };
    Elems {
        dtype,
        dims: vec![n],
        items,
        bounds: Vec::new(),
    }
    .write(ctx, 0)
}
