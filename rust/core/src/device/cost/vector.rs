//! Vector ops (element-wise, reductions, softmax, pooling, normalization,
//! data movement, depthwise convolution) and AI CPU fallbacks: elements
//! over the vector lanes of the cores the data is split across.

use super::classify::Basis;
use super::tensor::{
    bytes, ceil_div, compute_dtype, product, static_dims, stored_bytes, stored_elements,
};
use super::work::{input, output, required_input, Unit, Work};
use super::{CostError, CostOptions};
use crate::device::spec::DeviceSpec;
use crate::graph::{Graph, Node};
use crate::types::{AttrValue, DataType};

/// Block granularity of vector data movement (UB addresses are 32-byte aligned).
const BLOCK: u64 = 32;
/// Vector instructions per depthwise tap: gather the shifted input window
/// in UB, then one multiply-accumulate.
const DEPTHWISE_PASSES_PER_TAP: f64 = 2.0;

/// Vector cycles on the busiest core for `passes` instructions over
/// `data_bytes`, split over the vector cores in 32-byte blocks.
pub(crate) fn vector_cycles(spec: &DeviceSpec, data_bytes: u64, passes: f64) -> f64 {
    let blocks = ceil_div(data_bytes, BLOCK);
    let per_core = ceil_div(blocks, u64::from(spec.vector_cores)) * BLOCK;
    ceil_div(per_core, u64::from(spec.vector_bytes_per_cycle)) as f64 * passes
}

/// Bytes read from every connected input and written to every output.
fn traffic(graph: &Graph, node: &Node, opts: &CostOptions) -> Result<(u64, u64), CostError> {
    let (name, op) = (&node.name, &node.op_type);
    let mut read = 0u64;
    for edge in node.inputs.iter().flatten() {
        let b = stored_bytes(name, op, graph.tensor(*edge), opts.precision, false)?;
        read = read
            .checked_add(b)
            .ok_or_else(|| CostError::Overflow { node: name.clone() })?;
    }
    let mut written = 0u64;
    for desc in &node.outputs {
        let b = stored_bytes(name, op, desc, opts.precision, false)?;
        written = written
            .checked_add(b)
            .ok_or_else(|| CostError::Overflow { node: name.clone() })?;
    }
    Ok((read, written))
}

/// The pooling window's size from `ksize` / `window` (TF / Caffe), or the
/// input-to-output ratio when neither is set.
fn window(node: &Node, in_elems: u64, out_elems: u64) -> u64 {
    for name in ["ksize", "window", "kernel_size"] {
        if let Some(AttrValue::ListInt(v)) = node.attrs.get(name) {
            if !v.is_empty() && v.iter().all(|&d| d > 0) {
                return v.iter().map(|&d| d as u64).product();
            }
        }
    }
    if matches!(
        node.attrs.get("global_pooling"),
        Some(AttrValue::Bool(true))
    ) {
        return ceil_div(in_elems, out_elems.max(1));
    }
    ceil_div(in_elems, out_elems.max(1)).max(1)
}

/// A vector op doing `passes` instructions per element of `basis`.
pub(crate) fn vector_work(
    graph: &Graph,
    node: &Node,
    spec: &DeviceSpec,
    opts: &CostOptions,
    passes: f64,
    basis: Basis,
) -> Result<Work, CostError> {
    let (name, op) = (&node.name, &node.op_type);
    let overflow = || CostError::Overflow { node: name.clone() };
    let out = output(node)?;
    let dtype = compute_dtype(out.dtype, opts.precision, false);
    let out_elems = stored_elements(name, op, out, dtype)?;
    let out_bytes = bytes(name, dtype, out_elems)?;
    // Each tensor's stored size once: this runs for most nodes of a graph.
    let (mut in_elems, mut read) = (0u64, 0u64);
    for edge in node.inputs.iter().flatten() {
        let desc = graph.tensor(*edge);
        let in_dtype = compute_dtype(desc.dtype, opts.precision, false);
        let elems = stored_elements(name, op, desc, in_dtype)?;
        in_elems = in_elems.max(elems);
        read = read
            .checked_add(bytes(name, in_dtype, elems)?)
            .ok_or_else(overflow)?;
    }
    let mut written = out_bytes;
    for desc in &node.outputs[1..] {
        let b = stored_bytes(name, op, desc, opts.precision, false)?;
        written = written.checked_add(b).ok_or_else(overflow)?;
    }
    let elements = match basis {
        Basis::Output => out_elems,
        Basis::Input => in_elems.max(out_elems),
        Basis::Window => out_elems.saturating_mul(window(node, in_elems, out_elems)),
    };
    let data_bytes = bytes(name, dtype, elements)?;
    Ok(Work {
        unit: Unit::Vector,
        vector_cycles: vector_cycles(spec, data_bytes, passes),
        dram_bytes: read.checked_add(written).ok_or_else(overflow)? as f64,
        flops: elements as f64 * passes,
        padded_flops: elements as f64 * passes,
        output_bytes: out_bytes as f64,
        ..Work::default()
    })
}

/// Depthwise convolution: one multiply-add per output element (channels
/// padded to C0) per window tap, on the vector lanes.
pub(crate) fn depthwise_work(
    graph: &Graph,
    node: &Node,
    spec: &DeviceSpec,
    opts: &CostOptions,
    x_index: usize,
    w_index: usize,
) -> Result<Work, CostError> {
    let (name, op) = (&node.name, &node.op_type);
    let out = output(node)?;
    let filter = required_input(graph, node, w_index, "filter")?;
    required_input(graph, node, x_index, "x")?;
    let dtype = compute_dtype(out.dtype, opts.precision, false);
    let out_elems = stored_elements(name, op, out, dtype)?;
    let f_dims = static_dims(name, op, filter)?;
    // Depthwise filters are [kh, kw, C, multiplier] (TF) or [C, 1, kh, kw]
    // (grouped NCHW): the taps are the filter size over its channels.
    let out_channels = match node.attrs.get("data_format") {
        _ if super::cube::is_onnx_form(op) => static_dims(name, op, out)?.get(1).copied(),
        Some(AttrValue::Str(f)) if f == "NCHW" => static_dims(name, op, out)?.get(1).copied(),
        _ => static_dims(name, op, out)?.last().copied(),
    }
    .unwrap_or(1)
    .max(1);
    let taps = (product(name, &f_dims)? / out_channels).max(1);
    let macs = out_elems.saturating_mul(taps);
    let (read, written) = traffic(graph, node, opts)?;
    let dram_bytes = read
        .checked_add(written)
        .ok_or_else(|| CostError::Overflow { node: name.clone() })?;
    let real_macs = product(name, &static_dims(name, op, out)?)? as f64 * taps as f64;
    Ok(Work {
        unit: Unit::Vector,
        vector_cycles: vector_cycles(
            spec,
            bytes(name, dtype, out_elems)?,
            taps as f64 * DEPTHWISE_PASSES_PER_TAP,
        ),
        dram_bytes: dram_bytes as f64,
        flops: 2.0 * real_macs,
        padded_flops: 2.0 * macs as f64,
        output_bytes: stored_bytes(name, op, out, opts.precision, false)? as f64,
        ..Work::default()
    })
}

/// An op with no AI Core kernel: a task on the AI CPU whose time grows
/// with the elements it touches (the larger of what it reads and writes).
pub(crate) fn ai_cpu_work(
    graph: &Graph,
    node: &Node,
    spec: &DeviceSpec,
) -> Result<Work, CostError> {
    let (name, op) = (&node.name, &node.op_type);
    let mut elements = 0u64;
    let mut known = false;
    let descs = node
        .inputs
        .iter()
        .flatten()
        .map(|e| graph.tensor(*e))
        .chain(node.outputs.iter());
    for desc in descs {
        if let Ok(Some(n)) = desc.shape().num_elements() {
            elements = elements.max(n as u64);
            known = true;
        }
    }
    if !known {
        let desc = input(graph, node, 0).or(node.outputs.first());
        return Err(CostError::UnknownShape {
            node: name.clone(),
            op_type: op.to_string(),
            tensor: desc
                .map(|d| d.summary())
                .unwrap_or_else(|| "no tensor".into()),
        });
    }
    let bytes_moved = node.outputs.iter().filter_map(|d| {
        let n = d.shape().num_elements().ok().flatten()? as u64;
        bytes(
            name,
            if d.dtype == DataType::Undefined {
                DataType::Float
            } else {
                d.dtype
            },
            n,
        )
        .ok()
    });
    Ok(Work {
        unit: Unit::AiCpu,
        ai_cpu_us: spec.ai_cpu_launch_us + elements as f64 * spec.ai_cpu_ns_per_element / 1e3,
        flops: elements as f64,
        padded_flops: elements as f64,
        output_bytes: bytes_moved.sum::<u64>() as f64,
        ..Work::default()
    })
}
