//! Improving a step order by moving single nodes: the `refined` schedule.
//!
//! The three built orders each follow one rule (insertion order, deepest
//! branch first, frees most first), and each misses orders a small change
//! would find: running a tensor's last readers before a sibling branch
//! starts so the tensor is freed first (NASNetMobile's cells, GPT-2's
//! attention). This pass starts from the best of them and repeatedly moves
//! a node that produces or uses a buffer alive at the peak to the earliest
//! or latest position its edges allow (when sinking it, also together with
//! the producers only it reads), keeping a move when it lowers the peak, or
//! keeps it and lowers the sum of squared live bytes over the steps (which
//! moves a plateau of peak steps toward being cut). Every kept move
//! strictly improves that pair, so the pass ends; a work budget bounds it
//! on large graphs.
//!
//! It works on a model of the planner's lifetimes (a buffer lives from its
//! producer through its last use), exact for graphs without bodies; the
//! planner measures the result on the real schedule before keeping it.

use super::buffers::{activation_uses, Buffers};
use super::order::Dag;
use super::schedule::Schedule;
use super::size::align_up;
use crate::graph::{Graph, NodeId};

/// Work units one refinement may spend (a unit is one buffer use or one
/// step swept while scoring an order, or one step copied while moving
/// nodes): about 15 ms.
pub const REFINE_BUDGET: u64 = 1 << 23;

/// `order` (one node per step: a graph without bodies) improved by single
/// moves; `None` when no sequence of moves lowers the peak.
pub(crate) fn refine(
    graph: &Graph,
    order: &[NodeId],
    schedule: &Schedule<'_>,
    buffers: &Buffers,
    alignment: u64,
) -> Option<Vec<NodeId>> {
    let model = Model::new(graph, order, schedule, buffers, alignment);
    let mut search = Search::new(&model, order);
    let start = search.score();
    let mut best = start;
    while search.spent < REFINE_BUDGET {
        let mut improved = false;
        'nodes: for node in search.candidates() {
            for order in search.moves(node) {
                let before = std::mem::replace(&mut search.order, order);
                search.place();
                let score = search.score();
                if score < best {
                    best = score;
                    improved = true;
                    break 'nodes;
                }
                search.order = before;
                search.place();
            }
            if search.spent >= REFINE_BUDGET {
                break;
            }
        }
        if !improved {
            break;
        }
    }
    // Squares alone are a means: only a lower peak is worth measuring.
    (best.0 < start.0).then(|| search.order.iter().map(|&v| NodeId(v)).collect())
}

/// Activation buffers by node, and the edges a move must respect.
struct Model {
    sizes: Vec<u64>,
    producers: Vec<u32>,
    /// Buffer `b`'s use nodes: `uses[use_start[b]..use_start[b + 1]]`.
    use_start: Vec<usize>,
    uses: Vec<u32>,
    /// Per node, its data and control predecessors and successors.
    preds: Vec<Vec<u32>>,
    succs: Vec<Vec<u32>>,
}

impl Model {
    fn new(
        graph: &Graph,
        order: &[NodeId],
        schedule: &Schedule<'_>,
        buffers: &Buffers,
        alignment: u64,
    ) -> Model {
        let node_at = |step: u32| order[step as usize].0;
        // Steps become nodes (one node per step): no group gains a repeat.
        let by_buffer: Vec<(u32, u32)> = activation_uses(schedule, buffers)
            .into_iter()
            .map(|(b, step)| (b, node_at(step)))
            .collect();
        let mut model = Model {
            sizes: Vec::new(),
            producers: Vec::new(),
            use_start: vec![0],
            uses: Vec::with_capacity(by_buffer.len()),
            preds: Vec::new(),
            succs: Vec::new(),
        };
        for group in by_buffer.chunk_by(|a, b| a.0 == b.0) {
            let buffer = &buffers.buffers[group[0].0 as usize];
            model
                .sizes
                .push(align_up(buffer.size.unwrap_or(0), alignment).unwrap_or(u64::MAX));
            model
                .producers
                .push(node_at(schedule.tensors[buffer.root as usize].step));
            model.uses.extend(group.iter().map(|&(_, node)| node));
            model.use_start.push(model.uses.len());
        }
        let dag = Dag::of(graph);
        model.preds = dag.producers;
        model.succs = dag.consumers;
        model
    }

    fn uses(&self, b: usize) -> &[u32] {
        &self.uses[self.use_start[b]..self.use_start[b + 1]]
    }
}

/// An order under refinement, with its last scoring's lifetimes.
struct Search<'m> {
    model: &'m Model,
    order: Vec<u32>,
    /// Per node, its position in `order`.
    position: Vec<u32>,
    first: Vec<u32>,
    last: Vec<u32>,
    live: Vec<u64>,
    peak: u64,
    spent: u64,
}

/// (peak of live bytes, sum over steps of squared live bytes).
#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct Score(u64, f64);

impl<'m> Search<'m> {
    fn new(model: &'m Model, order: &[NodeId]) -> Search<'m> {
        let order: Vec<u32> = order.iter().map(|v| v.0).collect();
        let mut position = vec![0u32; order.len()];
        for (p, &v) in order.iter().enumerate() {
            position[v as usize] = p as u32;
        }
        let buffers = model.sizes.len();
        Search {
            model,
            order,
            position,
            first: vec![0; buffers],
            last: vec![0; buffers],
            live: Vec::new(),
            peak: 0,
            spent: 0,
        }
    }

    fn score(&mut self) -> Score {
        let steps = self.order.len();
        let mut diff = vec![0u64; steps + 1];
        for b in 0..self.model.sizes.len() {
            let first = self.position[self.model.producers[b] as usize];
            let last = self
                .model
                .uses(b)
                .iter()
                .map(|&u| self.position[u as usize])
                .fold(first, u32::max);
            self.first[b] = first;
            self.last[b] = last;
            // Partial sums stay within the total size: wrapping is exact.
            diff[first as usize] = diff[first as usize].wrapping_add(self.model.sizes[b]);
            diff[last as usize + 1] = diff[last as usize + 1].wrapping_sub(self.model.sizes[b]);
        }
        self.spent += (self.model.uses.len() + steps) as u64;
        let (mut live, mut peak, mut squares) = (0u64, 0u64, 0f64);
        diff.truncate(steps);
        for d in &mut diff {
            live = live.wrapping_add(*d);
            *d = live;
            peak = peak.max(live);
            squares += (live as f64) * (live as f64);
        }
        self.live = diff;
        self.peak = peak;
        Score(peak, squares)
    }

    /// Producers and users of the buffers alive at a step of the peak.
    fn candidates(&mut self) -> Vec<u32> {
        // Peak steps before each step: a buffer meets one when the count
        // grows over its lifetime.
        let mut peaks_before = Vec::with_capacity(self.live.len() + 1);
        let mut count = 0u32;
        for &live in &self.live {
            peaks_before.push(count);
            count += u32::from(live == self.peak);
        }
        peaks_before.push(count);
        let mut nodes = Vec::new();
        for b in 0..self.model.sizes.len() {
            let (first, last) = (self.first[b] as usize, self.last[b] as usize);
            if peaks_before[last + 1] > peaks_before[first] {
                nodes.push(self.model.producers[b]);
                nodes.extend_from_slice(self.model.uses(b));
            }
        }
        self.spent += (self.live.len() + self.model.uses.len()) as u64;
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// The orders one move of `node` gives: to the earliest or to the
    /// latest position its edges allow, and, when it is the only reader of
    /// some of its producers' outputs, to the latest position together
    /// with them (a branch's head sunk to where its result is needed).
    fn moves(&mut self, node: u32) -> Vec<Vec<u32>> {
        let at = self.position[node as usize];
        let earliest = self.model.preds[node as usize]
            .iter()
            .map(|&p| self.position[p as usize] + 1)
            .max()
            .unwrap_or(0);
        let latest = self.model.succs[node as usize]
            .iter()
            .map(|&s| self.position[s as usize] - 1)
            .min()
            .unwrap_or(self.order.len() as u32 - 1);
        let mut moves = Vec::new();
        if earliest < at {
            moves.push(self.with_group_at(&[node], earliest, false));
        }
        if latest > at {
            moves.push(self.with_group_at(&[node], latest, true));
        }
        let group = self.sole_reader_group(node);
        if group.len() > 1 {
            moves.push(self.with_group_at(&group, latest, true));
        }
        self.spent += (moves.len() * self.order.len()) as u64;
        moves
    }

    /// `node` and, transitively, the producers whose every consumer is
    /// already in the group (at most [`GROUP_LIMIT`] nodes).
    fn sole_reader_group(&self, node: u32) -> Vec<u32> {
        let mut group = vec![node];
        let mut next = 0;
        while next < group.len() && group.len() < GROUP_LIMIT {
            let member = group[next];
            next += 1;
            for &p in &self.model.preds[member as usize] {
                let only_group_reads = self.model.succs[p as usize]
                    .iter()
                    .all(|c| group.contains(c));
                if only_group_reads && !group.contains(&p) && group.len() < GROUP_LIMIT {
                    group.push(p);
                }
            }
        }
        group
    }

    /// The order with `group` taken out and put back, in its own relative
    /// order, just after (`after`) or just before the node now at
    /// `position`.
    fn with_group_at(&self, group: &[u32], position: u32, after: bool) -> Vec<u32> {
        let mut members: Vec<u32> = group.to_vec();
        members.sort_unstable_by_key(|&v| self.position[v as usize]);
        let mut order = Vec::with_capacity(self.order.len());
        for (p, &v) in self.order.iter().enumerate() {
            let here = p as u32 == position;
            if here && !after {
                order.extend_from_slice(&members);
            }
            if !group.contains(&v) {
                order.push(v);
            }
            if here && after {
                order.extend_from_slice(&members);
            }
        }
        order
    }

    /// Positions from `order`.
    fn place(&mut self) {
        for (p, &v) in self.order.iter().enumerate() {
            self.position[v as usize] = p as u32;
        }
    }
}

/// The most nodes a sunk group holds: a branch head's few ops (a
/// convolution, its batch norm's multiply and add, an activation).
const GROUP_LIMIT: usize = 8;
