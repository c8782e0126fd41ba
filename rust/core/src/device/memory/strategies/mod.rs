//! Placement strategies: each turns a prepared lifetime set into offsets.
//! All of them are kept and reported; a plan keeps the smallest arena.

mod best_fit;
mod block_reuse;
mod conflicts;
mod naive;
mod orders;
mod repair;
mod search;

use super::lifetimes::Prepared;
use super::lower_bound::{live_profile, lower_bound};
use conflicts::ConflictIndex;
use std::fmt;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How offsets are assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// No reuse: the sum of all sizes.
    Naive,
    /// GE's rule: a released block is reused only by a request of exactly
    /// its aligned size.
    GeBlockReuse,
    /// Largest buffers first, each into the smallest gap that fits.
    GreedyBySize,
    /// Busiest step first, its buffers largest first, best fit.
    GreedyByBreadth,
    /// The better of the two greedy orders, then rounds that move the
    /// buffers lying above the lower bound to the front of the order and
    /// place again (see `repair.rs`).
    GreedyRepair,
    /// Only where the repair leaves the arena more than 1% above the lower
    /// bound: a branch-and-bound search for a placement within the bound,
    /// or nearer to it, with a fixed budget of work (see `search.rs`);
    /// otherwise the repair placement. Chosen only when strictly smaller.
    BranchAndBound,
}

impl Strategy {
    /// Every strategy, in the order they run and are reported: each later
    /// one is preferred on ties, except `BranchAndBound`, which falls back
    /// to the repair placement and so is chosen only when strictly smaller
    /// (`GreedyRepair` reuses the two greedy placements before it, so its
    /// time is its repair rounds; `BranchAndBound` reuses the repair).
    pub const ALL: [Strategy; 6] = [
        Strategy::Naive,
        Strategy::GeBlockReuse,
        Strategy::GreedyBySize,
        Strategy::GreedyByBreadth,
        Strategy::GreedyRepair,
        Strategy::BranchAndBound,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::GeBlockReuse => "ge_block_reuse",
            Strategy::GreedyBySize => "greedy_by_size",
            Strategy::GreedyByBreadth => "greedy_by_breadth",
            Strategy::GreedyRepair => "greedy_repair",
            Strategy::BranchAndBound => "branch_and_bound",
        }
    }

    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Sets at least this large place their two greedy orders concurrently.
const CONCURRENT_MIN: usize = 4096;

/// One strategy's offsets and the time it took.
struct Placement {
    strategy: Strategy,
    offsets: Vec<u64>,
    elapsed: Duration,
    /// When the strategy's offsets are those of an earlier one (the search
    /// that found nothing smaller than repair): that one, and `offsets` is
    /// empty, so a million-buffer plan copies nothing.
    same_as: Option<Strategy>,
}

/// What the strategies share for one lifetime set, each part built on first
/// use: the step profile, the conflict index, the greedy orders and the
/// placements already made.
pub(crate) struct Context<'a> {
    pub p: &'a Prepared,
    pub profile: Vec<u64>,
    pub lower_bound: u64,
    index: OnceLock<ConflictIndex>,
    size_order: OnceLock<Vec<u32>>,
    breadth_order: OnceLock<Vec<u32>>,
    placements: Vec<Placement>,
}

impl<'a> Context<'a> {
    pub fn new(p: &'a Prepared) -> Context<'a> {
        let profile = live_profile(p);
        let lower_bound = lower_bound(&profile);
        Context {
            p,
            profile,
            lower_bound,
            index: OnceLock::new(),
            size_order: OnceLock::new(),
            breadth_order: OnceLock::new(),
            placements: Vec::new(),
        }
    }

    fn index(&self) -> &ConflictIndex {
        self.index.get_or_init(|| ConflictIndex::build(self.p))
    }

    fn size_order(&self) -> &[u32] {
        self.size_order.get_or_init(|| orders::by_size(self.p))
    }

    /// The order a greedy strategy places in (by size unless by breadth).
    fn order(&self, strategy: Strategy) -> &[u32] {
        match strategy {
            Strategy::GreedyByBreadth => self
                .breadth_order
                .get_or_init(|| orders::by_breadth(self.p, &self.profile, self.size_order())),
            _ => self.size_order(),
        }
    }

    /// Places in `order` with best fit.
    fn place_in_order(&self, order: &[u32]) -> Vec<u64> {
        best_fit::place_in_order(self.p, self.index(), order)
    }

    fn find(&self, strategy: Strategy) -> Option<usize> {
        self.placements.iter().position(|p| p.strategy == strategy)
    }

    /// The offsets `strategy` assigns (computed once per context).
    pub fn place(&mut self, strategy: Strategy) -> &[u64] {
        let at = match self.find(strategy) {
            Some(at) => at,
            None => {
                let start = Instant::now();
                let mut same_as = None;
                let offsets = match strategy {
                    Strategy::Naive => naive::place(self.p),
                    Strategy::GeBlockReuse => block_reuse::place(self.p),
                    Strategy::GreedyBySize | Strategy::GreedyByBreadth => {
                        self.place_in_order(self.order(strategy))
                    }
                    Strategy::GreedyRepair => repair::place(self),
                    Strategy::BranchAndBound => search::place(self).unwrap_or_else(|| {
                        same_as = Some(Strategy::GreedyRepair);
                        Vec::new()
                    }),
                };
                let elapsed = start.elapsed();
                self.placements.push(Placement {
                    strategy,
                    offsets,
                    elapsed,
                    same_as,
                });
                self.placements.len() - 1
            }
        };
        match self.placements[at].same_as {
            Some(earlier) => self.place(earlier),
            None => &self.placements[at].offsets,
        }
    }

    /// The earlier strategy whose offsets `strategy` kept, if it kept one's.
    pub fn same_as(&self, strategy: Strategy) -> Option<Strategy> {
        self.find(strategy)
            .and_then(|at| self.placements[at].same_as)
    }

    /// How long `strategy` took (zero if it has not run).
    pub fn elapsed(&self, strategy: Strategy) -> Duration {
        self.find(strategy)
            .map_or(Duration::ZERO, |at| self.placements[at].elapsed)
    }

    /// Places the two greedy orders at once, on two threads, when the set is
    /// large: they share only read-only structures (built first, and counted
    /// in the time of the greedy by size).
    pub fn place_greedy_orders(&mut self) {
        if self.p.len() < CONCURRENT_MIN
            || self.find(Strategy::GreedyBySize).is_some()
            || self.find(Strategy::GreedyByBreadth).is_some()
        {
            return;
        }
        let start = Instant::now();
        self.index();
        self.size_order();
        let shared = start.elapsed();
        let this = &*self;
        let timed = |strategy: Strategy| {
            let start = Instant::now();
            let offsets = this.place_in_order(this.order(strategy));
            (offsets, start.elapsed())
        };
        let ((by_size, size_time), (by_breadth, breadth_time)) = std::thread::scope(|scope| {
            let breadth = scope.spawn(|| timed(Strategy::GreedyByBreadth));
            let size = timed(Strategy::GreedyBySize);
            match breadth.join() {
                Ok(breadth) => (size, breadth),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        });
        self.placements.push(Placement {
            strategy: Strategy::GreedyBySize,
            offsets: by_size,
            elapsed: shared + size_time,
            same_as: None,
        });
        self.placements.push(Placement {
            strategy: Strategy::GreedyByBreadth,
            offsets: by_breadth,
            elapsed: breadth_time,
            same_as: None,
        });
    }

    /// Gives up the offsets of `strategy` (placing it if needed).
    pub fn take(&mut self, strategy: Strategy) -> Vec<u64> {
        self.place(strategy);
        let at = self.find(strategy).expect("placed just above");
        match self.placements[at].same_as {
            Some(earlier) => self.take(earlier),
            None => self.placements.swap_remove(at).offsets,
        }
    }
}

#[cfg(test)]
mod tests;
