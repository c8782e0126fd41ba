//! Recurrent layers: ONNX's LSTM, GRU and RNN (GE's CommonLSTM, CommonGRU,
//! CommonRNN, which it runs as one DynamicRNN-style kernel stepping through
//! the sequence).
//!
//! Each step multiplies `[batch, input + hidden]` (the step's input and the
//! last hidden state, each padded to the Cube's K) by the gate weights
//! `[input + hidden, gates * hidden]` on the Cube, then applies the gates
//! on the vector unit. A step needs the previous step's hidden state, so
//! nothing overlaps between steps and, within one, the gates wait for the
//! product and the next product for the gates: the Cube and vector times
//! add up ([`Work::serial`]) and the steps multiply them. Directions run
//! side by side on different cores. The weights come from memory once;
//! every later step keeps its slice in L1 when that fits half of it, or
//! reads them again from L2 when they fit there, else from memory.
//!
//! Between steps, each core's slice of the new hidden state goes to memory
//! and every core reads the whole of it back: an all-core barrier, counted
//! as what a task boundary costs ([`Work::barriers`], the calibrated launch
//! overhead). A GRU with `linear_before_reset` 0 (ONNX's default; PyTorch
//! exports 1) hands off twice per step: its reset-gated state is multiplied
//! by the weights after the gates. Peepholes, `clip` and other activations
//! are not counted. That choice was made after seeing the one published RNN
//! figure we could rebuild (the model zoo's CRNN on the 310P3, whose batch-1
//! time exceeds its work by 5.9 us per step against a 4.9 us launch), so
//! that figure does not validate it; no constant here is fitted to it.

use super::classify::TRANSCENDENTAL_PASSES;
use super::cube::{cube_k, pipe_cycles, splits};
use super::tensor::{bytes, ceil_div, compute_dtype, product, static_dims, stored_bytes, FRACTAL};
use super::vector::vector_cycles;
use super::work::{output, required_input, Unit, Work};
use super::{CostError, CostOptions};
use crate::device::spec::DeviceSpec;
use crate::graph::{Graph, Node};
use crate::types::AttrValue;

/// Gate blocks in the weights and vector instructions per hidden unit and
/// step: bias adds over every gate, the activations (sigmoid or tanh,
/// [`TRANSCENDENTAL_PASSES`] each) and the element-wise updates.
fn gates_and_passes(op_type: &str) -> Option<(u64, f64)> {
    match op_type {
        // i, o, f sigmoids and the g and c tanhs; c = f*c + i*g, h = o*tanh(c).
        "CommonLSTM" => Some((4, 4.0 + 5.0 * TRANSCENDENTAL_PASSES + 4.0)),
        // z, r sigmoids and the n tanh; n takes r*(...), h = (1-z)*n + z*h.
        "CommonGRU" => Some((3, 3.0 + 3.0 * TRANSCENDENTAL_PASSES + 5.0)),
        // h = tanh(x W + h R + b).
        "CommonRNN" => Some((1, 1.0 + TRANSCENDENTAL_PASSES)),
        _ => None,
    }
}

/// The work of a whole recurrent layer (see the module comment).
pub(crate) fn recurrent_work(
    graph: &Graph,
    node: &Node,
    spec: &DeviceSpec,
    opts: &CostOptions,
) -> Result<Work, CostError> {
    let (name, op) = (&node.name, &node.op_type);
    let (gates, passes) = gates_and_passes(op).ok_or_else(|| CostError::Unsupported {
        node: name.clone(),
        op_type: op.to_string(),
        reason: "is not a recurrent layer".into(),
    })?;
    let x = required_input(graph, node, 0, "x")?;
    let r = required_input(graph, node, 2, "r")?;
    let x_dims = static_dims(name, op, x)?;
    let r_dims = static_dims(name, op, r)?;
    let (&[seq, batch, input], &[directions, _, hidden]) =
        (batch_second(&x_dims, node).as_slice(), r_dims.as_slice())
    else {
        return Err(CostError::Unsupported {
            node: name.clone(),
            op_type: op.to_string(),
            reason: "x or r is not 3-D".into(),
        });
    };
    let dtype = compute_dtype(x.dtype, opts.precision, true);
    let (k0, macs_per_cycle) = cube_k(dtype, spec).ok_or_else(|| CostError::Unsupported {
        node: name.clone(),
        op_type: op.to_string(),
        reason: format!(
            "{} has no Cube mode for {}",
            spec.name,
            dtype.name().to_ascii_lowercase()
        ),
    })?;
    let gate_width = product(name, &[gates, hidden])?;
    let (m_blocks, n_blocks) = (ceil_div(batch, FRACTAL), ceil_div(gate_width, FRACTAL));
    let k_blocks = ceil_div(input, k0).saturating_add(ceil_div(hidden, k0));
    let block_macs = FRACTAL * FRACTAL * k0;
    let step_split = splits(
        directions,
        m_blocks,
        n_blocks,
        k_blocks,
        u64::from(spec.ai_cores),
    )
    .into_iter()
    .map(|s| {
        let issued = s.per_core as f64 * block_macs as f64 / f64::from(macs_per_cycle);
        let cycles = issued.max(pipe_cycles(
            spec, &s, directions, m_blocks, n_blocks, k_blocks,
        ));
        (cycles, s)
    })
    .min_by(|a, b| a.0.total_cmp(&b.0))
    .ok_or_else(|| CostError::Overflow { node: name.clone() })?;
    let (step_cube, split) = step_split;

    let hidden_units = product(name, &[directions, batch, hidden])?;
    let vector_dtype = compute_dtype(x.dtype, opts.precision, false);
    let step_vector = vector_cycles(spec, bytes(name, vector_dtype, hidden_units)?, passes);

    let steps = seq as f64;
    // A GRU without linear_before_reset multiplies the reset-gated state by
    // its weights: a second product, after the gates, inside every step.
    let handoffs = if op == "CommonGRU"
        && !matches!(node.attrs.get("linear_before_reset"), Some(AttrValue::Int(v)) if *v != 0)
    {
        2.0
    } else {
        1.0
    };
    let weights = bytes(
        name,
        dtype,
        product(
            name,
            &[
                directions,
                n_blocks.saturating_mul(FRACTAL),
                k_blocks.saturating_mul(k0),
            ],
        )?,
    )? as f64;
    let mut dram = weights + stored_bytes(name, op, x, opts.precision, true)? as f64;
    for out in &node.outputs {
        dram += stored_bytes(name, op, out, opts.precision, true)? as f64;
    }
    // Each core holds the weight columns of its output blocks.
    let slice = weights / (split.n_cores * split.unit_cores).max(1) as f64;
    let again = weights * (steps - 1.0).max(0.0);
    let (l2, dram) = if slice <= spec.l1_bytes as f64 / 2.0 {
        (0.0, dram)
    } else if weights <= spec.l2_bytes as f64 {
        (again, dram)
    } else {
        (0.0, dram + again)
    };
    let useful = [seq, directions, batch, input + hidden, gate_width]
        .iter()
        .map(|&v| v as f64)
        .product::<f64>();
    let padded = [directions, m_blocks, n_blocks, k_blocks, block_macs]
        .iter()
        .map(|&v| v as f64)
        .product::<f64>()
        * steps;
    Ok(Work {
        unit: Unit::Cube,
        cube_cycles: steps * step_cube,
        vector_cycles: steps * step_vector,
        serial: true,
        barriers: (steps * handoffs - 1.0).max(0.0),
        dram_bytes: dram,
        l2_bytes: l2,
        flops: 2.0 * useful,
        padded_flops: 2.0 * padded,
        output_bytes: stored_bytes(name, op, output(node)?, opts.precision, true)? as f64,
        ..Work::default()
    })
}

/// x's dims as `[seq, batch, input]` (ONNX `layout` 1 puts batch first).
fn batch_second(dims: &[u64], node: &Node) -> Vec<u64> {
    match (node.attrs.get("layout"), dims) {
        (Some(AttrValue::Int(1)), &[batch, seq, input]) => vec![seq, batch, input],
        _ => dims.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{desc, estimate, input, op};
    use super::super::CostOptions;
    use crate::graph::Graph;
    use crate::types::{AttrValue, DataType, Format};

    /// A one-layer `op_type` over `[seq, batch, input]` with `hidden` units.
    fn layer(
        op_type: &str,
        gates: i64,
        seq: i64,
        batch: i64,
        input_size: i64,
        hidden: i64,
        dirs: i64,
    ) -> Graph {
        let mut g = Graph::new("rnn");
        let f16 = |dims: &[i64]| desc(DataType::Float16, dims, Format::Nd);
        let x = input(&mut g, "x", f16(&[seq, batch, input_size]));
        let w = input(&mut g, "w", f16(&[dirs, gates * hidden, input_size]));
        let r = input(&mut g, "r", f16(&[dirs, gates * hidden, hidden]));
        let direction = if dirs == 2 {
            "bidirectional"
        } else {
            "forward"
        };
        let y = op(
            &mut g,
            op_type,
            "rnn",
            &[x, w, r],
            f16(&[seq, dirs, batch, hidden]),
            &[("direction", AttrValue::Str(direction.into()))],
        );
        g.set_outputs(vec![y]).unwrap();
        g
    }

    fn row(g: &Graph) -> super::super::NodeCost {
        let report = estimate(g, &CostOptions::default());
        assert!(report.flags.is_empty(), "{:?}", report.flags);
        report.nodes.into_iter().find(|n| n.name == "rnn").unwrap()
    }

    #[test]
    fn the_flops_are_onnx_lstm_and_gru_arithmetic() {
        // ONNX LSTM: per step and direction, [B, I] x [I, 4H] and [B, H] x [H, 4H].
        let lstm = row(&layer("CommonLSTM", 4, 10, 3, 20, 30, 2));
        assert_eq!(lstm.flops, 2.0 * 10.0 * 2.0 * 3.0 * (20.0 + 30.0) * 120.0);
        let gru = row(&layer("CommonGRU", 3, 10, 3, 20, 30, 1));
        assert_eq!(gru.flops, 2.0 * 10.0 * 3.0 * (20.0 + 30.0) * 90.0);
        let rnn = row(&layer("CommonRNN", 1, 10, 3, 20, 30, 1));
        assert_eq!(rnn.flops, 2.0 * 10.0 * 3.0 * (20.0 + 30.0) * 30.0);
    }

    #[test]
    fn steps_run_one_after_another_and_units_wait_on_each_other() {
        let short = row(&layer("CommonLSTM", 4, 16, 8, 64, 64, 1));
        let long = row(&layer("CommonLSTM", 4, 64, 8, 64, 64, 1));
        // Within a step the gates wait for the product: the times add.
        assert!((short.compute_us - (short.cube_us + short.vector_us)).abs() < 1e-9);
        // A barrier between steps, each a 1 us task boundary on the round device.
        assert!(
            (short.overhead_us - 16.0).abs() < 1e-9,
            "{}",
            short.overhead_us
        );
        // Four times the steps, four times the compute.
        assert!((long.compute_us - 4.0 * short.compute_us).abs() < 1e-9 * long.compute_us);
        // Every step issues at least one fractal per K block: 8 on the round device's cores.
        assert!(short.cube_us >= 16.0 * 8.0 / 1000.0, "{}", short.cube_us);
    }

    #[test]
    fn a_batch_up_to_sixteen_costs_the_cube_the_same() {
        // M pads to 16 rows: a batch of 1 pays for 16.
        let one = row(&layer("CommonGRU", 3, 32, 1, 128, 128, 1));
        let sixteen = row(&layer("CommonGRU", 3, 32, 16, 128, 128, 1));
        assert!((one.cube_us - sixteen.cube_us).abs() < 1e-12);
        assert!(sixteen.vector_us > one.vector_us);
        assert_eq!(sixteen.padded_flops, one.padded_flops);
    }

    #[test]
    fn absurd_sizes_are_an_error_not_a_panic() {
        let g = layer("CommonLSTM", 4, 1 << 40, 1 << 40, 1 << 40, 1 << 40, 1);
        let spec = super::super::tests::round_spec();
        match super::super::estimate_cost(&g, &spec, &CostOptions::default()) {
            Err(super::super::CostError::Overflow { node }) => assert_eq!(node, "rnn"),
            other => panic!("expected an overflow error, got {other:?}"),
        }
        // A batch of 2^50 with small widths gets through the checked sizes.
        let wide = layer("CommonLSTM", 4, 8, 1 << 50, 64, 64, 1);
        let report = super::super::estimate_cost(&wide, &spec, &CostOptions::default()).unwrap();
        assert!(report.total_us.is_finite() && report.total_us > 0.0);
    }

    #[test]
    fn a_gru_without_linear_before_reset_hands_off_twice_per_step() {
        let mut reset_after = layer("CommonGRU", 3, 16, 8, 64, 64, 1);
        let before = row(&reset_after);
        let id = reset_after.find("rnn").unwrap();
        reset_after
            .node_mut(id)
            .attrs
            .set("linear_before_reset", AttrValue::Int(1));
        let after = row(&reset_after);
        // Round device: a 1 us boundary per hand-off; 2 x 16 - 1 barriers and the launch.
        assert!(
            (before.overhead_us - 32.0).abs() < 1e-9,
            "{}",
            before.overhead_us
        );
        assert!(
            (after.overhead_us - 16.0).abs() < 1e-9,
            "{}",
            after.overhead_us
        );
    }

    #[test]
    fn weights_too_large_for_l1_are_read_again_every_step() {
        // 4 x 1024 gate rows over 1024 + 1024 columns in fp16: 16 MiB.
        let big = row(&layer("CommonLSTM", 4, 4, 1, 1024, 1024, 1));
        let weights = 4.0 * 1024.0 * 2048.0 * 2.0;
        assert!(
            big.l2_bytes + big.bytes >= 4.0 * weights,
            "{} {}",
            big.l2_bytes,
            big.bytes
        );
        let small = row(&layer("CommonLSTM", 4, 4, 1, 32, 32, 1));
        assert_eq!(small.l2_bytes, 0.0);
    }
}
