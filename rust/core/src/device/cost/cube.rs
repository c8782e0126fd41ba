//! Cube ops: convolutions and matrix multiplies counted in fractal blocks
//! (16 x K0 x 16, K0 = C0 of the dtype) after padding M, K and N up, split
//! over the AI cores the way a tiled kernel splits its output blocks.

use super::tensor::{bytes, ceil_div, compute_dtype, product, static_dims, stored_bytes, FRACTAL};
use super::vector;
use super::work::{output, required_input, Unit, Work};
use super::{CostError, CostOptions};
use crate::device::spec::DeviceSpec;
use crate::graph::{Graph, Node};
use crate::types::{AttrValue, DataType, Format, Shape, TensorDesc};

/// `units` independent products of [m x k] by [k x n] (groups, batch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gemm {
    pub units: u64,
    pub m: u64,
    pub n: u64,
    /// Reduction channels per kernel tap (Cin per group; K for a matmul).
    pub k_channels: u64,
    /// Kernel taps (kh * kw; 1 for a matmul).
    pub taps: u64,
}

/// How the output blocks are spread over cores: `per_core` fractal
/// instructions on the busiest core, and how many cores share each operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Split {
    pub per_core: u64,
    pub unit_cores: u64,
    pub m_cores: u64,
    pub n_cores: u64,
}

/// The Cube's K depth for `dtype`: 32 B of it (C0), or `None` when the
/// device's Cube has no mode for it.
pub(super) fn cube_k(dtype: DataType, spec: &DeviceSpec) -> Option<(u64, u32)> {
    match dtype {
        DataType::Float16 | DataType::Bf16 => Some((16, spec.cube_fp16_macs_per_cycle)),
        DataType::Int8 | DataType::Uint8 => Some((32, spec.cube_int8_macs_per_cycle)),
        DataType::Float if spec.cube_fp32_macs_per_cycle > 0 => {
            Some((8, spec.cube_fp32_macs_per_cycle))
        }
        _ => None,
    }
}

/// Every way of spreading the output blocks (units x m_blocks x n_blocks)
/// over at most `cores` cores, with the instructions each leaves on the
/// busiest core (`k_blocks` per output block).
pub(crate) fn splits(
    units: u64,
    m_blocks: u64,
    n_blocks: u64,
    k_blocks: u64,
    cores: u64,
) -> Vec<Split> {
    let mut out = Vec::new();
    for u in 1..=cores.min(units).max(1) {
        for m in 1..=(cores / u).min(m_blocks).max(1) {
            for n in 1..=(cores / (u * m)).min(n_blocks).max(1) {
                let per_core = ceil_div(units, u)
                    .saturating_mul(ceil_div(m_blocks, m))
                    .saturating_mul(ceil_div(n_blocks, n))
                    .saturating_mul(k_blocks);
                out.push(Split {
                    per_core,
                    unit_cores: u,
                    m_cores: m,
                    n_cores: n,
                });
            }
        }
    }
    out
}

/// The split that leaves the busiest core the fewest instructions; among
/// those, the one that reads the operands `a` (left, split by m) and `b`
/// (right, split by n) fewest times: splitting N makes every core read the
/// whole left operand, so a large feature map is split by M (or batch).
#[cfg(test)]
pub(crate) fn split(
    units: u64,
    m_blocks: u64,
    n_blocks: u64,
    k_blocks: u64,
    cores: u64,
    (a, b): (f64, f64),
) -> Split {
    let reads = |s: &Split| a * s.n_cores as f64 + b * s.m_cores as f64;
    splits(units, m_blocks, n_blocks, k_blocks, cores)
        .into_iter()
        .min_by(|x, y| {
            (x.per_core, reads(x))
                .partial_cmp(&(y.per_core, reads(y)))
                .expect("finite")
        })
        .expect("at least one split")
}

fn attr_bool(node: &Node, names: &[&str]) -> bool {
    names
        .iter()
        .any(|n| matches!(node.attrs.get(n), Some(AttrValue::Bool(true))))
}

fn attr_int(node: &Node, name: &str) -> Option<i64> {
    match node.attrs.get(name) {
        Some(AttrValue::Int(v)) => Some(*v),
        _ => None,
    }
}

/// Positions of N and C in a layout name such as `NHWC` or `HWCN`.
fn nc_positions(layout: &str) -> Option<(usize, usize)> {
    Some((layout.find('N')?, layout.find('C')?))
}

/// ONNX's convolutions that keep ONNX's form in the IR (no GE type covers
/// them): channels first at every rank (`[N, C, spatial...]`, filters
/// `[M, C / group, k...]`, ConvTranspose's `[C, M / group, k...]`), the
/// group count in `group`. GE runs a 1-D convolution as a Conv2D of height
/// 1 (Huawei's model zoo rewrites wav2vec2's and ECAPA-TDNN's that way
/// before ATC) and ConvTranspose as Conv2DTranspose / Conv3DTranspose,
/// which is how they are costed.
pub(crate) fn is_onnx_form(op_type: &str) -> bool {
    matches!(op_type, "Conv1D" | "ConvTranspose")
}

/// A Conv1D activation `[N, C, L]` as the Conv2D GE runs stores it:
/// `[N, C, 1, L]` in NC1HWC0 (its channels padded to C0); other tensors as
/// they are.
fn as_ge_runs_it(op_type: &str, desc: &TensorDesc) -> TensorDesc {
    match desc.shape().dims() {
        &[n, c, l] if op_type == "Conv1D" => {
            TensorDesc::new(desc.dtype, Shape::from_dims([n, c, 1, l]), Format::Nchw)
        }
        _ => desc.clone(),
    }
}

/// A channels-first layout name for `rank` dims (`NCW`, `NCHW`, `NCDHW`).
fn channels_first(rank: usize) -> String {
    let spatial = "DHW"
        .get(3usize.saturating_sub(rank.saturating_sub(2))..)
        .unwrap_or("");
    format!("NC{spatial}")
}

fn conv_gemm(
    graph: &Graph,
    node: &Node,
    transposed: bool,
) -> Result<(Gemm, usize, usize), CostError> {
    let (x_index, f_index) = match node.op_type.as_str() {
        "Conv2DBackpropInput" => (2, 1),
        "Conv2DTranspose" => (1, 2),
        _ => (0, 1),
    };
    let name = &node.name;
    let op = &node.op_type;
    let out = output(node)?;
    let out_dims = static_dims(name, op, out)?;
    let onnx_form = is_onnx_form(op);
    if onnx_form && out_dims.len() < 3 {
        return Err(CostError::Unsupported {
            node: name.clone(),
            op_type: op.to_string(),
            reason: format!(
                "its output has rank {}; a convolution's is [N, C, spatial...]",
                out_dims.len()
            ),
        });
    }
    let data_format = match node.attrs.get("data_format") {
        _ if onnx_form => channels_first(out_dims.len()),
        Some(AttrValue::Str(s)) if s.len() == out_dims.len() => s.clone(),
        _ if out_dims.len() == 5 => "NCDHW".to_owned(),
        _ => out.origin_format.name().to_owned(),
    };
    let (_, c_at) = nc_positions(&data_format).ok_or_else(|| CostError::Unsupported {
        node: name.clone(),
        op_type: op.to_string(),
        reason: format!("data_format '{data_format}' has no N and C"),
    })?;
    let filter = required_input(graph, node, f_index, "filter")?;
    let f_dims = static_dims(name, op, filter)?;
    let f_layout = match filter.origin_format.name() {
        _ if onnx_form && f_dims.len() == out_dims.len() => channels_first(f_dims.len()),
        l if l.len() == f_dims.len() && nc_positions(l).is_some() => l.to_owned(),
        _ if data_format.starts_with("NC") => data_format.clone(),
        _ if f_dims.len() == 5 => "DHWCN".to_owned(),
        _ => "HWCN".to_owned(),
    };
    let (fn_at, fc_at) = nc_positions(&f_layout).expect("checked above");
    let (f_n, f_c) = (f_dims[fn_at].max(1), f_dims[fc_at].max(1));
    let taps = product(name, &f_dims)? / (f_n * f_c);
    let cout = out_dims[c_at];
    let pixels = product(name, &out_dims)? / cout.max(1);
    let (groups, k_channels) = if transposed {
        let groups = attr_int(node, "groups")
            .or_else(|| attr_int(node, "group"))
            .unwrap_or(1)
            .max(1) as u64;
        (groups, f_n / groups)
    } else {
        let x = required_input(graph, node, x_index, "x")?;
        let x_dims = static_dims(name, op, x)?;
        let cin = x_dims.get(c_at).copied().unwrap_or(f_c);
        ((cin / f_c).max(1), f_c)
    };
    let gemm = Gemm {
        units: groups,
        m: pixels,
        n: cout / groups,
        k_channels,
        taps,
    };
    Ok((gemm, x_index, f_index))
}

fn matmul_gemm(graph: &Graph, node: &Node) -> Result<Gemm, CostError> {
    let (name, op) = (&node.name, &node.op_type);
    let out_dims = static_dims(name, op, output(node)?)?;
    let x1 = static_dims(name, op, required_input(graph, node, 0, "x1")?)?;
    let n = out_dims.last().copied().unwrap_or(1);
    if op == "FullyConnection" {
        let m = product(name, &out_dims)? / n.max(1);
        let k = product(name, &x1)? / m.max(1);
        return Ok(Gemm {
            units: 1,
            m,
            n,
            k_channels: k,
            taps: 1,
        });
    }
    let transpose_a = attr_bool(node, &["transpose_a", "transpose_x1", "adj_x", "adj_x1"]);
    let rank = x1.len();
    let k = if rank < 2 {
        x1.first().copied().unwrap_or(1)
    } else if transpose_a {
        x1[rank - 2]
    } else {
        x1[rank - 1]
    };
    let m = if out_dims.len() >= 2 {
        out_dims[out_dims.len() - 2]
    } else {
        1
    };
    let units = product(name, &out_dims[..out_dims.len().saturating_sub(2)])?;
    Ok(Gemm {
        units,
        m,
        n,
        k_channels: k,
        taps: 1,
    })
}

/// Cycles of the pipes feeding and draining the Cube on the busiest core:
/// operand fractals moved L1 -> L0A / L0B (each reused across the output
/// tile that fits L0C) and result fractals (fp32) moved out of L0C. A
/// layer with few output rows per core reuses each weight fractal little
/// and waits on L0B; a layer with a short K waits on L0C.
pub(super) fn pipe_cycles(
    spec: &DeviceSpec,
    s: &Split,
    units: u64,
    m_blocks: u64,
    n_blocks: u64,
    k_blocks: u64,
) -> f64 {
    let units = ceil_div(units, s.unit_cores) as f64;
    let m = ceil_div(m_blocks, s.m_cores);
    let n = ceil_div(n_blocks, s.n_cores);
    // Output fractals of fp32 accumulators that fit half of L0C (double buffered).
    let l0c_tiles = (spec.l0c_bytes / 2 / (FRACTAL * FRACTAL * 4)).max(1);
    let m_tile = m.clamp(1, FRACTAL);
    let n_tile = n.clamp(1, (l0c_tiles / m_tile).max(1));
    // 16 rows of one 32-byte C0 block.
    let fractal_bytes = (FRACTAL * 32) as f64;
    // In f64: block counts of absurd dims multiply past u64.
    let (mf, nf, kf) = (m as f64, n as f64, k_blocks as f64);
    let a_loads = units * mf * kf * ceil_div(n, n_tile) as f64;
    let b_loads = units * nf * kf * ceil_div(m, m_tile) as f64;
    let mte1 = a_loads * fractal_bytes / f64::from(spec.l1_to_l0a_bytes_per_cycle)
        + b_loads * fractal_bytes / f64::from(spec.l1_to_l0b_bytes_per_cycle);
    let drain = units * mf * nf * (FRACTAL * FRACTAL * 4) as f64
        / f64::from(spec.l0c_to_ub_bytes_per_cycle);
    mte1.max(drain)
}

/// Bytes of `units` matrices of rows x cols, rows padded to 16 and cols to `c0`.
fn fractal_bytes(
    node: &str,
    dtype: DataType,
    units: u64,
    rows: u64,
    cols: u64,
    c0: u64,
) -> Result<u64, CostError> {
    let elements = [
        units,
        ceil_div(rows, FRACTAL) * FRACTAL,
        ceil_div(cols, c0) * c0,
    ];
    bytes(node, dtype, product(node, &elements)?)
}

/// The Cube work of a convolution or matrix multiply (a depthwise
/// convolution expressed as a grouped Conv2D goes to the vector unit).
pub(crate) fn cube_work(
    graph: &Graph,
    node: &Node,
    spec: &DeviceSpec,
    opts: &CostOptions,
) -> Result<Work, CostError> {
    let (name, op) = (&node.name, &node.op_type);
    let is_matmul = op.contains("MatMul") || op == "FullyConnection";
    let transposed = matches!(
        op.as_str(),
        "Deconvolution" | "Conv2DBackpropInput" | "Conv2DTranspose" | "ConvTranspose"
    );
    let (gemm, x_index, w_index) = if is_matmul {
        (matmul_gemm(graph, node)?, 0, 1)
    } else {
        conv_gemm(graph, node, transposed)?
    };
    if !is_matmul && !transposed && gemm.units > 1 && gemm.k_channels == 1 {
        return vector::depthwise_work(graph, node, spec, opts, x_index, w_index);
    }
    let x = required_input(graph, node, x_index, "x")?;
    let w = required_input(graph, node, w_index, "weights")?;
    let dtype = compute_dtype(x.dtype, opts.precision, true);
    let (k0, macs_per_cycle) = cube_k(dtype, spec).ok_or_else(|| CostError::Unsupported {
        node: name.clone(),
        op_type: op.to_string(),
        reason: format!(
            "{} has no Cube mode for {} (precision mode {})",
            spec.name,
            dtype.name().to_ascii_lowercase(),
            opts.precision.name()
        ),
    })?;
    let m_blocks = ceil_div(gemm.m, FRACTAL);
    let n_blocks = ceil_div(gemm.n, FRACTAL);
    let k_blocks = ceil_div(gemm.k_channels, k0)
        .checked_mul(gemm.taps)
        .ok_or_else(|| CostError::Overflow { node: name.clone() })?;
    // Operands as the Cube reads them: the feature map in NC1HWC0 (or the
    // left matrix in FRACTAL_NZ), weights in FRACTAL_Z, the result stored.
    let a_bytes = if is_matmul {
        let x_units = x.shape().dims().len().saturating_sub(2) as u64;
        let units = if x_units == 0 { 1 } else { gemm.units };
        fractal_bytes(name, dtype, units, gemm.m, gemm.k_channels, k0)?
    } else {
        stored_bytes(name, op, &as_ge_runs_it(op, x), opts.precision, true)?
    };
    let w_units = if is_matmul && w.shape().dims().len() <= 2 {
        1
    } else {
        gemm.units
    };
    // FRACTAL_Z pads the channels of every kernel tap to C0.
    let w_cols = ceil_div(gemm.k_channels, k0) * k0 * gemm.taps;
    let b_bytes = fractal_bytes(name, dtype, w_units, gemm.n, w_cols, 1)?;
    let out = output(node)?;
    let c_bytes = stored_bytes(name, op, &as_ge_runs_it(op, out), opts.precision, true)?;
    let (a, b) = (a_bytes as f64, b_bytes as f64);
    let cores = u64::from(spec.ai_cores);
    let block_macs = (FRACTAL * FRACTAL * k0) as f64;
    let a_units = if is_matmul && x.shape().dims().len() <= 2 {
        1
    } else {
        gemm.units
    };
    let operands = Operands {
        a,
        b,
        c: c_bytes as f64,
        a_per_unit: a / a_units as f64,
        b_per_unit: b / w_units as f64,
    };
    // The kernel's tiling picks the split by the time it takes, traffic
    // included, at the hardware's peak rates (a compile-time decision, so
    // not scaled by the calibrated efficiencies): splitting N to shave one
    // output block off the busiest core makes every core read the whole
    // feature map, which from memory costs far more than the block saves.
    let timed = |s: &Split| {
        let instructions = s.per_core as f64 * block_macs / f64::from(macs_per_cycle);
        let cycles = instructions.max(pipe_cycles(
            spec, s, gemm.units, m_blocks, n_blocks, k_blocks,
        ));
        let (dram, l2) = operand_traffic(spec, s, gemm.units, &operands);
        let memory_us =
            (dram / (spec.memory_gb_per_s * 1e3)).max((dram + l2) / (spec.l2_gb_per_s * 1e3));
        let reads = a * s.n_cores as f64 + b * s.m_cores as f64;
        let us = (cycles / spec.cycles_per_us()).max(memory_us);
        (us, s.per_core, reads, cycles, dram, l2)
    };
    let (_, _, _, cube_cycles, dram, l2) = splits(gemm.units, m_blocks, n_blocks, k_blocks, cores)
        .iter()
        .map(timed)
        .min_by(|x, y| {
            (x.0, x.1, x.2)
                .partial_cmp(&(y.0, y.1, y.2))
                .expect("finite times")
        })
        .expect("at least one split");
    let output_driven = [gemm.units, gemm.m, gemm.n, gemm.k_channels, gemm.taps]
        .iter()
        .map(|&v| v as f64)
        .product::<f64>();
    let useful_macs = if transposed {
        // The Cube runs a transposed convolution over its input with zeros
        // inserted between the pixels (stride - 1 per gap); the useful
        // products are each input element's with its C_out / group filters
        // at every tap, fewer where pads crop the output.
        let x_elements = product(name, &static_dims(name, op, x)?)? as f64;
        (x_elements * gemm.n as f64 * gemm.taps as f64).min(output_driven)
    } else {
        output_driven
    };
    let padded_macs =
        gemm.units as f64 * m_blocks as f64 * n_blocks as f64 * k_blocks as f64 * block_macs;

    Ok(Work {
        unit: Unit::Cube,
        cube_cycles,
        dram_bytes: dram,
        l2_bytes: l2,
        flops: 2.0 * useful_macs,
        padded_flops: 2.0 * padded_macs,
        output_bytes: c_bytes as f64,
        ..Work::default()
    })
}

/// The bytes of a product's operands: left `a`, right `b`, result `c`, and
/// what one of its `units` independent products reads of each (the whole
/// operand when it is shared by every unit, as a matmul's weights are).
struct Operands {
    a: f64,
    b: f64,
    c: f64,
    a_per_unit: f64,
    b_per_unit: f64,
}

/// Off-chip and L2 bytes of a split product. Each operand comes from
/// memory once; the cores sharing a slice re-read it from L2 when it fits
/// there (else from memory). Each core computes its products one unit at a
/// time: when a unit's two slices overflow half of L1, it streams the
/// smaller one again for every L1-sized piece of the other.
fn operand_traffic(spec: &DeviceSpec, s: &Split, units: u64, o: &Operands) -> (f64, f64) {
    let l1_half = spec.l1_bytes as f64 / 2.0;
    let l2 = spec.l2_bytes as f64;
    let (a_slice, b_slice) = (
        o.a_per_unit / s.m_cores as f64,
        o.b_per_unit / s.n_cores as f64,
    );
    // Readers of each operand beyond the first: the cores that split the
    // other dimension, and the unit cores when every unit shares it.
    let a_readers = s.n_cores * if o.a_per_unit < o.a { 1 } else { s.unit_cores };
    let b_readers = s.m_cores * if o.b_per_unit < o.b { 1 } else { s.unit_cores };
    let a_shared = o.a * (a_readers as f64 - 1.0);
    let b_shared = o.b * (b_readers as f64 - 1.0);
    let pieces = (units * s.m_cores * s.n_cores) as f64;
    // Which operand to stream again: the one whose extra reads cost less
    // off-chip traffic (an operand that fits L2 is re-read from there),
    // then the fewer bytes.
    let restream = if a_slice + b_slice <= l1_half {
        (0.0, 0.0)
    } else {
        // A streamed again for every further L1-sized piece of B, or B for A's.
        let again_a = a_slice * ((b_slice / l1_half).ceil() - 1.0).max(0.0) * pieces;
        let again_b = b_slice * ((a_slice / l1_half).ceil() - 1.0).max(0.0) * pieces;
        let off_chip = |operand: f64, extra: f64| if operand <= l2 { 0.0 } else { extra };
        let key_a = (off_chip(o.a, again_a), again_a);
        let key_b = (off_chip(o.b, again_b), again_b);
        if key_a <= key_b {
            (again_a, 0.0)
        } else {
            (0.0, again_b)
        }
    };
    let mut dram = o.a + o.b + o.c;
    let mut l2_bytes = 0.0;
    for (operand, extra) in [(o.a, a_shared + restream.0), (o.b, b_shared + restream.1)] {
        if operand <= l2 {
            l2_bytes += extra;
        } else {
            dram += extra;
        }
    }
    (dram, l2_bytes)
}
