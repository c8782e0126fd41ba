//! A lower bound on the peak of live activation bytes under every order
//! the steps could run in: how far any schedule could possibly cut the
//! peak.
//!
//! A buffer must be alive while a step runs when its producer has to run
//! before that step and one of its uses (a reader, or a view of it) has to
//! run after it, or is the step itself. "Has to" follows the data edges
//! (and a body's arguments from the caller's inputs), which every order
//! keeps. So, with `anc*(s)` the steps that precede `s` in every order
//! (`s` included) and `desc*(s)` those that follow it, buffer `b` is alive
//! at `s` in every order when `producer(b) ∈ anc*(s)` and some use
//! `u ∈ desc*(s)`. The bound is the largest sum over a step of the buffers
//! alive there in every order. Control edges and loop regions only add
//! constraints, so leaving them out keeps it a lower bound.
//!
//! Ancestor sets are a bit matrix (a bit per pair of steps), so the bound
//! is computed only up to [`MAX_ANY_ORDER_STEPS`].

use super::buffers::{activation_uses, Buffers};
use super::schedule::Schedule;
use super::size::align_up;

/// The most steps the bound is computed for: its bit matrix takes
/// `steps² / 8` bytes (8 MiB at this size).
pub const MAX_ANY_ORDER_STEPS: u32 = 8192;

/// The peak of activation bytes no order can go below (sizes rounded up to
/// `alignment`, as the planner's lower bound counts them); `None` above
/// [`MAX_ANY_ORDER_STEPS`] steps.
pub(crate) fn any_order_bound(
    schedule: &Schedule<'_>,
    buffers: &Buffers,
    alignment: u64,
) -> Option<u64> {
    if schedule.steps > MAX_ANY_ORDER_STEPS {
        return None;
    }
    let steps = schedule.steps as usize;
    let ancestors = Ancestors::new(steps, &precedence_edges(schedule));

    // Per activation buffer, the steps of its producer and of its uses.
    let uses = activation_uses(schedule, buffers);

    let mut live = vec![0u64; steps];
    let mut before_a_use = vec![0u64; ancestors.words];
    for group in uses.chunk_by(|a, b| a.0 == b.0) {
        let buffer = &buffers.buffers[group[0].0 as usize];
        let size = align_up(buffer.size.unwrap_or(0), alignment).unwrap_or(u64::MAX);
        let producer = schedule.tensors[buffer.root as usize].step;
        // Steps that precede some use in every order: all within the
        // current order's [producer, last use], so only those words.
        let last = group.last().map_or(producer, |&(_, step)| step);
        let words = producer as usize / 64..=last as usize / 64;
        before_a_use[words.clone()].fill(0);
        for &(_, step) in group {
            for (word, a) in before_a_use[words.clone()]
                .iter_mut()
                .zip(&ancestors.row(step)[words.clone()])
            {
                *word |= a;
            }
        }
        // ... of those, the ones that follow the producer in every order.
        for w in words {
            let mut bits = before_a_use[w];
            while bits != 0 {
                let step = (w * 64 + bits.trailing_zeros() as usize) as u32;
                bits &= bits - 1;
                if ancestors.contains(step, producer) {
                    live[step as usize] = live[step as usize].saturating_add(size);
                }
            }
        }
    }
    Some(live.into_iter().max().unwrap_or(0))
}

/// Pairs `(before, after)` of steps that run in that order in every
/// schedule: a tensor's producer before each reader (loop back edges left
/// out), and a view's source before the view (a body's argument after the
/// caller's input it stands for).
fn precedence_edges(schedule: &Schedule<'_>) -> Vec<(u32, u32)> {
    let mut edges = Vec::new();
    for tensor in &schedule.tensors {
        for reader in &tensor.readers {
            if !reader.back_edge && tensor.step < reader.step {
                edges.push((tensor.step, reader.step));
            }
        }
        if let Some(source) = tensor.view_of {
            let from = schedule.tensors[source as usize].step;
            if from < tensor.step {
                edges.push((from, tensor.step));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    edges
}

/// Per step, the steps that precede it in every order (itself included),
/// as one bit row each.
struct Ancestors {
    words: usize,
    bits: Vec<u64>,
}

impl Ancestors {
    /// The closure of `edges`, which all go from a lower step to a higher
    /// one: a step's row is complete once every edge into it is merged,
    /// and each comes from a lower step, so edges merge by increasing
    /// target.
    fn new(steps: usize, edges: &[(u32, u32)]) -> Ancestors {
        let words = steps.div_ceil(64);
        let mut rows = Ancestors {
            words,
            bits: vec![0u64; steps * words],
        };
        for step in 0..steps {
            rows.bits[step * words + step / 64] |= 1 << (step % 64);
        }
        let mut by_target: Vec<(u32, u32)> = edges.iter().map(|&(from, to)| (to, from)).collect();
        by_target.sort_unstable();
        for (to, from) in by_target {
            // Rows of different steps never overlap; `from < to`.
            let (low, high) = rows.bits.split_at_mut(to as usize * words);
            let source = &low[from as usize * words..][..words];
            // A step's ancestors all have lower numbers: its row's words
            // past its own are zero.
            let used = to as usize / 64 + 1;
            for (t, s) in high[..used].iter_mut().zip(&source[..used]) {
                *t |= s;
            }
        }
        rows
    }

    fn row(&self, step: u32) -> &[u64] {
        &self.bits[step as usize * self.words..][..self.words]
    }

    /// True when `ancestor` precedes `step` in every order (or is it).
    fn contains(&self, step: u32, ancestor: u32) -> bool {
        self.row(step)[ancestor as usize / 64] >> (ancestor % 64) & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::Ancestors;

    fn members(rows: &Ancestors, step: u32) -> Vec<usize> {
        let row = rows.row(step);
        (0..row.len() * 64)
            .filter(|&s| row[s / 64] >> (s % 64) & 1 == 1)
            .collect()
    }

    #[test]
    fn closures_follow_paths_not_step_numbers() {
        // 0 -> 1 -> 3, 0 -> 2, 2 and 3 unrelated; step 70 crosses a word.
        let edges = [(0, 1), (0, 2), (1, 3), (3, 70)];
        let anc = Ancestors::new(71, &edges);
        assert_eq!(members(&anc, 70), [0, 1, 3, 70]);
        assert_eq!(members(&anc, 3), [0, 1, 3]);
        assert_eq!(members(&anc, 2), [0, 2]);
        assert_eq!(members(&anc, 5), [5]);
        assert!(anc.contains(70, 0) && !anc.contains(70, 2));
    }
}
