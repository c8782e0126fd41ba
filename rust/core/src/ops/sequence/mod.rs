//! ONNX's sequence ops that TensorFlow's TensorList ops do not cover. A
//! sequence is a list handle exactly like a TensorList (see `ops::list`): a
//! VARIANT scalar whose descriptor carries the element shape in
//! `shape_value` and the element dtype and count in `list`. SequenceEmpty
//! is EmptyTensorList and SequenceAt is TensorListGetItem; these are the
//! rest, with ONNX's shape rules: a sequence's element shape is what all
//! its elements agree on (a dim they disagree on is unknown, different
//! ranks give an unknown rank).
//!
//! - SequenceConstruct (`inputs...` → handle), SequenceInsert (`handle,
//!   tensor, position?`), SequenceErase (`handle, position?`),
//!   SequenceLength (→ INT64 scalar, folded when the count is known);
//! - SplitToSequence (`input, split?`; `axis`, `keepdims`) and
//!   ConcatFromSequence (`axis`, `new_axis`).

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::types::{
    AttrType, AttrValue, DataType, HostTensor, ListInfo, Shape, MAX_RANK, UNKNOWN_DIM,
};

/// Position and split inputs: INT32 or INT64.
const INDEX_TYPES: &[DataType] = &[DataType::Int32, DataType::Int64];

pub(crate) fn schemas() -> Vec<OpSchema> {
    let construct = OpSchema::new("SequenceConstruct")
        .input(PortDef::new("inputs", ParamType::Dynamic))
        .output(handle("output_sequence"))
        .infer_shape(op_fn(infer_construct));
    let insert = OpSchema::new("SequenceInsert")
        .input(handle("input_sequence"))
        .input(PortDef::new("tensor", ParamType::Required))
        .input(position())
        .output(handle("output_sequence"))
        .infer_shape(op_fn(infer_insert));
    let erase = OpSchema::new("SequenceErase")
        .input(handle("input_sequence"))
        .input(position())
        .output(handle("output_sequence"))
        .infer_shape(op_fn(infer_erase));
    let length = OpSchema::new("SequenceLength")
        .input(handle("input_sequence"))
        .output(PortDef::new("length", ParamType::Required).dtype_list(&[DataType::Int64]))
        .infer_shape(op_fn(infer_length));
    let split = OpSchema::new("SplitToSequence")
        .input(PortDef::new("input", ParamType::Required))
        .input(
            PortDef::new("split", ParamType::Optional)
                .dtype_list(INDEX_TYPES)
                .value_depend(ValueDepend::Optional),
        )
        .output(handle("output_sequence"))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("keepdims", AttrType::Int, Some(AttrValue::Int(1)))
        .infer_shape(op_fn(infer_split));
    let concat = OpSchema::new("ConcatFromSequence")
        .input(handle("input_sequence"))
        .output(PortDef::new("concat_result", ParamType::Required))
        .attr("axis", AttrType::Int, None)
        .attr("new_axis", AttrType::Int, Some(AttrValue::Int(0)))
        .infer_dtype(op_fn(|ctx| {
            let list = sequence(ctx, 0)?;
            ctx.set_output_dtype(0, list.element_dtype)
        }))
        .infer_shape(op_fn(infer_concat));
    vec![construct, insert, erase, length, split, concat]
}

/// A sequence handle port: one VARIANT scalar.
fn handle(name: &str) -> PortDef {
    PortDef::new(name, ParamType::Required).dtype_list(&[DataType::Variant])
}

/// The optional `position` input (default: the end).
fn position() -> PortDef {
    PortDef::new("position", ParamType::Optional).dtype_list(INDEX_TYPES)
}

/// What sequence input `i` carries: its element dtype and count.
fn sequence(ctx: &OpContext<'_>, i: usize) -> Result<ListInfo, OpError> {
    match ctx.input(i)?.list {
        Some(list) if list.element_dtype != DataType::Undefined => Ok(list),
        _ => bail!("input {i} must be a sequence whose element dtype is known, but its producer gives none"),
    }
}

/// The element shape sequence input `i` carries (unknown rank when none).
fn element_shape(ctx: &OpContext<'_>, i: usize) -> Result<Shape, OpError> {
    Ok(ctx
        .input(i)?
        .shape_value
        .as_deref()
        .cloned()
        .unwrap_or_else(Shape::unknown_rank))
}

/// ONNX's union of two element shapes: the dims both agree on, unknown
/// where they differ; an unknown rank when the ranks differ or one is unknown.
fn union(a: &Shape, b: &Shape) -> Shape {
    match (a.rank(), b.rank()) {
        (Some(x), Some(y)) if x == y => Shape::from_dims(
            a.dims()
                .iter()
                .zip(b.dims())
                .map(|(&p, &q)| if p == q { p } else { UNKNOWN_DIM })
                .collect::<Vec<_>>(),
        ),
        _ => Shape::unknown_rank(),
    }
}

/// Output 0 is a sequence of `length` elements of `dtype` shaped `element`.
fn set_sequence(
    ctx: &mut OpContext<'_>,
    element_dtype: DataType,
    element: Shape,
    length: Option<i64>,
) -> Result<(), OpError> {
    ctx.set_output_dtype(0, DataType::Variant)?;
    ctx.set_output_shape(0, Shape::scalar())?;
    ctx.set_output_list(
        0,
        ListInfo {
            element_dtype,
            length,
        },
    )?;
    if !element.is_unknown_rank() {
        ctx.set_output_shape_value(0, element)?;
    }
    Ok(())
}

/// The value of a scalar position input `i`, if known.
fn position_value(ctx: &OpContext<'_>, i: usize) -> Result<Option<i64>, OpError> {
    let Some(desc) = ctx.input_desc(i) else {
        return Ok(None);
    };
    if desc.shape().rank().is_some_and(|r| r != 0) {
        bail!(
            "input 'position' must be a scalar, got shape {}",
            desc.shape()
        );
    }
    Ok(desc
        .value
        .as_ref()
        .and_then(HostTensor::to_ints)
        .and_then(|v| v.first().copied()))
}

/// Checks a known position against a known count: ONNX accepts
/// `[-n, n - 1]` (`[-n, n]` where inserting at the end is allowed).
fn check_position(
    ctx: &OpContext<'_>,
    i: usize,
    length: Option<i64>,
    end_allowed: bool,
) -> Result<(), OpError> {
    let (Some(p), Some(n)) = (position_value(ctx, i)?, length) else {
        return Ok(());
    };
    let last = if end_allowed { n } else { n.saturating_sub(1) };
    if p < n.saturating_neg() || p > last {
        bail!(
            "position {p} is out of range for a sequence of {n} elements (allowed: -{n} to {last})"
        );
    }
    Ok(())
}

fn infer_construct(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let n = ctx.input_count();
    if n == 0 {
        bail!("SequenceConstruct needs at least one input tensor");
    }
    let dtype = ctx.input_dtype(0)?;
    let mut element = ctx.input_shape(0)?.clone();
    for i in 1..n {
        let other = ctx.input_dtype(i)?;
        if other != dtype {
            bail!("input {i} is {other}, but input 0 is {dtype}; a sequence's elements share one dtype");
        }
        element = union(&element, ctx.input_shape(i)?);
    }
    set_sequence(ctx, dtype, element, i64::try_from(n).ok())
}

fn infer_insert(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let list = sequence(ctx, 0)?;
    let dtype = ctx.input_dtype(1)?;
    if dtype != list.element_dtype {
        bail!(
            "input 'tensor' is {dtype}, but the sequence holds {}",
            list.element_dtype
        );
    }
    check_position(ctx, 2, list.length, true)?;
    let tensor = ctx.input_shape(1)?.clone();
    // An empty sequence has no element shape yet: the tensor's is it.
    let element = match list.length {
        Some(0) => tensor,
        _ => union(&element_shape(ctx, 0)?, &tensor),
    };
    let length = list.length.and_then(|n| n.checked_add(1));
    set_sequence(ctx, list.element_dtype, element, length)
}

fn infer_erase(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let list = sequence(ctx, 0)?;
    if list.length == Some(0) {
        bail!("it erases from a sequence that is empty");
    }
    check_position(ctx, 1, list.length, false)?;
    let element = element_shape(ctx, 0)?;
    let length = list.length.and_then(|n| n.checked_sub(1));
    set_sequence(ctx, list.element_dtype, element, length)
}

fn infer_length(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let list = sequence(ctx, 0)?;
    ctx.set_output_shape(0, Shape::scalar())?;
    if let Some(n) = list.length {
        if let Some(value) = HostTensor::from_ints(DataType::Int64, Shape::scalar(), &[n]) {
            ctx.set_output_value(0, value)?;
        }
    }
    Ok(())
}

/// `axis` (attribute `name`) normalised into `[0, rank)`.
fn normalized_axis(axis: i64, rank: usize, name: &str) -> Result<usize, OpError> {
    let r = i64::try_from(rank).unwrap_or(i64::MAX);
    let fixed = if axis < 0 {
        axis.saturating_add(r)
    } else {
        axis
    };
    match usize::try_from(fixed) {
        Ok(a) if a < rank => Ok(a),
        _ => bail!("attribute {name} is {axis}, out of range for rank {rank}"),
    }
}

/// The element size and count of splitting a dim of size `dim` (unknown:
/// -1) into chunks of `size`: the last chunk may be smaller.
fn chunks(dim: i64, size: i64) -> (i64, Option<i64>) {
    if dim < 0 || size <= 0 {
        return (UNKNOWN_DIM, None);
    }
    let count = dim.div_euclid(size);
    match dim.rem_euclid(size) {
        0 => (size, Some(count)),
        // Chunks of `size` then a smaller one: the sizes differ (unless
        // there is only the smaller one).
        rest if count == 0 => (rest, Some(1)),
        _ => (UNKNOWN_DIM, count.checked_add(1)),
    }
}

fn infer_split(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let dtype = ctx.input_dtype(0)?;
    let input = ctx.input_shape(0)?.clone();
    let keepdims = ctx.attr_int("keepdims")?;
    let axis = ctx.attr_int("axis")?;
    let split = ctx.input_desc(1);
    let Some(rank) = input.rank() else {
        // The element rank is the input's (or one less): unknown.
        return set_sequence(ctx, dtype, Shape::unknown_rank(), None);
    };
    let a = normalized_axis(axis, rank, "axis")?;
    let dim = input.dims()[a];
    let mut element = input.dims().to_vec();
    let (size, count) = match split {
        None => {
            if keepdims == 0 {
                element.remove(a);
                return set_sequence(
                    ctx,
                    dtype,
                    Shape::from_dims(element),
                    (dim >= 0).then_some(dim),
                );
            }
            (1, (dim >= 0).then_some(dim))
        }
        Some(split) => {
            let values = split.value.as_ref().and_then(HostTensor::to_ints);
            match split.shape().rank() {
                Some(0) => match values.as_deref() {
                    Some([s]) if *s <= 0 => {
                        bail!("input 'split' is {s}; a chunk size must be positive")
                    }
                    Some([s]) => chunks(dim, *s),
                    _ => (UNKNOWN_DIM, None),
                },
                Some(1) => {
                    let count = split.shape().dims()[0];
                    match values {
                        Some(sizes) => {
                            if let Some(bad) = sizes.iter().find(|&&s| s < 0) {
                                bail!("input 'split' holds {bad}; chunk sizes must be >= 0");
                            }
                            let total = sizes.iter().try_fold(0i64, |t, &s| t.checked_add(s));
                            if let (Some(total), true) = (total, dim >= 0) {
                                if total != dim {
                                    bail!("input 'split' sums to {total}, but axis {axis} of the input has size {dim}");
                                }
                            }
                            let first = sizes.first().copied().unwrap_or(UNKNOWN_DIM);
                            let same = sizes.iter().all(|&s| s == first);
                            (
                                if same { first } else { UNKNOWN_DIM },
                                i64::try_from(sizes.len()).ok(),
                            )
                        }
                        None => (UNKNOWN_DIM, (count >= 0).then_some(count)),
                    }
                }
                _ => bail!(
                    "input 'split' must be a scalar or a vector, got shape {}",
                    split.shape()
                ),
            }
        }
    };
    element[a] = size;
    set_sequence(ctx, dtype, Shape::from_dims(element), count)
}

fn infer_concat(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let list = sequence(ctx, 0)?;
    let element = element_shape(ctx, 0)?;
    let axis = ctx.attr_int("axis")?;
    let new_axis = ctx.attr_int("new_axis")?;
    if !matches!(new_axis, 0 | 1) {
        bail!("attribute new_axis must be 0 or 1, got {new_axis}");
    }
    let Some(rank) = element.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let count = list.length.unwrap_or(UNKNOWN_DIM);
    let mut dims = element.dims().to_vec();
    if new_axis == 1 {
        let out_rank = rank.saturating_add(1);
        if out_rank > MAX_RANK {
            bail!("the result would have rank {out_rank}, more than the maximum {MAX_RANK}");
        }
        let a = normalized_axis(axis, out_rank, "axis")?;
        dims.insert(a, count);
    } else {
        if rank == 0 {
            bail!("the sequence's elements are scalars; concatenating them needs new_axis 1");
        }
        let a = normalized_axis(axis, rank, "axis")?;
        let d = dims[a];
        dims[a] = if d >= 0 && count >= 0 {
            d.checked_mul(count).unwrap_or(UNKNOWN_DIM)
        } else {
            UNKNOWN_DIM
        };
    }
    ctx.set_output_shape(0, Shape::from_dims(dims))
}

#[cfg(test)]
mod tests;
