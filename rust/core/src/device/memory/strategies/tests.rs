//! Every strategy on a hand-computed set, and on random sets through the
//! checker.

use super::Strategy;
use crate::device::memory::test_util::{random_set, Lcg};
use crate::device::memory::{plan_lifetimes, ArenaOptions, ArenaPlan, Lifetime};

const U: u64 = 512;

/// Lifetimes from (size in units, first step, last step).
fn in_units(buffers: &[(u64, u32, u32)]) -> Vec<Lifetime> {
    buffers
        .iter()
        .map(|&(units, first, last)| Lifetime::new(units * U, first, last))
        .collect()
}

/// The arena `strategy` reached in `plan`.
fn total_of(plan: &ArenaPlan, strategy: Strategy) -> u64 {
    plan.strategies
        .iter()
        .find(|r| r.strategy == strategy)
        .unwrap()
        .arena_bytes
}

/// Four buffers (sizes in units of 512 bytes), steps 0..=4:
///
/// ```text
///            step 0  1  2  3  4
/// 0: 1 unit        .  x  x
/// 1: 2 units       x
/// 2: 2 units       x  x
/// 3: 2 units             x  x  x
/// live units       4  3  3  2  2   -> lower bound 4 units
/// ```
fn four() -> Vec<Lifetime> {
    vec![
        Lifetime::new(U, 1, 2),
        Lifetime::new(2 * U, 0, 0),
        Lifetime::new(2 * U, 0, 1),
        Lifetime::new(2 * U, 2, 4),
    ]
}

fn offsets_of(strategy: Strategy) -> (Vec<u64>, u64) {
    let options = ArenaOptions {
        strategy: Some(strategy),
        ..ArenaOptions::default()
    };
    let plan = plan_lifetimes(&four(), &options).unwrap();
    assert_eq!(plan.lower_bound_bytes, 4 * U);
    assert!(
        plan.problems(&four()).is_empty(),
        "{strategy}: {:?}",
        plan.problems(&four())
    );
    (plan.offsets, plan.arena_bytes)
}

#[test]
fn naive_stacks_every_buffer() {
    assert_eq!(
        offsets_of(Strategy::Naive),
        (vec![0, U, 3 * U, 5 * U], 7 * U)
    );
}

#[test]
fn ge_block_reuse_needs_equal_sizes() {
    // In step order: 1 at 0, 2 at 2 units; 0 (1 unit) finds only 1's
    // released 2-unit block and goes on top at 4; 3 takes 2's block (the
    // last released) at 2 units. Arena 5 units.
    assert_eq!(
        offsets_of(Strategy::GeBlockReuse),
        (vec![4 * U, 0, 2 * U, 2 * U], 5 * U)
    );
}

#[test]
fn greedy_by_size_misses_the_bound_here() {
    // Order 1, 2, 3, 0 (sizes, then first step): 1 at 0, 2 on top of it at
    // 2; 3 meets no placed buffer: 0; 0 meets 2 and 3, which leave no gap:
    // on top at 4 units. Arena 5 units.
    assert_eq!(
        offsets_of(Strategy::GreedyBySize),
        (vec![4 * U, 0, 2 * U, 0], 5 * U)
    );
}

#[test]
fn greedy_by_breadth_reaches_it() {
    // Step 0 is the busiest (4 units): 1 at 0, 2 at 2 units; then buffer
    // 0 (busiest step 1) into the 2-unit gap under 2, at 0; then 3 (busiest
    // step 2) on top of 0 at 1 unit. Arena 4 units = the lower bound.
    assert_eq!(
        offsets_of(Strategy::GreedyByBreadth),
        (vec![0, 0, 2 * U, U], 4 * U)
    );
}

#[test]
fn repair_keeps_the_better_greedy_order() {
    assert_eq!(
        offsets_of(Strategy::GreedyRepair),
        (vec![0, 0, 2 * U, U], 4 * U)
    );
}

#[test]
fn the_plan_keeps_the_smallest_and_reports_all() {
    let plan = plan_lifetimes(&four(), &ArenaOptions::default()).unwrap();
    let totals: Vec<(Strategy, u64)> = plan
        .strategies
        .iter()
        .map(|r| (r.strategy, r.arena_bytes))
        .collect();
    assert_eq!(
        totals,
        [
            (Strategy::Naive, 7 * U),
            (Strategy::GeBlockReuse, 5 * U),
            (Strategy::GreedyBySize, 5 * U),
            (Strategy::GreedyByBreadth, 4 * U),
            (Strategy::GreedyRepair, 4 * U),
            (Strategy::BranchAndBound, 4 * U),
        ]
    );
    assert_eq!(
        (plan.chosen, plan.arena_bytes),
        (Strategy::GreedyRepair, 4 * U)
    );
    assert_eq!(plan.offsets, [0, 0, 2 * U, U]);
    assert_eq!(plan.ratio(), 1.0);
}

#[test]
fn repair_rounds_reach_the_bound_where_both_orders_miss() {
    // Sizes in units: both greedy orders need 13 units; the bound is 12.
    let set = in_units(&[(4, 4, 5), (2, 2, 4), (2, 4, 4), (5, 5, 7), (4, 2, 4)]);
    let plan = plan_lifetimes(&set, &ArenaOptions::default()).unwrap();
    let total = |s: Strategy| total_of(&plan, s);
    assert_eq!(plan.lower_bound_bytes, 12 * U);
    assert_eq!(total(Strategy::GreedyBySize), 13 * U);
    assert_eq!(total(Strategy::GreedyByBreadth), 13 * U);
    assert_eq!(total(Strategy::GreedyRepair), 12 * U);
    assert!(plan.problems(&set).is_empty());
}

/// Six buffers (sizes in units), steps 1..=3, where every greedy order
/// needs 16 units and the bound is 15:
///
/// ```text
///              step 1  2  3
/// 0: 1 unit         x  x  x
/// 1: 1 unit         x  x
/// 2: 2 units           x  x
/// 3: 6 units              x
/// 4: 6 units        x
/// 5: 6 units        x  x  x
/// live units       14 10 15   -> lower bound 15
/// ```
///
/// By size (4, 5, 3, 2, 0, 1): 4 at 0; 5 meets 4: on top at 6; 3 meets
/// only 5: the 6-unit gap under it, at 0; 2 meets 5 and 3, no gap: at 12;
/// 0 meets all of them: at 14; 1 meets 4, 5, 2 and 0, which fill 0..15
/// without a gap: at 15. Arena 16.
///
/// By breadth (step 3 first: 5, 3, 2, 0; then step 1: 4, 1): 5 at 0, 3 at
/// 6, 2 at 12, 0 at 14 (each on top of the ones it meets); 4 meets 5 and
/// 0: the 8-unit gap 6..14, at 6; 1 again finds 0..15 full: at 15. Arena 16.
///
/// Step 3 must be packed without a gap, and buffer 1 fits only where step
/// 3's 6-unit buffer 3 will be: the search places 5 at 0, 4 and 2 at 6,
/// 3 at 8 (on 2), 1 at 12 (on 4; 1 and 3 never meet) and 0 at 14:
///
/// ```text
///   step 1: 5 [0, 6)  4 [6, 12)  1 [12, 13)           0 [14, 15)
///   step 2: 5 [0, 6)  2 [6, 8)   1 [12, 13)           0 [14, 15)
///   step 3: 5 [0, 6)  2 [6, 8)   3 [8, 14)            0 [14, 15)
/// ```
///
/// Arena 15, the bound. Repair's rounds and restarts (best fit in other
/// orders) stay at 16.
#[test]
fn branch_and_bound_reaches_the_bound_where_every_greedy_strategy_misses() {
    let set = in_units(&[
        (1, 1, 3),
        (1, 1, 2),
        (2, 2, 3),
        (6, 3, 3),
        (6, 1, 1),
        (6, 1, 3),
    ]);
    let plan = plan_lifetimes(&set, &ArenaOptions::default()).unwrap();
    let total = |s: Strategy| total_of(&plan, s);
    assert_eq!(plan.lower_bound_bytes, 15 * U);
    assert_eq!(total(Strategy::GreedyBySize), 16 * U);
    assert_eq!(total(Strategy::GreedyByBreadth), 16 * U);
    assert_eq!(total(Strategy::GreedyRepair), 16 * U);
    assert_eq!(total(Strategy::BranchAndBound), 15 * U);
    assert_eq!(plan.chosen, Strategy::BranchAndBound);
    let units: Vec<u64> = plan.offsets.iter().map(|o| o / U).collect();
    assert_eq!(units, [14, 12, 6, 8, 6, 0]);
    assert!(plan.problems(&set).is_empty());
}

#[test]
fn random_sets_give_valid_plans_with_the_expected_order_of_totals() {
    let mut rng = Lcg(11);
    for round in 0..300 {
        let n = 1 + rng.below(80) as usize;
        let steps = 1 + rng.below(50) as u32;
        let set = random_set(&mut rng, n, steps, 5000);
        let sum: u64 = set.iter().map(|l| l.size.div_ceil(U) * U).sum();
        let mut totals = Vec::new();
        for strategy in Strategy::ALL {
            let options = ArenaOptions {
                strategy: Some(strategy),
                ..ArenaOptions::default()
            };
            let plan = plan_lifetimes(&set, &options).unwrap();
            let problems = plan.problems(&set);
            assert!(
                problems.is_empty(),
                "round {round} {strategy}: {problems:?} {set:?}"
            );
            assert!(plan.arena_bytes >= plan.lower_bound_bytes);
            totals.push(plan.arena_bytes);
        }
        let [naive, ge, size, breadth, repair, search] = totals[..] else {
            unreachable!()
        };
        assert_eq!(naive, sum, "round {round}");
        assert!(
            ge <= naive && repair <= breadth.min(size) && search <= repair,
            "round {round}: {totals:?}"
        );
        let all = plan_lifetimes(&set, &ArenaOptions::default()).unwrap();
        assert_eq!(all.arena_bytes, *totals.iter().min().unwrap());
        assert!(all.arena_bytes <= ge);
        assert!(all.problems(&set).is_empty());
    }
}

#[test]
fn sparse_steps_and_other_alignments_plan_the_same_way() {
    let mut rng = Lcg(5);
    let set = random_set(&mut rng, 200, 40, 3000);
    // Steps spread far apart (renumbered inside) give the same plan.
    let spread: Vec<Lifetime> = set
        .iter()
        .map(|l| Lifetime::new(l.size, l.first * 100_000, l.last * 100_000))
        .collect();
    let a = plan_lifetimes(&set, &ArenaOptions::default()).unwrap();
    let b = plan_lifetimes(&spread, &ArenaOptions::default()).unwrap();
    assert_eq!(
        (a.offsets.clone(), a.arena_bytes),
        (b.offsets, b.arena_bytes)
    );
    let bytes = ArenaOptions {
        alignment: 1,
        ..ArenaOptions::default()
    };
    let exact = plan_lifetimes(&set, &bytes).unwrap();
    assert!(exact.problems(&set).is_empty());
    assert!(exact.lower_bound_bytes <= a.lower_bound_bytes);
}

#[test]
fn empty_sets_plan_to_nothing() {
    let plan = plan_lifetimes(&[], &ArenaOptions::default()).unwrap();
    assert_eq!((plan.arena_bytes, plan.lower_bound_bytes), (0, 0));
    assert!(plan.offsets.is_empty());
}

#[test]
fn large_sets_place_the_greedy_orders_concurrently_with_the_same_result() {
    // Network-like: one buffer per step, most short, every 50th long.
    let mut rng = Lcg(17);
    let set: Vec<Lifetime> = (0..5000u32)
        .map(|i| {
            let length = if i % 50 == 0 {
                rng.below(500)
            } else {
                rng.below(8)
            };
            Lifetime::new(1 + rng.below(100_000), i, i + length as u32)
        })
        .collect();
    let all = plan_lifetimes(&set, &ArenaOptions::default()).unwrap();
    assert!(all.problems(&set).is_empty());
    for strategy in [Strategy::GreedyBySize, Strategy::GreedyByBreadth] {
        let options = ArenaOptions {
            strategy: Some(strategy),
            ..ArenaOptions::default()
        };
        let alone = plan_lifetimes(&set, &options).unwrap();
        let together = all
            .strategies
            .iter()
            .find(|r| r.strategy == strategy)
            .unwrap();
        assert_eq!(alone.arena_bytes, together.arena_bytes, "{strategy}");
    }
}
