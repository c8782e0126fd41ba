//! Shape-range rules of the array ops (on top of [`crate::ops::ranges`]).
//! Each rule maps the input ranges to the output's; [`propagate`] calls it
//! only when the output wants a range, and [`ranges::set`] pins the known
//! dims, so a rule may leave `ANY` (or anything) where the shape is known.

use crate::infer::OpContext;
use crate::op::OpError;
use crate::ops::ranges::{self, Range, ANY, UNBOUNDED};

/// Sets output `o`'s ranges to `rule(ctx)` when it wants one and the rule
/// can say something.
pub(crate) fn propagate(
    ctx: &mut OpContext<'_>,
    o: usize,
    rule: impl FnOnce(&OpContext<'_>) -> Option<Vec<Range>>,
) -> Result<(), OpError> {
    if !ranges::wanted(ctx, o) {
        return Ok(());
    }
    match rule(ctx) {
        Some(r) => ranges::set(ctx, o, r),
        None => Ok(()),
    }
}

/// `r - k` for a constant `k >= 0`, floored at 0 (a slice cannot be
/// negative; a range whose values all fall below `k` is invalid anyway).
pub(crate) fn sub(r: Range, k: i64) -> Range {
    let lo = r.0.saturating_sub(k).max(0);
    let hi = match r.1 {
        UNBOUNDED => UNBOUNDED,
        h => h.saturating_sub(k).max(lo),
    };
    (lo, hi)
}

/// Anything from 0 to the most `r` holds (a part of a dim in `r`).
pub(crate) fn up_to(r: Range) -> Range {
    (0, r.1)
}

/// The intersection of the ranges that are present (the same dim seen by
/// several inputs); a pair that does not meet keeps the first.
pub(crate) fn intersect_all(all: impl IntoIterator<Item = Vec<Range>>, rank: usize) -> Vec<Range> {
    let mut out = vec![ANY; rank];
    for r in all.into_iter().filter(|r| r.len() == rank) {
        for (o, v) in out.iter_mut().zip(r) {
            *o = ranges::intersect(*o, v).unwrap_or(*o);
        }
    }
    out
}

/// numpy broadcasting of several right-aligned range lists to `rank` dims
/// (missing leading dims count as 1).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
pub(crate) fn broadcast_all(all: &[Vec<Range>], rank: usize) -> Vec<Range> {
    (0..rank)
        .map(|i| {
            all.iter()
                .map(|r| match (i + r.len()).checked_sub(rank) {
                    Some(j) => r[j],
                    None => (1, 1),
                })
                .reduce(ranges::broadcast)
                .unwrap_or((1, 1))
        })
        .collect()
}

/// The product of all ranges (an element count).
pub(crate) fn product(r: &[Range]) -> Range {
    r.iter().copied().fold((1, 1), ranges::mul)
}

/// The range of `f(d)` for `d` in `r`, when `f` is a dim function that is
/// monotonic between the integer `breaks` and beyond the largest of them
/// (a clamped slice length: its extremes lie at the ends of `r` or at a
/// break inside it). `step` is how far past the breaks `f` must move to
/// change when it is not constant there (the slice stride). Points where
/// `f` has no value are skipped; with none at all the result is `ANY`.
pub(crate) fn piecewise(
    r: Range,
    breaks: &[i64],
    step: i64,
    f: impl Fn(i64) -> Option<i64>,
) -> Range {
    let inside = |d: i64| d >= r.0 && (r.1 == UNBOUNDED || d <= r.1);
    let mut points: Vec<i64> = breaks.iter().copied().filter(|&d| inside(d)).collect();
    points.push(r.0);
    if r.1 != UNBOUNDED {
        points.push(r.1);
    }
    let values: Vec<i64> = points.iter().filter_map(|&d| f(d)).collect();
    let (Some(&lo), Some(&hi)) = (values.iter().min(), values.iter().max()) else {
        return ANY;
    };
    if r.1 != UNBOUNDED {
        return (lo, hi);
    }
    // Past every break f only rises, stays, or falls towards 0.
    let far = points
        .iter()
        .copied()
        .max()
        .unwrap_or(r.0)
        .saturating_add(1);
    let further = far.saturating_add(step.max(1));
    match (f(far), f(further)) {
        (Some(a), Some(b)) if further > far && b == a => (lo.min(a), hi.max(a)),
        (Some(a), Some(b)) if further > far && b < a => (0, hi.max(a)),
        _ => (lo.min(f(far).unwrap_or(lo)), UNBOUNDED),
    }
}

/// Slice with known `begin` (or not) and `size` (or not) per dim: a known
/// size is the dim; size -1 is the rest of the input dim past `begin`; an
/// unknown size or begin leaves at most the input dim.
pub(crate) fn slice(input: &[Range], begin: Option<&[i64]>, size: Option<&[i64]>) -> Vec<Range> {
    input
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let b = begin.and_then(|b| b.get(i)).copied();
            match (b, size.and_then(|s| s.get(i)).copied()) {
                (_, Some(s)) if s >= 0 => (s, s),
                (Some(b), Some(-1)) if b >= 0 => sub(r, b),
                (Some(b), _) if b >= 0 => up_to(sub(r, b)),
                _ => up_to(r),
            }
        })
        .collect()
}

/// The clamp points of a strided slice with these begin / end values: where
/// `x` or `dim + x` meets 0, -1 or the dim (see `strided_slice::canonical`).
pub(crate) fn slice_breaks(values: &[i64]) -> Vec<i64> {
    values
        .iter()
        .flat_map(|&x| {
            let n = x.saturating_neg();
            [x, x.saturating_add(1), n, n.saturating_sub(1)]
        })
        .filter(|&d| d >= 0)
        .collect()
}

/// StridedSlice: for each unknown input dim `j`, the output dim it becomes
/// is a function of that dim alone; `shape_of(dims)` is the output shape
/// for input dims `dims` (-1 unknown), or None when they are invalid.
pub(crate) fn strided_slice(
    dims: &[i64],
    input: &[Range],
    out: &[i64],
    breaks: &[i64],
    step: i64,
    shape_of: impl Fn(&[i64]) -> Option<Vec<i64>>,
) -> Vec<Range> {
    let mut result = vec![ANY; out.len()];
    for (j, &r) in input.iter().enumerate() {
        if dims.get(j) != Some(&-1) {
            continue;
        }
        let with = |d: i64| {
            let mut probe = dims.to_vec();
            probe[j] = d;
            shape_of(&probe)
        };
        // The output dim that dim j decides: unknown before, known with it.
        let Some(probe) = with(r.0) else { continue };
        let Some(k) = (0..out.len().min(probe.len())).find(|&k| out[k] == -1 && probe[k] >= 0)
        else {
            continue; // shrunk away
        };
        result[k] = piecewise(r, breaks, step, |d| with(d).and_then(|s| s.get(k).copied()));
    }
    result
}

/// GatherV2: `params[:axis] + indices[batch:] + params[axis+1:]`, the
/// batch dims seen by both.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
pub(crate) fn gather(params: &[Range], indices: &[Range], axis: usize, batch: usize) -> Vec<Range> {
    let mut out: Vec<Range> = params[..axis].to_vec();
    for (o, &i) in out.iter_mut().zip(&indices[..batch]) {
        *o = ranges::intersect(*o, i).unwrap_or(*o);
    }
    out.extend_from_slice(&indices[batch..]);
    out.extend_from_slice(&params[axis + 1..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtraction_and_slices() {
        assert_eq!(sub((5, 10), 3), (2, 7));
        assert_eq!(sub((1, 10), 3), (0, 7));
        assert_eq!(sub((1, -1), 3), (0, -1));
        let input = [(4, 10), (2, -1), (1, 8)];
        assert_eq!(
            slice(&input, Some(&[1, 0, 2]), Some(&[-1, 2, -1])),
            vec![(3, 9), (2, 2), (0, 6)]
        );
        assert_eq!(
            slice(&input, None, Some(&[-1, 1, 3])),
            vec![(0, 10), (1, 1), (3, 3)]
        );
        assert_eq!(
            slice(&input, Some(&[2, 0, 0]), None),
            vec![(0, 8), (0, -1), (0, 8)]
        );
    }

    /// TensorFlow's length of `x[b:e]` along a dim of `d` (stride 1).
    fn py_len(d: i64, b: i64, e: i64) -> i64 {
        let c = |x: i64| if x < 0 { (d + x).max(0) } else { x.min(d) };
        (c(e) - c(b)).max(0)
    }

    #[test]
    fn piecewise_finds_interior_peaks() {
        // x[-4:5] peaks at 4 for d in 4..=5, below the ends 1 and 1.
        let f = |d| Some(py_len(d, -4, 5));
        let breaks = slice_breaks(&[-4, 5]);
        assert_eq!(piecewise((1, 8), &breaks, 1, f), (1, 4));
        // Unbounded: past the breaks it falls to 0.
        assert_eq!(piecewise((1, -1), &breaks, 1, f), (0, 4));
        // x[2:] rises without bound; x[:3] settles at 3.
        let breaks = slice_breaks(&[2]);
        assert_eq!(
            piecewise((1, -1), &breaks, 1, |d| Some((d - 2).max(0))),
            (0, -1)
        );
        let breaks = slice_breaks(&[3]);
        assert_eq!(piecewise((1, -1), &breaks, 1, |d| Some(d.min(3))), (1, 3));
        // Exhaustive check of the bounded case against brute force.
        for (b, e) in [(-4, 5), (2, -1), (-3, -1), (1, 7), (-7, 2)] {
            let breaks = slice_breaks(&[b, e]);
            for lo in 0..12 {
                for hi in lo..12 {
                    let truth = (lo..=hi).map(|d| py_len(d, b, e));
                    let want = (truth.clone().min().unwrap(), truth.max().unwrap());
                    let f = |d| Some(py_len(d, b, e));
                    assert_eq!(
                        piecewise((lo, hi), &breaks, 1, f),
                        want,
                        "{b}:{e} {lo}..{hi}"
                    );
                }
            }
        }
    }

    #[test]
    fn broadcasting_and_products() {
        let out = broadcast_all(&[vec![(1, 1)], vec![(2, 5), (1, 8)], vec![(3, 3)]], 2);
        assert_eq!(out, vec![(2, 5), (3, 3)]);
        assert_eq!(product(&[(2, 3), (4, 4)]), (8, 12));
        assert_eq!(product(&[]), (1, 1));
        assert_eq!(
            intersect_all([vec![(1, 8)], vec![(4, -1)]], 1),
            vec![(4, 8)]
        );
    }

    #[test]
    fn gather_keeps_the_params_around_the_indices() {
        let out = gather(&[(1, 4), (2, 9), (3, 3)], &[(2, 8), (5, 6)], 1, 1);
        assert_eq!(out, vec![(2, 4), (5, 6), (3, 3)]);
    }
}
