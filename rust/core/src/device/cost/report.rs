//! The result of a cost estimate: one row per node, graph totals and the
//! critical path; JSON in and out.

use crate::types::OpTypeName;
use serde::{Deserialize, Serialize};

/// What limits an op's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Cube instructions dominate.
    Cube,
    /// Vector instructions dominate.
    Vector,
    /// Moving the operands dominates.
    Memory,
    /// The fixed launch cost exceeds the work.
    Overhead,
    /// No AI Core kernel: runs on the AI CPU.
    AiCpu,
    /// Runs inside another op's kernel (`fused_into`).
    Fused,
    /// Costs nothing: constants, views, folded subgraphs, callers (whose
    /// bodies have their own rows).
    Free,
}

impl Bound {
    /// Every bound, in the order of [`Bound::code`].
    pub const ALL: [Bound; 7] = [
        Bound::Cube,
        Bound::Vector,
        Bound::Memory,
        Bound::Overhead,
        Bound::AiCpu,
        Bound::Fused,
        Bound::Free,
    ];

    /// The index of this bound in [`Bound::ALL`].
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn name(self) -> &'static str {
        match self {
            Bound::Cube => "cube",
            Bound::Vector => "vector",
            Bound::Memory => "memory",
            Bound::Overhead => "overhead",
            Bound::AiCpu => "ai_cpu",
            Bound::Fused => "fused",
            Bound::Free => "free",
        }
    }
}

/// The estimate for one node (all executions of it: `count` times).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeCost {
    /// Qualified name: `caller/body/node` inside a body.
    pub name: String,
    pub op_type: OpTypeName,
    pub time_us: f64,
    pub bound: Bound,
    /// Useful floating-point operations (a multiply-add is 2).
    pub flops: f64,
    /// Operations the units execute, C0 / fractal padding included.
    pub padded_flops: f64,
    /// Off-chip bytes read and written.
    pub bytes: f64,
    /// Bytes re-read from L2.
    pub l2_bytes: f64,
    /// The larger of `cube_us` and `vector_us`.
    pub compute_us: f64,
    /// Cube time at the device's Cube efficiency (0 for non-Cube ops).
    #[serde(default)]
    pub cube_us: f64,
    /// Vector time (fused members included) at the vector efficiency.
    #[serde(default)]
    pub vector_us: f64,
    pub memory_us: f64,
    pub overhead_us: f64,
    /// Executions counted (a loop body's trip count; 1 elsewhere).
    pub count: f64,
    pub fused_into: Option<String>,
    pub note: Option<String>,
}

/// The whole-graph estimate. Its rows are records unless the walk was
/// asked for another [`Rows`](super::Rows) (columns, for Python).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostReport<R = Vec<NodeCost>> {
    pub device: String,
    pub precision: String,
    /// Every node in single-stream execution order (bodies follow their caller).
    pub nodes: R,
    /// Single stream: the sum of every node's time.
    pub total_us: f64,
    /// With independent branches on parallel streams: the longest path.
    pub critical_path_us: f64,
    /// The top-level nodes on that path that take time, in order.
    pub critical_path: Vec<String>,
    /// Kernel launches (AI Core and AI CPU tasks).
    pub task_count: u64,
    /// Approximations the estimate had to make (loops counted once, ...).
    pub flags: Vec<String>,
}

impl CostReport {
    /// Rows that take time, slowest first.
    pub fn breakdown(&self) -> Vec<&NodeCost> {
        let mut rows: Vec<&NodeCost> = self.nodes.iter().filter(|n| n.time_us > 0.0).collect();
        rows.sort_by(|a, b| {
            b.time_us
                .total_cmp(&a.time_us)
                .then_with(|| a.name.cmp(&b.name))
        });
        rows
    }

    /// Time per op type, largest first.
    pub fn time_by_op_type(&self) -> Vec<(String, f64)> {
        let mut by_type: rustc_hash::FxHashMap<&str, f64> = Default::default();
        for n in self.nodes.iter().filter(|n| n.time_us > 0.0) {
            *by_type.entry(&n.op_type).or_insert(0.0) += n.time_us;
        }
        let mut totals: Vec<(String, f64)> = by_type
            .into_iter()
            .map(|(t, us)| (t.to_owned(), us))
            .collect();
        totals.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        totals
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a CostReport always serializes")
    }

    pub fn from_json(text: &str) -> Result<CostReport, serde_json::Error> {
        serde_json::from_str(text)
    }
}
