//! Host evaluation of integer binary ops for value folding: the shape
//! arithmetic graphs do between `Shape` and `Reshape` (`n * c`, `h // 2`).
//!
//! Operands are INT32 / INT64 tensors known whole (a value) or element by
//! element (a partial shape vector, `-1` = unknown). Unknown elements stay
//! unknown in the result, so `[-1, 7] * 2` folds to the shape value
//! `[-1, 14]`.

use super::broadcast_shapes;
use crate::bail;
use crate::infer::OpContext;
use crate::op::OpError;
use crate::ops::array::host::recorded_value_bounds;
use crate::ops::ranges::{self, is_size, Range};
use crate::types::{DataType, HostTensor, Shape, UNKNOWN_DIM};

/// The integer ops that fold, with TensorFlow's semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IntOp {
    Add,
    Sub,
    Mul,
    /// Rounds toward negative infinity (Python's `//`).
    FloorDiv,
    /// The remainder of `FloorDiv`: takes the sign of the divisor.
    FloorMod,
    Maximum,
    Minimum,
}

impl IntOp {
    /// `a op b`; `None` when the result overflows int64 (TensorFlow wraps;
    /// we leave such a value unfolded rather than invent one). Division by
    /// zero is an error, as it is when TensorFlow evaluates the op.
    fn apply(self, a: i64, b: i64) -> Result<Option<i64>, OpError> {
        Ok(match self {
            IntOp::Add => a.checked_add(b),
            IntOp::Sub => a.checked_sub(b),
            IntOp::Mul => a.checked_mul(b),
            IntOp::Maximum => Some(a.max(b)),
            IntOp::Minimum => Some(a.min(b)),
            IntOp::FloorDiv | IntOp::FloorMod if b == 0 => {
                bail!("integer division by zero ({a} {} 0)", self.symbol())
            }
            IntOp::FloorDiv => floor_div(a, b),
            IntOp::FloorMod => floor_mod(a, b),
        })
    }

    /// The bounds of `a op b` for sizes `a` and `b` known within bounds
    /// (`(v, v)` when known): Add, Mul, Maximum and Minimum never fall as
    /// either size rises, so bounds map to bounds; FloorDiv by a known
    /// positive divisor and Sub of a known number likewise (a difference
    /// that may be negative is no size: nothing). `None` says nothing.
    fn bounds(self, a: Option<Range>, b: Option<Range>) -> Option<Range> {
        let (a, b) = (a.filter(|&r| is_size(r))?, b.filter(|&r| is_size(r))?);
        let known = |r: Range| (r.0 == r.1).then_some(r.0);
        let r = match self {
            IntOp::Add => ranges::add(a, b),
            IntOp::Mul => ranges::mul(a, b),
            // `hull`'s top is the larger maximum (unbounded when either is).
            IntOp::Maximum => (a.0.max(b.0), ranges::hull(a, b).1),
            // The smaller of the two: bounded when either is.
            IntOp::Minimum => (a.0.min(b.0), min_top(a.1, b.1)),
            IntOp::FloorDiv => {
                let k = known(b).filter(|&k| k > 0)?;
                let top = match a.1 {
                    ranges::UNBOUNDED => ranges::UNBOUNDED,
                    hi => hi.checked_div(k)?,
                };
                (a.0.checked_div(k)?, top)
            }
            IntOp::Sub => {
                let k = known(b)?;
                let lo = a.0.checked_sub(k).filter(|&lo| lo >= 0)?;
                let top = match a.1 {
                    ranges::UNBOUNDED => ranges::UNBOUNDED,
                    hi => hi.checked_sub(k).unwrap_or(ranges::UNBOUNDED),
                };
                (lo, top)
            }
            IntOp::FloorMod => return None,
        };
        is_size(r).then_some(r)
    }

    /// The result when one operand is unknown: only `x * 0` is known.
    fn apply_partial(self, a: Option<i64>, b: Option<i64>) -> Result<Option<i64>, OpError> {
        match (a, b) {
            (Some(a), Some(b)) => self.apply(a, b),
            (Some(0), None) | (None, Some(0)) if self == IntOp::Mul => Ok(Some(0)),
            // A known zero divisor is invalid whatever the dividend.
            (None, Some(0)) if matches!(self, IntOp::FloorDiv | IntOp::FloorMod) => {
                bail!("integer division by zero (? {} 0)", self.symbol())
            }
            _ => Ok(None),
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            IntOp::Add => "+",
            IntOp::Sub => "-",
            IntOp::Mul => "*",
            IntOp::FloorDiv => "//",
            IntOp::FloorMod => "%",
            IntOp::Maximum => "max",
            IntOp::Minimum => "min",
        }
    }
}

/// The smaller of two maxima, either possibly unbounded.
fn min_top(a: i64, b: i64) -> i64 {
    match (a, b) {
        (ranges::UNBOUNDED, t) | (t, ranges::UNBOUNDED) => t,
        (x, y) => x.min(y),
    }
}

fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    // Truncation rounded toward zero; step down when the signs differ and
    // the division was inexact.
    if a.checked_rem(b)? != 0 && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

fn floor_mod(a: i64, b: i64) -> Option<i64> {
    if b == -1 {
        return Some(0); // i64::MIN % -1 overflows but is 0.
    }
    let r = a.checked_rem(b)?;
    if r != 0 && ((r < 0) != (b < 0)) {
        r.checked_add(b)
    } else {
        Some(r)
    }
}

/// A folded operand: its static shape and elements (`None` = unknown),
/// and per element its bounds when it holds sizes (a value range).
struct Operand {
    shape: Shape,
    elems: Vec<Option<i64>>,
    bounds: Option<Vec<Range>>,
}

impl Operand {
    fn bound(&self, k: usize) -> Option<Range> {
        match self.elems[k] {
            Some(v) => Some((v, v)),
            None => self.bounds.as_ref().map(|b| b[k]),
        }
    }
}

fn operand(ctx: &OpContext<'_>, i: usize) -> Option<Operand> {
    if let Some(value) = ctx.input_host_value(i) {
        let elems = value.to_ints()?.into_iter().map(Some).collect();
        return Some(Operand {
            shape: value.shape().clone(),
            elems,
            bounds: None,
        });
    }
    let desc = ctx.input_desc(i)?;
    let input_shape = ctx.input_shape(i).ok()?;
    let len = match input_shape.dims() {
        [] => 1,
        &[n] => usize::try_from(n).ok()?,
        _ => return None,
    };
    let bounds = recorded_value_bounds(desc);
    let elems = match &desc.shape_value {
        Some(partial) => {
            // A shape value must describe the whole (1-D) input to be used.
            if partial.is_unknown_rank()
                || partial.dims().len() != len
                || input_shape.rank() != Some(1)
            {
                return None;
            }
            partial
                .dims()
                .iter()
                .map(|&d| (d != UNKNOWN_DIM).then_some(d))
                .collect()
        }
        None if bounds.is_some() => vec![None; len],
        None => return None,
    };
    Some(Operand {
        shape: input_shape.clone(),
        elems,
        bounds,
    })
}

/// The flat index into an input of shape `input` (right-aligned, size-1
/// dims broadcast) that output element `flat` of shape `out` reads.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded outputs hold at most fold_limit elements, so index arithmetic stays small; out has a dim per input dim (broadcast)"
)]
fn source_index(out: &[i64], input: &[i64], mut flat: usize) -> usize {
    let offset = out.len() - input.len();
    let (mut index, mut stride) = (0, 1);
    for axis in (0..out.len()).rev() {
        let dim = out[axis] as usize;
        let coord = flat % dim;
        flat /= dim;
        if axis >= offset {
            let in_dim = input[axis - offset] as usize;
            if in_dim != 1 {
                index += coord * stride;
            }
            stride *= in_dim;
        }
    }
    index
}

/// Evaluates `x1 op x2` on known integer operands (see the module comment).
pub(super) fn fold_int_binary(ctx: &mut OpContext<'_>, op: IntOp) -> Result<(), OpError> {
    let dtype = ctx.input_dtype(0)?;
    if !matches!(dtype, DataType::Int32 | DataType::Int64) {
        return Ok(());
    }
    let (Some(a), Some(b)) = (operand(ctx, 0), operand(ctx, 1)) else {
        return Ok(());
    };
    let Ok(out_shape) = broadcast_shapes(&a.shape, &b.shape) else {
        return Ok(());
    };
    let out = out_shape.dims();
    // An operand known only by its bounds (no element known) folds for
    // those bounds alone: on a scalar or vector result, and never into an
    // error (`? // 0` fails at run time, not here, as before it had bounds).
    let bounds_only = |o: &Operand| o.elems.iter().all(Option::is_none);
    if (bounds_only(&a) || bounds_only(&b))
        && (out.len() > 1
            || matches!(op, IntOp::FloorDiv | IntOp::FloorMod) && b.elems.contains(&Some(0)))
    {
        return Ok(());
    }
    let Ok(Some(count)) = out_shape.num_elements() else {
        return Ok(());
    };
    let fits = |z: i64| dtype == DataType::Int64 || i32::try_from(z).is_ok();
    let mut elems = Vec::with_capacity(count as usize);
    let mut bounds = Vec::with_capacity(count as usize);
    for flat in 0..count as usize {
        let (i, j) = (
            source_index(out, a.shape.dims(), flat),
            source_index(out, b.shape.dims(), flat),
        );
        let z = op.apply_partial(a.elems[i], b.elems[j])?;
        // An INT32 result outside int32 is unknown, not wrapped.
        let z = z.filter(|&z| fits(z));
        let bound = match z {
            Some(z) => (z, z),
            None => op
                .bounds(a.bound(i), b.bound(j))
                .filter(|&(lo, hi)| fits(lo) && hi != ranges::UNBOUNDED && fits(hi))
                .unwrap_or(ranges::ANY),
        };
        elems.push(z);
        bounds.push(bound);
    }
    if let Some(known) = elems.iter().copied().collect::<Option<Vec<i64>>>() {
        if let Some(value) = HostTensor::from_ints(dtype, out_shape, &known) {
            ctx.set_output_value(0, value)?;
        }
        return Ok(());
    }
    if out.len() == 1 && elems.iter().any(Option::is_some) {
        let partial: Vec<i64> = elems.iter().map(|e| e.unwrap_or(UNKNOWN_DIM)).collect();
        ctx.set_output_shape_value(0, Shape::from_dims(partial))?;
    }
    let bounded = elems
        .iter()
        .zip(&bounds)
        .any(|(e, &b)| e.is_none() && b != ranges::ANY);
    if out.len() <= 1 && bounded {
        ctx.set_output_value_range(0, bounds)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_division_rounds_toward_negative_infinity() {
        for (a, b, q, r) in [
            (7, 2, 3, 1),
            (-7, 2, -4, 1),
            (7, -2, -4, -1),
            (-7, -2, 3, -1),
            (6, 3, 2, 0),
            (-6, 3, -2, 0),
            (0, -5, 0, 0),
        ] {
            assert_eq!(IntOp::FloorDiv.apply(a, b).unwrap(), Some(q), "{a} // {b}");
            assert_eq!(IntOp::FloorMod.apply(a, b).unwrap(), Some(r), "{a} % {b}");
        }
        assert_eq!(IntOp::FloorDiv.apply(i64::MIN, -1).unwrap(), None);
        assert_eq!(IntOp::FloorMod.apply(i64::MIN, -1).unwrap(), Some(0));
        assert!(IntOp::FloorDiv.apply(1, 0).is_err());
        assert!(IntOp::FloorMod.apply(1, 0).is_err());
    }

    #[test]
    fn overflow_is_unknown_and_unknowns_propagate() {
        assert_eq!(IntOp::Add.apply(i64::MAX, 1).unwrap(), None);
        assert_eq!(IntOp::Mul.apply(i64::MAX, 2).unwrap(), None);
        assert_eq!(IntOp::Sub.apply(i64::MIN, 1).unwrap(), None);
        assert_eq!(IntOp::Mul.apply_partial(None, Some(0)).unwrap(), Some(0));
        assert_eq!(IntOp::Mul.apply_partial(None, Some(3)).unwrap(), None);
        assert_eq!(IntOp::Add.apply_partial(Some(0), None).unwrap(), None);
        assert!(IntOp::FloorDiv.apply_partial(None, Some(0)).is_err());
    }

    #[test]
    fn broadcast_source_indices() {
        // out [2, 3] from [3] (row broadcast) and [2, 1] (column broadcast).
        let rows: Vec<usize> = (0..6).map(|f| source_index(&[2, 3], &[3], f)).collect();
        assert_eq!(rows, [0, 1, 2, 0, 1, 2]);
        let cols: Vec<usize> = (0..6).map(|f| source_index(&[2, 3], &[2, 1], f)).collect();
        assert_eq!(cols, [0, 0, 0, 1, 1, 1]);
        let scalar: Vec<usize> = (0..3).map(|f| source_index(&[3], &[], f)).collect();
        assert_eq!(scalar, [0, 0, 0]);
    }
}
