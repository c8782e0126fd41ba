//! What one op asks of the device: Cube and vector cycles on the busiest
//! core, bytes moved, FLOPs. Timing turns a `Work` into microseconds.

use super::report::Bound;
use super::CostError;
use crate::device::spec::DeviceSpec;
use crate::graph::{Graph, Node};
use crate::types::TensorDesc;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Unit {
    #[default]
    None,
    Cube,
    Vector,
    AiCpu,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Work {
    pub unit: Unit,
    /// Cube instructions issued by the busiest core (one cycle each at peak).
    pub cube_cycles: f64,
    /// Vector cycles of the busiest core.
    pub vector_cycles: f64,
    /// Off-chip bytes read and written.
    pub dram_bytes: f64,
    /// Bytes re-read from L2 (operands shared by several cores).
    pub l2_bytes: f64,
    /// Useful floating-point operations (2 per multiply-add).
    pub flops: f64,
    /// Operations the units really execute, padding included.
    pub padded_flops: f64,
    /// Bytes of the op's (first) output as stored: what fusing it saves.
    pub output_bytes: f64,
    /// Host time of an AI CPU op.
    pub ai_cpu_us: f64,
    /// The Cube and vector work wait on each other (a recurrent step needs
    /// the last step's gates), so their times add instead of overlapping.
    pub serial: bool,
    /// Barriers inside the kernel where every core hands its results to
    /// the others through memory (a recurrent step's hidden state), each
    /// costing what a task boundary does.
    pub barriers: f64,
}

/// A `Work` timed on a device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Timing {
    pub compute_us: f64,
    pub cube_us: f64,
    pub vector_us: f64,
    pub memory_us: f64,
    pub overhead_us: f64,
    pub time_us: f64,
    pub bound: Bound,
}

impl Work {
    /// Adds the work of an op fused into this one; `intermediate` is the
    /// tensor between them, which no longer goes through memory.
    pub(crate) fn absorb(&mut self, other: &Work, intermediate: f64) {
        self.vector_cycles += other.vector_cycles;
        self.dram_bytes = (self.dram_bytes + other.dram_bytes - 2.0 * intermediate).max(0.0);
        self.l2_bytes += other.l2_bytes;
        self.flops += other.flops;
        self.padded_flops += other.padded_flops;
        self.output_bytes = other.output_bytes;
    }

    /// time = max(compute, memory) + launch overhead, labelled by what dominates.
    pub(crate) fn time(&self, spec: &DeviceSpec) -> Timing {
        if self.unit == Unit::AiCpu {
            return Timing {
                compute_us: self.ai_cpu_us - spec.ai_cpu_launch_us,
                cube_us: 0.0,
                vector_us: 0.0,
                memory_us: 0.0,
                overhead_us: spec.ai_cpu_launch_us,
                time_us: self.ai_cpu_us,
                bound: Bound::AiCpu,
            };
        }
        let eff = &spec.efficiency;
        let cube_us = self.cube_cycles / (spec.cycles_per_us() * eff.cube);
        let vector_us = self.vector_cycles / (spec.cycles_per_us() * eff.vector);
        // GB/s is 1e3 bytes per microsecond. Everything the cores read or
        // write passes through L2, off-chip bytes too, and the two links
        // work at once: the slower one sets the time.
        let dram_us = self.dram_bytes / (spec.memory_gb_per_s * 1e3 * eff.memory);
        let l2_us = (self.dram_bytes + self.l2_bytes) / (spec.l2_gb_per_s * 1e3 * eff.memory);
        let memory_us = dram_us.max(l2_us);
        let compute_us = if self.serial {
            cube_us + vector_us
        } else {
            cube_us.max(vector_us)
        };
        let overhead_us = spec.task_launch_us * (1.0 + self.barriers);
        let busy = compute_us.max(memory_us);
        let bound = if overhead_us > busy {
            Bound::Overhead
        } else if memory_us >= compute_us {
            Bound::Memory
        } else if cube_us >= vector_us {
            Bound::Cube
        } else {
            Bound::Vector
        };
        Timing {
            compute_us,
            cube_us,
            vector_us,
            memory_us,
            overhead_us,
            time_us: busy + overhead_us,
            bound,
        }
    }
}

/// The descriptor feeding input `index` of `node`, if connected.
pub(crate) fn input<'g>(graph: &'g Graph, node: &Node, index: usize) -> Option<&'g TensorDesc> {
    node.inputs
        .get(index)
        .copied()
        .flatten()
        .map(|edge| graph.tensor(edge))
}

/// The descriptor feeding input `index`, or the error naming the node.
pub(crate) fn required_input<'g>(
    graph: &'g Graph,
    node: &Node,
    index: usize,
    what: &'static str,
) -> Result<&'g TensorDesc, CostError> {
    input(graph, node, index).ok_or_else(|| CostError::MissingInput {
        node: node.name.clone(),
        op_type: node.op_type.to_string(),
        input: what,
    })
}

/// The first output's descriptor, or the error naming the node.
pub(crate) fn output(node: &Node) -> Result<&TensorDesc, CostError> {
    node.outputs.first().ok_or_else(|| CostError::MissingInput {
        node: node.name.clone(),
        op_type: node.op_type.to_string(),
        input: "output",
    })
}
