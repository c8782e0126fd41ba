//! What [`prepare`](super::prepare) did, for users and the memory planner's reports.

use super::PrepareOptions;
use crate::device::soc::Soc;
use crate::graph::Graph;
use crate::types::Format;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrepareReport {
    pub soc: Soc,
    pub allow_fp32_to_fp16: bool,
    /// TransData nodes inserted (bodies included).
    pub trans_data_inserted: usize,
    /// Cast nodes inserted by the precision policy.
    pub casts_inserted: usize,
    /// Weights (Const nodes) stored in a device format in place.
    pub weights_converted: usize,
    /// Weights stored in fp16 in place by the precision policy.
    pub weights_cast_to_fp16: usize,
    /// Node outputs per storage format after the pass (bodies included),
    /// in GE's format numbering order.
    pub tensors_by_format: Vec<(Format, usize)>,
    /// Graphs prepared: the graph and every body.
    pub graphs: usize,
    /// If / Case nodes replaced by the body their known selector takes
    /// (GE's CondRemovePass), bodies included.
    pub conds_replaced: usize,
}

impl PrepareReport {
    pub(super) fn new(options: &PrepareOptions) -> PrepareReport {
        PrepareReport {
            soc: options.soc,
            allow_fp32_to_fp16: options.allow_fp32_to_fp16,
            trans_data_inserted: 0,
            casts_inserted: 0,
            weights_converted: 0,
            weights_cast_to_fp16: 0,
            tensors_by_format: Vec::new(),
            graphs: 0,
            conds_replaced: 0,
        }
    }

    pub(super) fn count_formats(&mut self, graph: &Graph) {
        let counts = count(graph, &mut FxHashMap::default());
        self.tensors_by_format = counts.into_iter().collect();
    }

    /// How many node outputs are stored as `format`.
    pub fn tensors_in(&self, format: Format) -> usize {
        self.tensors_by_format
            .iter()
            .find(|(f, _)| *f == format)
            .map_or(0, |(_, n)| *n)
    }
}

/// Outputs per storage format, bodies counted at each call site; a body
/// shared by several call sites is counted once (`memo`, by address).
fn count(
    graph: &Graph,
    memo: &mut FxHashMap<*const Graph, BTreeMap<Format, usize>>,
) -> BTreeMap<Format, usize> {
    let mut counts = BTreeMap::new();
    let mut add = |format: Format, n: usize| {
        let slot = counts.entry(format).or_insert(0usize);
        *slot = slot.saturating_add(n);
    };
    for node in graph.nodes() {
        for desc in &node.outputs {
            add(desc.storage_format, 1);
        }
        for body in &node.subgraphs {
            let key = Arc::as_ptr(&body.graph);
            if !memo.contains_key(&key) {
                let inner = count(&body.graph, memo);
                memo.insert(key, inner);
            }
            for (&format, &n) in &memo[&key] {
                add(format, n);
            }
        }
    }
    counts
}
