//! The storage-format pass: which layout the device holds each tensor in
//! (GE's format selection and TransOp insertion), for a target [`Soc`].
//!
//! [`prepare`] works on an inferred graph, in this order, per graph and
//! then per body (If / While / call bodies get the same pass):
//! 1. with [`PrepareOptions::allow_fp32_to_fp16`], the cube ops compute in
//!    fp16 ([`precision`]): Casts where dtypes meet, weights cast in place;
//! 2. every node's outputs are stored as its rule decides ([`rules`],
//!    [`decide`]): convolution / pooling / batch-norm activations in
//!    NC1HWC0, convolution weights in FRACTAL_Z, matrix-multiply operands
//!    in FRACTAL_NZ, element-wise ops following agreeing inputs, ND
//!    elsewhere; storage shapes by GE's formulas ([`shapes`]);
//! 3. constants take the storage their consumers agree on, in place and
//!    without TransData, as GE pre-transforms weights at build time; a
//!    constant whose consumers disagree stays plain;
//! 4. a TransData node goes on every edge where the producer's storage is
//!    not what the consumer needs, one per (tensor, target storage) shared
//!    by its consumers, and before graph outputs (back to the origin
//!    format) ([`transdata`]).
//!
//! Decisions where GE leaves a choice, or where opgraph simplifies:
//! - Constants are Const outputs, Identity-like reads of them, folded
//!   outputs and the outputs of nodes that read only constants
//!   ([`constant_outputs`]): GE's constant folding runs before format
//!   selection, so a batch norm's folded per-channel scale is one more
//!   weight stored NC1HWC0. Such outputs are weights for the memory
//!   planner too, not views of their inputs.
//! - GE's FullyConnection (`fully_connection` op_select_format): the
//!   weight is always FRACTAL_Z (`[N, K]` read as the `K × N` matrix,
//!   a 4-D weight as a filter); a 4-D `x` reduced from axis 1 is NC1HWC0,
//!   any other FRACTAL_NZ; the (2-D) output FRACTAL_NZ; the bias stays ND.
//! - Element-wise ops broadcast lower-rank inputs as numpy does: beside
//!   NHWC data a per-channel `[C]` is `[1, 1, 1, C]`, stored
//!   `[1, C1, 1, 1, C0]` (GE's reshape type); one-element inputs are taken
//!   as they are. Per-channel parameters of batch norm, Scale and BiasAdd
//!   stay ND.
//! - Concatenations stay NC1HWC0 only when every input's C1 blocks are
//!   whole (C a multiple of C0 when joining along C), as GE's ConcatD.
//! - Ops opgraph has no device rule for (Pad, Mean, Softmax, Reshape ...)
//!   work on ND, so TransData surrounds them.
//!
//! Storage lives in each [`TensorDesc`](crate::types::TensorDesc)'s
//! `storage_format` / `storage_shape` (and `dtype`): the single source of
//! truth later passes (the memory planner) read. [`check_formats`] checks
//! a prepared graph against the same rules.
//!
//! The pass works on a copy and replaces the graph only when it succeeds.

mod assign;
mod check;
pub mod decide;
mod edges;
mod follow;
mod half;
pub mod precision;
mod prefer;
mod report;
pub mod rules;
pub mod shapes;
pub mod spec;
pub mod transdata;

#[cfg(test)]
mod tests;

pub use check::{check_formats, Violation};
pub(crate) use edges::{constant_outputs, folds};
pub use report::PrepareReport;

use super::cond_remove::splice_taken_bodies;
use super::dead_code::DeadCode;
use super::soc::Soc;
use super::DeviceError;
use crate::graph::{topological_order, Graph};
use crate::op::OpRegistry;
use crate::types::{AttrValue, DataType, Format, Shape};
use rustc_hash::{FxHashMap, FxHashSet};
use shapes::FormulaError;
use spec::{is_plain, Device, FilterDims};
use std::sync::Arc;

/// What [`prepare`] is asked to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrepareOptions {
    pub soc: Soc,
    /// ATC's `precision_mode=allow_fp32_to_fp16`: cube ops compute in fp16.
    /// Off (the default), every dtype stays as inferred.
    pub allow_fp32_to_fp16: bool,
}

impl PrepareOptions {
    pub fn new(soc: Soc) -> PrepareOptions {
        PrepareOptions {
            soc,
            allow_fp32_to_fp16: false,
        }
    }
}

/// Chooses the storage of every tensor of `graph` (and its bodies) for
/// `options.soc`, inserting TransData (and, with the precision policy,
/// Cast) nodes. The graph must be inferred and not yet prepared. An If /
/// Case on a known selector is first replaced by the body it takes, its
/// nodes named `{node}/{body}/{name}` (GE's CondRemovePass).
///
/// The graph is changed in place, not through a copy: a copy would double
/// the memory of the largest graphs at their peak. A graph that is not
/// inferred, or already prepared, is refused before anything changes; any
/// other error (see [`DeviceError::left_graph_unchanged`]) may come after
/// some tensors were stored, and the graph is then partly prepared.
pub fn prepare(
    graph: &mut Graph,
    registry: &OpRegistry,
    options: &PrepareOptions,
) -> Result<PrepareReport, DeviceError> {
    check_ready(graph, &mut FxHashSet::default())?;
    let mut report = PrepareReport::new(options);
    let mut bodies = PreparedBodies::default();
    prepare_graph(graph, registry, options, &mut report, &mut bodies)?;
    report.count_formats(graph);
    Ok(report)
}

/// Every output has a dtype and is still stored plain; a body shared by
/// several call sites is checked once (`checked`, by address).
fn check_ready(graph: &Graph, checked: &mut FxHashSet<*const Graph>) -> Result<(), DeviceError> {
    for node in graph.nodes() {
        for (output, desc) in node.outputs.iter().enumerate() {
            if desc.dtype == DataType::Undefined {
                return Err(DeviceError::NotInferred {
                    node: node.name.clone(),
                    output,
                });
            }
            if !is_plain(desc) {
                return Err(DeviceError::AlreadyPrepared {
                    node: node.name.clone(),
                    output,
                    format: desc.storage_format.to_string(),
                });
            }
        }
        for body in &node.subgraphs {
            if checked.insert(Arc::as_ptr(&body.graph)) {
                check_ready(&body.graph, checked).map_err(|e| e.in_body(&node.name, &body.name))?;
            }
        }
    }
    Ok(())
}

/// Bodies prepared in this pass, by the address of the body a call site
/// held: a library function shared by many call sites is prepared once and
/// the prepared copy shared again.
#[derive(Default)]
struct PreparedBodies {
    done: FxHashMap<*const Graph, PreparedBody>,
}

struct PreparedBody {
    /// Keeps the body alive, so its address (the key) is not reused.
    _original: Arc<Graph>,
    prepared: Arc<Graph>,
    /// What preparing it added to the report, added again per call site.
    counts: ReportCounts,
}

/// The report's per-graph counters, as a unit to add per call site.
#[derive(Clone, Copy)]
struct ReportCounts([usize; 6]);

impl ReportCounts {
    fn of(report: &PrepareReport) -> ReportCounts {
        ReportCounts([
            report.casts_inserted,
            report.weights_cast_to_fp16,
            report.weights_converted,
            report.trans_data_inserted,
            report.graphs,
            report.conds_replaced,
        ])
    }

    fn since(self, before: ReportCounts) -> ReportCounts {
        ReportCounts(std::array::from_fn(|i| self.0[i] - before.0[i]))
    }

    fn add_to(self, report: &mut PrepareReport) {
        let [casts, fp16, converted, trans_data, graphs, conds] = self.0;
        report.casts_inserted = report.casts_inserted.saturating_add(casts);
        report.weights_cast_to_fp16 = report.weights_cast_to_fp16.saturating_add(fp16);
        report.weights_converted = report.weights_converted.saturating_add(converted);
        report.trans_data_inserted = report.trans_data_inserted.saturating_add(trans_data);
        report.graphs = report.graphs.saturating_add(graphs);
        report.conds_replaced = report.conds_replaced.saturating_add(conds);
    }
}

fn prepare_graph(
    graph: &mut Graph,
    registry: &OpRegistry,
    options: &PrepareOptions,
    report: &mut PrepareReport,
    bodies: &mut PreparedBodies,
) -> Result<(), DeviceError> {
    let mut order = topological_order(graph)?;
    let mut dead_code = DeadCode::of(graph, &order);
    // GE's CondRemovePass runs before its format passes; a body spliced in
    // may hold another If / Case on a known selector, spliced next round.
    loop {
        let replaced = splice_taken_bodies(graph, &dead_code)?;
        if replaced == 0 {
            break;
        }
        report.conds_replaced += replaced;
        order = topological_order(graph)?;
        dead_code = DeadCode::of(graph, &order);
    }
    let mut constant = edges::constant_outputs(graph, &order, &dead_code);
    if options.allow_fp32_to_fp16 {
        let changes = precision::compute_cube_ops_in_fp16(graph, &order, &constant, &dead_code)?;
        report.casts_inserted += changes.casts_inserted;
        report.weights_cast_to_fp16 += changes.weights_cast;
        order = topological_order(graph)?;
        // The casts are new nodes: the verdict is taken again over them.
        dead_code = DeadCode::of(graph, &order);
        constant = edges::constant_outputs(graph, &order, &dead_code);
    }
    let output_formats: Vec<Format> = graph
        .outputs()
        .iter()
        .map(|&out| graph.tensor(out).origin_format)
        .collect();
    let assignment = assign::assign(graph, registry, &options.soc, &order, &constant, &dead_code)?;
    report.weights_converted += assignment.constants_converted;
    report.trans_data_inserted +=
        transdata::insert_trans_data(graph, &assignment.needs, &options.soc)?;
    keep_output_formats(graph, &output_formats);
    report.graphs += 1;
    for id in graph.node_ids() {
        let caller = graph.node(id).name.clone();
        for body in &mut graph.node_mut(id).subgraphs {
            let key = Arc::as_ptr(&body.graph);
            if let Some(done) = bodies.done.get(&key) {
                body.graph = Arc::clone(&done.prepared);
                done.counts.add_to(report);
                continue;
            }
            let original = Arc::clone(&body.graph);
            let before = ReportCounts::of(report);
            prepare_graph(body.graph_mut(), registry, options, report, bodies)
                .map_err(|e| e.in_body(&caller, &body.name))?;
            let prepared = PreparedBody {
                _original: original,
                prepared: Arc::clone(&body.graph),
                counts: ReportCounts::of(report).since(before),
            };
            bodies.done.insert(key, prepared);
        }
    }
    Ok(())
}

/// Graph outputs leave plain, in the origin format inference gave them. A
/// device layout can relabel an ND tensor (an ND concat of two NC1HWC0
/// pooling outputs is stored NC1HWC0, so its origin becomes NCHW); the
/// plain tensor leaving the graph gets its ND label back (same dims, same
/// bytes), so `prepare` never changes what the user sees at the outputs.
fn keep_output_formats(graph: &mut Graph, formats: &[Format]) {
    let outputs = graph.outputs().to_vec();
    for (&out, &format) in outputs.iter().zip(formats) {
        let node = graph.node_mut(out.node);
        let desc = &mut node.outputs[out.index as usize];
        let plain =
            desc.storage_format == desc.origin_format && desc.storage_shape == desc.origin_shape;
        if plain && desc.origin_format != format {
            desc.origin_format = format;
            desc.storage_format = format;
            if node.op_type == "TransData" {
                node.attrs
                    .set("dst_format", AttrValue::Str(format.name().into()));
            }
        }
    }
}

/// GE's storage shape of a `dtype` tensor with `origin` dims in
/// `origin_format`, stored as `storage_format`: NC1HWC0 (4-D), FRACTAL_Z
/// (a 4-D filter with `groups`, or a 2-D `[K, N]` matrix), FRACTAL_NZ, or
/// the origin format itself (unchanged).
pub fn storage_shape(
    origin: &Shape,
    origin_format: Format,
    storage_format: Format,
    dtype: DataType,
    groups: i64,
    soc: &Soc,
) -> Result<Shape, FormulaError> {
    if dtype == DataType::Undefined && storage_format != origin_format {
        // The block size C0 follows the dtype; there is none to follow.
        return Err(FormulaError::NoDtype(storage_format));
    }
    let device = match storage_format {
        f if f == origin_format => return Ok(origin.clone()),
        Format::Nc1hwc0 => Device::Nc1hwc0 {
            layout: origin_format,
        },
        Format::FractalZ if origin.rank() == Some(2) => Device::FractalZ {
            layout: origin_format,
            dims: FilterDims::Matrix { transposed: true },
        },
        Format::FractalZ => Device::FractalZ {
            layout: origin_format,
            dims: FilterDims::Conv { groups },
        },
        Format::FractalNz => Device::FractalNz,
        other => return Err(FormulaError::Unsupported(other)),
    };
    device.storage_shape(origin, dtype, soc)
}
