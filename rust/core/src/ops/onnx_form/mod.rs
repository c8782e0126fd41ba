//! IR ops with ONNX semantics (issue 14): the ONNX parser plugins map onto
//! these where no GE / TensorFlow op has the same meaning: ONNX's Slice
//! (optional axes and steps), Unsqueeze (axes in the output rank), Expand
//! (broadcasts both ways), N-d pooling with ONNX padding rules, Resize /
//! Upsample, Gemm, the ONNX normalisations, ConvTranspose,
//! NonMaxSuppression and ONNX's extra activations; and the rest of the
//! standard set: variadic broadcasting ops, 1-D / integer / quantised /
//! deformable convolution, quantisation, Attention and its KV cache, the
//! generators and signal ops, sampling, unpooling and data-dependent
//! selections. Each file names the ONNX
//! op(s) and opsets it serves and how it differs from the TensorFlow op of a
//! similar name. Index inputs take INT32 and INT64 (ONNX exporters use INT64).

mod activations;
mod attention;
mod conv;
mod conv_transpose;
mod crop_pad;
mod dims;
mod dropout;
mod elements;
mod expand;
mod gemm;
mod linalg;
mod matmul_shape;
mod modulo;
mod nms;
mod nonzero;
mod norm;
mod one_hot;
mod pad;
mod pool;
mod quant;
mod random;
mod resize;
mod same_shape;
mod sampling;
mod selection;
mod signal;
mod slice;
mod squeeze;
#[cfg(test)]
mod tests;
mod trilu;
mod unpool;
mod values;
mod variadic;
mod window;

use super::array::host::Elems;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{OpError, OpFn, OpSchema};
use crate::types::DataType;
use std::sync::Arc;

/// Index / shape-vector dtypes.
const INDEX: &[DataType] = &[DataType::Int32, DataType::Int64];

/// ONNX's floating-point tensor types (`tensor(float16)`, `bfloat16`,
/// `float`, `double`).
const FLOATS: &[DataType] = &[
    DataType::Float16,
    DataType::Bf16,
    DataType::Float,
    DataType::Double,
];

/// ONNX's real number types: the floats and every integer width.
const NUMBERS: &[DataType] = &[
    DataType::Float16,
    DataType::Bf16,
    DataType::Float,
    DataType::Double,
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::Uint8,
    DataType::Uint16,
    DataType::Uint32,
    DataType::Uint64,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let mut all = Vec::new();
    all.extend(slice::schemas());
    all.extend(squeeze::schemas());
    all.extend(expand::schemas());
    all.extend(pad::schemas());
    all.extend(nonzero::schemas());
    all.extend(elements::schemas());
    all.extend(trilu::schemas());
    all.extend(modulo::schemas());
    all.extend(pool::schemas());
    all.extend(gemm::schemas());
    all.extend(norm::schemas());
    all.extend(conv_transpose::schemas());
    all.extend(nms::schemas());
    all.extend(activations::schemas());
    all.extend(one_hot::schemas());
    all.extend(resize::schemas());
    all.extend(attention::schemas());
    all.extend(conv::schemas());
    all.extend(crop_pad::schemas());
    all.extend(dropout::schemas());
    all.extend(linalg::schemas());
    all.extend(quant::schemas());
    all.extend(random::schemas());
    all.extend(same_shape::schemas());
    all.extend(sampling::schemas());
    all.extend(selection::schemas());
    all.extend(signal::schemas());
    all.extend(unpool::schemas());
    all.extend(variadic::schemas());
    all
}

/// What is known of an optional value-depend input.
#[derive(Clone, Debug, PartialEq)]
enum Ints {
    /// The node has no such input.
    Absent,
    /// Present, but its value is not known at inference time.
    Unknown,
    Known(Vec<i64>),
}

/// Input `i` (a value-depend integer vector or scalar) as [`Ints`], after
/// checking that it is at most 1-D.
fn ints(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<Ints, OpError> {
    let Some(desc) = ctx.input_desc(i) else {
        return Ok(Ints::Absent);
    };
    if desc.shape().rank().is_some_and(|r| r > 1) {
        bail!(
            "input '{name}' must be a 1-D vector, got shape {}",
            desc.shape()
        );
    }
    Ok(match ctx.input_value(i).and_then(|v| v.to_ints()) {
        Some(v) => Ints::Known(v),
        None => Ints::Unknown,
    })
}

/// The length of a present 1-D input `i` when its shape says it.
/// The verify rule of an op whose node may use at most `most` of its
/// outputs (`names` them in the message): ONNX's trailing optional outputs.
fn at_most_outputs(most: usize, names: &'static str) -> OpFn {
    Arc::new(move |ctx: &mut OpContext<'_>| {
        if ctx.output_count() > most {
            bail!(
                "it has {} outputs; at most {most} ({names})",
                ctx.output_count()
            );
        }
        Ok(())
    })
}

fn vector_len(ctx: &OpContext<'_>, i: usize) -> Option<usize> {
    match ctx.input_desc(i)?.shape().dims() {
        [n] => usize::try_from(*n).ok(),
        _ => None,
    }
}

/// `axis` in `[-rank, rank)` as an index, ONNX's rule for every axes input.
fn onnx_axis(axis: i64, rank: usize, what: &str) -> Result<usize, OpError> {
    let r = i64::try_from(rank).unwrap_or(i64::MAX);
    let at = if axis < 0 {
        axis.checked_add(r)
    } else {
        Some(axis)
    };
    match at {
        Some(a) if (0..r).contains(&a) => Ok(a as usize),
        _ => bail!(
            "{what} {axis} is out of range for rank {rank} (expected {}..{r})",
            r.wrapping_neg()
        ),
    }
}

/// `axes` normalised against `rank`; a repeated axis is an error (ONNX).
fn distinct_axes(axes: &[i64], rank: usize, what: &str) -> Result<Vec<usize>, OpError> {
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(axes.len());
    for &axis in axes {
        let a = onnx_axis(axis, rank, what)?;
        if std::mem::replace(&mut seen[a], true) {
            bail!("{what} {axis} repeats an axis already listed in {axes:?}");
        }
        out.push(a);
    }
    Ok(out)
}

/// Output 0 holds input 0's elements in row-major order with new dims
/// (Squeeze / Unsqueeze): its value, or its known shape-vector entries.
fn fold_view(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(dims) = ctx.output_desc(0).map(|d| d.shape().dims().to_vec()) else {
        return Ok(());
    };
    if ctx.output_desc(0).is_some_and(|d| !d.shape().is_static()) {
        return Ok(());
    }
    match Elems::input(ctx, 0).and_then(|e| e.reshaped(&dims)) {
        Some(elems) => elems.write(ctx, 0),
        None => Ok(()),
    }
}
