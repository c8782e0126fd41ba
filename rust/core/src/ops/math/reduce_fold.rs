//! Host evaluation of integer Sum / Prod for value folding: the element
//! counts of shape arithmetic (`tf.tensordot` reshapes its operand to
//! `[prod(shape[free]), prod(shape[axes])]`). Only a value known whole
//! folds; a result that overflows its dtype stays unfolded (TensorFlow
//! wraps; we do not invent a value).

// Index arithmetic runs on tensors the engine has bounded (inputs by
// MAX_INPUT_ELEMS, outputs by the fold limit); element arithmetic is
// checked.
#![allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by MAX_INPUT_ELEMS and the fold limit"
)]

use crate::infer::OpContext;
use crate::op::OpError;
use crate::ops::array::host::{Elems, Number};
use crate::ops::common::normalize_axis;
use crate::types::{DataType, HostTensor};

/// The integer reductions that fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IntReduction {
    Sum,
    Prod,
    Max,
    Min,
}

impl IntReduction {
    /// The fold of a reduction op type, if it has one.
    pub(super) fn of(op_type: &str) -> Option<IntReduction> {
        match op_type {
            "Sum" | "ReduceSum" => Some(IntReduction::Sum),
            "Prod" | "ReduceProd" => Some(IntReduction::Prod),
            "Max" | "ReduceMax" => Some(IntReduction::Max),
            "Min" | "ReduceMin" => Some(IntReduction::Min),
            _ => None,
        }
    }

    /// The value of an empty reduction.
    fn identity(self) -> i64 {
        match self {
            IntReduction::Sum => 0,
            IntReduction::Prod => 1,
            // The identities of max and min (ONNX: the type's lowest and
            // highest value).
            IntReduction::Max => i64::MIN,
            IntReduction::Min => i64::MAX,
        }
    }

    fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            IntReduction::Sum => a.checked_add(b),
            IntReduction::Prod => a.checked_mul(b),
            IntReduction::Max => Some(a.max(b)),
            IntReduction::Min => Some(a.min(b)),
        }
    }
}

/// Folds output 0 when input 0 (INT32 / INT64) and the axes are known.
/// The shape was inferred (and the axes checked) before.
pub(super) fn fold_int_reduction(
    ctx: &mut OpContext<'_>,
    reduction: IntReduction,
) -> Result<(), OpError> {
    let Some(x) = ctx.input_host_value(0) else {
        return Ok(());
    };
    let dtype = x.dtype();
    if matches!(dtype, DataType::Float | DataType::Double) {
        return fold_float_reduction(ctx, reduction);
    }
    if !matches!(dtype, DataType::Int32 | DataType::Int64) {
        return Ok(());
    }
    let (Some(values), Some(axes)) = (x.to_ints(), super::reduce::effective_axes(ctx)?) else {
        return Ok(());
    };
    let dims = x.shape().dims().to_vec();
    let Some(out_shape) = ctx.output_desc(0).map(|d| d.shape().clone()) else {
        return Ok(());
    };
    let mut reduced = vec![false; dims.len()];
    for axis in axes {
        reduced[normalize_axis(axis, dims.len())?] = true;
    }
    let Some(folded) = reduce(&values, &dims, &reduced, reduction) else {
        return Ok(());
    };
    match HostTensor::from_ints(dtype, out_shape, &folded) {
        Some(value) => ctx.set_output_value(0, value),
        None => Ok(()), // the result does not fit INT32
    }
}

/// [`fold_int_reduction`] for FLOAT and DOUBLE values (the scalar float
/// arithmetic exporters emit around shapes: `max(h, w)` for padding).
fn fold_float_reduction(ctx: &mut OpContext<'_>, reduction: IntReduction) -> Result<(), OpError> {
    let Some(x) = Elems::input(ctx, 0) else {
        return Ok(());
    };
    let values: Option<Vec<f64>> = (0..x.items.len())
        .map(|k| match x.number_at(k)? {
            Number::Float(f) => Some(f),
            Number::Int(i) => Some(i as f64),
        })
        .collect();
    let (Some(values), Some(axes)) = (values, super::reduce::effective_axes(ctx)?) else {
        return Ok(());
    };
    let Some(out_dims) = ctx.output_desc(0).map(|d| d.shape().dims().to_vec()) else {
        return Ok(());
    };
    let mut reduced = vec![false; x.dims.len()];
    for axis in axes {
        reduced[normalize_axis(axis, x.dims.len())?] = true;
    }
    let (identity, apply): (f64, fn(f64, f64) -> f64) = match reduction {
        IntReduction::Sum => (0.0, |a, b| a + b),
        IntReduction::Prod => (1.0, |a, b| a * b),
        IntReduction::Max => (f64::NEG_INFINITY, f64::max),
        IntReduction::Min => (f64::INFINITY, f64::min),
    };
    let Some(folded) = reduce_with(&values, &x.dims, &reduced, identity, |a, b| {
        Some(apply(a, b))
    }) else {
        return Ok(());
    };
    let numbers: Vec<Option<Number>> = folded.into_iter().map(|f| Some(Number::Float(f))).collect();
    Elems::from_numbers(x.dtype, &out_dims, &numbers).write(ctx, 0)
}

/// `values` (row-major, shape `dims`) reduced over the `reduced` axes, in
/// row-major order of the kept axes; `None` on overflow.
fn reduce(
    values: &[i64],
    dims: &[i64],
    reduced: &[bool],
    reduction: IntReduction,
) -> Option<Vec<i64>> {
    reduce_with(values, dims, reduced, reduction.identity(), |a, b| {
        reduction.apply(a, b)
    })
}

/// [`reduce`] over any element type with `identity` and `apply`.
fn reduce_with<T: Copy>(
    values: &[T],
    dims: &[i64],
    reduced: &[bool],
    identity: T,
    apply: impl Fn(T, T) -> Option<T>,
) -> Option<Vec<T>> {
    let kept: Vec<usize> = (0..dims.len()).filter(|&a| !reduced[a]).collect();
    let out_len: usize = kept.iter().map(|&a| dims[a].max(0) as usize).product();
    let mut out = vec![identity; out_len];
    for (flat, &v) in values.iter().enumerate() {
        // The output position: the kept axes' coordinates, row-major.
        let (mut rest, mut at, mut scale) = (flat, 0usize, 1usize);
        for axis in (0..dims.len()).rev() {
            let d = dims[axis].max(1) as usize;
            let coordinate = rest % d;
            rest /= d;
            if !reduced[axis] {
                at += coordinate * scale;
                scale *= d;
            }
        }
        out[at] = apply(out[at], v)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values are numpy's: np.sum / np.prod over the same axes.
    #[test]
    fn reduces_over_any_axes_in_row_major_order() {
        let values: Vec<i64> = (1..=24).collect();
        let dims = [2, 3, 4];
        let prod = |reduced: &[bool]| reduce(&values, &dims, reduced, IntReduction::Prod);
        let sum = |reduced: &[bool]| reduce(&values, &dims, reduced, IntReduction::Sum);
        // np.arange(1, 25).reshape(2, 3, 4).sum(axis=1)
        assert_eq!(
            sum(&[false, true, false]).unwrap(),
            [15, 18, 21, 24, 51, 54, 57, 60]
        );
        // .sum(axis=(0, 2))
        assert_eq!(sum(&[true, false, true]).unwrap(), [68, 100, 132]);
        // .sum() and no axis at all
        assert_eq!(sum(&[true, true, true]).unwrap(), [300]);
        assert_eq!(sum(&[false, false, false]).unwrap(), values);
        // .prod(axis=2)
        assert_eq!(
            prod(&[false, false, true]).unwrap(),
            [24, 1680, 11880, 43680, 116280, 255024]
        );
    }

    #[test]
    fn empty_reductions_give_the_identity_and_overflow_gives_nothing() {
        // np.prod(np.zeros((0, 2), int), axis=0) == [1, 1]
        assert_eq!(
            reduce(&[], &[0, 2], &[true, false], IntReduction::Prod).unwrap(),
            [1, 1]
        );
        assert_eq!(reduce(&[], &[0], &[true], IntReduction::Sum).unwrap(), [0]);
        assert_eq!(
            reduce(&[i64::MAX, 2], &[2], &[true], IntReduction::Prod),
            None
        );
    }
}
