//! From scheduled tensors to buffers: a view and the tensor it shares
//! memory with are one buffer, alive from its first producer to its last
//! reader; loops keep alive what crosses iterations; each buffer gets its
//! size by GE's rule and its region.
//!
//! Loops. A buffer produced and read within one iteration of a loop (all
//! its producers and readers inside the loop, none across a back edge)
//! keeps its lifetime: every iteration recreates it. Any other buffer alive
//! during the loop (the loop variables, a body's results, values read by
//! the next iteration through a v1 back edge, values from outside the loop
//! read inside it, and values of nodes that only the schedule puts among
//! the loop's steps) is alive over the whole loop. Nested loops are handled
//! innermost first.

use super::schedule::{Schedule, Source};
use super::size::tensor_size_named;
use super::MemoryError;

/// Where a buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// The activation arena, which the strategies plan.
    Activation,
    /// Graph inputs, laid out one after another.
    Input,
    /// Graph outputs, laid out one after another.
    Output,
    /// Constants, laid out one after another.
    Weight,
    /// Unknown size (allowed by `PlanOptions::allow_dynamic`): not planned,
    /// allocated at run time as GE does for dynamic-shape tensors.
    Dynamic,
    /// A constant no run-time op reads: GE's constant folding consumed it
    /// (the INT8 weight of a folded DequantizeLinear, a weight only a
    /// folded Cast or Transpose reads) or it is read by nothing. It takes
    /// no device memory.
    Folded,
    /// Produced by dead code GE deletes before it assigns memory (the dead
    /// side of a TensorFlow v1 Switch on a known predicate, a branch an If
    /// or Case on a known selector does not take): never computed, no memory.
    Dead,
}

impl Region {
    pub fn name(self) -> &'static str {
        match self {
            Region::Activation => "activation",
            Region::Input => "input",
            Region::Output => "output",
            Region::Weight => "weight",
            Region::Dynamic => "dynamic",
            Region::Folded => "folded",
            Region::Dead => "dead",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Buffer {
    /// The tensor that owns it (not a view).
    pub root: u32,
    /// `None` for a dynamic buffer.
    pub size: Option<u64>,
    pub first: u32,
    pub last: u32,
    pub region: Region,
}

pub(crate) struct Buffers {
    pub buffers: Vec<Buffer>,
    /// Per tensor: its buffer.
    pub buffer_of: Vec<u32>,
    /// Per tensor: its own size (a view's may differ from its buffer's).
    pub sizes: Vec<Option<u64>>,
    /// Per tensor: its own producer step and last reader step.
    pub spans: Vec<(u32, u32)>,
}

pub(crate) fn buffers(
    schedule: &Schedule<'_>,
    use_ranges: bool,
    allow_dynamic: bool,
) -> Result<Buffers, MemoryError> {
    let tensors = &schedule.tensors;
    let end = schedule.steps.saturating_sub(1);
    let sizes = tensors
        .iter()
        .enumerate()
        .map(|(t, tensor)| match tensor.source {
            // Never computed: whatever its descriptor says, it has no size.
            Source::Dead => Ok(None),
            _ => tensor_size_named(|| schedule.tensor_name(t), tensor.desc, use_ranges),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let spans: Vec<(u32, u32)> = tensors
        .iter()
        .map(|t| {
            let read = t.readers.iter().map(|r| r.step).max().unwrap_or(t.step);
            let last = if t.is_output { end } else { read.max(t.step) };
            (t.step, last)
        })
        .collect();
    let roots = roots(schedule);
    let mut buffer_of = vec![u32::MAX; tensors.len()];
    let mut buffers: Vec<Buffer> = Vec::new();
    for t in 0..tensors.len() {
        if roots[t] as usize == t {
            buffer_of[t] = buffers.len() as u32;
            let root = &tensors[t];
            let region = match (root.source, sizes[t]) {
                (Source::Dead, _) => Region::Dead,
                (_, None) if allow_dynamic => Region::Dynamic,
                (Source::Weight, None) => {
                    return Err(MemoryError::UnknownWeightSize {
                        tensor: schedule.tensor_name(t),
                        shape: root.desc.storage_shape.to_string(),
                    })
                }
                (_, None) => {
                    return Err(MemoryError::unknown_size(
                        schedule.tensor_name(t),
                        root.desc,
                        use_ranges,
                    ))
                }
                (Source::Input, _) => Region::Input,
                (Source::Weight, _) => Region::Weight,
                (Source::Computed, _) => Region::Activation,
            };
            buffers.push(Buffer {
                root: t as u32,
                size: sizes[t],
                first: spans[t].0,
                last: spans[t].1,
                region,
            });
        }
    }
    for t in 0..tensors.len() {
        let b = &mut buffers[buffer_of[roots[t] as usize] as usize];
        buffer_of[t] = buffer_of[roots[t] as usize];
        b.first = b.first.min(spans[t].0);
        b.last = b.last.max(spans[t].1);
        if let (Some(size), Some(own)) = (b.size, sizes[t]) {
            // A view larger than its input (another storage format) still fits.
            b.size = Some(size.max(own));
        }
        if tensors[t].is_output && b.region == Region::Activation {
            b.region = Region::Output;
        }
    }
    fold_build_time_weights(schedule, &mut buffers, &buffer_of);
    extend_over_loops(schedule, &mut buffers, &buffer_of);
    Ok(Buffers {
        buffers,
        buffer_of,
        sizes,
        spans,
    })
}

/// Weight buffers that no run-time op reads (through any of their views)
/// and no graph output is: [`Region::Folded`].
fn fold_build_time_weights(schedule: &Schedule<'_>, buffers: &mut [Buffer], buffer_of: &[u32]) {
    let mut run_time = vec![false; buffers.len()];
    for (tensor, &b) in schedule.tensors.iter().zip(buffer_of) {
        if tensor.is_output || tensor.readers.iter().any(|r| !r.at_build) {
            run_time[b as usize] = true;
        }
    }
    for (buffer, read) in buffers.iter_mut().zip(run_time) {
        if buffer.region == Region::Weight && !read {
            buffer.region = Region::Folded;
        }
    }
}

/// Per tensor, the tensor owning its memory (following views). A chain of
/// views that closes on itself (only a malformed prototype could make one)
/// is cut where it closes.
fn roots(schedule: &Schedule<'_>) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
    let tensors = &schedule.tensors;
    let mut root = vec![UNSEEN; tensors.len()];
    let mut on_path = vec![false; tensors.len()];
    let mut path = Vec::new();
    for start in 0..tensors.len() {
        let mut at = start as u32;
        let found = loop {
            if root[at as usize] != UNSEEN {
                break root[at as usize];
            }
            if on_path[at as usize] {
                break at;
            }
            on_path[at as usize] = true;
            path.push(at);
            match tensors[at as usize].view_of {
                Some(next) => at = next,
                None => break at,
            }
        };
        for t in path.drain(..) {
            root[t as usize] = found;
            on_path[t as usize] = false;
        }
    }
    root
}

/// Keeps buffers that cross a loop's iterations alive over the whole loop
/// (see the module docs), innermost loops first.
fn extend_over_loops(schedule: &Schedule<'_>, buffers: &mut [Buffer], buffer_of: &[u32]) {
    if schedule.loops.is_empty() {
        return;
    }
    let depth = |mut l: Option<u32>| {
        let mut d = 0;
        while let Some(x) = l {
            d += 1;
            l = schedule.loops[x as usize].parent;
        }
        d
    };
    let mut loops: Vec<u32> = (0..schedule.loops.len() as u32).collect();
    loops.sort_by_key(|&l| std::cmp::Reverse(depth(Some(l))));
    // Members of each buffer.
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); buffers.len()];
    for (t, &b) in buffer_of.iter().enumerate() {
        members[b as usize].push(t as u32);
    }
    for l in loops {
        let region = &schedule.loops[l as usize];
        if region.first > region.last {
            continue;
        }
        for (b, buffer) in buffers.iter_mut().enumerate() {
            let meets = buffer.first <= region.last && region.first <= buffer.last;
            if !meets || is_within_one_iteration(schedule, &members[b], l) {
                continue;
            }
            buffer.first = buffer.first.min(region.first);
            buffer.last = buffer.last.max(region.last);
        }
    }
}

/// True when every producer and reader of the buffer's tensors is inside
/// loop `l` and nothing reads them through `l`'s back edge.
fn is_within_one_iteration(schedule: &Schedule<'_>, members: &[u32], l: u32) -> bool {
    members.iter().all(|&t| {
        let t = &schedule.tensors[t as usize];
        !t.is_output
            && schedule.within(t.loop_id, l)
            && t.readers
                .iter()
                .all(|r| schedule.within(r.loop_id, l) && !(r.back_edge && r.loop_id == Some(l)))
    })
}

/// Every `(buffer, step)` where an activation buffer is produced or used
/// (one of its tensors written, or read other than through a loop back
/// edge), sorted and without repeats: grouped by buffer, steps ascending.
pub(crate) fn activation_uses(schedule: &Schedule<'_>, buffers: &Buffers) -> Vec<(u32, u32)> {
    let mut uses: Vec<(u32, u32)> = Vec::new();
    for (t, tensor) in schedule.tensors.iter().enumerate() {
        let b = buffers.buffer_of[t];
        if buffers.buffers[b as usize].region != Region::Activation {
            continue;
        }
        uses.push((b, tensor.step));
        uses.extend(
            tensor
                .readers
                .iter()
                .filter(|r| !r.back_edge)
                .map(|r| (b, r.step)),
        );
    }
    uses.sort_unstable();
    uses.dedup();
    uses
}
