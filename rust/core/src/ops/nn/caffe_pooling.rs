//! GE's Pooling, the Caffe pooling layer: `mode` 0 max / 1 avg (and 2,
//! Caffe's stochastic pooling, whose inference form is an average weighted
//! by the activations), `window`, `stride` (H, W), `pad` (top, bottom, left,
//! right), `global_pooling`, and `ceil_mode` 0 (round up, Caffe's rule) or 1
//! (round down).

use super::dims::with_rank;
use super::window::{layout, to_i64};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    use DataType::*;
    let ints = |v: &[i64]| Some(AttrValue::ListInt(v.to_vec()));
    let pooling = OpSchema::new("Pooling")
        .input(PortDef::new("x", ParamType::Required).dtypes(&[Float16, Float, Int8]))
        .output(PortDef::new("y", ParamType::Required).dtypes(&[Float16, Float, Int32]))
        .attr("mode", AttrType::Int, Some(AttrValue::Int(0)))
        .attr(
            "global_pooling",
            AttrType::Bool,
            Some(AttrValue::Bool(false)),
        )
        .attr("window", AttrType::ListInt, ints(&[1, 1]))
        .attr("stride", AttrType::ListInt, ints(&[1, 1]))
        .attr("pad", AttrType::ListInt, ints(&[0, 0, 0, 0]))
        .attr("dilation", AttrType::ListInt, ints(&[1, 1, 1, 1]))
        .attr("ceil_mode", AttrType::Int, Some(AttrValue::Int(0)))
        .attr(
            "data_format",
            AttrType::Str,
            Some(AttrValue::Str("NCHW".into())),
        )
        .verify(op_fn(verify_pooling))
        .infer_shape(op_fn(infer_pooling));
    vec![pooling]
}

fn verify_pooling(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let mode = ctx.attr_int("mode")?;
    if !(0..=2).contains(&mode) {
        bail!("mode is {mode}, expected 0 (max), 1 (avg) or 2 (stochastic)");
    }
    let ceil_mode = ctx.attr_int("ceil_mode")?;
    if !(0..=1).contains(&ceil_mode) {
        bail!("ceil_mode is {ceil_mode}, expected 0 (round up) or 1 (round down)");
    }
    layout(ctx.attr_str("data_format")?, 4)?;
    for (name, len, min) in [("window", 2, 1), ("stride", 2, 1), ("pad", 4, 0)] {
        let v = ctx.attr_ints(name)?;
        if v.len() != len {
            bail!("{name} has {} values, expected {len}", v.len());
        }
        if v.iter().any(|&x| x < min) {
            bail!("{name} {v:?} must all be >= {min}");
        }
    }
    let (window, pad) = (ctx.attr_ints("window")?, ctx.attr_ints("pad")?);
    // Caffe: "pad_h_ < kernel_h_" — a window may not lie wholly in padding.
    if !ctx.attr_bool("global_pooling")?
        && (pad[0].max(pad[1]) >= window[0] || pad[2].max(pad[3]) >= window[1])
    {
        bail!("pad {pad:?} must be smaller than the window {window:?}");
    }
    Ok(())
}

/// Caffe's pooled size: `ceil((in + pads - k) / s) + 1` (or floor), less one
/// when the last window would start in the bottom/right padding, so every
/// window starts inside the (top/left-padded) input. Caffe applies that clip
/// only to padded layers, but then to both dims (`if (pad_h_ || pad_w_)`):
/// `clip` says whether the layer has any padding.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; stride was checked >= 1 in verify"
)]
pub(super) fn pooled_dim(
    input: i64,
    kernel: i64,
    stride: i64,
    (before, after): (i64, i64),
    ceil: bool,
    clip: bool,
) -> Result<i64, OpError> {
    if input == UNKNOWN_DIM {
        return Ok(UNKNOWN_DIM);
    }
    let (input, kernel, stride) = (input as i128, kernel as i128, stride as i128);
    let (before, after) = (before as i128, after as i128);
    let span = input + before + after - kernel;
    if span < 0 {
        bail!(
            "the window {kernel} is larger than the padded input {}",
            input + before + after
        );
    }
    let mut out = if ceil {
        (span + stride - 1) / stride + 1
    } else {
        span / stride + 1
    };
    if clip && (out - 1) * stride >= input + before {
        out -= 1;
    }
    to_i64(out)
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_pooling(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let layout = layout(ctx.attr_str("data_format")?, 4)?;
    let x = with_rank(ctx.input_shape(0)?, 4, "input 'x'")?;
    let (window, stride, pad) = (
        ctx.attr_ints("window")?,
        ctx.attr_ints("stride")?,
        ctx.attr_ints("pad")?,
    );
    let global = ctx.attr_bool("global_pooling")?;
    let ceil = ctx.attr_int("ceil_mode")? == 0;
    let clip = pad.iter().any(|&p| p > 0);
    let mut out = x.clone();
    for (i, &axis) in layout.spatial.iter().enumerate() {
        out[axis] = if global {
            1
        } else {
            pooled_dim(
                x[axis],
                window[i],
                stride[i],
                (pad[2 * i], pad[2 * i + 1]),
                ceil,
                clip,
            )?
        };
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    // Global pooling makes H and W 1 (pinned by the shape); otherwise the
    // pooled size is non-decreasing in the input size.
    let dims: Vec<_> = (0..2)
        .map(|i| {
            let pads = (pad[2 * i], pad[2 * i + 1]);
            move |d: i64| pooled_dim(d, window[i], stride[i], pads, ceil, clip)
        })
        .collect();
    let spatial: Vec<(usize, super::range_rules::DimFn<'_>)> = if global {
        Vec::new()
    } else {
        layout
            .spatial
            .iter()
            .copied()
            .zip(dims.iter().map(|f| f as _))
            .collect()
    };
    super::range_rules::windowed(ctx, 4, None, &spatial)?;
    ctx.set_output_format(0, layout.format)
}

#[cfg(test)]
mod tests {
    use super::pooled_dim;

    #[test]
    fn caffe_rounding_and_clipping() {
        // GoogLeNet pool1/3x3_s2: 112 -> 56 (ceil((112 - 3) / 2) + 1).
        assert_eq!(pooled_dim(112, 3, 2, (0, 0), true, false).unwrap(), 56);
        assert_eq!(pooled_dim(112, 3, 2, (0, 0), false, false).unwrap(), 55);
        // 3x3 s1 p1 keeps the size.
        assert_eq!(pooled_dim(28, 3, 1, (1, 1), true, true).unwrap(), 28);
        // in 5, k 2, s 2, p 1: ceil(5/2)+1 = 4, but window 3 would start at
        // 6 >= 5 + 1, so Caffe clips it to 3.
        assert_eq!(pooled_dim(5, 2, 2, (1, 1), true, true).unwrap(), 3);
        assert_eq!(pooled_dim(-1, 3, 2, (0, 0), true, false).unwrap(), -1);
        assert!(pooled_dim(2, 3, 1, (0, 0), true, false).is_err());
    }

    #[test]
    fn caffe_clips_an_unpadded_dim_when_the_other_is_padded() {
        // in 5, k 1, s 3, no padding on this dim: ceil(4/3)+1 = 3, and the
        // last window starts at 6 >= 5. Unpadded layers keep it (Caffe only
        // clips when pad_h or pad_w is set); a layer padded on the other
        // dim clips it to 2.
        assert_eq!(pooled_dim(5, 1, 3, (0, 0), true, false).unwrap(), 3);
        assert_eq!(pooled_dim(5, 1, 3, (0, 0), true, true).unwrap(), 2);
    }
}
