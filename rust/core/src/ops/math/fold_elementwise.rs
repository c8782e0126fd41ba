//! Host evaluation of element-wise ops on small known tensors of any
//! numeric dtype: the scalar arithmetic exporters emit around shapes
//! (PyTorch's `ceil(h / s)` for SAME padding and `floor(h * scale)` for
//! interpolation, done in FLOAT; `Equal(shape, -1)` and `Where` in
//! transformer reshapes). Integer ops on partial shape vectors stay with
//! [`super::fold`]; here every operand element must be known, except for
//! comparisons and Where, which decide what they can element by element.

use super::broadcast_shapes;
use crate::infer::OpContext;
use crate::op::OpError;
use crate::ops::array::host::{Elems, Number};
use crate::ops::ranges;
use crate::types::{DataType, Shape};

/// Element-wise functions of one or two numbers; `None` leaves the
/// element unknown (an overflow, a division by zero, NaN for an integer).
pub(crate) type Unary = fn(Number) -> Option<Number>;
pub(crate) type Binary = fn(Number, Number) -> Option<Number>;

/// The flat index into an operand of dims `input` that output element
/// `flat` of dims `out` reads (numpy broadcasting, right-aligned).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded outputs hold at most fold_limit elements, dims are >= 1 here and axis >= offset"
)]
fn source(out: &[i64], input: &[i64], mut flat: usize) -> usize {
    let offset = out.len().saturating_sub(input.len());
    let (mut index, mut stride) = (0usize, 1usize);
    for axis in (0..out.len()).rev() {
        let dim = usize::try_from(out[axis]).unwrap_or(1).max(1);
        let coord = flat % dim;
        flat /= dim;
        if axis >= offset {
            let in_dim = usize::try_from(input[axis - offset]).unwrap_or(1);
            if in_dim != 1 {
                index = index.saturating_add(coord.saturating_mul(stride));
            }
            stride = stride.saturating_mul(in_dim);
        }
    }
    index
}

/// Every input's elements, when all are known.
fn known_inputs(ctx: &OpContext<'_>, inputs: &[usize]) -> Option<Vec<Elems>> {
    let all: Vec<Elems> = inputs
        .iter()
        .map(|&i| Elems::input(ctx, i))
        .collect::<Option<_>>()?;
    all.iter()
        .all(|e| e.items.iter().all(Option::is_some))
        .then_some(all)
}

/// Output 0 = `f(x)` element by element, in `out_dtype`.
pub(crate) fn fold_unary(
    ctx: &mut OpContext<'_>,
    f: Unary,
    out_dtype: Option<DataType>,
) -> Result<(), OpError> {
    let Some(inputs) = known_inputs(ctx, &[0]) else {
        return Ok(());
    };
    let x = &inputs[0];
    let values: Vec<Option<Number>> = (0..x.items.len())
        .map(|k| x.number_at(k).and_then(f))
        .collect();
    Elems::from_numbers(out_dtype.unwrap_or(x.dtype), &x.dims, &values).write(ctx, 0)
}

/// Output 0 = `f(x1, x2)` with numpy broadcasting, in `out_dtype` (x1's
/// dtype when `None`).
pub(crate) fn fold_binary(
    ctx: &mut OpContext<'_>,
    f: Binary,
    out_dtype: Option<DataType>,
) -> Result<(), OpError> {
    fold_pair(ctx, [0, 1], f, out_dtype)
}

/// [`fold_binary`] of inputs `pair` (the first gives the default dtype).
fn fold_pair(
    ctx: &mut OpContext<'_>,
    pair: [usize; 2],
    f: Binary,
    out_dtype: Option<DataType>,
) -> Result<(), OpError> {
    let Some(inputs) = known_inputs(ctx, &pair) else {
        return Ok(());
    };
    let (a, b) = (&inputs[0], &inputs[1]);
    let Some((dims, count)) = broadcast_all(&[&a.dims, &b.dims]) else {
        return Ok(());
    };
    let values: Vec<Option<Number>> = (0..count)
        .map(|k| {
            let x = a.number_at(source(&dims, &a.dims, k))?;
            let y = b.number_at(source(&dims, &b.dims, k))?;
            f(x, y)
        })
        .collect();
    Elems::from_numbers(out_dtype.unwrap_or(a.dtype), &dims, &values).write(ctx, 0)
}

/// Output 0 = `f(x1, x2, x3)` with numpy broadcasting over three inputs,
/// in the dtype of input `dtype_of`.
fn fold_ternary(
    ctx: &mut OpContext<'_>,
    f: impl Fn(Number, Number, Number) -> Option<Number>,
    dtype_of: usize,
) -> Result<(), OpError> {
    let Some(inputs) = known_inputs(ctx, &[0, 1, 2]) else {
        return Ok(());
    };
    let Some((dims, count)) = broadcast_all(&[&inputs[0].dims, &inputs[1].dims, &inputs[2].dims])
    else {
        return Ok(());
    };
    let at = |e: &Elems, k: usize| e.number_at(source(&dims, &e.dims, k));
    let values: Vec<Option<Number>> = (0..count)
        .map(|k| f(at(&inputs[0], k)?, at(&inputs[1], k)?, at(&inputs[2], k)?))
        .collect();
    Elems::from_numbers(inputs[dtype_of].dtype, &dims, &values).write(ctx, 0)
}

/// ClipByValue: `min(max(x, lo), hi)`, without a bound that is absent.
pub(crate) fn fold_clip(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let bounds = (ctx.optional_input_desc(1)?, ctx.optional_input_desc(2)?);
    match bounds {
        (Some(_), Some(_)) => fold_ternary(ctx, |x, lo, hi| min(max(x, lo)?, hi), 0),
        (Some(_), None) => fold_pair(ctx, [0, 1], max, None),
        (None, Some(_)) => fold_pair(ctx, [0, 2], min, None),
        (None, None) => fold_unary(ctx, Some, None),
    }
}

/// SelectV2 (ONNX Where): `x1` where the condition holds, else `x2`,
/// element by element as far as they are known. An element whose condition
/// is unknown is known when both branches agree, else bounded by both
/// branches' bounds. PyTorch exports `expand` to a shape vector as
/// `Where(Equal(shape, -1), ones, shape)`: once the comparison is decided
/// (see [`fold_compare`]), the shape's known entries and value ranges pass.
pub(crate) fn fold_select(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let informed = Elems::input_informed(ctx, 1) || Elems::input_informed(ctx, 2);
    if !informed && !Elems::output_empty(ctx, 0) {
        return Ok(()); // each element comes from a branch that says nothing
    }
    let Some(inputs) = [0, 1, 2]
        .iter()
        .map(|&i| Elems::input(ctx, i))
        .collect::<Option<Vec<Elems>>>()
    else {
        return Ok(());
    };
    let [cond, a, b] = &inputs[..] else {
        return Ok(());
    };
    let Some((dims, count)) = broadcast_all(&[&cond.dims, &a.dims, &b.dims]) else {
        return Ok(());
    };
    let mut out = Elems::unknown(a.dtype, &dims);
    out.bounds = vec![ranges::ANY; count];
    for k in 0..count {
        let (kc, ka, kb) = (
            source(&dims, &cond.dims, k),
            source(&dims, &a.dims, k),
            source(&dims, &b.dims, k),
        );
        let (ia, ib) = (
            a.items.get(ka).copied().flatten(),
            b.items.get(kb).copied().flatten(),
        );
        (out.items[k], out.bounds[k]) = match cond.number_at(kc).map(|c| float(c) != 0.0) {
            Some(true) => (ia, a.bound_at(ka)),
            Some(false) => (ib, b.bound_at(kb)),
            None if ia.is_some() && ia == ib => (ia, a.bound_at(ka)),
            None => (None, size_hull(a.bound_at(ka), b.bound_at(kb))),
        };
    }
    out.write(ctx, 0)
}

/// The hull of two size bounds; nothing ([`ranges::ANY`]) unless both say
/// something and neither admits a negative value (value ranges bound sizes:
/// `ANY`'s 0 is no real lower bound, and a known -1 would read as
/// unbounded).
fn size_hull(a: ranges::Range, b: ranges::Range) -> ranges::Range {
    if ranges::is_size(a) && ranges::is_size(b) {
        ranges::hull(a, b)
    } else {
        ranges::ANY
    }
}

/// The broadcast dims of `shapes` and their element count.
fn broadcast_all(shapes: &[&Vec<i64>]) -> Option<(Vec<i64>, usize)> {
    let mut out = Shape::from_dims(shapes.first()?.as_slice());
    for dims in &shapes[1..] {
        out = broadcast_shapes(&out, &Shape::from_dims(dims.as_slice())).ok()?;
    }
    let count = usize::try_from(out.num_elements().ok()??).ok()?;
    Some((out.dims().to_vec(), count))
}

/// A comparison, element by element as far as it can be decided: on known
/// values, or where the operands' bounds do not overlap (a size bounded to
/// `0..=450` is never equal to -1, nor below 0). Every comparison depends
/// only on how its operands order, so a pair strictly ordered by its
/// bounds compares like any pair so ordered.
pub(crate) fn fold_compare(ctx: &mut OpContext<'_>, f: Binary) -> Result<(), OpError> {
    let informed = Elems::input_informed(ctx, 0) && Elems::input_informed(ctx, 1);
    if !informed && !Elems::output_empty(ctx, 0) {
        return Ok(()); // every element needs a value or bounds on both sides
    }
    let (Some(a), Some(b)) = (Elems::input(ctx, 0), Elems::input(ctx, 1)) else {
        return Ok(());
    };
    let Some((dims, count)) = broadcast_all(&[&a.dims, &b.dims]) else {
        return Ok(());
    };
    let values: Vec<Option<Number>> = (0..count)
        .map(|k| {
            let (ka, kb) = (source(&dims, &a.dims, k), source(&dims, &b.dims, k));
            if let (Some(x), Some(y)) = (a.number_at(ka), b.number_at(kb)) {
                return f(x, y);
            }
            let ((a_lo, a_hi), (b_lo, b_hi)) = (interval(&a, ka)?, interval(&b, kb)?);
            if a_hi < b_lo {
                f(Number::Int(0), Number::Int(1))
            } else if b_hi < a_lo {
                f(Number::Int(1), Number::Int(0))
            } else {
                None
            }
        })
        .collect();
    Elems::from_numbers(DataType::Bool, &dims, &values).write(ctx, 0)
}

/// Element `k`'s value, or its recorded bounds (an unbounded top is
/// infinite); `None` for an unknown element bounded by nothing, or NaN.
fn interval(e: &Elems, k: usize) -> Option<(f64, f64)> {
    if let Some(n) = e.number_at(k) {
        let v = float(n);
        return (!v.is_nan()).then_some((v, v));
    }
    let &(lo, hi) = e.bounds.get(k).filter(|&&r| ranges::is_size(r))?;
    let hi = if hi == ranges::UNBOUNDED {
        f64::INFINITY
    } else {
        hi as f64
    };
    Some((lo as f64, hi))
}

/// Both operands as floats (an integer widened).
fn floats(a: Number, b: Number) -> (f64, f64) {
    (float(a), float(b))
}

fn float(n: Number) -> f64 {
    match n {
        Number::Int(v) => v as f64,
        Number::Float(f) => f,
    }
}

/// An arithmetic op: `int` on two integers, `real` otherwise.
macro_rules! arith {
    ($name:ident, $int:expr, $real:expr) => {
        pub(crate) fn $name(a: Number, b: Number) -> Option<Number> {
            match (a, b) {
                (Number::Int(x), Number::Int(y)) => ($int)(x, y).map(Number::Int),
                _ => {
                    let (x, y) = floats(a, b);
                    Some(Number::Float(($real)(x, y)))
                }
            }
        }
    };
}

arith!(add, i64::checked_add, |x: f64, y: f64| x + y);
arith!(sub, i64::checked_sub, |x: f64, y: f64| x - y);
arith!(mul, i64::checked_mul, |x: f64, y: f64| x * y);
// Integer division truncates toward zero (C, TensorFlow's Div, ONNX's Div).
arith!(div, i64::checked_div, |x: f64, y: f64| x / y);
arith!(max, |x: i64, y: i64| Some(x.max(y)), f64::max);
arith!(min, |x: i64, y: i64| Some(x.min(y)), f64::min);
arith!(
    pow,
    |x: i64, y: i64| u32::try_from(y).ok().and_then(|e| x.checked_pow(e)),
    f64::powf
);

/// A comparison: BOOL 0 / 1.
macro_rules! compare {
    ($name:ident, $op:tt) => {
        pub(crate) fn $name(a: Number, b: Number) -> Option<Number> {
            let result = match (a, b) {
                (Number::Int(x), Number::Int(y)) => x $op y,
                _ => {
                    let (x, y) = floats(a, b);
                    x $op y
                }
            };
            Some(Number::Int(i64::from(result)))
        }
    };
}

compare!(equal, ==);
compare!(not_equal, !=);
compare!(less, <);
compare!(less_equal, <=);
compare!(greater, >);
compare!(greater_equal, >=);

pub(crate) fn logical_and(a: Number, b: Number) -> Option<Number> {
    Some(Number::Int(i64::from(float(a) != 0.0 && float(b) != 0.0)))
}

pub(crate) fn logical_or(a: Number, b: Number) -> Option<Number> {
    Some(Number::Int(i64::from(float(a) != 0.0 || float(b) != 0.0)))
}

/// A float function of one element; integers pass through unchanged.
macro_rules! rounding {
    ($name:ident, $f:expr) => {
        pub(crate) fn $name(a: Number) -> Option<Number> {
            Some(match a {
                Number::Int(v) => Number::Int(v),
                Number::Float(f) => Number::Float(($f)(f)),
            })
        }
    };
}

rounding!(ceil, f64::ceil);
rounding!(floor, f64::floor);
// Half to even, as TensorFlow's and ONNX's Round.
rounding!(round, f64::round_ties_even);

pub(crate) fn sqrt(a: Number) -> Option<Number> {
    Some(Number::Float(float(a).sqrt()))
}

pub(crate) fn neg(a: Number) -> Option<Number> {
    Some(match a {
        Number::Int(v) => Number::Int(v.checked_neg()?),
        Number::Float(f) => Number::Float(-f),
    })
}

pub(crate) fn abs(a: Number) -> Option<Number> {
    Some(match a {
        Number::Int(v) => Number::Int(v.checked_abs()?),
        Number::Float(f) => Number::Float(f.abs()),
    })
}

pub(crate) fn reciprocal(a: Number) -> Option<Number> {
    Some(Number::Float(1.0 / float(a)))
}

pub(crate) fn logical_not(a: Number) -> Option<Number> {
    Some(Number::Int(i64::from(float(a) == 0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_follows_c_and_ieee() {
        assert_eq!(div(Number::Int(-7), Number::Int(2)), Some(Number::Int(-3)));
        assert_eq!(div(Number::Int(7), Number::Int(0)), None);
        assert_eq!(
            div(Number::Float(192.0), Number::Float(2.0)),
            Some(Number::Float(96.0))
        );
        assert_eq!(pow(Number::Int(2), Number::Int(-1)), None);
        assert_eq!(round(Number::Float(2.5)), Some(Number::Float(2.0)));
        assert_eq!(ceil(Number::Float(96.5)), Some(Number::Float(97.0)));
        assert_eq!(
            less(Number::Int(1), Number::Float(1.5)),
            Some(Number::Int(1))
        );
        assert_eq!(neg(Number::Int(i64::MIN)), None);
    }

    #[test]
    fn broadcast_sources_are_right_aligned() {
        // [2, 3] against [3]: element (1, 2) reads 2.
        assert_eq!(source(&[2, 3], &[3], 5), 2);
        // [2, 3] against [2, 1]: element (1, 2) reads 1.
        assert_eq!(source(&[2, 3], &[2, 1], 5), 1);
    }
}
