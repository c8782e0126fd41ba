//! Branch-and-bound placement in the style of MiniMalloc (Moffitt, ASPLOS
//! 2023), for the sets the greedy strategies leave above the lower bound.
//!
//! Where best fit misses the bound, it is because the steps around the
//! peak must be packed without a gap and no order of best-fit choices
//! packs them (on the corpora: RetinaNet's box decoding, where two peaks
//! 25 steps apart share small long-lived buffers, around 12.8 MB ones; all
//! greedy orders stay 1.028x its bound). So the search packs a *window*:
//! the buffers alive within `radius` steps of the (first) peak step, at
//! the lower bound exactly; the other buffers are then placed around them
//! by best fit, in size and in breadth order, and the better is kept. The
//! first window spans [`FIRST_RADIUS`] steps either side; while the result
//! is still above the margin, the window doubles. A window the budget
//! cannot pack ends the search (a wider one is harder still).
//!
//! The search answers a decision: do these buffers fit in `capacity`
//! bytes? It builds a placement buffer by buffer in nondecreasing order of
//! offset. Every placement can be built that way without raising any
//! offset: sort it by offset and place each buffer, in that order, at the
//! lowest offset not below the previous one that clears the buffers
//! already placed that it meets in time. So at each node:
//!
//! - a buffer's *floor* is the highest top among the placed buffers it
//!   meets (kept up to date as buffers are placed), and the offset it
//!   would get now is the larger of its floor and the current offset
//!   `level`;
//! - the branches are the buffers that would go at the lowest such offset
//!   `m`, largest first (the order among buffers placed at the same offset
//!   cannot matter, as they never meet in time, so they go in id order),
//!   and one more: *lift*, leaving offset `m` to nobody else and raising
//!   `level` to the next offset some buffer would get;
//! - the cut: the buffers not placed yet that are alive at a step all lie
//!   above `level` and above the floor the placed ones leave at that step,
//!   and on top of each other, so that floor (or `level`) plus their total
//!   must fit in `capacity`. Live totals per *section* (a maximal run of
//!   steps where the same buffers are alive) are kept in a max tree.
//!
//! With an unlimited budget the search finds a placement exactly when one
//! exists (a test checks it against every order on small sets). It is
//! exponential in the worst case, so it spends at most [`SEARCH_BUDGET`]
//! units of work per plan and gives up; the plan then keeps the repair
//! placement. It runs only where it can pay: sets more than
//! [`MARGIN_PER_MILLE`] thousandths above the bound after repair, of at
//! most [`MAX_SEARCH_BUFFERS`] buffers.

use super::best_fit::best_gap;
use super::{Context, Strategy};
use crate::device::memory::lifetimes::Prepared;
use crate::device::memory::Lifetime;

/// Work units (a buffer scanned or updated, a pair of buffers built) the
/// search spends per plan, at most: tens of milliseconds (about 200 ms on
/// random sets of 4,096 buffers denser than any network's, where repair
/// takes 3 s). RetinaNet's windows need about 100,000.
const SEARCH_BUDGET: u64 = 1 << 20;
/// Units charged per move besides the buffers it updates: the max-tree
/// updates and queries, each a walk down the tree.
const MOVE_COST: u64 = 32;
/// The search runs only when the best placement so far exceeds the lower
/// bound by more than this many thousandths of it.
const MARGIN_PER_MILLE: u64 = 10;
/// Sets with more buffers are not searched: placing the buffers outside a
/// window costs their meeting pairs again per window, and such sets (from
/// graphs of thousands of nodes) are where the greedy orders do well.
const MAX_SEARCH_BUFFERS: usize = 4096;
/// Steps either side of the peak in the first window searched; each next
/// window doubles it.
const FIRST_RADIUS: u32 = 8;

/// Marks a buffer not placed yet.
const UNPLACED: u64 = u64::MAX;

/// A placement smaller than repair's, or `None` (not searched, or nothing
/// smaller found).
pub(super) fn place(ctx: &mut Context<'_>) -> Option<Vec<u64>> {
    let p = ctx.p;
    if p.len() > MAX_SEARCH_BUFFERS {
        return None;
    }
    let mut best_arena = p.arena_of(ctx.place(Strategy::GreedyRepair));
    let mut best = None;
    let bound = ctx.lower_bound;
    // No overflow: the bound is at most the total of all sizes.
    let margin = bound / 1000 * MARGIN_PER_MILLE;
    if best_arena <= bound.saturating_add(margin) {
        return None;
    }
    let whole = Instance::new(p)?;
    let peak = ctx.profile.iter().position(|&live| live == bound)?;
    let peak = peak as u32;
    // Building the pairs and placing the buffers outside a window cost
    // about one unit per pair: charged like the search's own steps.
    let completion = (whole.meets.len() + p.len()) as u64;
    let mut budget = SEARCH_BUDGET.saturating_sub(completion);
    let mut radius = FIRST_RADIUS;
    loop {
        let (lo, hi) = (peak.saturating_sub(radius), peak.saturating_add(radius));
        let inside: Vec<usize> = (0..p.len())
            .filter(|&i| p.first[i] <= hi && p.last[i] >= lo)
            .collect();
        // A window the budget cannot solve: a wider one is harder still.
        let Some(window) = fit_window(p, &inside, bound, &mut budget) else {
            break;
        };
        if budget < 2 * completion {
            break;
        }
        budget -= 2 * completion;
        for order in [Strategy::GreedyBySize, Strategy::GreedyByBreadth] {
            let offsets = complete(p, &whole, ctx.order(order), &inside, &window);
            let arena = p.arena_of(&offsets);
            if arena < best_arena {
                best_arena = arena;
                best = Some(offsets);
            }
        }
        if best_arena <= bound.saturating_add(margin) || inside.len() == p.len() {
            break;
        }
        radius = radius.saturating_mul(2);
    }
    best
}

/// Offsets within `capacity` for the buffers `inside` (ids of `p`), in
/// that order, if the search finds them within `budget`.
fn fit_window(p: &Prepared, inside: &[usize], capacity: u64, budget: &mut u64) -> Option<Vec<u64>> {
    let lifetimes: Vec<Lifetime> = inside
        .iter()
        .map(|&i| Lifetime::new(p.sizes[i], p.first[i], p.last[i]))
        .collect();
    // Sizes are aligned already: alignment 1 keeps them.
    let sub = Prepared::new(&lifetimes, 1).ok()?;
    let instance = Instance::new(&sub)?;
    *budget = budget.saturating_sub((instance.meets.len() + sub.len()) as u64);
    let offsets = instance.fits(capacity, budget)?;
    Some(sub.to_input_order(&offsets))
}

/// A whole placement: the buffers `inside` at `window` (their offsets, in
/// that order), every other buffer by best fit around them, in `order`.
fn complete(
    p: &Prepared,
    whole: &Instance,
    order: &[u32],
    inside: &[usize],
    window: &[u64],
) -> Vec<u64> {
    let mut offsets = vec![UNPLACED; p.len()];
    for (&i, &offset) in inside.iter().zip(window) {
        offsets[i] = offset;
    }
    let mut busy: Vec<(u64, u64)> = Vec::new();
    for &t in order {
        if offsets[t as usize] != UNPLACED {
            continue;
        }
        busy.clear();
        for &u in whole.meets(t) {
            let offset = offsets[u as usize];
            if offset != UNPLACED {
                // No overflow: offsets stay below the total of all sizes.
                busy.push((offset, offset + p.sizes[u as usize]));
            }
        }
        offsets[t as usize] = best_gap(&mut busy, p.sizes[t as usize]);
    }
    offsets
}

/// The buffers as the search reads them: sizes, section ranges, and who
/// meets whom.
struct Instance {
    sizes: Vec<u64>,
    /// Per buffer, its first and last section.
    sections: Vec<(u32, u32)>,
    section_count: usize,
    /// The buffers meeting buffer `i` are `meets[meets_start[i]..meets_start[i + 1]]`.
    meets_start: Vec<u32>,
    meets: Vec<u32>,
    /// Branches at a node are tried in this rank order (lower first).
    rank: Vec<u32>,
}

/// One decision on the search path.
#[derive(Clone, Copy)]
enum Move {
    Place(u32),
    Lift(u64),
}

/// What undoing a move restores.
struct Undo {
    /// Length of the floor log before the move.
    log: usize,
    level: u64,
    same_offset_after: Option<u32>,
    placed: Option<u32>,
}

/// A node of the search: its branches (`moves[start..end]`), the next to
/// try, and the undo record of the one applied now.
struct Frame {
    start: usize,
    next: usize,
    end: usize,
    applied: Option<Undo>,
}

impl Frame {
    /// A frame over the moves `search` can make next, appended to `moves`.
    fn of_branches(search: &Search<'_>, moves: &mut Vec<Move>, budget: &mut u64) -> Frame {
        let start = moves.len();
        search.branches(moves, budget);
        Frame {
            start,
            next: start,
            end: moves.len(),
            applied: None,
        }
    }
}

impl Instance {
    /// `None` when the overlapping pairs alone exceed the budget.
    fn new(p: &Prepared) -> Option<Instance> {
        let n = p.len();
        // The section totals are kept as i64.
        if i64::try_from(p.total).is_err() {
            return None;
        }
        // Ids are in first-step order, so the buffers starting within
        // buffer i's lifetime after it are a contiguous run: count the
        // pairs before building them.
        let ends: Vec<usize> = (0..n)
            .map(|i| i + 1 + p.first[i + 1..].partition_point(|&f| f <= p.last[i]))
            .collect();
        let pairs: u64 = (0..n).map(|i| (ends[i] - i - 1) as u64).sum();
        if pairs > SEARCH_BUDGET / 4 {
            return None;
        }
        let mut degree = vec![0u32; n + 1];
        for i in 0..n {
            for j in i + 1..ends[i] {
                degree[i] += 1;
                degree[j] += 1;
            }
        }
        let mut meets_start = vec![0u32; n + 1];
        for i in 0..n {
            meets_start[i + 1] = meets_start[i] + degree[i];
        }
        let mut fill = meets_start.clone();
        let mut meets = vec![0u32; meets_start[n] as usize];
        for i in 0..n {
            for j in i + 1..ends[i] {
                meets[fill[i] as usize] = j as u32;
                fill[i] += 1;
                meets[fill[j] as usize] = i as u32;
                fill[j] += 1;
            }
        }
        // Sections: cut at every first step and after every last step.
        let mut cuts: Vec<u32> = p
            .first
            .iter()
            .copied()
            .chain(p.last.iter().map(|&l| l.saturating_add(1)))
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let section = |s: u32| (cuts.partition_point(|&c| c <= s) - 1) as u32;
        let sections = (0..n)
            .map(|i| (section(p.first[i]), section(p.last[i])))
            .collect();
        // Larger buffers first, then longer lived, then by id.
        let mut by_rank: Vec<u32> = (0..n as u32).collect();
        by_rank.sort_by_key(|&i| {
            let i = i as usize;
            (
                std::cmp::Reverse(p.sizes[i]),
                std::cmp::Reverse(p.last[i] - p.first[i]),
                i,
            )
        });
        let mut rank = vec![0u32; n];
        for (r, &i) in by_rank.iter().enumerate() {
            rank[i as usize] = r as u32;
        }
        Some(Instance {
            sizes: p.sizes.clone(),
            sections,
            section_count: cuts.len(),
            meets_start,
            meets,
            rank,
        })
    }

    fn meets(&self, i: u32) -> &[u32] {
        &self.meets
            [self.meets_start[i as usize] as usize..self.meets_start[i as usize + 1] as usize]
    }

    /// A placement within `capacity` bytes, if the search finds one before
    /// `budget` (decreased by the work done) runs out.
    fn fits(&self, capacity: u64, budget: &mut u64) -> Option<Vec<u64>> {
        let n = self.sizes.len();
        let mut search = Search {
            instance: self,
            capacity,
            offsets: vec![UNPLACED; n],
            floors: vec![0; n],
            log: Vec::new(),
            remaining: MaxTree::new(self.section_count),
            level: 0,
            same_offset_after: None,
            unplaced: n,
        };
        for (i, &(first, last)) in self.sections.iter().enumerate() {
            search.remaining.add(first, last, self.sizes[i] as i64);
        }
        if search.remaining.max() > capacity {
            return None;
        }
        let mut moves: Vec<Move> = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        stack.push(Frame::of_branches(&search, &mut moves, budget));
        while let Some(frame) = stack.last_mut() {
            if let Some(undo) = frame.applied.take() {
                search.undo(undo);
            }
            if frame.next == frame.end || *budget == 0 {
                moves.truncate(frame.start);
                stack.pop();
                continue;
            }
            let chosen = moves[frame.next];
            frame.next += 1;
            let Some(undo) = search.apply(chosen, budget) else {
                continue;
            };
            frame.applied = Some(undo);
            if search.unplaced == 0 {
                return Some(search.offsets);
            }
            stack.push(Frame::of_branches(&search, &mut moves, budget));
        }
        None
    }
}

/// The state along the current search path.
struct Search<'a> {
    instance: &'a Instance,
    capacity: u64,
    offsets: Vec<u64>,
    /// Per buffer not placed, the highest top of the placed buffers it meets.
    floors: Vec<u64>,
    /// (buffer, its previous floor), to undo placements.
    log: Vec<(u32, u64)>,
    /// Per section, the bytes of the buffers alive there not placed yet.
    remaining: MaxTree,
    /// No buffer placed from now on goes below this offset.
    level: u64,
    /// When the last move placed a buffer at `level`, that buffer: others
    /// placed at the same offset come after it in id order.
    same_offset_after: Option<u32>,
    unplaced: usize,
}

impl Search<'_> {
    fn offset_of(&self, i: usize) -> u64 {
        self.floors[i].max(self.level)
    }

    /// Pushes the branches of the current node: the buffers that go at the
    /// lowest offset, best rank first, then the lift past that offset.
    fn branches(&self, moves: &mut Vec<Move>, budget: &mut u64) {
        let n = self.offsets.len();
        *budget = budget.saturating_sub(n as u64);
        let mut lowest = UNPLACED;
        let mut next = UNPLACED;
        for i in 0..n {
            if self.offsets[i] != UNPLACED {
                continue;
            }
            let offset = self.offset_of(i);
            if offset < lowest {
                next = lowest;
                lowest = offset;
            } else if offset > lowest && offset < next {
                next = offset;
            }
        }
        let start = moves.len();
        let after = match self.same_offset_after {
            Some(j) if lowest == self.level => Some(j as usize),
            _ => None,
        };
        for i in 0..n {
            if self.offsets[i] == UNPLACED
                && self.offset_of(i) == lowest
                && after.is_none_or(|j| i > j)
            {
                moves.push(Move::Place(i as u32));
            }
        }
        moves[start..].sort_unstable_by_key(|m| match m {
            Move::Place(i) => self.instance.rank[*i as usize],
            Move::Lift(_) => u32::MAX,
        });
        if next != UNPLACED {
            moves.push(Move::Lift(next));
        }
    }

    /// Applies `chosen`; `None` (with nothing changed) when the cut
    /// rejects the node it leads to.
    fn apply(&mut self, chosen: Move, budget: &mut u64) -> Option<Undo> {
        let undo = Undo {
            log: self.log.len(),
            level: self.level,
            same_offset_after: self.same_offset_after,
            placed: None,
        };
        match chosen {
            Move::Lift(level) => {
                *budget = budget.saturating_sub(MOVE_COST);
                if level.checked_add(self.remaining.max())? > self.capacity {
                    return None;
                }
                self.level = level;
                self.same_offset_after = None;
                Some(undo)
            }
            Move::Place(i) => {
                *budget = budget.saturating_sub(MOVE_COST);
                let iu = i as usize;
                let size = self.instance.sizes[iu];
                let (first, last) = self.instance.sections[iu];
                let offset = self.offset_of(iu);
                // Every section of i: its floor becomes i's top and the
                // buffers above lose i, so floor plus remaining grows to
                // offset plus what remained there with i.
                if offset.checked_add(self.remaining.max_in(first, last))? > self.capacity {
                    return None;
                }
                self.remaining.add(first, last, -(size as i64));
                if offset.checked_add(self.remaining.max())? > self.capacity {
                    self.remaining.add(first, last, size as i64);
                    return None;
                }
                let top = offset + size;
                let meets = self.instance.meets(i);
                *budget = budget.saturating_sub(meets.len() as u64 + 1);
                for &j in meets {
                    let ju = j as usize;
                    if self.offsets[ju] == UNPLACED && self.floors[ju] < top {
                        self.log.push((j, self.floors[ju]));
                        self.floors[ju] = top;
                    }
                }
                self.offsets[iu] = offset;
                self.level = offset;
                self.same_offset_after = Some(i);
                self.unplaced -= 1;
                Some(Undo {
                    placed: Some(i),
                    ..undo
                })
            }
        }
    }

    fn undo(&mut self, undo: Undo) {
        for (j, floor) in self.log.drain(undo.log..).rev() {
            self.floors[j as usize] = floor;
        }
        self.level = undo.level;
        self.same_offset_after = undo.same_offset_after;
        if let Some(i) = undo.placed {
            let iu = i as usize;
            let (first, last) = self.instance.sections[iu];
            self.remaining
                .add(first, last, self.instance.sizes[iu] as i64);
            self.offsets[iu] = UNPLACED;
            self.unplaced += 1;
        }
    }
}

/// Range add and range maximum over sections (a segment tree with lazy
/// additions kept at the nodes). Values stay within 0..=total size, which
/// fits in i64 (the caller holds sizes whose total fits in 64 bits; a
/// total above i64::MAX is not searched).
struct MaxTree {
    leaves: usize,
    /// Per node, the maximum in its range, its own pending addition included.
    max: Vec<i64>,
    /// Per node, the addition applying to its whole range.
    add: Vec<i64>,
}

impl MaxTree {
    fn new(len: usize) -> MaxTree {
        let leaves = len.max(1).next_power_of_two();
        MaxTree {
            leaves,
            max: vec![0; 2 * leaves],
            add: vec![0; 2 * leaves],
        }
    }

    fn max(&self) -> u64 {
        self.max[1].max(0) as u64
    }

    fn add(&mut self, first: u32, last: u32, value: i64) {
        self.add_at(1, 0, self.leaves - 1, first as usize, last as usize, value);
    }

    fn add_at(&mut self, node: usize, lo: usize, hi: usize, first: usize, last: usize, value: i64) {
        if last < lo || hi < first {
            return;
        }
        if first <= lo && hi <= last {
            self.add[node] += value;
            self.max[node] += value;
            return;
        }
        let mid = lo + (hi - lo) / 2;
        self.add_at(2 * node, lo, mid, first, last, value);
        self.add_at(2 * node + 1, mid + 1, hi, first, last, value);
        self.max[node] = self.add[node] + self.max[2 * node].max(self.max[2 * node + 1]);
    }

    fn max_in(&self, first: u32, last: u32) -> u64 {
        self.max_at(1, 0, self.leaves - 1, first as usize, last as usize)
            .max(0) as u64
    }

    fn max_at(&self, node: usize, lo: usize, hi: usize, first: usize, last: usize) -> i64 {
        if last < lo || hi < first {
            return i64::MIN / 2;
        }
        if first <= lo && hi <= last {
            return self.max[node];
        }
        let mid = lo + (hi - lo) / 2;
        self.add[node]
            + self.max_at(2 * node, lo, mid, first, last).max(self.max_at(
                2 * node + 1,
                mid + 1,
                hi,
                first,
                last,
            ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::memory::test_util::{random_set, Lcg};

    /// The lowest arena over every order of placing each buffer at the
    /// lowest offset, not below the previous one, that clears the placed
    /// buffers it meets: every placement can be lowered to one of these
    /// (see the module docs), so this is the optimum.
    fn optimum(p: &Prepared) -> u64 {
        fn go(p: &Prepared, offsets: &mut Vec<u64>, level: u64, best: &mut u64) {
            let mut any = false;
            for i in 0..p.len() {
                if offsets[i] != UNPLACED {
                    continue;
                }
                any = true;
                let floor = (0..p.len())
                    .filter(|&j| {
                        offsets[j] != UNPLACED && p.first[j] <= p.last[i] && p.first[i] <= p.last[j]
                    })
                    .map(|j| offsets[j] + p.sizes[j])
                    .max()
                    .unwrap_or(0);
                let offset = floor.max(level);
                if offset + p.sizes[i] < *best {
                    offsets[i] = offset;
                    go(p, offsets, offset, best);
                    offsets[i] = UNPLACED;
                }
            }
            if !any {
                *best = (*best).min(p.arena_of(offsets));
            }
        }
        let mut best = p.total + 1;
        go(p, &mut vec![UNPLACED; p.len()], 0, &mut best);
        best
    }

    #[test]
    fn finds_a_placement_exactly_when_one_exists() {
        let mut rng = Lcg(29);
        for round in 0..300 {
            let n = 1 + rng.below(6) as usize;
            let steps = 1 + rng.below(6) as u32;
            let set = random_set(&mut rng, n, steps, 6);
            let p = Prepared::new(&set, 1).unwrap();
            let instance = Instance::new(&p).unwrap();
            let optimum = optimum(&p);
            let mut budget = u64::MAX;
            let offsets = instance.fits(optimum, &mut budget);
            let offsets =
                offsets.unwrap_or_else(|| panic!("round {round}: {set:?} fits in {optimum}"));
            assert!(p.arena_of(&offsets) <= optimum);
            let lifetimes: Vec<Lifetime> = (0..p.len())
                .map(|i| Lifetime::new(p.sizes[i], p.first[i], p.last[i]))
                .collect();
            let placed: Vec<Option<u64>> = offsets.iter().map(|&o| Some(o)).collect();
            let problems = crate::device::memory::check_placement(&lifetimes, &placed, optimum, 1);
            assert!(problems.is_empty(), "round {round}: {problems:?}");
            assert_eq!(
                instance.fits(optimum - 1, &mut budget),
                None,
                "round {round}: {set:?}"
            );
        }
    }

    #[test]
    fn gives_up_when_the_budget_runs_out() {
        let mut rng = Lcg(31);
        let set = random_set(&mut rng, 40, 12, 1000);
        let p = Prepared::new(&set, 1).unwrap();
        let mut budget = 10;
        assert_eq!(Instance::new(&p).unwrap().fits(p.total, &mut budget), None);
        assert_eq!(budget, 0);
    }

    #[test]
    fn max_tree_adds_over_ranges() {
        let mut rng = Lcg(37);
        let mut tree = MaxTree::new(13);
        let mut plain = [0i64; 13];
        for _ in 0..500 {
            let a = rng.below(13) as u32;
            let b = a + rng.below(u64::from(13 - a)) as u32;
            let value = rng.below(100) as i64;
            tree.add(a, b, value);
            for v in &mut plain[a as usize..=b as usize] {
                *v += value;
            }
            let (c, d) = (rng.below(13) as u32, rng.below(13) as u32);
            let (c, d) = (c.min(d), c.max(d));
            let expected = plain[c as usize..=d as usize].iter().max().unwrap();
            assert_eq!(tree.max_in(c, d), *expected as u64);
            assert_eq!(tree.max(), *plain.iter().max().unwrap() as u64);
        }
    }
}
