//! Per-op cases computed by hand on a round-number device: 1 GHz (a cycle
//! is a nanosecond), 2 cores, 100 GB/s memory (100 bytes per ns), 1 TB/s
//! L2, every efficiency 1 and a 1 us launch.

use super::*;
use crate::graph::{Graph, Node, OutputRef};
use crate::types::{AttrValue, Attrs, DataType, Format, Shape, TensorDesc};

pub(super) fn round_spec() -> DeviceSpec {
    let mut s = DeviceSpec::preset("Ascend310").unwrap();
    s.name = "Round".into();
    s.clock_mhz = 1000.0;
    s.memory_gb_per_s = 100.0;
    s.l2_gb_per_s = 1000.0;
    s.task_launch_us = 1.0;
    s.efficiency = crate::device::spec::Efficiency {
        cube: 1.0,
        vector: 1.0,
        memory: 1.0,
    };
    s
}

pub(super) fn desc(dtype: DataType, dims: &[i64], format: Format) -> TensorDesc {
    TensorDesc::new(dtype, Shape::from_dims(dims), format)
}

pub(super) fn input(g: &mut Graph, name: &str, d: TensorDesc) -> OutputRef {
    g.add_input_node(name, d).unwrap()
}

/// Adds `op_type` reading `inputs` with one output described by `out`.
pub(super) fn op(
    g: &mut Graph,
    op_type: &str,
    name: &str,
    inputs: &[OutputRef],
    out: TensorDesc,
    attrs: &[(&str, AttrValue)],
) -> OutputRef {
    let mut node = Node::new(name, op_type, inputs.iter().map(|&i| Some(i)).collect(), 1);
    node.outputs[0] = out;
    let mut a = Attrs::new();
    for (k, v) in attrs {
        a.set(*k, v.clone());
    }
    node.attrs = a;
    OutputRef::new(g.add_node(node).unwrap(), 0)
}

pub(super) fn estimate(g: &Graph, opts: &CostOptions) -> CostReport {
    estimate_cost(g, &round_spec(), opts).unwrap()
}

fn row<'r>(r: &'r CostReport, name: &str) -> &'r NodeCost {
    r.nodes.iter().find(|n| n.name == name).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// A 3x3 convolution of a `c`-channel 32x32 fp16 image to 16 channels.
fn conv_graph(c: i64) -> Graph {
    conv3x3_graph([1, c, 32, 32], 16)
}

/// A 3x3 fp16 convolution of an NCHW input of `dims` to `outputs` channels,
/// its output as tall and wide as its input.
fn conv3x3_graph(dims: [i64; 4], outputs: i64) -> Graph {
    let [n, c, h, w] = dims;
    let mut g = Graph::new("conv");
    let x = input(&mut g, "x", desc(DataType::Float16, &dims, Format::Nchw));
    let w_desc = desc(DataType::Float16, &[outputs, c, 3, 3], Format::Nchw);
    let weights = input(&mut g, "w", w_desc);
    let nchw = AttrValue::Str("NCHW".into());
    let y = op(
        &mut g,
        "Conv2D",
        "conv",
        &[x, weights],
        desc(DataType::Float16, &[n, outputs, h, w], Format::Nchw),
        &[("data_format", nchw)],
    );
    g.set_outputs(vec![y]).unwrap();
    g
}

#[test]
fn a_three_channel_convolution_pays_for_c0_16() {
    let opts = CostOptions::default();
    let three = estimate(&conv_graph(3), &opts);
    let conv = row(&three, "conv");
    // M = 1024 pixels = 64 blocks, N = 16 = 1 block, K = ceil(3/16) x 9 taps = 9 blocks.
    assert_eq!(conv.padded_flops, 2.0 * (64 * 9) as f64 * 4096.0);
    assert_eq!(conv.flops, 2.0 * 1024.0 * 16.0 * 3.0 * 9.0);
    // Each core takes 32 M blocks: 288 instructions, but the L1 -> L0 loads
    // (32 x 9 left fractals at 512 B/cycle, 9 x 2 right ones at 256 B/cycle)
    // take 288 + 36 = 324 cycles.
    assert!(close(conv.compute_us, 0.324), "{}", conv.compute_us);
    // Sixteen channels cost the Cube exactly as much as three.
    let sixteen = estimate(&conv_graph(16), &opts);
    assert_eq!(row(&sixteen, "conv").padded_flops, conv.padded_flops);
    assert!(close(row(&sixteen, "conv").compute_us, conv.compute_us));
    // The image moves with its channels padded to 16 as well: input 1x16x32x32,
    // weights FRACTAL_Z 16 x (16 x 9), output 1x16x32x32, all fp16.
    let bytes = 2.0 * (16.0 * 1024.0 + 16.0 * 144.0 + 16.0 * 1024.0);
    assert_eq!(conv.bytes, bytes);
}

#[test]
fn a_large_matmul_is_cube_bound() {
    let mut g = Graph::new("mm");
    let a = input(
        &mut g,
        "a",
        desc(DataType::Float16, &[2048, 2048], Format::Nd),
    );
    let b = input(
        &mut g,
        "b",
        desc(DataType::Float16, &[2048, 2048], Format::Nd),
    );
    let y = op(
        &mut g,
        "MatMul",
        "mm",
        &[a, b],
        desc(DataType::Float16, &[2048, 2048], Format::Nd),
        &[],
    );
    g.set_outputs(vec![y]).unwrap();
    let r = estimate(&g, &CostOptions::default());
    let mm = row(&r, "mm");
    assert_eq!(mm.bound, Bound::Cube);
    // 128^3 fractal instructions over 2 cores, one per cycle at 1 GHz.
    assert!(
        close(mm.compute_us, 128.0 * 128.0 * 128.0 / 2.0 / 1000.0),
        "{}",
        mm.compute_us
    );
    assert!(mm.memory_us < mm.compute_us);
    assert_eq!(mm.flops, 2.0 * 2048f64.powi(3));
    // Three 8 MiB matrices cross memory once.
    assert_eq!(mm.bytes, 3.0 * 8.0 * 1024.0 * 1024.0);
}

#[test]
fn a_big_elementwise_add_is_memory_bound() {
    let mut g = Graph::new("add");
    let d = desc(DataType::Float16, &[4096, 4096], Format::Nd);
    let a = input(&mut g, "a", d.clone());
    let b = input(&mut g, "b", d.clone());
    let y = op(&mut g, "Add", "add", &[a, b], d, &[]);
    g.set_outputs(vec![y]).unwrap();
    let r = estimate(&g, &CostOptions::default());
    let add = row(&r, "add");
    assert_eq!(add.bound, Bound::Memory);
    let bytes = 3.0 * 4096.0 * 4096.0 * 2.0;
    assert_eq!(add.bytes, bytes);
    assert!(close(add.memory_us, bytes / 100e3));
    // 32 MiB over 2 cores at 256 B per cycle.
    assert!(close(
        add.compute_us,
        4096.0 * 4096.0 * 2.0 / 2.0 / 256.0 / 1000.0
    ));
    assert!(close(add.time_us, add.memory_us + 1.0));
}

#[test]
fn tiny_ops_are_overhead_bound_and_views_are_free() {
    let mut g = Graph::new("tiny");
    let x = input(&mut g, "x", desc(DataType::Float16, &[4], Format::Nd));
    let v = op(
        &mut g,
        "Reshape",
        "view",
        &[x],
        desc(DataType::Float16, &[2, 2], Format::Nd),
        &[],
    );
    let y = op(
        &mut g,
        "Relu",
        "relu",
        &[v],
        desc(DataType::Float16, &[2, 2], Format::Nd),
        &[],
    );
    g.set_outputs(vec![y]).unwrap();
    let r = estimate(&g, &CostOptions::default());
    let relu = row(&r, "relu");
    assert_eq!(relu.bound, Bound::Overhead);
    assert!(relu.overhead_us > relu.compute_us.max(relu.memory_us));
    let view = row(&r, "view");
    assert_eq!((view.bound, view.time_us), (Bound::Free, 0.0));
    assert_eq!(row(&r, "x").time_us, 0.0);
    assert_eq!(r.task_count, 1);
}

#[test]
fn ops_without_an_ai_core_kernel_fall_back_to_the_ai_cpu() {
    let mut g = Graph::new("unique");
    let x = input(&mut g, "x", desc(DataType::Int32, &[1000], Format::Nd));
    let y = op(
        &mut g,
        "Unique",
        "unique",
        &[x],
        desc(DataType::Int32, &[-1], Format::Nd),
        &[],
    );
    g.set_outputs(vec![y]).unwrap();
    let r = estimate(&g, &CostOptions::default());
    let u = row(&r, "unique");
    assert_eq!(u.bound, Bound::AiCpu);
    assert!(u.note.as_deref().unwrap().contains("AI CPU"));
    // 30 us launch + 1000 elements x 2 ns.
    assert!(close(u.time_us, 32.0), "{}", u.time_us);
}

#[test]
fn force_fp16_halves_fp32_traffic_and_keeping_fp32_needs_a_cube_mode() {
    let mut g = Graph::new("fp32");
    let d = desc(DataType::Float, &[1024, 1024], Format::Nd);
    let a = input(&mut g, "a", d.clone());
    let y = op(&mut g, "Relu", "relu", &[a], d, &[]);
    g.set_outputs(vec![y]).unwrap();
    let fp16 = estimate(&g, &CostOptions::default());
    let keep = CostOptions {
        precision: PrecisionMode::MustKeepOriginDtype,
        ..CostOptions::default()
    };
    let fp32 = estimate(&g, &keep);
    assert_eq!(row(&fp32, "relu").bytes, 2.0 * row(&fp16, "relu").bytes);

    let mut g = Graph::new("mm32");
    let a = input(&mut g, "a", desc(DataType::Float, &[64, 64], Format::Nd));
    let y = op(
        &mut g,
        "MatMul",
        "mm",
        &[a, a],
        desc(DataType::Float, &[64, 64], Format::Nd),
        &[],
    );
    g.set_outputs(vec![y]).unwrap();
    let err = estimate_cost(&g, &round_spec(), &keep).unwrap_err();
    assert_eq!(
        err.to_string(),
        "node 'mm' (MatMul) cannot be costed: Round has no Cube mode for float (precision mode must_keep_origin_dtype)"
    );
    let allow = CostOptions {
        precision: PrecisionMode::AllowFp32ToFp16,
        ..CostOptions::default()
    };
    assert!(estimate_cost(&g, &round_spec(), &allow).is_ok());
}

#[test]
fn unknown_sizes_name_the_node_and_suggest_input_shapes() {
    let mut g = Graph::new("dyn");
    let x = input(&mut g, "x", desc(DataType::Float, &[-1, 8], Format::Nd));
    let y = op(
        &mut g,
        "Relu",
        "relu",
        &[x],
        desc(DataType::Float, &[-1, 8], Format::Nd),
        &[],
    );
    g.set_outputs(vec![y]).unwrap();
    let err = estimate_cost(&g, &round_spec(), &CostOptions::default()).unwrap_err();
    assert!(matches!(&err, CostError::UnknownShape { node, .. } if node == "relu"));
    assert!(err.to_string().contains("input_shapes="), "{err}");
    // Free nodes need no sizes: a dynamic view alone costs nothing.
    let mut g = Graph::new("view");
    let x = input(&mut g, "x", desc(DataType::Float, &[-1, 8], Format::Nd));
    let y = op(
        &mut g,
        "Identity",
        "id",
        &[x],
        desc(DataType::Float, &[-1, 8], Format::Nd),
        &[],
    );
    g.set_outputs(vec![y]).unwrap();
    assert_eq!(estimate(&g, &CostOptions::default()).total_us, 0.0);
}

#[test]
fn cube_split_balances_output_blocks_over_cores() {
    // 3 M blocks over 2 cores: the busiest core gets 2 (ceil), whatever the split.
    let s = super::cube::split(1, 3, 1, 5, 2, (1.0, 1.0));
    assert_eq!(s.per_core, 10);
    // With 2 N blocks as well, splitting N gives 3 x 1 x 5 = 15; M gives 2 x 2 x 5 = 20.
    assert_eq!(super::cube::split(1, 3, 2, 5, 2, (1.0, 1.0)).per_core, 15);
    // Independent units (batch, groups) spread first when they divide evenly.
    assert_eq!(super::cube::split(4, 1, 1, 7, 2, (1.0, 1.0)).per_core, 14);
}

#[test]
fn a_node_precision_attribute_overrides_the_graph_mode_for_that_node() {
    // Two fp32 Adds under force_fp16; the second keeps fp32 by its attribute.
    let mut g = Graph::new("keep");
    let d = desc(DataType::Float, &[1024, 1024], Format::Nd);
    let a = input(&mut g, "a", d.clone());
    let b = input(&mut g, "b", d.clone());
    let half = op(&mut g, "Add", "half", &[a, b], d.clone(), &[]);
    let keep = AttrValue::Str("must_keep_origin_dtype".into());
    let kept = op(
        &mut g,
        "Add",
        "kept",
        &[half, a],
        d,
        &[(PRECISION_MODE_ATTR, keep)],
    );
    g.set_outputs(vec![kept]).unwrap();
    let options = CostOptions {
        fuse: false,
        l2_residency: false,
        ..CostOptions::default()
    };
    let r = estimate(&g, &options);
    assert_eq!(row(&r, "half").bytes, 3.0 * 1024.0 * 1024.0 * 2.0);
    assert_eq!(row(&r, "kept").bytes, 3.0 * 1024.0 * 1024.0 * 4.0);
    // An unknown mode name is no override.
    let mut other = g.clone();
    let id = other.find("kept").unwrap();
    other
        .node_mut(id)
        .attrs
        .set(PRECISION_MODE_ATTR, AttrValue::Str("fp64".into()));
    assert_eq!(
        row(&estimate(&other, &options), "kept").bytes,
        3.0 * 1024.0 * 1024.0 * 2.0
    );
}

/// Two ReLUs of [n, 16, 8, 8] fp16 joined on the channels; with
/// `convolutions`, each ReLU follows a 3x3 convolution of its input.
fn concat_graph(n: i64, convolutions: bool) -> Graph {
    let mut g = Graph::new("concat");
    let d = desc(DataType::Float16, &[n, 16, 8, 8], Format::Nchw);
    let mut a = input(&mut g, "a", d.clone());
    let mut b = input(&mut g, "b", d.clone());
    if convolutions {
        let w = input(
            &mut g,
            "w",
            desc(DataType::Float16, &[16, 16, 3, 3], Format::Nchw),
        );
        let nchw = [("data_format", AttrValue::Str("NCHW".into()))];
        a = op(&mut g, "Conv2D", "ca", &[a, w], d.clone(), &nchw);
        b = op(&mut g, "Conv2D", "cb", &[b, w], d.clone(), &nchw);
    }
    let ra = op(&mut g, "Relu", "ra", &[a], d.clone(), &[]);
    let rb = op(&mut g, "Relu", "rb", &[b], d, &[]);
    let out = desc(DataType::Float16, &[n, 32, 8, 8], Format::Nchw);
    let c = op(
        &mut g,
        "ConcatD",
        "cat",
        &[ra, rb],
        out,
        &[("concat_dim", AttrValue::Int(1))],
    );
    g.set_outputs(vec![c]).unwrap();
    g
}

#[test]
fn a_concatenation_of_contiguous_blocks_is_done_in_place() {
    // Batch 1: each part is one block of the output; the ReLUs write there.
    let one = estimate(&concat_graph(1, false), &CostOptions::default());
    let cat = row(&one, "cat");
    assert_eq!((cat.time_us, cat.count), (0.0, 0.0));
    assert!(cat.note.as_deref().unwrap().starts_with("in place"));
    assert_eq!(one.task_count, 2);
    // Batch 2: the parts interleave per image, so the concatenation copies.
    let two = estimate(&concat_graph(2, false), &CostOptions::default());
    assert!(row(&two, "cat").time_us > 0.0);
    assert_eq!(two.task_count, 3);
}

#[test]
fn a_concatenation_of_convolutions_is_in_place_at_any_batch() {
    // Each convolution (its ReLU fused) writes its image blocks at a stride
    // into the concatenation's output (StridedWrite): two tasks, no copy.
    let two = estimate(&concat_graph(2, true), &CostOptions::default());
    let cat = row(&two, "cat");
    assert_eq!((cat.time_us, cat.count), (0.0, 0.0));
    assert!(cat.note.as_deref().unwrap().starts_with("in place"));
    assert_eq!(two.task_count, 2);
}

#[test]
fn a_cube_split_does_not_trade_a_block_for_reading_the_input_again_from_memory() {
    // 3x3 conv of a 2.9 MB feature map (more than L2) to 32 channels on 8
    // cores: 5665 M blocks x 2 N blocks; splitting M 4 ways and N 2 ways
    // leaves 1417 blocks on the busiest core, M 8 ways 1418, but splitting
    // N makes every core read the whole input from memory. The chosen split
    // reads it once.
    let mut spec = round_spec();
    spec.ai_cores = 8;
    spec.l2_bytes = 1 << 20;
    let g = conv3x3_graph([1, 16, 1133, 80], 32);
    let r = estimate_cost(&g, &spec, &CostOptions::default()).unwrap();
    let conv = row(&r, "conv");
    let (input_bytes, weights, output_bytes) = (
        2.0 * 16.0 * 1133.0 * 80.0,
        2.0 * 32.0 * 16.0 * 9.0,
        2.0 * 32.0 * 1133.0 * 80.0,
    );
    assert!(
        close(conv.bytes, input_bytes + weights + output_bytes),
        "{}",
        conv.bytes
    );
}

#[test]
fn an_absurd_matmul_is_an_error_not_a_panic() {
    let mut g = Graph::new("mm");
    let big = || desc(DataType::Float16, &[1 << 30, 1 << 30, 1 << 30], Format::Nd);
    let a = input(&mut g, "a", big());
    let b = input(&mut g, "b", big());
    let y = op(&mut g, "BatchMatMulV2", "mm", &[a, b], big(), &[]);
    g.set_outputs(vec![y]).unwrap();
    let result = estimate_cost(&g, &round_spec(), &CostOptions::default());
    assert!(
        matches!(result, Err(CostError::Overflow { .. })),
        "{result:?}"
    );
}
