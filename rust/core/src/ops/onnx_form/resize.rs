//! `Resize` serves ONNX Resize (opsets 10, 11, 13, 18, 19) and `Upsample`
//! ONNX Upsample (opsets 7–9). Unlike TensorFlow's ResizeBilinear & co.
//! (4-D images, a 2-value `size`), they resize any axes of an N-d `x` by
//! `scales` (FLOAT, `floor(d * scale)`) or to `sizes` (INT64, with
//! `keep_aspect_ratio_policy`), restricted to `axes` (opset 18).
//!
//! Resize's inputs: x, roi (OPTIONAL), scales (OPTIONAL), sizes (OPTIONAL);
//! exactly one of scales / sizes must be given, an empty tensor counting as
//! absent (exporters write empty scales). The output size from scales
//! ignores roi, as onnx.reference and onnxruntime do (the spec's formula
//! multiplies by the roi extent for tf_crop_and_resize). The interpolation
//! attributes only affect values and are kept for the device passes.

use super::values::{floats, given};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::array::host::Elems;
use crate::ops::common::normalize_axis;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

const ROI_TYPES: &[DataType] = &[DataType::Float16, DataType::Float, DataType::Double];

pub(super) fn schemas() -> Vec<OpSchema> {
    let s = |v: &str| Some(AttrValue::Str(v.into()));
    let resize = OpSchema::new("Resize")
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("roi", ParamType::Optional).dtype_list(ROI_TYPES))
        .input(
            PortDef::new("scales", ParamType::Optional)
                .dtype_list(&[DataType::Float])
                .value_depend(ValueDepend::Optional),
        )
        .input(
            PortDef::new("sizes", ParamType::Optional)
                .dtype_list(&[DataType::Int64])
                .value_depend(ValueDepend::Optional),
        )
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("mode", AttrType::Str, s("nearest"))
        .attr(
            "coordinate_transformation_mode",
            AttrType::Str,
            s("half_pixel"),
        )
        .attr("nearest_mode", AttrType::Str, s("round_prefer_floor"))
        .attr(
            "cubic_coeff_a",
            AttrType::Float,
            Some(AttrValue::Float(-0.75)),
        )
        .attr("exclude_outside", AttrType::Int, Some(AttrValue::Int(0)))
        .attr(
            "extrapolation_value",
            AttrType::Float,
            Some(AttrValue::Float(0.0)),
        )
        .attr("antialias", AttrType::Int, Some(AttrValue::Int(0)))
        .attr(
            "axes",
            AttrType::ListInt,
            Some(AttrValue::ListInt(Vec::new())),
        )
        .attr("keep_aspect_ratio_policy", AttrType::Str, s("stretch"))
        .verify(op_fn(verify_resize))
        .infer_shape(op_fn(infer_resize));
    let upsample = OpSchema::new("Upsample")
        .input(PortDef::new("x", ParamType::Required))
        .input(
            PortDef::new("scales", ParamType::Optional)
                .dtype_list(&[DataType::Float])
                .value_depend(ValueDepend::Optional),
        )
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("mode", AttrType::Str, s("nearest"))
        // Opset 7's attribute form; opset 9 moved scales to the input.
        .attr(
            "scales",
            AttrType::ListFloat,
            Some(AttrValue::ListFloat(Vec::new())),
        )
        .infer_shape(op_fn(infer_upsample));
    vec![resize, upsample]
}

fn verify_resize(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let mode = ctx.attr_str("mode")?;
    if !matches!(mode, "nearest" | "linear" | "cubic") {
        bail!("mode is '{mode}', expected nearest, linear or cubic");
    }
    let policy = ctx.attr_str("keep_aspect_ratio_policy")?;
    if !matches!(policy, "stretch" | "not_larger" | "not_smaller") {
        bail!(
            "keep_aspect_ratio_policy is '{policy}', expected stretch, not_larger or not_smaller"
        );
    }
    match (given(ctx, 2), given(ctx, 3)) {
        (Some(true), Some(true)) => bail!("both scales and sizes are given; exactly one must be"),
        (Some(false), Some(false)) => {
            bail!("neither scales nor sizes is given (empty counts as absent); exactly one must be")
        }
        _ => Ok(()),
    }
}

/// `floor(d * scale)` for a known dim; unknown stays unknown. The product
/// is taken in float32, as onnxruntime takes it (ONNX's scales are
/// float32): exporters compute a scale as `out / in`, and 11 × (21 / 11)
/// is 21 in float32 but 20.9999996 in float64.
#[allow(
    clippy::cast_possible_truncation,
    reason = "the product is checked finite and inside the int64 range first"
)]
#[allow(
    clippy::cast_precision_loss,
    reason = "float32 is the precision the product is defined in"
)]
fn scaled_dim(d: i64, scale: f64) -> Result<i64, OpError> {
    if !(scale > 0.0 && scale.is_finite()) {
        bail!("scale {scale} must be a finite value > 0");
    }
    if d == UNKNOWN_DIM {
        return Ok(UNKNOWN_DIM);
    }
    let out = f64::from(d as f32 * scale as f32).floor();
    if !(0.0..9.0e18).contains(&out) {
        bail!("the output size {d} * {scale} overflows int64");
    }
    Ok(out as i64)
}

/// `axes` normalised against `rank` (all axes when empty), no repeats.
fn resize_axes(ctx: &OpContext<'_>, rank: usize) -> Result<Vec<usize>, OpError> {
    let axes = ctx.attr_ints("axes")?;
    if axes.is_empty() {
        return Ok((0..rank).collect());
    }
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let a = normalize_axis(a, rank)?;
        if out.contains(&a) {
            bail!("axes {axes:?} repeats axis {a}");
        }
        out.push(a);
    }
    Ok(out)
}

/// The rank of x, or of the output implied by a scales/sizes vector when
/// x's rank is unknown and there are no axes.
fn output_rank(ctx: &OpContext<'_>, vector_len: Option<usize>) -> Result<Option<usize>, OpError> {
    if let Some(rank) = ctx.input_shape(0)?.rank() {
        return Ok(Some(rank));
    }
    Ok(if ctx.attr_ints("axes")?.is_empty() {
        vector_len
    } else {
        None
    })
}

/// Length of 1-D input `i`, checked to be a vector.
fn vector_len(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<Option<usize>, OpError> {
    let shape = ctx.input_shape(i)?;
    match shape.rank() {
        None => Ok(None),
        Some(1) => Ok(usize::try_from(shape.dims()[0]).ok()),
        Some(_) => bail!("{name} must be 1-D, got shape {shape}"),
    }
}

fn infer_resize(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let use_sizes = match (given(ctx, 2), given(ctx, 3)) {
        (Some(true), _) => false,
        (_, Some(true)) => true,
        // Unknown lengths: the one with a value (else the sizes input when connected).
        _ => ctx.input_value(2).is_none() && ctx.input_desc(3).is_some(),
    };
    let input = if use_sizes { 3 } else { 2 };
    let name = if use_sizes { "sizes" } else { "scales" };
    let len = vector_len(ctx, input, name)?;
    let Some(rank) = output_rank(ctx, len)? else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let axes = resize_axes(ctx, rank)?;
    if let Some(n) = len.filter(|&n| n != axes.len()) {
        bail!(
            "{name} has {n} values, expected {} (one per resized axis)",
            axes.len()
        );
    }
    let x = ctx.input_shape(0)?;
    let mut out: Vec<i64> = if x.is_unknown_rank() {
        vec![UNKNOWN_DIM; rank]
    } else {
        x.dims().to_vec()
    };
    let value = ctx.input_value(input);
    // Known scales, for the shape ranges of the resized axes.
    let mut known_scales = None;
    if use_sizes {
        let sizes = value.and_then(|v| v.to_ints());
        // Exporters build sizes as Concat(Shape(x)[:2], computed dims): the
        // folded shape value keeps the entries that are known.
        let partial = ctx
            .input_shape_value(3)
            .filter(|v| v.rank() == Some(axes.len()))
            .filter(|_| stretch(ctx));
        match (sizes, partial) {
            (Some(sizes), _) => sized(ctx, &mut out, &axes, &sizes)?,
            (None, Some(partial)) => {
                for (&a, &d) in axes.iter().zip(partial.dims()) {
                    out[a] = d;
                }
            }
            (None, None) => axes.iter().for_each(|&a| out[a] = UNKNOWN_DIM),
        }
    } else {
        let scales = value.and_then(floats);
        match scales {
            Some(scales) => {
                check_len(&scales, &axes, name)?;
                for (&a, &s) in axes.iter().zip(&scales) {
                    out[a] = scaled_dim(out[a], s)?;
                }
                known_scales = Some(scales);
            }
            None => axes.iter().for_each(|&a| out[a] = UNKNOWN_DIM),
        }
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    // Sizes read from a shape (`Shape(features)[2:]`) have value ranges:
    // under "stretch" each output dim is its entry.
    let size_bounds = (use_sizes && stretch(ctx))
        .then(|| Elems::vector_bounds(ctx, 3))
        .flatten()
        .filter(|b| b.len() == axes.len());
    if ranges::wanted(ctx, 0) || size_bounds.is_some() {
        if let Some(mut r) = ranges::of_input(ctx, 0).filter(|r| r.len() == rank) {
            for (i, &a) in axes.iter().enumerate() {
                let scale = known_scales.as_ref().and_then(|s| s.get(i));
                r[a] = match (scale, size_bounds.as_ref().and_then(|b| b.get(i))) {
                    (Some(&s), _) => ranges::monotonic(r[a], |d| scaled_dim(d, s)),
                    (None, Some(&bound)) => bound,
                    // A known output dim is pinned when the range is set.
                    (None, None) => ranges::ANY,
                };
            }
            ranges::set_if_bounded(ctx, 0, r)?;
        }
    }
    Ok(())
}

/// Whether `sizes` are the output dims themselves (the default policy).
fn stretch(ctx: &OpContext<'_>) -> bool {
    ctx.attr_str("keep_aspect_ratio_policy").ok() == Some("stretch")
}

fn check_len<T>(values: &[T], axes: &[usize], name: &str) -> Result<(), OpError> {
    if values.len() != axes.len() {
        bail!(
            "{name} has {} values, expected {} (one per resized axis)",
            values.len(),
            axes.len()
        );
    }
    Ok(())
}

/// Output dims from `sizes` under `keep_aspect_ratio_policy`: stretch sets
/// them; not_larger / not_smaller scale every resized axis by the min / max
/// of `sizes[i] / in[axes[i]]` and round half up.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    reason = "the rounded value is checked inside the int64 range first"
)]
fn sized(
    ctx: &OpContext<'_>,
    out: &mut [i64],
    axes: &[usize],
    sizes: &[i64],
) -> Result<(), OpError> {
    check_len(sizes, axes, "sizes")?;
    if let Some(s) = sizes.iter().find(|&&s| s < 0) {
        bail!("sizes {sizes:?} has {s}; every size must be >= 0");
    }
    let policy = ctx.attr_str("keep_aspect_ratio_policy")?;
    if policy == "stretch" {
        for (&a, &s) in axes.iter().zip(sizes) {
            out[a] = s;
        }
        return Ok(());
    }
    if axes.iter().any(|&a| out[a] == UNKNOWN_DIM) {
        axes.iter().for_each(|&a| out[a] = UNKNOWN_DIM);
        return Ok(());
    }
    let ratios = axes
        .iter()
        .zip(sizes)
        .map(|(&a, &s)| s as f64 / out[a] as f64);
    let scale = if policy == "not_larger" {
        ratios.fold(f64::INFINITY, f64::min)
    } else {
        ratios.fold(f64::NEG_INFINITY, f64::max)
    };
    for &a in axes {
        let v = (scale * out[a] as f64 + 0.5).floor();
        if !(0.0..9.0e18).contains(&v) {
            bail!("the output size {} * {scale} is not a valid dim", out[a]);
        }
        out[a] = v as i64;
    }
    Ok(())
}

fn infer_upsample(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let attr_scales = super::values::attr_floats(ctx, "scales")?;
    let scales = if ctx.input_desc(1).is_some() {
        vector_len(ctx, 1, "scales")?;
        ctx.input_value(1).and_then(floats)
    } else if attr_scales.is_empty() {
        bail!("scales is neither an input nor an attribute");
    } else {
        Some(attr_scales)
    };
    let x = ctx.input_shape(0)?;
    let out = match (x.rank(), scales) {
        (None, None) => Shape::unknown_rank(),
        (Some(r), None) => Shape::unknown_dims(r),
        (rank, Some(scales)) => {
            if let Some(r) = rank.filter(|&r| r != scales.len()) {
                bail!(
                    "scales has {} values, expected one per dim of x (rank {r})",
                    scales.len()
                );
            }
            let dims: Vec<i64> = match rank {
                Some(_) => x.dims().to_vec(),
                None => vec![UNKNOWN_DIM; scales.len()],
            };
            let dims = dims
                .iter()
                .zip(&scales)
                .map(|(&d, &s)| scaled_dim(d, s))
                .collect::<Result<Vec<_>, _>>()?;
            Shape::from_dims(dims)
        }
    };
    ctx.set_output_shape(0, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_sizes_are_float32_products_as_onnxruntime_takes_them() {
        // LRASPP (opset 9) upsamples 11 to 21 by the scale 21 / 11 it
        // computes in float32; in float64 the product floors to 20.
        assert_eq!(scaled_dim(11, f64::from(21f32 / 11f32)).unwrap(), 21);
        assert_eq!(scaled_dim(10, 2.0).unwrap(), 20);
        assert_eq!(scaled_dim(5, 0.5).unwrap(), 2);
        assert_eq!(scaled_dim(UNKNOWN_DIM, 3.0).unwrap(), UNKNOWN_DIM);
        assert!(scaled_dim(4, 0.0).is_err());
    }
}
