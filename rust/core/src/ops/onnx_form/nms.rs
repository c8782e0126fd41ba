//! `NonMaxSuppressionV6` serves ONNX NonMaxSuppression (opsets 10–11):
//! boxes `[B, N, 4]`, scores `[B, C, N]`, and OPTIONAL
//! max_output_boxes_per_class (INT64 scalar or `[1]`, value-depend; absent
//! means 0, no output), iou_threshold and score_threshold. The output
//! `selected_indices` is INT64 `[-1, 3]` (batch, class, box) with the first
//! dim in `[0, B * C * min(N, max_output_boxes_per_class)]` when those are
//! known. Unlike TensorFlow's NonMaxSuppressionV3–V5 (one image, 2-D boxes,
//! 1-D scores, a selected-box list) it is batched and per class.

use super::dims::merge_dim;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

const FLOATS: &[DataType] = &[DataType::Float16, DataType::Float, DataType::Double];

pub(super) fn schemas() -> Vec<OpSchema> {
    let threshold = |name: &str| PortDef::new(name, ParamType::Optional).dtype_list(FLOATS);
    let nms = OpSchema::new("NonMaxSuppressionV6")
        .input(PortDef::new("boxes", ParamType::Required).dtype_list(FLOATS))
        .input(PortDef::new("scores", ParamType::Required).dtype_list(FLOATS))
        .input(
            PortDef::new("max_output_boxes_per_class", ParamType::Optional)
                .dtype_list(&[DataType::Int32, DataType::Int64])
                .value_depend(ValueDepend::Optional),
        )
        .input(threshold("iou_threshold"))
        .input(threshold("score_threshold"))
        .output(
            PortDef::new("selected_indices", ParamType::Required).dtype_list(&[DataType::Int64]),
        )
        .attr("center_point_box", AttrType::Int, Some(AttrValue::Int(0)))
        .infer_shape(op_fn(infer_nms));
    vec![nms]
}

fn rank3(shape: &Shape, what: &str) -> Result<[i64; 3], OpError> {
    match shape.dims() {
        _ if shape.is_unknown_rank() => Ok([UNKNOWN_DIM; 3]),
        &[a, b, c] => Ok([a, b, c]),
        _ => bail!("{what} must be 3-D, got shape {shape}"),
    }
}

/// A scalar or 1-element input's shape check.
fn check_scalar(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<(), OpError> {
    if let Some(desc) = ctx.input_desc(i) {
        let shape = desc.shape();
        if !shape.is_unknown_rank() && !matches!(shape.dims(), [] | [1] | [UNKNOWN_DIM]) {
            bail!("{name} must be a scalar or a 1-element vector, got shape {shape}");
        }
    }
    Ok(())
}

/// Per axis of 3-D input `i`, the upper end of its range (None: unbounded,
/// or the rank is not 3).
fn upper_bounds(ctx: &OpContext<'_>, i: usize) -> [Option<i64>; 3] {
    match ranges::of_input(ctx, i).as_deref() {
        Some(&[a, b, c]) => [a, b, c].map(|(_, hi)| (hi != ranges::UNBOUNDED).then_some(hi)),
        _ => [None; 3],
    }
}

/// A dim's upper bound: the dim when known, else its range's.
fn bound_of(dim: i64, range_hi: Option<i64>) -> Option<i64> {
    if dim == UNKNOWN_DIM {
        range_hi
    } else {
        Some(dim)
    }
}

fn tighter(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn infer_nms(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let center = ctx.attr_int("center_point_box")?;
    if !matches!(center, 0 | 1) {
        bail!("center_point_box is {center}, expected 0 or 1");
    }
    let [b, n, four] = rank3(ctx.input_shape(0)?, "boxes ([B, N, 4])")?;
    if four != UNKNOWN_DIM && four != 4 {
        bail!(
            "boxes must have 4 coordinates in the last dim, got shape {}",
            ctx.input_shape(0)?
        );
    }
    let [sb, c, sn] = rank3(ctx.input_shape(1)?, "scores ([B, C, N])")?;
    let b = merge_dim(b, sb, "the batch of boxes and scores differs")?;
    let n = merge_dim(n, sn, "the box count of boxes and scores differs")?;
    for (i, name) in [
        (2, "max_output_boxes_per_class"),
        (3, "iou_threshold"),
        (4, "score_threshold"),
    ] {
        check_scalar(ctx, i, name)?;
    }
    // Absent: ONNX's default 0 (no boxes). A negative value selects none.
    let max_out = match ctx.input_desc(2) {
        None => Some(0),
        Some(_) => match ctx.input_value(2).and_then(|v| v.to_ints()).as_deref() {
            Some(&[v]) => Some(v.max(0)),
            _ => None,
        },
    };
    // Rows: at most B * C * min(N, max_out), each factor bounded by its
    // known dim or the upper end of its input range (a box count bounded
    // by an upstream NonZero or TopK bounds the selection).
    let boxes_hi = upper_bounds(ctx, 0);
    let scores_hi = upper_bounds(ctx, 1);
    let batch_hi = tighter(bound_of(b, boxes_hi[0]), bound_of(b, scores_hi[0]));
    let classes_hi = bound_of(c, scores_hi[1]);
    let boxes_per_class = tighter(bound_of(n, boxes_hi[1]), bound_of(n, scores_hi[2]));
    let per_class = match (max_out, boxes_per_class) {
        (Some(m), Some(h)) => Some(m.min(h)),
        (Some(m), None) => Some(m),
        (None, h) => h,
    };
    let factors = [batch_hi, classes_hi, per_class];
    let bound = if factors.contains(&Some(0)) {
        Some(0)
    } else {
        factors
            .into_iter()
            .try_fold(1i64, |acc, f| acc.checked_mul(f?))
    };
    let rows = match bound {
        Some(0) => 0,
        _ => UNKNOWN_DIM,
    };
    ctx.set_output_shape(0, Shape::from_dims([rows, 3]))?;
    if rows == UNKNOWN_DIM {
        if let Some(hi) = bound {
            ctx.set_output_shape_range(0, vec![(0, hi), (3, 3)])?;
        }
    }
    Ok(())
}
