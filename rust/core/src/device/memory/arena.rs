//! Planning a lifetime set: run the strategies, keep the smallest arena,
//! report every strategy's total and the lower bound.

use super::check::check_placement;
use super::lifetimes::Prepared;
use super::size::{align_up, OFFSET_ALIGN};
use super::strategies::{Context, Strategy};
use super::{Lifetime, MemoryError};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArenaOptions {
    /// Every offset is a multiple of it; sizes are rounded up to it.
    pub alignment: u64,
    /// Only this strategy; `None` runs all of them and keeps the smallest.
    pub strategy: Option<Strategy>,
}

impl Default for ArenaOptions {
    fn default() -> Self {
        ArenaOptions {
            alignment: OFFSET_ALIGN,
            strategy: None,
        }
    }
}

/// One strategy's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrategyResult {
    pub strategy: Strategy,
    pub arena_bytes: u64,
    /// Planning time, including the shared structures it built first. The
    /// two greedy orders of a large set run at the same time, on two
    /// threads, so their times overlap.
    pub elapsed: Duration,
}

/// Offsets for a lifetime set in one arena.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArenaPlan {
    /// Per lifetime, in input order.
    pub offsets: Vec<u64>,
    pub arena_bytes: u64,
    /// The maximum over steps of the live (aligned) bytes.
    pub lower_bound_bytes: u64,
    /// The strategy whose arena is used: the smallest of opgraph's own
    /// (GE's block reuse is the reference it is compared with, chosen only
    /// when named).
    pub chosen: Strategy,
    /// Every strategy run, in [`Strategy::ALL`] order.
    pub strategies: Vec<StrategyResult>,
    pub alignment: u64,
}

impl ArenaPlan {
    /// Arena over lower bound (1.0 when both are empty).
    pub fn ratio(&self) -> f64 {
        if self.lower_bound_bytes == 0 {
            1.0
        } else {
            self.arena_bytes as f64 / self.lower_bound_bytes as f64
        }
    }

    /// What the checker finds wrong with this plan for `lifetimes` (the set
    /// it was made for); empty when valid.
    pub fn problems(&self, lifetimes: &[Lifetime]) -> Vec<String> {
        let aligned: Vec<Lifetime> = lifetimes
            .iter()
            .map(|l| Lifetime {
                size: align_up(l.size, self.alignment).unwrap_or(u64::MAX),
                ..*l
            })
            .collect();
        let offsets: Vec<Option<u64>> = self.offsets.iter().map(|&o| Some(o)).collect();
        check_placement(&aligned, &offsets, self.arena_bytes, self.alignment)
    }
}

/// Plans `lifetimes` in one arena.
pub fn plan_lifetimes(
    lifetimes: &[Lifetime],
    options: &ArenaOptions,
) -> Result<ArenaPlan, MemoryError> {
    let prepared = Prepared::new(lifetimes, options.alignment)?;
    let mut ctx = Context::new(&prepared);
    let run: Vec<Strategy> = match options.strategy {
        Some(strategy) => vec![strategy],
        None => Strategy::ALL.to_vec(),
    };
    if options.strategy.is_none() {
        ctx.place_greedy_orders();
    }
    let mut results = Vec::with_capacity(run.len());
    for &strategy in &run {
        ctx.place(strategy);
        // A strategy that kept an earlier one's offsets has its arena too
        // (no second pass over a million offsets).
        let earlier = ctx.same_as(strategy).and_then(|earlier| {
            results
                .iter()
                .find(|r: &&StrategyResult| r.strategy == earlier)
        });
        let arena_bytes = match earlier {
            Some(r) => r.arena_bytes,
            None => prepared.arena_of(ctx.place(strategy)),
        };
        results.push(StrategyResult {
            strategy,
            arena_bytes,
            elapsed: ctx.elapsed(strategy),
        });
    }
    // The smallest of opgraph's own strategies; on ties the last (ALL
    // lists the simplest first), except the search, whose result is the
    // repair's unless it found a smaller one. GE's block reuse is run as the reference
    // it is (reported in `strategies`), not as a candidate, unless asked for.
    let chosen = results
        .iter()
        .rev()
        .filter(|r| options.strategy.is_some() || r.strategy != Strategy::GeBlockReuse)
        .min_by_key(|r| (r.arena_bytes, r.strategy == Strategy::BranchAndBound))
        .map_or(Strategy::Naive, |r| r.strategy);
    let best = results.iter().find(|r| r.strategy == chosen);
    Ok(ArenaPlan {
        arena_bytes: best.map_or(0, |r| r.arena_bytes),
        offsets: prepared.to_input_order(&ctx.take(chosen)),
        lower_bound_bytes: ctx.lower_bound,
        chosen,
        strategies: results,
        alignment: options.alignment,
    })
}
