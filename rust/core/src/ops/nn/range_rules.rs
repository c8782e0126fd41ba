//! Shape-range rules of the nn ops (issue 3: "shape ranges propagate where
//! computable"). Each rule runs right after its op set the output shape,
//! only when [`ranges::wanted`] says the output needs a range, and builds
//! the range from the inputs' ranges with the interval helpers of
//! `ops::ranges`. Known output dims are pinned by [`ranges::set`], so the
//! rules only have to be right about the unknown ones.

use super::window::{output_dim, Padding, Window};
use crate::infer::OpContext;
use crate::op::OpError;
use crate::ops::ranges::{self, Range, ANY};

/// Ranges of input `i`, or `rank` unknown dims when it has none.
fn of_input_or_any(ctx: &OpContext<'_>, i: usize, rank: usize) -> Vec<Range> {
    ranges::of_input(ctx, i)
        .filter(|r| r.len() == rank)
        .unwrap_or_else(|| vec![ANY; rank])
}

/// Where two dims must be equal, the value is in both ranges; if the
/// ranges do not meet (the shape check has already passed, so this only
/// happens with inconsistent recorded ranges) keep the first.
fn meet(a: Range, b: Range) -> Range {
    ranges::intersect(a, b).unwrap_or(a)
}

/// `(M, N)` ranges of a product from the operands' last two dims.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn product_ranges(a: &[Range], b: &[Range], ta: bool, tb: bool) -> (Range, Range) {
    let last = |r: &[Range], transposed: bool, far: bool| -> Range {
        // `far`: the dim that survives (rows of a, columns of b).
        let n = r.len();
        if n < 2 {
            return ANY;
        }
        if transposed != far {
            r[n - 1]
        } else {
            r[n - 2]
        }
    };
    (last(a, ta, false), last(b, tb, true))
}

/// MatMul / BatchMatMul / BatchMatMulV2: M from x1, N from x2 (after the
/// transposes); batch dims must be equal (`broadcast == false`, they
/// intersect) or broadcast numpy-style from the right.
pub(super) fn matmul(
    ctx: &mut OpContext<'_>,
    (ta, tb): (bool, bool),
    batched: bool,
    broadcast: bool,
) -> Result<(), OpError> {
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let a = ranges::of_input(ctx, 0);
    let b = ranges::of_input(ctx, 1);
    let a_or_any = a.clone().unwrap_or_else(|| vec![ANY; 2]);
    let b_or_any = b.clone().unwrap_or_else(|| vec![ANY; 2]);
    let (m, n) = product_ranges(&a_or_any, &b_or_any, ta, tb);
    let mut out: Vec<Range> = Vec::new();
    if batched {
        let batch =
            |r: &Option<Vec<Range>>| r.as_ref().map(|r| r[..r.len().saturating_sub(2)].to_vec());
        let (ab, bb) = (batch(&a), batch(&b));
        out = match (ab, bb) {
            (Some(x), Some(y)) if broadcast => broadcast_right(&x, &y),
            (Some(x), Some(y)) if x.len() == y.len() => {
                x.iter().zip(&y).map(|(&p, &q)| meet(p, q)).collect()
            }
            // Unequal ranks were rejected by the shape rule; an unknown
            // rank leaves the output's rank unknown (no range) for V2, or
            // takes the known side for BatchMatMul.
            (Some(x), None) | (None, Some(x)) if !broadcast => x,
            _ => return Ok(()),
        };
    }
    out.extend([m, n]);
    ranges::set(ctx, 0, out)
}

/// numpy broadcasting of two dim lists aligned on the right.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn broadcast_right(a: &[Range], b: &[Range]) -> Vec<Range> {
    let rank = a.len().max(b.len());
    let at = |r: &[Range], i: usize| match (i + r.len()).checked_sub(rank) {
        Some(j) => r[j],
        None => (1, 1),
    };
    (0..rank)
        .map(|i| ranges::broadcast(at(a, i), at(b, i)))
        .collect()
}

/// One einsum term: its labels and where its '...' sits (if any).
pub(super) struct TermRef<'t> {
    pub labels: &'t [u8],
    pub ellipsis: Option<usize>,
}

/// Einsum: a label's size is in the range of every dim it labels (they are
/// all equal); the '...' dims broadcast across the operands that have one.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
pub(super) fn einsum(
    ctx: &mut OpContext<'_>,
    inputs: &[TermRef<'_>],
    output: &TermRef<'_>,
) -> Result<(), OpError> {
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let mut labels: Vec<Option<Range>> = vec![None; 256];
    let mut batch: Vec<Range> = Vec::new();
    for (i, term) in inputs.iter().enumerate() {
        let Some(r) = ranges::of_desc(ctx.dynamic_input_desc(0, i)?) else {
            continue;
        };
        let n = term.labels.len();
        let Some(extra) = r.len().checked_sub(n) else {
            return Ok(());
        };
        let at = term.ellipsis.unwrap_or(n);
        for (k, &l) in term.labels.iter().enumerate() {
            let d = r[if k < at { k } else { k + extra }];
            let slot = &mut labels[l as usize];
            *slot = Some(slot.map_or(d, |prev| meet(prev, d)));
        }
        if term.ellipsis.is_some() {
            batch = broadcast_right(&batch, &r[at..at + extra]);
        }
    }
    let label = |l: &u8| labels[*l as usize].unwrap_or(ANY);
    let at = output.ellipsis.unwrap_or(output.labels.len());
    let mut out: Vec<Range> = output.labels[..at].iter().map(label).collect();
    if output.ellipsis.is_some() {
        out.extend(batch);
    }
    out.extend(output.labels[at..].iter().map(label));
    ranges::set(ctx, 0, out)
}

/// An output-size formula along one axis.
pub(super) type DimFn<'f> = &'f dyn Fn(i64) -> Result<i64, OpError>;

/// A windowed op (convolution / pooling): batch and anything not listed
/// copy x (input 0); `channels` replaces the channel dim's range; each
/// spatial axis goes through `dim` (the op's output-size formula, which is
/// non-decreasing in the input size) on the bounds of x's range.
pub(super) fn windowed(
    ctx: &mut OpContext<'_>,
    rank: usize,
    channels: Option<(usize, Range)>,
    spatial: &[(usize, DimFn<'_>)],
) -> Result<(), OpError> {
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let mut out = of_input_or_any(ctx, 0, rank);
    if let Some((axis, r)) = channels {
        out[axis] = r;
    }
    for &(axis, dim) in spatial {
        out[axis] = ranges::monotonic(out[axis], dim);
    }
    ranges::set(ctx, 0, out)
}

/// TensorFlow-style windows (Conv3D): `(axis, window)` pairs and the
/// padding mode.
pub(super) fn tf_windows(
    ctx: &mut OpContext<'_>,
    rank: usize,
    channels: Option<(usize, Range)>,
    windows: &[(usize, Window)],
    padding: Padding,
) -> Result<(), OpError> {
    let dims: Vec<_> = windows
        .iter()
        .map(|(axis, w)| (*axis, move |d: i64| output_dim(d, w, padding)))
        .collect();
    let spatial: Vec<(usize, DimFn<'_>)> = dims
        .iter()
        .map(|(axis, f)| (*axis, f as DimFn<'_>))
        .collect();
    windowed(ctx, rank, channels, &spatial)
}

/// The range of dim `axis` of input `i` (ANY without one).
pub(super) fn input_dim(ctx: &OpContext<'_>, i: usize, axis: usize) -> Range {
    ranges::of_input(ctx, i)
        .and_then(|r| r.get(axis).copied())
        .unwrap_or(ANY)
}

/// CommonLSTM / CommonGRU / CommonRNN: `y` is `[seq, directions, batch,
/// hidden]` and each state `[directions, batch, hidden]` (batch first with
/// `batch_first`); the sequence and batch sizes are x's, the batch also
/// initial_h's (input 5).
pub(super) fn recurrent(
    ctx: &mut OpContext<'_>,
    batch_first: bool,
    outputs: usize,
) -> Result<(), OpError> {
    let (seq_axis, batch_axis) = if batch_first { (1, 0) } else { (0, 1) };
    let seq = input_dim(ctx, 0, seq_axis);
    let batch = meet(input_dim(ctx, 0, batch_axis), input_dim(ctx, 5, batch_axis));
    if ranges::wanted(ctx, 0) {
        let y = if batch_first {
            vec![batch, seq, ANY, ANY]
        } else {
            vec![seq, ANY, batch, ANY]
        };
        ranges::set(ctx, 0, y)?;
    }
    for o in 1..outputs {
        if ranges::wanted(ctx, o) {
            let state = if batch_first {
                vec![batch, ANY, ANY]
            } else {
                vec![ANY, batch, ANY]
            };
            ranges::set(ctx, o, state)?;
        }
    }
    Ok(())
}

/// Output `o` takes input `i`'s dims `keep` as they are and then `tail`
/// (FullyConnection: the leading dims and num_output; LayerNorm's
/// statistics: the leading dims and ones).
pub(super) fn prefix_then(
    ctx: &mut OpContext<'_>,
    o: usize,
    i: usize,
    keep: usize,
    tail: &[Range],
) -> Result<(), OpError> {
    if !ranges::wanted(ctx, o) {
        return Ok(());
    }
    let Some(r) = ranges::of_input(ctx, i) else {
        return Ok(());
    };
    let mut out: Vec<Range> = r.into_iter().take(keep).collect();
    out.extend_from_slice(tail);
    ranges::set(ctx, o, out)
}

/// Output `o` has input `i`'s shape (FusedBatchNorm's y).
pub(crate) fn copy(ctx: &mut OpContext<'_>, o: usize, i: usize) -> Result<(), OpError> {
    prefix_then(ctx, o, i, usize::MAX, &[])
}

/// Eltwise: all inputs have one shape, so each dim is in every input's
/// range.
pub(super) fn intersect_dynamic(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let mut out: Option<Vec<Range>> = None;
    for i in 0..ctx.dynamic_input_count(0)? {
        let Some(r) = ranges::of_desc(ctx.dynamic_input_desc(0, i)?) else {
            continue;
        };
        out = Some(match out {
            Some(o) if o.len() == r.len() => o.iter().zip(&r).map(|(&p, &q)| meet(p, q)).collect(),
            Some(o) => o,
            None => r,
        });
    }
    match out {
        Some(out) => ranges::set(ctx, 0, out),
        None => Ok(()),
    }
}

/// Crop: dims before `axis` are x's, the rest the reference's; a crop at
/// `offset` also fits in x, so it is at most x's max minus the offset.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
pub(super) fn crop(ctx: &mut OpContext<'_>, axis: usize, offsets: &[i64]) -> Result<(), OpError> {
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let (Some(x), Some(size)) = (ranges::of_input(ctx, 0), ranges::of_input(ctx, 1)) else {
        return Ok(());
    };
    if x.len() != size.len() {
        return Ok(());
    }
    let mut out = x.clone();
    for i in axis..x.len() {
        let offset = offsets
            .get(if offsets.len() == 1 { 0 } else { i - axis })
            .copied()
            .unwrap_or(0);
        let room = match x[i].1 {
            ranges::UNBOUNDED => ANY,
            hi => (0, hi.saturating_sub(offset).max(0)),
        };
        out[i] = meet(size[i], room);
    }
    ranges::set(ctx, 0, out)
}

/// Conv2DBackpropInput without the `input_size` value: N from
/// out_backprop (input 2), C = the filter's (input 1) input channels x
/// `groups`; H and W stay unknown.
pub(super) fn backprop_input(
    ctx: &mut OpContext<'_>,
    (n, c): (usize, usize),
    filter_c: usize,
    groups: i64,
) -> Result<(), OpError> {
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let mut out = vec![ANY; 4];
    out[n] = input_dim(ctx, 2, n);
    out[c] = ranges::mul(input_dim(ctx, 1, filter_c), (groups, groups));
    ranges::set(ctx, 0, out)
}

/// Resize: N and C copy x; H and W (axes `h`, `w`) are known or unknown
/// (a size value carries no range).
pub(super) fn resize(ctx: &mut OpContext<'_>, h: usize, w: usize) -> Result<(), OpError> {
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let mut out = of_input_or_any(ctx, 0, 4);
    out[h] = ANY;
    out[w] = ANY;
    ranges::set(ctx, 0, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_dims_follow_the_transposes() {
        let a = [(1, 4), (2, 5)];
        let b = [(2, 5), (7, 9)];
        assert_eq!(product_ranges(&a, &b, false, false), ((1, 4), (7, 9)));
        assert_eq!(product_ranges(&a, &b, true, true), ((2, 5), (2, 5)));
        assert_eq!(product_ranges(&[], &b, false, false), (ANY, (7, 9)));
    }

    #[test]
    fn broadcasting_from_the_right() {
        assert_eq!(
            broadcast_right(&[(2, 4)], &[(3, 3), (1, 1)]),
            vec![(3, 3), (2, 4)]
        );
        assert_eq!(broadcast_right(&[], &[(1, 5)]), vec![(1, 5)]);
        assert_eq!(meet((1, 3), (5, 6)), (1, 3));
    }

    #[test]
    fn recurrent_outputs_take_the_sequence_and_batch_ranges() {
        use crate::test_graphs::OpCase;
        use crate::types::{AttrValue, DataType};
        let lstm = |layout: i64, x: (&[i64], &[(i64, i64)]), h: Option<&[(i64, i64)]>| {
            let mut c = OpCase::new();
            let x = c.ranged_input(DataType::Float, x.0, x.1);
            let w = c.input(DataType::Float, &[2, 32, 16]);
            let r = c.input(DataType::Float, &[2, 32, 8]);
            let mut inputs = vec![x, w, r];
            if let Some(h) = h {
                let (b, none) = (
                    c.input(DataType::Float, &[2, 64]),
                    c.input(DataType::Int32, &[2]),
                );
                let state_dims: &[i64] = if layout == 0 {
                    &[2, -1, 8]
                } else {
                    &[-1, 2, 8]
                };
                inputs.extend([b, none, c.ranged_input(DataType::Float, state_dims, h)]);
            }
            let attrs = [
                ("direction", AttrValue::Str("bidirectional".into())),
                ("layout", AttrValue::Int(layout)),
            ];
            let y = c.op("CommonLSTM", &inputs, &attrs);
            c.infer().unwrap();
            let y_c = crate::graph::OutputRef {
                node: y.node,
                index: 2,
            };
            (c.range(y), c.range(y_c))
        };
        // [seq, batch, input]: y [seq, 2, batch, 8], states [2, batch, 8].
        let (y, y_c) = lstm(0, (&[-1, -1, 16], &[(25, 160), (1, 8), (16, 16)]), None);
        assert_eq!(y, Some(vec![(25, 160), (2, 2), (1, 8), (8, 8)]));
        assert_eq!(y_c, Some(vec![(2, 2), (1, 8), (8, 8)]));
        // Batch first; initial_h narrows the batch.
        let x = (&[-1, -1, 16][..], &[(1, 8), (25, 160), (16, 16)][..]);
        let (y, y_c) = lstm(1, x, Some(&[(2, 4), (2, 2), (8, 8)]));
        assert_eq!(y, Some(vec![(2, 4), (25, 160), (2, 2), (8, 8)]));
        assert_eq!(y_c, Some(vec![(2, 4), (2, 2), (8, 8)]));
    }
}
