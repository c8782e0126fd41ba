//! Rust-level checks of the ONNX-form ops' error paths and a few shapes
//! worked out by hand from the ONNX spec (the Python tests compare against
//! onnx.reference over drawn cases).

use crate::prelude::*;
use crate::test_graphs::OpCase;

const F32: DataType = DataType::Float;

fn ints(v: &[i64]) -> AttrValue {
    AttrValue::ListInt(v.to_vec())
}

#[test]
fn pooling_sizes_and_errors() {
    let mut c = OpCase::new();
    let x = c.input(F32, &[1, 3, 5, 4]);
    // H: ceil((5 + 1 - 2) / 2) + 1 = 3 (the window at 4 starts inside);
    // W: ceil((4 + 1 - 2) / 2) + 1 = 3, but the window at 4 starts at
    // 4 >= 4 + 0 (in the end padding): 2.
    let attrs = [
        ("ksize", ints(&[2, 2])),
        ("strides", ints(&[2, 2])),
        ("pads", ints(&[0, 0, 1, 1])),
        ("ceil_mode", AttrValue::Int(1)),
    ];
    let y = c.op("MaxPoolV3", &[x], &attrs);
    c.infer().unwrap();
    assert_eq!(c.dims(y), [1, 3, 3, 2]);
    // The builder gives the dynamic `indices` one instance: INT64, y's shape.
    let node = c.g.node(y.node);
    assert_eq!(node.outputs.len(), 2);
    assert_eq!(node.outputs[1].dtype, DataType::Int64);
    assert_eq!(node.outputs[1].shape().dims(), [1, 3, 3, 2]);

    let mut c = OpCase::new();
    let x = c.input(F32, &[1, 3, 5, 4]);
    c.op(
        "AvgPoolV2",
        &[x],
        &[
            ("ksize", ints(&[i64::MAX, 2])),
            ("dilations", ints(&[i64::MAX, 1])),
        ],
    );
    assert!(c.error().contains("smaller than the effective window size"));
}

#[test]
fn conv_transpose_negative_and_huge_outputs_are_errors() {
    for (strides, pads, want) in [
        (vec![1, 1], vec![3, 0, 3, 0], "pads exceed"),
        (vec![i64::MAX, 1], vec![0, 0, 0, 0], "overflows int64"),
    ] {
        let mut c = OpCase::new();
        let x = c.input(F32, &[1, 2, 4, 4]);
        let w = c.input(F32, &[2, 3, 1, 1]);
        c.op(
            "ConvTranspose",
            &[x, w],
            &[("strides", ints(&strides)), ("pads", ints(&pads))],
        );
        let err = c.error();
        assert!(err.contains(want), "{err}");
    }
}

#[test]
fn conv_transpose_same_never_pads_negatively() {
    // in 5, stride 3, kernel 1: SAME's in * stride = 15 would need -2 of
    // padding; the unpadded size 3 * 4 + 1 = 13 is the output (onnx's shape
    // inference and onnxruntime agree). With kernel 5 it is 15.
    for (kernel, want) in [(1, 13), (5, 15)] {
        let mut c = OpCase::new();
        let x = c.input(F32, &[1, 1, 5]);
        let w = c.input(F32, &[1, 1, kernel]);
        let y = c.op(
            "ConvTranspose",
            &[x, w],
            &[
                ("strides", ints(&[3])),
                ("auto_pad", AttrValue::Str("SAME_UPPER".into())),
            ],
        );
        c.infer().unwrap();
        assert_eq!(c.dims(y), [1, 1, want], "kernel {kernel}");
    }
}

#[test]
fn resize_gemm_one_hot_and_nms_rules() {
    let mut c = OpCase::new();
    let x = c.input(F32, &[1, 3, 4, 4]);
    c.op("Resize", &[x], &[]);
    assert!(c.error().contains("neither scales nor sizes"));

    let mut c = OpCase::new();
    let (a, b) = (c.input(F32, &[2, 3]), c.input(F32, &[4, 5]));
    c.op(
        "MatMulV2",
        &[a, b],
        &[("transpose_x1", AttrValue::Bool(true))],
    );
    assert!(c.error().contains("(K) differ: 2 != 4"));

    let mut c = OpCase::new();
    let i = c.input(DataType::Int64, &[2]);
    let (depth, values) = (c.ints(&[-3], false), c.input(F32, &[2]));
    c.op("OneHotV2", &[i, depth, values], &[]);
    assert!(c.error().contains("depth must be >= 0"));

    // No max_output_boxes_per_class: ONNX's default 0 selects no box.
    let mut c = OpCase::new();
    let (boxes, scores) = (c.input(F32, &[2, 5, 4]), c.input(F32, &[2, 3, 5]));
    let y = c.op("NonMaxSuppressionV6", &[boxes, scores], &[]);
    c.infer().unwrap();
    assert_eq!(c.dims(y), [0, 3]);
}

#[test]
fn integer_and_one_d_convolutions_check_channels_and_overflow() {
    // 6 channels, w [4, 2, 3] with group 2 takes 4: an error naming both.
    let mut c = OpCase::new();
    let (x, w) = (c.input(F32, &[1, 6, 9]), c.input(F32, &[4, 2, 3]));
    c.op("Conv1D", &[x, w], &[("group", AttrValue::Int(2))]);
    assert!(c.error().contains("x has 6 channels"));

    let mut c = OpCase::new();
    let (x, w) = (c.input(F32, &[1, 2, 9]), c.input(F32, &[4, 2, 3]));
    c.op(
        "Conv1D",
        &[x, w],
        &[("strides", ints(&[1])), ("dilations", ints(&[i64::MAX]))],
    );
    assert!(c.error().contains("effective window size"));

    // kernel_shape must be w's spatial dims (the decoder may take it from
    // a declared input shape that input_shapes later changes).
    let mut c = OpCase::new();
    let (x, w) = (c.input(F32, &[1, 2, 9]), c.input(F32, &[4, 2, 3]));
    c.op("Conv1D", &[x, w], &[("kernel_shape", ints(&[2]))]);
    let err = c.error();
    assert!(
        err.contains("kernel_shape has 2") && err.contains("has 3"),
        "{err}"
    );

    // ConvInteger: INT32 out, the window rule of Conv.
    let mut c = OpCase::new();
    let x = c.input(DataType::Uint8, &[1, 3, 7, 7]);
    let w = c.input(DataType::Uint8, &[5, 3, 3, 3]);
    let y = c.op("ConvInteger", &[x, w], &[("strides", ints(&[2, 2]))]);
    c.infer().unwrap();
    assert_eq!(c.dims(y), [1, 5, 3, 3]);
    assert_eq!(c.g.node(y.node).outputs[0].dtype, DataType::Int32);
}

#[test]
fn batched_gathers_name_what_does_not_fit() {
    let mut c = OpCase::new();
    let (x, i) = (c.input(F32, &[2, 3, 4]), c.input(DataType::Int64, &[3, 1]));
    c.op("GatherNd", &[x, i], &[("batch_dims", AttrValue::Int(1))]);
    assert!(c
        .error()
        .contains("batch dim 0 is 2 in params but 3 in indices"));

    let mut c = OpCase::new();
    let (x, i) = (c.input(F32, &[2, 3]), c.input(DataType::Int64, &[2, 1]));
    c.op("GatherNd", &[x, i], &[("batch_dims", AttrValue::Int(-1))]);
    assert!(c.error().contains("batch_dims -1 must be >= 0"));
}

#[test]
fn unpooling_and_generators_reject_impossible_sizes() {
    let mut c = OpCase::new();
    let x = c.input(F32, &[1, 1, 2, 2]);
    let i = c.input(DataType::Int64, &[1, 1, 2, 2]);
    c.op(
        "MaxUnpool",
        &[x, i],
        &[
            ("kernel_shape", ints(&[1, 1])),
            ("pads", ints(&[5, 0, 5, 0])),
        ],
    );
    assert!(c.error().contains("unpools to -8"));

    let mut c = OpCase::new();
    c.op("RandomNormal", &[], &[("shape", ints(&[2, -3]))]);
    assert!(c.error().contains("every dim must be >= 0"));

    let mut c = OpCase::new();
    let x = c.input(F32, &[2, 3, 4]);
    c.op("Det", &[x], &[]);
    assert!(c.error().contains("must be square"));
}

/// DFT of a `[1, 6, 10, c]` signal along axis 1: the output dims.
fn dft(channels: i64, onesided: i64, inverse: i64) -> Vec<i64> {
    let mut c = OpCase::new();
    let x = c.input(F32, &[1, 6, 10, channels]);
    let y = c.op(
        "DFT",
        &[x],
        &[
            ("axis", AttrValue::Int(1)),
            ("onesided", AttrValue::Int(onesided)),
            ("inverse", AttrValue::Int(inverse)),
        ],
    );
    c.infer().unwrap();
    c.dims(y)
}

#[test]
fn dft_shapes_follow_the_four_transforms() {
    // Full transform, forward or inverse: the length stays, the output is complex.
    assert_eq!(dft(1, 0, 0), [1, 6, 10, 2]);
    assert_eq!(dft(2, 0, 1), [1, 6, 10, 2]);
    // RFFT: floor(6 / 2) + 1 bins.
    assert_eq!(dft(1, 1, 0), [1, 4, 10, 2]);
    // IRFFT: 6 bins of a one-sided spectrum are a real signal of 2 (6 - 1).
    assert_eq!(dft(2, 1, 1), [1, 10, 10, 1]);
    // One bin is no signal (numpy's irfft refuses it too).
    let mut c = OpCase::new();
    let x = c.input(F32, &[1, 1, 10, 2]);
    let attrs = [
        ("axis", AttrValue::Int(1)),
        ("onesided", AttrValue::Int(1)),
        ("inverse", AttrValue::Int(1)),
    ];
    c.op("DFT", &[x], &attrs);
    assert!(c.error().contains("at least 2 bins"));
}

#[test]
fn a_global_pool_keeps_the_batch_range() {
    let mut c = OpCase::new();
    let x = c.ranged_input(F32, &[-1, 8, -1, -1], &[(1, 4), (8, 8), (2, 8), (2, 8)]);
    let y = c.op(
        "AvgPoolV2",
        &[x],
        &[("global_pooling", AttrValue::Bool(true))],
    );
    c.infer().unwrap();
    assert_eq!(c.dims(y), [-1, 8, 1, 1]);
    assert_eq!(c.range(y), Some(vec![(1, 4), (8, 8), (1, 1), (1, 1)]));
}

#[test]
fn nms_rows_are_bounded_by_ranged_box_counts() {
    // boxes [1, ?, 4] with N in 0..=450 (an upstream TopK), one class, no
    // known max_output_boxes_per_class: at most 1 * 1 * 450 rows.
    let mut c = OpCase::new();
    let boxes = c.ranged_input(F32, &[1, -1, 4], &[(1, 1), (0, 450), (4, 4)]);
    let scores = c.input(F32, &[1, 1, -1]);
    let max_out = c.input(DataType::Int64, &[1]);
    let y = c.op("NonMaxSuppressionV6", &[boxes, scores, max_out], &[]);
    c.infer().unwrap();
    assert_eq!(c.dims(y), [-1, 3]);
    assert_eq!(c.range(y), Some(vec![(0, 450), (3, 3)]));

    // A known max_out below the box bound is the tighter; a known 0 gives
    // no rows whatever the other dims are.
    let mut c = OpCase::new();
    let boxes = c.ranged_input(F32, &[-1, -1, 4], &[(1, 2), (0, 450), (4, 4)]);
    let scores = c.input(F32, &[-1, 3, -1]);
    let max_out = c.ints(&[100], false);
    let y = c.op("NonMaxSuppressionV6", &[boxes, scores, max_out], &[]);
    c.infer().unwrap();
    assert_eq!(c.range(y), Some(vec![(0, 2 * 3 * 100), (3, 3)]));

    let mut c = OpCase::new();
    let (boxes, scores) = (c.input(F32, &[-1, -1, 4]), c.input(F32, &[-1, -1, -1]));
    let zero = c.ints(&[0], false);
    let y = c.op("NonMaxSuppressionV6", &[boxes, scores, zero], &[]);
    c.infer().unwrap();
    assert_eq!(c.dims(y), [0, 3]);

    // A known max_out bounds the rows even when nothing bounds the boxes.
    let mut c = OpCase::new();
    let (boxes, scores) = (c.input(F32, &[1, -1, 4]), c.input(F32, &[1, 2, -1]));
    let max_out = c.ints(&[10], false);
    let y = c.op("NonMaxSuppressionV6", &[boxes, scores, max_out], &[]);
    c.infer().unwrap();
    assert_eq!(c.range(y), Some(vec![(0, 2 * 10), (3, 3)]));

    // Nothing bounds the classes: no range.
    let mut c = OpCase::new();
    let (boxes, scores) = (c.input(F32, &[1, 5, 4]), c.input(F32, &[1, -1, 5]));
    let max_out = c.input(DataType::Int64, &[1]);
    let y = c.op("NonMaxSuppressionV6", &[boxes, scores, max_out], &[]);
    c.infer().unwrap();
    assert_eq!(c.range(y), None);
}

#[test]
fn resize_to_sizes_read_from_a_shape_takes_their_value_ranges() {
    // F.interpolate(pooled, size=features.shape[-2:]): pooled [B, 8, 1, 1],
    // features [B, 16, H, W] with H in 20..=40 and W in 10..=30.
    let mut c = OpCase::new();
    let pooled = c.ranged_input(F32, &[-1, 8, 1, 1], &[(1, 4), (8, 8), (1, 1), (1, 1)]);
    let features = c.ranged_input(
        F32,
        &[-1, 16, -1, -1],
        &[(1, 4), (16, 16), (20, 40), (10, 30)],
    );
    let int64 = [("out_type", AttrValue::DataType(DataType::Int64))];
    let axis = c.ints(&[0], false);
    let (first, last) = (c.ints(&[0, 1], true), c.ints(&[2, 3], true));
    let pooled_shape = c.op("Shape", &[pooled], &int64);
    let features_shape = c.op("Shape", &[features], &int64);
    let batch_channels = c.op("GatherV2", &[pooled_shape, first, axis], &[]);
    let height_width = c.op("GatherV2", &[features_shape, last, axis], &[]);
    let sizes = c.concat(&[batch_channels, height_width], 0);
    let spec = OpSpec {
        op_type: "Resize".into(),
        name: "up".into(),
        inputs: vec![
            PortInput::Single(Some(pooled)),
            PortInput::Single(None),
            PortInput::Single(None),
            PortInput::Single(Some(sizes)),
        ],
        ..OpSpec::default()
    };
    let up = OutputRef {
        node: add_op(&mut c.g, &c.r, spec).unwrap(),
        index: 0,
    };
    c.infer().unwrap();
    assert_eq!(c.dims(up), [-1, 8, -1, -1]);
    assert_eq!(c.range(up), Some(vec![(1, 4), (8, 8), (20, 40), (10, 30)]));
}

#[test]
fn a_cropped_unknown_dim_keeps_a_bounded_range() {
    // x: [?] with the dim in 0..=2, cropped by 3 at the start: the bound
    // goes below 0 and is clamped there, not read as "unbounded" (-1).
    let mut c = OpCase::new();
    let x = c.ranged_input(F32, &[-1], &[(0, 2)]);
    let pads = c.ints(&[-3, 0], true);
    let y = c.op("PadV3", &[x, pads], &[]);
    c.infer().unwrap();
    assert_eq!(c.range(y), Some(vec![(0, 0)]));
    // Padding moves both bounds.
    let mut c = OpCase::new();
    let x = c.ranged_input(F32, &[-1], &[(3, 10)]);
    let pads = c.ints(&[1, 2], true);
    let y = c.op("PadV3", &[x, pads], &[]);
    c.infer().unwrap();
    assert_eq!(c.range(y), Some(vec![(6, 13)]));
}
