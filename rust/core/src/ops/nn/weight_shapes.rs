//! The weight shapes Caffe's weighted layers need, from their attributes
//! and their inferred data input (`OpSchema::weight_shapes`): what a deploy
//! prototxt without its .caffemodel leaves unknown. NCHW as Caffe lays it
//! out; each function returns `(input index, shape)` pairs, -1 where the
//! input does not tell.
//!
//! | op (Caffe layer) | weights |
//! |---|---|
//! | Conv2D (Convolution) | filter 1: `[num_output, C / group, kh, kw]` |
//! | Deconvolution | filter 1: `[C, num_output / group, kh, kw]` |
//! | FullyConnection (InnerProduct) | w 1: `[num_output, K]`, `transpose`: `[K, num_output]`; K = x's dims from `axis` multiplied |
//! | BNInference (BatchNorm) | mean 1, variance 2: `[C]` |
//! | Scale / Bias | 1 (and Scale's bias 2): x's dims `axis .. axis + num_axes` (-1: to the end) |
//! | PRelu (PReLU) | weight 1: `[C]` unless channel-shared (a scalar, already known) |

use crate::infer::OpContext;
use crate::op::OpError;
use crate::ops::common::{mul_dims, normalize_axis};
use crate::types::{Shape, UNKNOWN_DIM};

type Weights = Result<Vec<(usize, Shape)>, OpError>;

/// Dim `i` of input 0, -1 when unknown or absent.
fn x_dim(ctx: &OpContext<'_>, i: usize) -> i64 {
    ctx.input_shape(0)
        .ok()
        .and_then(|s| s.dims().get(i).copied())
        .unwrap_or(UNKNOWN_DIM)
}

/// The channel dim of x under the node's `data_format` (NCHW by default).
fn channels(ctx: &OpContext<'_>) -> i64 {
    let nhwc = ctx.attr_str("data_format").is_ok_and(|f| f == "NHWC");
    let rank = ctx.input_shape(0).ok().and_then(Shape::rank).unwrap_or(4);
    x_dim(ctx, if nhwc { rank.saturating_sub(1) } else { 1 })
}

/// The filter's own dims (the kernel size and num_output it was loaded with).
fn filter_dims(ctx: &OpContext<'_>) -> Option<[i64; 4]> {
    ctx.input_shape(1).ok()?.dims().try_into().ok()
}

pub(super) fn convolution(ctx: &OpContext<'_>) -> Weights {
    let Some([out, _, kh, kw]) = filter_dims(ctx) else {
        return Ok(Vec::new());
    };
    let group = ctx.attr_int("groups")?.max(1);
    let per_group = match channels(ctx) {
        UNKNOWN_DIM => UNKNOWN_DIM,
        c => crate::ops::common::exact_div_dim(c, group).ok_or_else(|| {
            OpError::new(format!(
                "the input's {c} channels do not divide into {group} groups"
            ))
        })?,
    };
    Ok(vec![(1, Shape::from_dims([out, per_group, kh, kw]))])
}

pub(super) fn deconvolution(ctx: &OpContext<'_>) -> Weights {
    let Some([_, out_per_group, kh, kw]) = filter_dims(ctx) else {
        return Ok(Vec::new());
    };
    Ok(vec![(
        1,
        Shape::from_dims([channels(ctx), out_per_group, kh, kw]),
    )])
}

pub(super) fn fully_connection(ctx: &OpContext<'_>) -> Weights {
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        return Ok(Vec::new());
    };
    let axis = normalize_axis(ctx.attr_int("axis")?, rank)?;
    let mut k = 1;
    for &d in &x.dims()[axis..] {
        k = match (k, d) {
            (UNKNOWN_DIM, _) | (_, UNKNOWN_DIM) => UNKNOWN_DIM,
            _ => mul_dims(k, d)?,
        };
    }
    let n = ctx.attr_int("num_output")?;
    let shape = if ctx.attr_bool("transpose")? {
        [k, n]
    } else {
        [n, k]
    };
    Ok(vec![(1, Shape::from_dims(shape))])
}

pub(super) fn batch_norm(ctx: &OpContext<'_>) -> Weights {
    let c = Shape::from_dims([channels(ctx)]);
    Ok(vec![(1, c.clone()), (2, c)])
}

/// Scale's scale and bias, Bias's bias: x's dims over `num_axes` from `axis`.
pub(super) fn affine(ctx: &OpContext<'_>) -> Weights {
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        return Ok(Vec::new());
    };
    let axis = normalize_axis(ctx.attr_int("axis")?, rank.max(1))?;
    let end = match ctx.attr_int("num_axes")? {
        -1 => rank,
        n => axis
            .saturating_add(usize::try_from(n).unwrap_or(0))
            .min(rank),
    };
    let shape = Shape::from_dims(&x.dims()[axis.min(end)..end]);
    Ok((1..ctx.input_count()).map(|i| (i, shape.clone())).collect())
}

pub(super) fn prelu(ctx: &OpContext<'_>) -> Weights {
    Ok(vec![(1, Shape::from_dims([channels(ctx)]))])
}
