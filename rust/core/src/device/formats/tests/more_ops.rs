//! The other convolution-like and normalisation ops: transposed
//! convolutions (TensorFlow's and Caffe's), batch norm with statistics.

use super::graphs::*;
use crate::device::formats::transdata::TRANS_DATA;
use crate::prelude::*;

fn storage(d: &TensorDesc) -> (Format, Vec<i64>) {
    (d.storage_format, d.storage_shape.dims().to_vec())
}

#[test]
fn transposed_convolutions_read_the_gradient_as_nc1hwc0() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("deconv");
    // TensorFlow: (input_size, filter HWCN [3, 3, out 8, in 32], out_backprop NHWC).
    let dy = input(&mut g, "dy", DataType::Float, &[1, 4, 4, 32], Format::Nhwc);
    let size = int_const(&mut g, "size", DataType::Int32, &[4], &[1, 4, 4, 8]);
    let w = weight(&mut g, "w", &[3, 3, 8, 32], Format::Hwcn);
    let a = attrs([
        ("strides", AttrValue::ListInt(vec![1, 1, 1, 1])),
        ("pads", AttrValue::ListInt(vec![1, 1, 1, 1])),
    ]);
    let back = op(&mut g, &r, "Conv2DBackpropInput", "back", &[size, w, dy], a);
    // Caffe: Deconvolution NCHW, filter [in 16, out 8, 2, 2].
    let x = input(&mut g, "x", DataType::Float, &[1, 16, 4, 4], Format::Nchw);
    let wd = weight(&mut g, "wd", &[16, 8, 2, 2], Format::Nchw);
    let a = attrs([("strides", AttrValue::ListInt(vec![2, 2]))]);
    let deconv = op(&mut g, &r, "Deconvolution", "deconv", &[x, wd], a);
    g.set_outputs(vec![back, deconv]).unwrap();
    prepared(&mut g, &r, false);
    assert_eq!(
        storage(desc(&g, "back")),
        (Format::Nc1hwc0, vec![1, 1, 4, 4, 16])
    );
    assert_eq!(producer(&g, "back", 2).op_type, TRANS_DATA);
    assert_eq!(
        producer(&g, "back", 0).name,
        "size",
        "input_size stays a host vector"
    );
    // HWCN [3, 3, 8, 32]: N = 32, C = 8 → [1·3·3, 2, 16, 16].
    assert_eq!(
        storage(desc(&g, "w")),
        (Format::FractalZ, vec![9, 2, 16, 16])
    );
    assert_eq!(
        storage(desc(&g, "deconv")),
        (Format::Nc1hwc0, vec![1, 1, 8, 8, 16])
    );
    // GE's op-agnostic rule on the NCHW filter: N = 16, C = 8 → [1·2·2, 1, 16, 16].
    assert_eq!(
        storage(desc(&g, "wd")),
        (Format::FractalZ, vec![4, 1, 16, 16])
    );
}

#[test]
fn batch_norm_keeps_its_statistics_plain() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("bn");
    let x = input(&mut g, "x", DataType::Float, &[2, 8, 8, 20], Format::Nhwc);
    let params: Vec<OutputRef> = ["scale", "offset", "mean", "variance"]
        .iter()
        .map(|n| weight(&mut g, n, &[20], Format::Nd))
        .collect();
    let mut inputs = vec![x];
    inputs.extend(params);
    let a = attrs([("is_training", AttrValue::Bool(false))]);
    let bn = op(&mut g, &r, "FusedBatchNormV3", "bn", &inputs, a);
    let id = bn.node;
    g.set_outputs(vec![bn, OutputRef::new(id, 1)]).unwrap();
    let report = prepared(&mut g, &r, false);
    let node = g.node(id);
    assert_eq!(
        storage(&node.outputs[0]),
        (Format::Nc1hwc0, vec![2, 2, 8, 8, 16])
    );
    for stat in &node.outputs[1..5] {
        assert_eq!(storage(stat), (Format::Nd, vec![20]));
    }
    for name in ["scale", "offset", "mean", "variance"] {
        assert_eq!(storage(desc(&g, name)), (Format::Nd, vec![20]), "{name}");
    }
    // x → 5HD, y → NHWC for the output; the statistic output is plain already.
    assert_eq!(report.trans_data_inserted, 2);
}

/// Every TransData the pass inserted.
fn transdata_count(g: &Graph) -> usize {
    g.nodes().iter().filter(|n| n.op_type == TRANS_DATA).count()
}

#[test]
fn attention_stays_fractal_nz_from_matmul_to_matmul() {
    // scores = q @ k (NZ), + bias [S] and + mask [B, 1, 1, S] broadcast
    // along the rows, softmax over the last axis, @ v: no conversion
    // between the two matmuls.
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("attention");
    let q = input(&mut g, "q", DataType::Float, &[2, 4, 32, 16], Format::Nd);
    let k = input(&mut g, "k", DataType::Float, &[2, 4, 16, 32], Format::Nd);
    let v = input(&mut g, "v", DataType::Float, &[2, 4, 32, 16], Format::Nd);
    let mask = input(&mut g, "mask", DataType::Float, &[2, 1, 1, 32], Format::Nd);
    let bias = weight(&mut g, "bias", &[32], Format::Nd);
    let scores = op(
        &mut g,
        &r,
        "BatchMatMulV2",
        "scores",
        &[q, k],
        Attrs::default(),
    );
    let biased = op(
        &mut g,
        &r,
        "Add",
        "biased",
        &[scores, bias],
        Attrs::default(),
    );
    let masked = op(
        &mut g,
        &r,
        "Add",
        "masked",
        &[biased, mask],
        Attrs::default(),
    );
    let probs = op(
        &mut g,
        &r,
        "SoftmaxV2",
        "probs",
        &[masked],
        Attrs::default(),
    );
    let out = op(
        &mut g,
        &r,
        "BatchMatMulV2",
        "out",
        &[probs, v],
        Attrs::default(),
    );
    g.set_outputs(vec![out]).unwrap();
    prepared(&mut g, &r, false);
    for name in ["scores", "biased", "masked", "probs"] {
        assert_eq!(desc(&g, name).storage_format, Format::FractalNz, "{name}");
    }
    assert_eq!(
        producer(&g, "masked", 1).name,
        "mask",
        "the mask is read as it is"
    );
    assert_eq!(
        producer(&g, "biased", 1).name,
        "bias",
        "the bias is read as it is"
    );
    assert_eq!(producer(&g, "out", 0).name, "probs");
    // q, k, v into NZ and the output back to ND: nothing in between.
    assert_eq!(transdata_count(&g), 4);
}

#[test]
fn a_softmax_not_over_the_last_axis_or_a_column_broadcast_works_plain() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("not_rows");
    let a = input(&mut g, "a", DataType::Float, &[2, 32, 16], Format::Nd);
    let b = input(&mut g, "b", DataType::Float, &[2, 16, 32], Format::Nd);
    let column = input(&mut g, "column", DataType::Float, &[2, 32, 1], Format::Nd);
    let mm = op(&mut g, &r, "BatchMatMulV2", "mm", &[a, b], Attrs::default());
    let added = op(&mut g, &r, "Add", "added", &[mm, column], Attrs::default());
    let axes = attrs([("axes", AttrValue::ListInt(vec![1]))]);
    let mm2 = op(
        &mut g,
        &r,
        "BatchMatMulV2",
        "mm2",
        &[a, b],
        Attrs::default(),
    );
    let soft = op(&mut g, &r, "SoftmaxV2", "soft", &[mm2], axes);
    g.set_outputs(vec![added, soft]).unwrap();
    prepared(&mut g, &r, false);
    assert_eq!(desc(&g, "added").storage_format, Format::Nd);
    assert_eq!(desc(&g, "soft").storage_format, Format::Nd);
}

#[test]
fn a_global_spatial_mean_keeps_nc1hwc0_and_a_channel_mean_does_not() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("se");
    let x = input(&mut g, "x", DataType::Float, &[1, 32, 8, 8], Format::Nchw);
    let w = weight(&mut g, "w", &[32, 32, 1, 1], Format::Nchw);
    let c = conv(&mut g, &r, "conv", x, w, 0);
    let keep = attrs([("keep_dims", AttrValue::Bool(true))]);
    let hw = int_const(&mut g, "hw", DataType::Int64, &[2], &[2, 3]);
    let pooled = op(&mut g, &r, "ReduceMean", "pooled", &[c, hw], keep.clone());
    let ch = int_const(&mut g, "ch", DataType::Int64, &[1], &[1]);
    let across = op(&mut g, &r, "ReduceMean", "across", &[c, ch], keep);
    g.set_outputs(vec![pooled, across]).unwrap();
    prepared(&mut g, &r, false);
    assert_eq!(desc(&g, "pooled").storage_format, Format::Nc1hwc0);
    assert_eq!(producer(&g, "pooled", 0).name, "conv");
    assert_eq!(desc(&g, "across").storage_format, Format::Nchw);
    assert_eq!(producer(&g, "across", 0).op_type, TRANS_DATA);
}

#[test]
fn a_channel_slice_in_whole_c0_blocks_stays_nc1hwc0() {
    // DPN's dual path: a convolution's 48 channels split 32 / 16 (block
    // aligned) stay NC1HWC0; a 24 / 24 split would cut a block.
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("dual_path");
    let x = input(&mut g, "x", DataType::Float, &[1, 16, 8, 8], Format::Nchw);
    let w = weight(&mut g, "w", &[48, 16, 1, 1], Format::Nchw);
    let c = conv(&mut g, &r, "conv", x, w, 0);
    let slice = |g: &mut Graph, name: &str, begin: i64, end: i64| {
        let b = int_const(g, &format!("{name}_b"), DataType::Int64, &[1], &[begin]);
        let e = int_const(g, &format!("{name}_e"), DataType::Int64, &[1], &[end]);
        let axes = int_const(g, &format!("{name}_a"), DataType::Int64, &[1], &[1]);
        op(
            g,
            &r,
            "StridedSliceV2",
            name,
            &[c, b, e, axes],
            Attrs::default(),
        )
    };
    let head = slice(&mut g, "head", 0, 32);
    let tail = slice(&mut g, "tail", 32, i64::MAX);
    let cut = slice(&mut g, "cut", 0, 24);
    g.set_outputs(vec![head, tail, cut]).unwrap();
    prepared(&mut g, &r, false);
    for name in ["head", "tail"] {
        assert_eq!(desc(&g, name).storage_format, Format::Nc1hwc0, "{name}");
        assert_eq!(producer(&g, name, 0).name, "conv", "{name}");
    }
    assert_ne!(desc(&g, "cut").storage_format, Format::Nc1hwc0);
    assert_eq!(producer(&g, "cut", 0).op_type, TRANS_DATA);
}
