//! MaxPoolV2, ResizeBicubic, CropAndResize, non-max suppression and L2Loss
//! on small graphs: shapes worked out by hand from TensorFlow's rules,
//! unknown values, ranges, and the invalid inputs each rejects.

use crate::prelude::*;
use crate::test_graphs::{infer_all, input, int_const, op, ranged_input};
use thin_vec::thin_vec;

const F32: DataType = DataType::Float;
const I32: DataType = DataType::Int32;

fn strs(pairs: &[(&str, &str)]) -> Attrs {
    pairs
        .iter()
        .map(|&(k, v)| (k, AttrValue::Str(v.into())))
        .collect()
}

/// MaxPoolV2 of an `x` (NHWC unless `attrs` say) with constant windows, or
/// with graph inputs for them when `None`.
fn max_pool_v2(
    x: &[i64],
    windows: Option<(&[i64], &[i64])>,
    attrs: Attrs,
) -> Result<Vec<i64>, String> {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", F32, x, Format::Nd);
    let (ksize, strides) = match windows {
        Some((k, s)) => (
            int_const(&mut g, "ksize", I32, &[k.len() as i64], k),
            int_const(&mut g, "strides", I32, &[s.len() as i64], s),
        ),
        None => (
            input(&mut g, "ksize", I32, &[4], Format::Nd),
            input(&mut g, "strides", I32, &[4], Format::Nd),
        ),
    };
    let y = op(&mut g, &r, "MaxPoolV2", "pool", &[x, ksize, strides], attrs);
    infer_all(&mut g, &r)?;
    Ok(g.tensor(y).shape().dims().to_vec())
}

#[test]
fn max_pool_v2_reads_its_windows_from_inputs() {
    let same = || strs(&[("padding", "SAME")]);
    // SAME: ceil(9 / 2) = 5, ceil(8 / 2) = 4.
    let k: &[i64] = &[1, 3, 3, 1];
    let s: &[i64] = &[1, 2, 2, 1];
    assert_eq!(
        max_pool_v2(&[2, 9, 8, 3], Some((k, s)), same()).unwrap(),
        [2, 5, 4, 3]
    );
    // VALID, NCHW: (9 - 3) / 2 + 1 = 4, (8 - 3) / 2 + 1 = 3.
    let nchw = strs(&[("padding", "VALID"), ("data_format", "NCHW")]);
    let (k, s): (&[i64], &[i64]) = (&[1, 1, 3, 3], &[1, 1, 2, 2]);
    assert_eq!(
        max_pool_v2(&[2, 3, 9, 8], Some((k, s)), nchw).unwrap(),
        [2, 3, 4, 3]
    );
    // Unknown windows: only N and C are known.
    assert_eq!(
        max_pool_v2(&[2, 9, 8, 3], None, same()).unwrap(),
        [2, -1, -1, 3]
    );
    let err = |k: &[i64], attrs: Attrs| {
        max_pool_v2(&[2, 9, 8, 3], Some((k, &[1, 2, 2, 1])), attrs).unwrap_err()
    };
    assert!(err(&[1, 3, 3, 2], same()).contains("must be 1 in the N and C positions"));
    assert!(err(&[1, 3, 3], same()).contains("ksize must be a vector of 4 values"));
    assert!(err(&[1, 0, 3, 1], same()).contains("must all be >= 1"));
    assert!(err(&[1, 3, 3, 1], strs(&[("padding", "EXPLICIT")])).contains("expected SAME or VALID"));
    assert!(err(
        &[1, 3, 3, 1],
        strs(&[("padding", "SAME"), ("data_format", "NCHW_VECT_C")])
    )
    .contains("data_format"));
}

#[test]
fn resize_bicubic_always_gives_float() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Uint8, &[1, 4, 4, 3], Format::Nd);
    let size = int_const(&mut g, "size", I32, &[2], &[9, 7]);
    let y = op(
        &mut g,
        &r,
        "ResizeBicubic",
        "resize",
        &[x, size],
        Attrs::new(),
    );
    infer_all(&mut g, &r).unwrap();
    assert_eq!(
        (g.tensor(y).dtype, g.tensor(y).shape().dims()),
        (F32, &[1, 9, 7, 3][..])
    );
}

/// CropAndResize of images `x` (in `format`) with boxes / box indices of
/// the given shapes and a constant crop size.
fn crop(
    x: &[i64],
    format: Format,
    boxes: &[i64],
    index: &[i64],
    size: &[i64],
    method: &str,
) -> Result<TensorDesc, String> {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Uint8, x, format);
    let boxes = ranged_input(&mut g, "boxes", F32, boxes, &[(1, 8), (4, 4)]);
    let index = input(&mut g, "index", I32, index, Format::Nd);
    let size = int_const(&mut g, "size", I32, &[size.len() as i64], size);
    let y = op(
        &mut g,
        &r,
        "CropAndResize",
        "crop",
        &[x, boxes, index, size],
        strs(&[("method", method)]),
    );
    infer_all(&mut g, &r)?;
    Ok(g.tensor(y).clone())
}

#[test]
fn crop_and_resize_gives_one_float_crop_per_box() {
    let y = crop(
        &[2, 9, 8, 3],
        Format::Nhwc,
        &[5, 4],
        &[-1],
        &[4, 6],
        "bilinear",
    )
    .unwrap();
    assert_eq!(
        (y.dtype, y.shape().dims(), y.origin_format),
        (F32, &[5, 4, 6, 3][..], Format::Nhwc)
    );
    // num_boxes unknown: its range comes from the boxes.
    let y = crop(
        &[2, 3, 9, 8],
        Format::Nchw,
        &[-1, 4],
        &[-1],
        &[4, 6],
        "nearest",
    )
    .unwrap();
    assert_eq!(
        (y.shape().dims(), y.origin_format),
        (&[-1, 3, 4, 6][..], Format::Nchw)
    );
    assert_eq!(
        y.shape_range,
        Some(thin_vec![(1, 8), (3, 3), (4, 4), (6, 6)])
    );
    let err = |boxes: &[i64], index: &[i64], size: &[i64], method: &str| {
        crop(&[2, 9, 8, 3], Format::Nhwc, boxes, index, size, method).unwrap_err()
    };
    assert!(err(&[5, 4], &[6], &[4, 6], "bilinear")
        .contains("boxes and box_index disagree on num_boxes"));
    assert!(err(&[5, 3], &[5], &[4, 6], "bilinear").contains("[num_boxes, 4]"));
    assert!(err(&[5, 4], &[5], &[0, 6], "bilinear").contains("crop_size (0, 6) must be positive"));
    assert!(
        err(&[5, 4], &[5], &[4, 6, 1], "bilinear").contains("crop_size must be a 2-element vector")
    );
    assert!(err(&[5, 4], &[5], &[4, 6], "bicubic").contains("method is 'bicubic'"));
}

/// The outputs of `op_type` on boxes / scores of the given shapes (with
/// ranges when given) and a max_output_size (a graph input when `None`).
fn nms(
    op_type: &str,
    boxes: (&[i64], Option<(i64, i64)>),
    scores: &[i64],
    max_output_size: Option<i64>,
    padded: bool,
) -> Result<Vec<TensorDesc>, String> {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let b = match boxes.1 {
        Some(range) => ranged_input(&mut g, "boxes", F32, boxes.0, &[range, (4, 4)]),
        None => input(&mut g, "boxes", F32, boxes.0, Format::Nd),
    };
    let s = input(&mut g, "scores", F32, scores, Format::Nd);
    let m = match max_output_size {
        Some(m) => int_const(&mut g, "max", I32, &[], &[m]),
        None => input(&mut g, "max", I32, &[], Format::Nd),
    };
    let scalar = |g: &mut Graph, name: &str| input(g, name, F32, &[], Format::Nd);
    let mut inputs = vec![b, s, m];
    let thresholds = match op_type {
        "NonMaxSuppressionV5" => 3,
        "NonMaxSuppressionV2" => 1,
        _ => 2,
    };
    for k in 0..thresholds {
        inputs.push(scalar(&mut g, &format!("t{k}")));
    }
    let mut attrs = Attrs::new();
    if padded {
        attrs.set("pad_to_max_output_size", AttrValue::Bool(true));
    }
    let y = op(&mut g, &r, op_type, "nms", &inputs, attrs);
    infer_all(&mut g, &r)?;
    Ok(g.node(y.node).outputs.to_vec())
}

#[test]
fn non_max_suppression_keeps_at_most_max_output_size_boxes() {
    let v3 = |boxes, max| nms("NonMaxSuppressionV3", boxes, &[-1], max, false).unwrap();
    let out = v3((&[10, 4], None), Some(5));
    assert_eq!((out[0].dtype, out[0].shape().dims()), (I32, &[-1][..]));
    assert_eq!(out[0].shape_range, Some(thin_vec![(0, 5)]));
    // Fewer boxes than max_output_size: the boxes bound it.
    assert_eq!(
        v3((&[10, 4], None), Some(20))[0].shape_range,
        Some(thin_vec![(0, 10)])
    );
    assert_eq!(
        v3((&[-1, 4], Some((2, 7))), None)[0].shape_range,
        Some(thin_vec![(0, 7)])
    );
    assert_eq!(v3((&[-1, 4], None), None)[0].shape_range, None);
    // Padded: exactly max_output_size, and the valid count as a scalar.
    let out = nms(
        "NonMaxSuppressionV4",
        (&[-1, 4], None),
        &[-1],
        Some(5),
        true,
    )
    .unwrap();
    assert_eq!(
        (out[0].shape().dims(), out[1].shape().dims()),
        (&[5][..], &[][..])
    );
    let out = nms("NonMaxSuppressionV5", (&[6, 4], None), &[6], Some(3), false).unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(
        (out[1].dtype, out[1].shape_range.clone()),
        (F32, Some(thin_vec![(0, 3)]))
    );
    assert_eq!(out[2].shape().dims(), &[] as &[i64]);
    let out = nms("NonMaxSuppressionV2", (&[6, 4], None), &[6], None, false).unwrap();
    assert_eq!(out[0].shape_range, Some(thin_vec![(0, 6)]));
}

#[test]
fn non_max_suppression_rejects_misshapen_inputs() {
    let err = |boxes: &[i64], scores: &[i64], max| {
        nms("NonMaxSuppressionV3", (boxes, None), scores, max, false).unwrap_err()
    };
    assert!(err(&[10, 4], &[9], Some(5)).contains("boxes and scores disagree on num_boxes"));
    assert!(err(&[10, 5], &[10], Some(5)).contains("[num_boxes, 4]"));
    assert!(err(&[10, 4], &[10, 1], Some(5)).contains("scores must be 1-D"));
    assert!(err(&[10, 4], &[10], Some(-1)).contains("max_output_size must be >= 0"));
}

#[test]
fn l2_loss_is_a_scalar_of_the_input_dtype() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float16, &[-1, 3], Format::Nd);
    let y = op(&mut g, &r, "L2Loss", "loss", &[x], Attrs::new());
    infer_all(&mut g, &r).unwrap();
    assert_eq!(
        (g.tensor(y).dtype, g.tensor(y).shape().dims()),
        (DataType::Float16, &[][..])
    );
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", I32, &[3], Format::Nd);
    op(&mut g, &r, "L2Loss", "loss", &[x], Attrs::new());
    assert!(infer_all(&mut g, &r).is_err());
}

/// CombinedNonMaxSuppression's outputs for boxes / scores of the given
/// shapes and the two sizes (graph inputs when `None`).
fn combined(
    boxes: &[i64],
    scores: &[i64],
    per_class: Option<i64>,
    total: Option<i64>,
    pad_per_class: bool,
) -> Result<Vec<Vec<i64>>, String> {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let b = input(&mut g, "boxes", F32, boxes, Format::Nd);
    let s = input(&mut g, "scores", F32, scores, Format::Nd);
    let mut size = |name: &str, v: Option<i64>| match v {
        Some(v) => int_const(&mut g, name, I32, &[], &[v]),
        None => input(&mut g, name, I32, &[], Format::Nd),
    };
    let (p, t) = (size("per_class", per_class), size("total", total));
    let iou = input(&mut g, "iou", F32, &[], Format::Nd);
    let score = input(&mut g, "score", F32, &[], Format::Nd);
    let attrs: Attrs = [("pad_per_class", AttrValue::Bool(pad_per_class))]
        .into_iter()
        .collect();
    let y = op(
        &mut g,
        &r,
        "CombinedNonMaxSuppression",
        "nms",
        &[b, s, p, t, iou, score],
        attrs,
    );
    infer_all(&mut g, &r)?;
    Ok(g.node(y.node)
        .outputs
        .iter()
        .map(|d| d.shape().dims().to_vec())
        .collect())
}

#[test]
fn combined_non_max_suppression_pads_to_the_total() {
    let out = combined(&[2, 6, 1, 4], &[2, 6, 3], Some(4), Some(5), false).unwrap();
    assert_eq!(out, vec![vec![2, 5, 4], vec![2, 5], vec![2, 5], vec![2]]);
    // Per class: min(5, 1 * 3 classes).
    let out = combined(&[-1, 6, 3, 4], &[-1, -1, 3], Some(1), Some(5), true).unwrap();
    assert_eq!(out[0], [-1, 3, 4]);
    assert_eq!(
        combined(&[2, 6, 1, 4], &[2, 6, 3], Some(4), None, false).unwrap()[1],
        [2, -1]
    );
    assert_eq!(
        combined(&[2, 6, 1, 4], &[2, 6, -1], Some(4), Some(5), true).unwrap()[1],
        [2, -1]
    );
    let err = |boxes: &[i64], per_class, total, pad| {
        combined(boxes, &[2, 6, 3], per_class, total, pad).unwrap_err()
    };
    assert!(
        err(&[2, 6, 2, 4], Some(4), Some(5), false).contains("must be 1 or the number of classes")
    );
    assert!(err(&[2, 5, 1, 4], Some(4), Some(5), false).contains("disagree on num_boxes"));
    assert!(err(&[3, 6, 1, 4], Some(4), Some(5), false).contains("disagree on the batch"));
    assert!(err(&[2, 6, 1, 4], Some(4), Some(0), false).contains("max_total_size must be > 0"));
    assert!(err(&[2, 6, 1, 4], Some(0), Some(5), true)
        .contains("max_output_size_per_class must be > 0"));
}
