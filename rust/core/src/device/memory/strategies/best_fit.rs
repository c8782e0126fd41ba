//! Offset assignment for a given order (the placement step of the "greedy
//! by size" family): each buffer, in order, goes into the smallest gap that
//! fits it between the already placed buffers it meets in time, or on top
//! of them when no gap fits.

use super::conflicts::{prefetch, ConflictIndex, Span};
use crate::device::memory::lifetimes::Prepared;

/// Marks a buffer not placed yet.
const UNPLACED: u64 = u64::MAX;

/// The memory a query reads is requested this many queries ahead, so its
/// cache misses overlap the work on the current one (the order jumps
/// around in time, so each query would start with misses).
const PREFETCH_DISTANCE: usize = 8;

/// Offsets for the buffers placed in `order` (every buffer exactly once).
pub(crate) fn place_in_order(p: &Prepared, index: &ConflictIndex, order: &[u32]) -> Vec<u64> {
    let mut spans = Span::all(p, UNPLACED);
    // (offset, end) of the placed buffers the current one meets.
    let mut busy: Vec<(u64, u64)> = Vec::new();
    for (i, &t) in order.iter().enumerate() {
        // Two stages: the record of a buffer far ahead, then, once it is in
        // cache, what the query for a nearer one reads around it.
        if let Some(&far) = order.get(i + 2 * PREFETCH_DISTANCE) {
            prefetch(&spans[far as usize]);
        }
        if let Some(&near) = order.get(i + PREFETCH_DISTANCE) {
            index.prefetch_query(&spans, near);
        }
        busy.clear();
        index.for_each_conflict(&spans, t, |u| {
            if u.offset != UNPLACED {
                // No overflow: an offset never exceeds the total of all sizes.
                busy.push((u.offset, u.offset + u.size));
            }
        });
        let t = &mut spans[t as usize];
        t.offset = best_gap(&mut busy, t.size);
    }
    spans.into_iter().map(|s| s.offset).collect()
}

/// The start of the smallest free gap of at least `size` bytes below and
/// between the `busy` ranges, or the top of them when none fits. Ties go to
/// the lowest gap.
pub(super) fn best_gap(busy: &mut [(u64, u64)], size: u64) -> u64 {
    busy.sort_unstable_by_key(|b| b.0);
    let mut top = 0u64;
    let mut best: Option<(u64, u64)> = None; // (gap, offset)
    for &(offset, end) in busy.iter() {
        if offset > top {
            let gap = offset - top;
            if gap >= size && best.is_none_or(|(g, _)| gap < g) {
                best = Some((gap, top));
            }
        }
        top = top.max(end);
    }
    best.map_or(top, |(_, offset)| offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_fitting_gap_wins() {
        // Gaps: [0, 100) 100 bytes, [300, 340) 40, [400, 460) 60; top 500.
        let mut busy = vec![(400 + 60, 500), (100, 300), (340, 400)];
        assert_eq!(best_gap(&mut busy, 50), 400);
        assert_eq!(best_gap(&mut busy, 40), 300);
        assert_eq!(best_gap(&mut busy, 70), 0);
        assert_eq!(best_gap(&mut busy, 101), 500);
        assert_eq!(best_gap(&mut [], 8), 0);
        // Overlapping busy ranges (buffers that do not meet each other).
        let mut nested = vec![(0, 100), (50, 80), (90, 120), (200, 210)];
        assert_eq!(best_gap(&mut nested, 60), 120);
        assert_eq!(best_gap(&mut nested, 81), 210);
    }
}
