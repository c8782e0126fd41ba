//! `plan_memory`: a graph's tensors, sized, scheduled and placed.

use super::any_order::any_order_bound;
use super::arena::{plan_lifetimes, ArenaOptions, ArenaPlan};
use super::buffers::Buffers;
use super::buffers::{buffers, Region};
use super::check::check_placement;
use super::lifetimes::Prepared;
use super::lower_bound::{live_profile, lower_bound};
use super::order::{has_live_loop, top_order, ScheduleKind};
use super::refine::refine;
use super::schedule::{schedule_in_order, Schedule};
use super::size::align_up;
use super::{Lifetime, MemoryError};
use crate::graph::{topological_order, Graph};
use crate::op::OpRegistry;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanOptions {
    /// Strategy and alignment of the activation arena.
    pub arena: ArenaOptions,
    /// Size a tensor with unknown dims by its shape range's upper bounds
    /// (when every unknown dim has one), as GE does for tensors it can
    /// bound.
    pub use_shape_ranges: bool,
    /// Leave tensors of unknown size out of the plan (region `Dynamic`,
    /// allocated at run time, as GE runs unknown-shape parts dynamically)
    /// instead of failing on the first one.
    pub allow_dynamic: bool,
    /// The order steps run in; `None` (auto): every order of
    /// [`ScheduleKind::BUILT`] is tried, the best refined, and the one whose
    /// peak of live activation bytes is lowest is planned (graphs over
    /// [`MAX_AUTO_SCHEDULE_NODES`] nodes keep the topological order).
    /// `Refined` does the same and reports the best built order where
    /// refining does not apply (a graph with bodies) or finds nothing.
    pub schedule: Option<ScheduleKind>,
}

/// The largest top graph `schedule = auto` tries other orders for: each
/// order costs one more schedule and lifetime pass, which the
/// million-node scale budget does not allow.
pub const MAX_AUTO_SCHEDULE_NODES: usize = 200_000;

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            arena: ArenaOptions::default(),
            use_shape_ranges: true,
            allow_dynamic: false,
            schedule: None,
        }
    }
}

/// One tensor of the graph in the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedTensor {
    /// `node:i`, or `caller/body/node:i` in a body.
    pub name: String,
    /// Bytes by GE's rule; `None` when unknown (a dynamic tensor). A view's
    /// own size; its buffer is at least as large.
    pub size: Option<u64>,
    /// Offset in its region; `None` for a dynamic tensor. A view has its
    /// buffer's offset.
    pub offset: Option<u64>,
    /// For a buffer's owner, the buffer's lifetime (loops and views
    /// included); for a view, the steps of its own producer and last reader.
    pub first_step: u32,
    pub last_step: u32,
    pub region: Region,
    /// The tensor owning the memory this view shares (an index into
    /// `MemoryPlan::tensors`).
    pub view_of: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MemoryPlan {
    pub tensors: Vec<PlannedTensor>,
    /// The activation arena: offsets, totals per strategy, lower bound.
    pub arena: ArenaPlan,
    pub weights_bytes: u64,
    pub input_bytes: u64,
    pub output_bytes: u64,
    /// Steps of the schedule (nodes run, bodies included).
    pub steps: u32,
    /// The order the plan runs the steps in.
    pub schedule: ScheduleKind,
    /// Every order tried with its peak of live activation bytes (the
    /// arena's lower bound under that order), the chosen one included.
    pub schedule_peaks: Vec<(ScheduleKind, u64)>,
    /// The peak of live activation bytes that no order of the steps can go
    /// below (`any_order.rs`): what separates a better schedule from none.
    /// `None` for graphs of more than
    /// [`MAX_ANY_ORDER_STEPS`](super::MAX_ANY_ORDER_STEPS) steps.
    pub any_order_bound_bytes: Option<u64>,
}

impl MemoryPlan {
    pub fn arena_bytes(&self) -> u64 {
        self.arena.arena_bytes
    }

    pub fn lower_bound_bytes(&self) -> u64 {
        self.arena.lower_bound_bytes
    }

    /// Graph inputs and outputs.
    pub fn io_bytes(&self) -> u64 {
        self.input_bytes.saturating_add(self.output_bytes)
    }

    /// What the checker finds wrong with the plan; empty when valid. Every
    /// region is checked (the fixed ones as alive throughout), and every
    /// view against its buffer.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for region in [
            Region::Activation,
            Region::Input,
            Region::Output,
            Region::Weight,
        ] {
            let owners: Vec<&PlannedTensor> = self
                .tensors
                .iter()
                .filter(|t| t.region == region && t.view_of.is_none())
                .collect();
            let arena = match region {
                Region::Activation => self.arena.arena_bytes,
                Region::Input => self.input_bytes,
                Region::Output => self.output_bytes,
                _ => self.weights_bytes,
            };
            let lifetimes: Vec<Lifetime> = owners
                .iter()
                .map(|t| Lifetime {
                    size: t.size.unwrap_or(u64::MAX),
                    first: t.first_step,
                    last: t.last_step,
                })
                .collect();
            let offsets: Vec<Option<u64>> = owners.iter().map(|t| t.offset).collect();
            for problem in check_placement(&lifetimes, &offsets, arena, self.arena.alignment) {
                problems.push(format!("{} region: {problem}", region.name()));
            }
        }
        for t in &self.tensors {
            if let Some(owner) = t.view_of.and_then(|v| self.tensors.get(v as usize)) {
                if (owner.offset, owner.region) != (t.offset, t.region) {
                    problems.push(format!("view '{}' is not at its buffer's place", t.name));
                }
            }
        }
        problems
    }
}

/// Plans the memory of an inferred graph: every tensor sized by GE's rule
/// from its storage shape, views in their input's memory, activations in
/// one arena by the chosen strategy (all strategies run unless one is
/// given), and inputs, outputs and weights in their own regions.
pub fn plan_memory(
    graph: &Graph,
    registry: &OpRegistry,
    options: &PlanOptions,
) -> Result<MemoryPlan, MemoryError> {
    if options.arena.alignment == 0 {
        return Err(MemoryError::ZeroAlignment);
    }
    let kinds: Vec<ScheduleKind> = match options.schedule {
        Some(ScheduleKind::Refined) => ScheduleKind::BUILT.to_vec(),
        Some(kind) => vec![kind],
        None if graph.len() <= MAX_AUTO_SCHEDULE_NODES => ScheduleKind::BUILT.to_vec(),
        None => vec![ScheduleKind::Topological],
    };
    // With one order there is nothing to compare: its peak is the arena's
    // lower bound, computed by the placement anyway.
    let measure = kinds.len() > 1;
    let mut best: Option<Scheduled<'_>> = None;
    let mut schedule_peaks = Vec::with_capacity(kinds.len());
    for kind in kinds {
        let order = top_order(graph, kind);
        if kind != ScheduleKind::Topological && order.is_none() {
            // The graph keeps its topological order (a v1 loop).
            continue;
        }
        let candidate = Scheduled::new(graph, registry, options, kind, order, measure)?;
        if measure {
            schedule_peaks.push((kind, candidate.peak));
        }
        if best.as_ref().is_none_or(|b| candidate.peak < b.peak) {
            best = Some(candidate);
        }
    }
    if let Some(built) = best.as_ref().filter(|_| measure) {
        // Listed only where its measured peak is lower, as documented.
        if let Some(refined) =
            refined(graph, registry, options, built)?.filter(|refined| refined.peak < built.peak)
        {
            schedule_peaks.push((ScheduleKind::Refined, refined.peak));
            best = Some(refined);
        }
    }
    let Some(Scheduled {
        kind: chosen,
        schedule,
        buffers,
        activations,
        lifetimes,
        ..
    }) = best
    else {
        // Only reachable with an explicit order the graph cannot take.
        return Err(MemoryError::Schedule(format!(
            "the graph has a TensorFlow v1 loop, which runs in topological order only; \
             use schedule '{}'",
            ScheduleKind::Topological.name()
        )));
    };
    let arena = plan_lifetimes(&lifetimes, &options.arena)?;
    let any_order_bound_bytes = any_order_bound(&schedule, &buffers, options.arena.alignment);
    if !measure {
        schedule_peaks.push((chosen, arena.lower_bound_bytes));
    }
    let mut offsets: Vec<Option<u64>> = vec![None; buffers.buffers.len()];
    for (&b, &offset) in activations.iter().zip(&arena.offsets) {
        offsets[b] = Some(offset);
    }
    let alignment = options.arena.alignment;
    let mut stack = |region: Region, what: &str| -> Result<u64, MemoryError> {
        let mut top = 0u64;
        for (b, buffer) in buffers.buffers.iter().enumerate() {
            if buffer.region == region {
                offsets[b] = Some(top);
                top = align_up(buffer.size.unwrap_or(0), alignment)
                    .and_then(|size| top.checked_add(size))
                    .ok_or_else(|| MemoryError::overflow(what))?;
            }
        }
        Ok(top)
    };
    let weights_bytes = stack(Region::Weight, "total size of the weights")?;
    let input_bytes = stack(Region::Input, "total size of the graph inputs")?;
    let output_bytes = stack(Region::Output, "total size of the graph outputs")?;

    let tensors = (0..schedule.tensors.len())
        .map(|t| {
            let b = buffers.buffer_of[t] as usize;
            let buffer = &buffers.buffers[b];
            let owner = buffer.root as usize == t;
            let (first_step, last_step) = if owner {
                (buffer.first, buffer.last)
            } else {
                buffers.spans[t]
            };
            PlannedTensor {
                name: schedule.tensor_name(t),
                size: if owner {
                    buffer.size
                } else {
                    buffers.sizes[t].or(buffer.size)
                },
                offset: offsets[b],
                first_step,
                last_step,
                region: buffer.region,
                view_of: (!owner).then_some(buffer.root),
            }
        })
        .collect();
    Ok(MemoryPlan {
        tensors,
        arena,
        weights_bytes,
        input_bytes,
        output_bytes,
        steps: schedule.steps,
        schedule: chosen,
        schedule_peaks,
        any_order_bound_bytes,
    })
}

/// `built` refined by moving single nodes (`refine.rs`), measured; `None`
/// for a graph with bodies (the refinement models one step per node) or a
/// live v1 loop (which keeps its topological order), and when no move lowers
/// the peak.
fn refined<'g>(
    graph: &'g Graph,
    registry: &OpRegistry,
    options: &PlanOptions,
    built: &Scheduled<'g>,
) -> Result<Option<Scheduled<'g>>, MemoryError> {
    if built.schedule.steps as usize != graph.len() || has_live_loop(graph) {
        return Ok(None);
    }
    let base = match top_order(graph, built.kind) {
        Some(order) => order,
        None => topological_order(graph)?,
    };
    let alignment = options.arena.alignment;
    let Some(order) = refine(graph, &base, &built.schedule, &built.buffers, alignment) else {
        return Ok(None);
    };
    let kind = ScheduleKind::Refined;
    Scheduled::new(graph, registry, options, kind, Some(order), true).map(Some)
}

/// One order's schedule, buffers and activation lifetimes, with the peak
/// of its live activation bytes (0 unless measured).
struct Scheduled<'g> {
    kind: ScheduleKind,
    schedule: Schedule<'g>,
    buffers: Buffers,
    activations: Vec<usize>,
    lifetimes: Vec<Lifetime>,
    peak: u64,
}

impl<'g> Scheduled<'g> {
    fn new(
        graph: &'g Graph,
        registry: &OpRegistry,
        options: &PlanOptions,
        kind: ScheduleKind,
        order: Option<Vec<crate::graph::NodeId>>,
        measure: bool,
    ) -> Result<Scheduled<'g>, MemoryError> {
        let schedule = schedule_in_order(graph, registry, order)?;
        let buffers = buffers(&schedule, options.use_shape_ranges, options.allow_dynamic)?;
        let activations: Vec<usize> = (0..buffers.buffers.len())
            .filter(|&b| buffers.buffers[b].region == Region::Activation)
            .collect();
        let lifetimes: Vec<Lifetime> = activations
            .iter()
            .map(|&b| {
                let buffer = &buffers.buffers[b];
                Lifetime::new(buffer.size.unwrap_or(0), buffer.first, buffer.last)
            })
            .collect();
        let peak = if measure {
            lower_bound(&live_profile(&Prepared::new(
                &lifetimes,
                options.arena.alignment,
            )?))
        } else {
            0
        };
        Ok(Scheduled {
            kind,
            schedule,
            buffers,
            activations,
            lifetimes,
            peak,
        })
    }
}
