//! Shape ranges: inclusive `(min, max)` bounds on dims that are unknown
//! (-1) at inference time, `max == -1` meaning unbounded. A known dim `d` is
//! the range `(d, d)`; an unknown dim without a range is `(0, -1)`.
//!
//! Ops set an output range only when it says something: the output has an
//! unknown dim and some input carries a range ([`wanted`]). All arithmetic
//! saturates: a bound that would overflow becomes unbounded (max) or
//! `i64::MAX` (min), so a range is never narrower than the truth.

use crate::infer::OpContext;
use crate::op::OpError;
use crate::ops::array::host::Elems;
use crate::types::{TensorDesc, UNKNOWN_DIM};

/// Inclusive `(min, max)`; `max == UNBOUNDED` has no upper bound.
pub(crate) type Range = (i64, i64);

pub(crate) const UNBOUNDED: i64 = -1;

/// What nothing is known about.
pub(crate) const ANY: Range = (0, UNBOUNDED);

/// The range of a dim `d` (known or -1) given its recorded range, if any.
/// Malformed recorded ranges (negative min, max below min) count as absent.
pub(crate) fn of_dim(d: i64, recorded: Option<Range>) -> Range {
    if d >= 0 {
        return (d, d);
    }
    match recorded {
        Some((lo, hi)) if lo >= 0 && (hi == UNBOUNDED || hi >= lo) => (lo, hi),
        _ => ANY,
    }
}

/// Per-dim ranges of `desc`, or None when its rank is unknown. A recorded
/// range of the wrong length is ignored.
pub(crate) fn of_desc(desc: &TensorDesc) -> Option<Vec<Range>> {
    let rank = desc.shape().rank()?;
    let recorded = desc.shape_range.as_ref().filter(|r| r.len() == rank);
    let dims = desc.shape().dims();
    Some(
        (0..rank)
            .map(|a| of_dim(dims[a], recorded.map(|r| r[a])))
            .collect(),
    )
}

/// Ranges of input `i` (None when absent or of unknown rank).
pub(crate) fn of_input(ctx: &OpContext<'_>, i: usize) -> Option<Vec<Range>> {
    ctx.input_desc(i).and_then(of_desc)
}

/// Whether output `o` (its shape already set) should get a range: it has a
/// known rank with an unknown dim, and some input carries a range.
pub(crate) fn wanted(ctx: &OpContext<'_>, o: usize) -> bool {
    let Some(out) = ctx.output_desc(o) else {
        return false;
    };
    if out.shape().is_unknown_rank() || !out.shape().dims().contains(&UNKNOWN_DIM) {
        return false;
    }
    (0..ctx.input_count()).any(|i| ctx.input_desc(i).is_some_and(|d| d.shape_range.is_some()))
}

/// Records `ranges` on output `o`; its known dims are pinned to `(d, d)`
/// (the shape is the authority), and a range of the wrong length is dropped.
pub(crate) fn set(
    ctx: &mut OpContext<'_>,
    o: usize,
    mut ranges: Vec<Range>,
) -> Result<(), OpError> {
    let Some(out) = ctx.output_desc(o) else {
        return Ok(());
    };
    let dims = out.shape().dims();
    if out.shape().is_unknown_rank() || dims.len() != ranges.len() {
        return Ok(());
    }
    for (r, &d) in ranges.iter_mut().zip(dims) {
        if d >= 0 {
            *r = (d, d);
        }
    }
    ctx.set_output_shape_range(o, ranges)
}

/// `a + b`.
pub(crate) fn add(a: Range, b: Range) -> Range {
    let hi = if a.1 == UNBOUNDED || b.1 == UNBOUNDED {
        UNBOUNDED
    } else {
        a.1.checked_add(b.1).unwrap_or(UNBOUNDED)
    };
    (a.0.saturating_add(b.0), hi)
}

/// `a * b` (dims are non-negative, so bounds multiply bound-wise; a factor
/// that is always 0 makes the product 0 even against an unbounded one).
pub(crate) fn mul(a: Range, b: Range) -> Range {
    let hi = if a.1 == 0 || b.1 == 0 {
        0
    } else if a.1 == UNBOUNDED || b.1 == UNBOUNDED {
        UNBOUNDED
    } else {
        a.1.checked_mul(b.1).unwrap_or(UNBOUNDED)
    };
    (a.0.saturating_mul(b.0), hi)
}

/// The values `n / k` can take when `n` is in `a` and divisible by `k > 0`
/// (Reshape's inferred dim): `ceil(min / k) ..= floor(max / k)`. None for
/// `k <= 0`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "k > 0 is checked above, so neither division can fail"
)]
pub(crate) fn div_exact(a: Range, k: i64) -> Option<Range> {
    if k <= 0 {
        return None;
    }
    let lo = a.0 / k + i64::from(a.0 % k != 0);
    let hi = if a.1 == UNBOUNDED { UNBOUNDED } else { a.1 / k };
    Some((lo, hi))
}

/// The values an exact quotient `n / m` can take for `n` in `a` and `m` in
/// `b` (Reshape's `-1` beside dims that are themselves ranged): at least
/// `ceil(a.min / b.max)` (0 when `b` is unbounded) and at most
/// `floor(a.max / b.min)` (unbounded when `a` is or `b` may be 0).
pub(crate) fn div_range(a: Range, b: Range) -> Range {
    let lo = match b.1 {
        UNBOUNDED | 0 => 0,
        m => a.0.checked_div(m).map_or(0, |q| {
            q.saturating_add(i64::from(a.0.checked_rem(m).is_some_and(|r| r != 0)))
        }),
    };
    let hi = match (a.1, b.0) {
        (UNBOUNDED, _) | (_, 0) => UNBOUNDED,
        (n, m) => n.checked_div(m).unwrap_or(UNBOUNDED),
    };
    (lo, if hi != UNBOUNDED && hi < lo { lo } else { hi })
}

/// Whether `r` bounds a size: not [`ANY`] (a value range's "nothing
/// known", whose 0 is no real minimum), no negative minimum, and a maximum
/// at least the minimum. Only such bounds may be combined or compared.
pub(crate) fn is_size(r: Range) -> bool {
    r != ANY && r.0 >= 0 && (r.1 == UNBOUNDED || r.1 >= r.0)
}

/// The values in both `a` and `b`; None when they do not meet.
pub(crate) fn intersect(a: Range, b: Range) -> Option<Range> {
    let lo = a.0.max(b.0);
    let hi = match (a.1, b.1) {
        (UNBOUNDED, h) | (h, UNBOUNDED) => h,
        (x, y) => x.min(y),
    };
    (hi == UNBOUNDED || hi >= lo).then_some((lo, hi))
}

/// The smallest range holding both `a` and `b`.
pub(crate) fn hull(a: Range, b: Range) -> Range {
    let hi = if a.1 == UNBOUNDED || b.1 == UNBOUNDED {
        UNBOUNDED
    } else {
        a.1.max(b.1)
    };
    (a.0.min(b.0), hi)
}

fn contains(r: Range, v: i64) -> bool {
    r.0 <= v && (r.1 == UNBOUNDED || v <= r.1)
}

/// numpy broadcasting of a dim in `a` against one in `b`: equal dims stay,
/// a 1 takes the other side. So the result is in `a ∩ b`, or in `a` when
/// `b` can be 1, or in `b` when `a` can be 1. When none of these is
/// possible the shapes cannot broadcast; the hull of both stays true.
pub(crate) fn broadcast(a: Range, b: Range) -> Range {
    let candidates = [
        intersect(a, b),
        contains(b, 1).then_some(a),
        contains(a, 1).then_some(b),
    ];
    candidates
        .into_iter()
        .flatten()
        .reduce(hull)
        .unwrap_or_else(|| hull(a, b))
}

/// `f` applied to the bounds of `r`, for a non-decreasing `f` on dims
/// (window output sizes). A min where `f` fails or is unknown (too small a
/// window input) gives 0; a max where it fails or is unknown gives
/// unbounded; an unbounded max stays unbounded.
pub(crate) fn monotonic(r: Range, f: impl Fn(i64) -> Result<i64, OpError>) -> Range {
    let lo = match f(r.0) {
        Ok(v) if v >= 0 => v,
        _ => 0,
    };
    let hi = match r.1 {
        UNBOUNDED => UNBOUNDED,
        max => match f(max) {
            Ok(v) if v >= lo => v,
            _ => UNBOUNDED,
        },
    };
    (lo, hi)
}

/// [`set`], only when it says something: some unknown dim of output `o`
/// gets a range other than [`ANY`] (ranges of the wrong length say nothing).
pub(crate) fn set_if_bounded(
    ctx: &mut OpContext<'_>,
    o: usize,
    ranges: Vec<Range>,
) -> Result<(), OpError> {
    let says = ctx.output_desc(o).is_some_and(|out| {
        let dims = out.shape().dims();
        !out.shape().is_unknown_rank()
            && dims.len() == ranges.len()
            && dims
                .iter()
                .zip(&ranges)
                .any(|(&d, &r)| d == UNKNOWN_DIM && r != ANY)
    });
    if says {
        set(ctx, o, ranges)?;
    }
    Ok(())
}

/// Output `o`, whose dims are the entries of shape-vector input `shape`
/// (Fill, ConstantOfShape): each unknown dim gets its entry's value range.
pub(crate) fn set_from_shape_input(
    ctx: &mut OpContext<'_>,
    o: usize,
    shape: usize,
) -> Result<(), OpError> {
    match Elems::vector_bounds(ctx, shape) {
        Some(bounds) => set_if_bounded(ctx, o, bounds),
        None => Ok(()),
    }
}

/// Output 0 of a concatenation of inputs `values` along `axis`: along
/// `axis` the ranges add up; elsewhere every value has the same dim,
/// so it lies in all their ranges.
pub(crate) fn set_concat(
    ctx: &mut OpContext<'_>,
    values: &[usize],
    axis: usize,
    rank: usize,
) -> Result<(), OpError> {
    let mut out = vec![ANY; rank];
    out[axis] = (0, 0);
    for &i in values {
        let r = of_input(ctx, i).unwrap_or_else(|| vec![ANY; rank]);
        for (d, (o, &v)) in out.iter_mut().zip(&r).enumerate() {
            *o = if d == axis {
                add(*o, v)
            } else {
                intersect(*o, v).unwrap_or(*o)
            };
        }
    }
    set(ctx, 0, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_and_recorded_ranges() {
        assert_eq!(of_dim(5, Some((1, 2))), (5, 5));
        assert_eq!(of_dim(-1, Some((1, 8))), (1, 8));
        assert_eq!(of_dim(-1, Some((3, -1))), (3, -1));
        assert_eq!(of_dim(-1, None), ANY);
        assert_eq!(of_dim(-1, Some((-2, 4))), ANY);
        assert_eq!(of_dim(-1, Some((5, 4))), ANY);
    }

    #[test]
    fn quotients_of_ranges() {
        // [N, 4, H, W] as [N, 4, -1]: N in 1..=4, H = W in 10..=20.
        let count = mul(mul((1, 4), (4, 4)), mul((10, 20), (10, 20)));
        assert_eq!(div_range(count, mul((1, 4), (4, 4))), (25, 1600));
        assert_eq!(div_range((7, 9), (2, 2)), (4, 4));
        assert_eq!(div_range((7, UNBOUNDED), (2, 3)), (3, UNBOUNDED));
        assert_eq!(div_range((7, 9), (0, 3)), (3, UNBOUNDED));
        assert_eq!(div_range((7, 9), (1, UNBOUNDED)), (0, 9));
    }

    #[test]
    fn add_and_mul_saturate() {
        assert_eq!(add((1, 8), (2, 3)), (3, 11));
        assert_eq!(add((1, -1), (2, 3)), (3, -1));
        assert_eq!(add((1, i64::MAX), (0, 1)), (1, -1));
        assert_eq!(add((i64::MAX, -1), (1, 1)), (i64::MAX, -1));
        assert_eq!(mul((2, 4), (3, 5)), (6, 20));
        assert_eq!(mul((0, 0), (1, -1)), (0, 0));
        assert_eq!(mul((1, -1), (2, 2)), (2, -1));
        assert_eq!(mul((1, i64::MAX), (2, 2)), (2, -1));
        assert_eq!(mul((i64::MAX, -1), (2, 2)), (i64::MAX, -1));
    }

    #[test]
    fn division_intersection_hull() {
        assert_eq!(div_exact((10, 100), 3), Some((4, 33)));
        assert_eq!(div_exact((9, -1), 3), Some((3, -1)));
        assert_eq!(div_exact((0, 7), 0), None);
        assert_eq!(intersect((1, 8), (4, -1)), Some((4, 8)));
        assert_eq!(intersect((1, 3), (4, -1)), None);
        assert_eq!(intersect((0, -1), (2, -1)), Some((2, -1)));
        assert_eq!(hull((1, 3), (5, 9)), (1, 9));
        assert_eq!(hull((1, 3), (5, -1)), (1, -1));
    }

    #[test]
    fn broadcast_takes_the_other_side_of_a_one() {
        assert_eq!(broadcast((1, 8), (1, 1)), (1, 8));
        assert_eq!(broadcast((2, 8), (4, 16)), (4, 8));
        // `a` can be 1, so the result can be anything `b` is.
        assert_eq!(broadcast((1, 8), (4, 16)), (4, 16));
        assert_eq!(broadcast((0, -1), (3, 5)), (3, 5));
        // Cannot broadcast at all: the hull is still a true bound.
        assert_eq!(broadcast((2, 3), (5, 6)), (2, 6));
    }

    #[test]
    fn monotonic_bounds() {
        let half_up = |n: i64| -> Result<i64, OpError> {
            if n < 3 {
                crate::bail!("too small");
            }
            Ok((n + 1) / 2)
        };
        assert_eq!(monotonic((16, 64), half_up), (8, 32));
        assert_eq!(monotonic((0, 64), half_up), (0, 32));
        assert_eq!(monotonic((16, -1), half_up), (8, -1));
        assert_eq!(monotonic((0, 2), half_up), (0, -1));
    }
}
