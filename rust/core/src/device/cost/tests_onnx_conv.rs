//! ONNX's convolution forms (`Conv1D`, `ConvTranspose`) are costed as the GE
//! ops that run them: a Conv2D of height 1 and a Conv2DTranspose.

use super::tests::{desc, estimate, input, op};
use super::*;
use crate::graph::Graph;
use crate::types::{AttrValue, DataType, Format};

const F16: DataType = DataType::Float16;

fn only_row<'r>(r: &'r CostReport, name: &str) -> &'r NodeCost {
    r.nodes.iter().find(|n| n.name == name).unwrap()
}

/// `Conv1D` of `[n, c, l]` by `m` filters of width `k` (stride 1, no pads,
/// `group` groups), and the Conv2D of height 1 GE runs for it.
fn conv1d_and_conv2d(n: i64, c: i64, l: i64, m: i64, k: i64, group: i64) -> (Graph, Graph) {
    let out = l - k + 1;
    let mut one = Graph::new("conv1d");
    let x = input(&mut one, "x", desc(F16, &[n, c, l], Format::Nd));
    let w = input(&mut one, "w", desc(F16, &[m, c / group, k], Format::Nd));
    let y = op(
        &mut one,
        "Conv1D",
        "conv",
        &[x, w],
        desc(F16, &[n, m, out], Format::Nd),
        &[("group", AttrValue::Int(group))],
    );
    one.set_outputs(vec![y]).unwrap();
    let mut two = Graph::new("conv2d");
    let x = input(&mut two, "x", desc(F16, &[n, c, 1, l], Format::Nchw));
    let w = input(
        &mut two,
        "w",
        desc(F16, &[m, c / group, 1, k], Format::Nchw),
    );
    let y = op(
        &mut two,
        "Conv2D",
        "conv",
        &[x, w],
        desc(F16, &[n, m, 1, out], Format::Nchw),
        &[
            ("data_format", AttrValue::Str("NCHW".into())),
            ("groups", AttrValue::Int(group)),
        ],
    );
    two.set_outputs(vec![y]).unwrap();
    (one, two)
}

#[test]
fn a_1d_convolution_does_the_work_of_a_conv2d_of_height_one() {
    for (n, c, l, m, k) in [
        (1, 1, 16000, 512, 10),
        (4, 512, 799, 512, 3),
        (2, 64, 50, 64, 12),
    ] {
        let (one, two) = conv1d_and_conv2d(n, c, l, m, k, 1);
        let opts = CostOptions::default();
        let (a, b) = (estimate(&one, &opts), estimate(&two, &opts));
        let (a, b) = (only_row(&a, "conv"), only_row(&b, "conv"));
        let macs = (n * m * (l - k + 1) * c * k) as f64;
        assert_eq!(a.flops, 2.0 * macs, "{n} {c} {l} {m} {k}");
        assert_eq!(a.flops, b.flops);
        assert_eq!(a.padded_flops, b.padded_flops);
        assert!(a.cube_us > 0.0 && a.cube_us == b.cube_us, "{a:?} {b:?}");
        // The activations stored as the Conv2D's: channels padded to C0.
        assert_eq!((a.bytes, a.l2_bytes), (b.bytes, b.l2_bytes), "{n} {c} {l}");
        assert_eq!(a.time_us, b.time_us);
    }
}

#[test]
fn an_onnx_form_convolution_of_rank_below_three_is_a_cost_error_not_a_panic() {
    let mut g = Graph::new("bad");
    let x = input(&mut g, "x", desc(F16, &[4, 8], Format::Nd));
    let w = input(&mut g, "w", desc(F16, &[8, 8], Format::Nd));
    let y = op(
        &mut g,
        "Conv1D",
        "conv",
        &[x, w],
        desc(F16, &[4, 8], Format::Nd),
        &[],
    );
    g.set_outputs(vec![y]).unwrap();
    let err = estimate_cost(&g, &super::tests::round_spec(), &CostOptions::default()).unwrap_err();
    assert!(err.to_string().contains("rank 2"), "{err}");
}

#[test]
fn a_grouped_1d_convolution_counts_each_group_and_a_depthwise_one_runs_on_the_vector_unit() {
    let opts = CostOptions::default();
    let (grouped, _) = conv1d_and_conv2d(1, 64, 100, 64, 16, 4);
    let r = estimate(&grouped, &opts);
    let row = only_row(&r, "conv");
    assert_eq!(row.flops, 2.0 * (64 * 85 * 16 * 16) as f64);
    assert!(row.cube_us > 0.0);
    let (depthwise, _) = conv1d_and_conv2d(1, 64, 100, 64, 5, 64);
    let r = estimate(&depthwise, &opts);
    let row = only_row(&r, "conv");
    assert_eq!(row.flops, 2.0 * (64 * 96 * 5) as f64);
    assert_eq!(row.cube_us, 0.0);
    assert!(row.vector_us > 0.0);
}

#[test]
fn onnx_conv_transpose_does_the_work_of_ges_conv2d_transpose() {
    // x [1, 64, 16, 16] up-sampled by a 2x2 stride-2 kernel to 32 channels.
    let (cin, cout, k) = (64, 32, 2);
    let filter = desc(F16, &[cin, cout, k, k], Format::Nchw);
    let out = desc(F16, &[1, cout, 32, 32], Format::Nchw);
    let mut onnx = Graph::new("onnx");
    let x = input(&mut onnx, "x", desc(F16, &[1, cin, 16, 16], Format::Nchw));
    let w = input(&mut onnx, "w", filter.clone());
    let y = op(
        &mut onnx,
        "ConvTranspose",
        "up",
        &[x, w],
        out.clone(),
        &[("strides", AttrValue::ListInt(vec![2, 2]))],
    );
    onnx.set_outputs(vec![y]).unwrap();
    let mut ge = Graph::new("ge");
    let size = input(&mut ge, "size", desc(DataType::Int32, &[4], Format::Nd));
    let x = input(&mut ge, "x", desc(F16, &[1, cin, 16, 16], Format::Nchw));
    let w = input(&mut ge, "w", filter);
    let y = op(
        &mut ge,
        "Conv2DTranspose",
        "up",
        &[size, x, w],
        out,
        &[
            ("data_format", AttrValue::Str("NCHW".into())),
            ("strides", AttrValue::ListInt(vec![1, 1, 2, 2])),
        ],
    );
    ge.set_outputs(vec![y]).unwrap();
    let opts = CostOptions::default();
    let (a, b) = (estimate(&onnx, &opts), estimate(&ge, &opts));
    let (a, b) = (only_row(&a, "up"), only_row(&b, "up"));
    // Useful: each input element times C_out filters at k x k taps. The
    // Cube also multiplies the zeros inserted between the input's pixels:
    // each output pixel sums C_in x k x k taps.
    assert_eq!(a.flops, 2.0 * (cin * 16 * 16 * cout * k * k) as f64);
    assert!(a.padded_flops >= 2.0 * (cout * 32 * 32 * cin * k * k) as f64);
    assert_eq!(
        (a.flops, a.padded_flops, a.cube_us),
        (b.flops, b.padded_flops, b.cube_us)
    );
}
