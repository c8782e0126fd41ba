//! Reshape: new dims from the value of the `shape` input (value-depend).
//! One `-1` is inferred from the element count, `0` is a literal zero
//! (TensorFlow / numpy semantics) unless `allowzero` is 0: then, as in
//! ONNX's Reshape, a `0` copies the input dim at the same position. GE's
//! `axis` / `num_axes` restrict the reshape to a range of the input dims
//! (Caffe's Reshape layer).

use super::host::Elems;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Dims, Shape, MAX_RANK, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let reshape = OpSchema::new("Reshape")
        .input(PortDef::new("x", ParamType::Required))
        .input(
            PortDef::new("shape", ParamType::Required)
                .dtype_list(&[DataType::Int32, DataType::Int64])
                .value_depend(ValueDepend::Required),
        )
        .output(
            PortDef::new("y", ParamType::Required)
                .follow("x", FollowType::Dtype)
                .reuses_input("x"),
        )
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("num_axes", AttrType::Int, Some(AttrValue::Int(-1)))
        .attr("allowzero", AttrType::Int, Some(AttrValue::Int(1)))
        .infer_shape(op_fn(infer_reshape))
        .fold(op_fn(fold_view));
    vec![reshape]
}

fn infer_reshape(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let shape_input = ctx.input_shape(1)?;
    if let Some(rank) = shape_input.rank() {
        if rank != 1 {
            bail!("input 'shape' must be a 1-D vector, got shape {shape_input}");
        }
    }
    if let [len] = shape_input.dims() {
        if *len > MAX_RANK as i64 {
            bail!("input 'shape' has {len} elements, more than the maximum rank {MAX_RANK}");
        }
    }
    let value = ctx.input_value(1).and_then(|v| v.to_dims());
    // Only when there is no value: reading a shape value allocates.
    let partial = match value {
        Some(_) => None,
        None => ctx.input_shape_value(1).filter(|s| !s.is_unknown_rank()),
    };
    let copy_zeros = ctx.attr_int("allowzero")? == 0;
    let (value, partial) = if copy_zeros {
        match (value, partial) {
            (Some(v), _) => (Some(copy_input_dims(input, v)?), None),
            (None, Some(p)) => {
                let copied = copy_input_dims(input, Dims::from_slice(p.dims()))?;
                let dims: Dims = copied
                    .iter()
                    .map(|&d| if d == COPIED_UNKNOWN { UNKNOWN_DIM } else { d })
                    .collect();
                (None, Some(Shape::from_dims(&dims)))
            }
            none => none,
        }
    } else {
        (value, partial)
    };
    let target = match (value, partial, shape_input.dims()) {
        // A copied dim that is unknown: the output has unknown dims where
        // the copies and any -1 are.
        (Some(target), _, _) if copy_zeros && target.contains(&COPIED_UNKNOWN) => {
            let out = with_copied_unknowns(input, &target)?;
            ctx.set_output_shape(0, out)?;
            if ranges::wanted(ctx, 0) && is_whole_reshape(ctx)? {
                copied_reshape_range(ctx, &target)?;
            }
            return Ok(());
        }
        (Some(target), _, _) => target,
        // A folded shape vector known element by element (Shape -> Gather ->
        // Pack): its unknown entries are unknown output dims. With one
        // unknown entry the element count still fixes it, as for a -1.
        (None, Some(partial), _) => {
            let unknown = partial.dims().iter().filter(|&&d| d == UNKNOWN_DIM).count();
            if unknown > 1 {
                ctx.set_output_shape(0, partial)?;
                if ranges::wanted(ctx, 0) && is_whole_reshape(ctx)? {
                    shape_value_range(ctx, copy_zeros)?;
                }
                return Ok(());
            }
            Dims::from_slice(partial.dims())
        }
        // An empty shape vector needs no value: the target is a scalar.
        (None, None, [0]) => Dims::new(),
        // Otherwise the rank is known when the shape vector's length is.
        (None, None, [len]) if *len > 0 && is_whole_reshape(ctx)? => {
            return ctx.set_output_shape(0, Shape::unknown_dims(*len as usize))
        }
        (None, None, _) => return ctx.set_output_shape(0, Shape::unknown_rank()),
    };
    let dims = splice(ctx, input, target)?;
    let out = resolve_unknown(input, dims)?;
    ctx.set_output_shape(0, out)?;
    if ranges::wanted(ctx, 0) {
        reshape_range(ctx)?;
    }
    Ok(())
}

/// With one unknown output dim and the others known (product `k > 0`), the
/// element count fixes it: it is in `count / k` for the input's count range.
/// With more unknown dims nothing is computable per dim.
fn reshape_range(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(dims) = ctx.output_desc(0).map(|d| d.shape().dims().to_vec()) else {
        return Ok(());
    };
    let Some(at) = dims.iter().position(|&d| d == UNKNOWN_DIM) else {
        return Ok(());
    };
    if dims.iter().filter(|&&d| d == UNKNOWN_DIM).count() > 1 {
        return Ok(());
    }
    let Some(known) = dims
        .iter()
        .filter(|&&d| d != UNKNOWN_DIM)
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
    else {
        return Ok(());
    };
    let Some(input) = ranges::of_input(ctx, 0) else {
        return Ok(());
    };
    let count = input.into_iter().fold((1, 1), ranges::mul);
    let Some(r) = ranges::div_exact(count, known) else {
        return Ok(());
    };
    let mut out: Vec<ranges::Range> = dims.iter().map(|&d| (d, d)).collect();
    out[at] = r;
    ranges::set(ctx, 0, out)
}

/// A target that copies input dims (ONNX `0`, [`COPIED_UNKNOWN`] where the
/// input dim is unknown): a copied dim keeps that input dim's range, and a
/// `-1` is the other input dims' element count over the target's known
/// dims (the copies cancel): GroupNorm's `[N, C, L]` as `[0, G, -1]` is
/// `L * C / G` within L's range.
fn copied_reshape_range(ctx: &mut OpContext<'_>, target: &[i64]) -> Result<(), OpError> {
    let Some(input) = ranges::of_input(ctx, 0) else {
        return Ok(());
    };
    let copied = |i: usize| target.get(i) == Some(&COPIED_UNKNOWN);
    let rest = input
        .iter()
        .enumerate()
        .filter(|&(i, _)| !copied(i))
        .fold((1, 1), |acc, (_, &r)| ranges::mul(acc, r));
    let known = target
        .iter()
        .filter(|&&d| d >= 0)
        .try_fold(1i64, |acc, &d| acc.checked_mul(d));
    let inferred = known.and_then(|k| ranges::div_exact(rest, k));
    let out = target
        .iter()
        .enumerate()
        .map(|(i, &d)| match d {
            COPIED_UNKNOWN => input.get(i).copied().unwrap_or(ranges::ANY),
            UNKNOWN_DIM => inferred.unwrap_or(ranges::ANY),
            known => (known, known),
        })
        .collect();
    ranges::set_if_bounded(ctx, 0, out)
}

/// Unknown dims whose entries of the shape vector have value bounds (a
/// `Shape` of a ranged tensor, gathered and concatenated back) take them.
/// With `copy_zeros` an entry that may be 0 may copy an input dim instead,
/// so only entries bounded away from 0 count. A literal `-1` entry is the
/// input's element count over the other entries (`[N, C, -1]` of a ranged
/// `[N, C, H, W]`: a flatten written with `Shape`).
fn shape_value_range(ctx: &mut OpContext<'_>, copy_zeros: bool) -> Result<(), OpError> {
    let (Some(bounds), Some(entries)) = (Elems::vector_bounds(ctx, 1), Elems::input(ctx, 1)) else {
        return Ok(());
    };
    let mut out: Vec<ranges::Range> = bounds
        .into_iter()
        .map(|r| {
            if copy_zeros && r.0 < 1 {
                ranges::ANY
            } else {
                r
            }
        })
        .collect();
    // A known -1 entry: in the value, or (a partial shape value keeps -1
    // for "unknown") as the exact bounds (-1, -1) beside it.
    let recorded = ctx.input_desc(1).and_then(|d| d.value_range.as_deref());
    let minus_one: Vec<usize> = (0..out.len())
        .filter(|&k| {
            entries.int_at(k) == Some(UNKNOWN_DIM)
                || recorded.and_then(|r| r.get(k)) == Some(&(UNKNOWN_DIM, UNKNOWN_DIM))
        })
        .collect();
    if let ([at], Some(input)) = (minus_one.as_slice(), ranges::of_input(ctx, 0)) {
        let count = input.into_iter().fold((1, 1), ranges::mul);
        let others = out
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != *at)
            .fold((1, 1), |acc, (_, &r)| ranges::mul(acc, r));
        out[*at] = ranges::div_range(count, others);
    }
    ranges::set_if_bounded(ctx, 0, out)
}

fn is_whole_reshape(ctx: &OpContext<'_>) -> Result<bool, OpError> {
    Ok(ctx.attr_int("axis")? == 0 && ctx.attr_int("num_axes")? == -1)
}

/// The output dims: `target` replaces the input dims `axis .. axis + num_axes`.
fn splice(ctx: &OpContext<'_>, input: &Shape, target: Dims) -> Result<Dims, OpError> {
    if let Some((i, bad)) = target.iter().enumerate().find(|(_, &d)| d < UNKNOWN_DIM) {
        bail!("shape[{i}] is {bad}; dims must be >= 0, or -1 to infer one dim");
    }
    if target.iter().filter(|&&d| d == UNKNOWN_DIM).count() > 1 {
        bail!("the target shape {target:?} has more than one -1");
    }
    if is_whole_reshape(ctx)? {
        return Ok(target);
    }
    let Some(rank) = input.rank() else {
        bail!("axis/num_axes need the input rank, which is unknown");
    };
    let rank = rank as i64;
    let axis = ctx.attr_int("axis")?;
    let start = if axis < 0 {
        axis.saturating_add(rank).saturating_add(1)
    } else {
        axis
    };
    let num_axes = ctx.attr_int("num_axes")?;
    let end = if num_axes == -1 {
        rank
    } else {
        start.saturating_add(num_axes)
    };
    if !(0..=rank).contains(&start) || num_axes < -1 || end > rank {
        bail!("axis {axis} with num_axes {num_axes} does not fit an input of rank {rank}");
    }
    let dims = input.dims();
    let (head, tail) = (&dims[..start as usize], &dims[end as usize..]);
    Ok(head.iter().chain(&target).chain(tail).copied().collect())
}

/// Marks a dim copied (ONNX `0`) from an input dim of unknown size.
const COPIED_UNKNOWN: i64 = i64::MIN;

/// ONNX's `allowzero = 0`: each `0` in `target` takes the input dim at its
/// position ([`COPIED_UNKNOWN`] when that is unknown).
fn copy_input_dims(input: &Shape, mut target: Dims) -> Result<Dims, OpError> {
    for (i, d) in target.iter_mut().enumerate() {
        if *d != 0 {
            continue;
        }
        *d = match input.rank() {
            None => COPIED_UNKNOWN,
            Some(rank) if i < rank => match input.dims()[i] {
                UNKNOWN_DIM => COPIED_UNKNOWN,
                known => known,
            },
            Some(rank) => bail!(
                "shape[{i}] is 0, which copies input dim {i}, but the input has rank {rank} (allowzero is 0)"
            ),
        };
    }
    Ok(target)
}

/// The output of a reshape whose target copies unknown input dims: those
/// stay unknown, and they cancel against the same input dims, so a `-1`
/// is still fixed when every other input dim is known (`[0, -1]` of
/// `[batch, 8, 16, 16]` is `[batch, 2048]`).
fn with_copied_unknowns(input: &Shape, target: &[i64]) -> Result<Shape, OpError> {
    if target.iter().filter(|&&d| d == UNKNOWN_DIM).count() > 1 {
        bail!("the target shape has more than one -1");
    }
    if let Some((i, bad)) = target
        .iter()
        .enumerate()
        .find(|(_, &d)| d < UNKNOWN_DIM && d != COPIED_UNKNOWN)
    {
        bail!("shape[{i}] is {bad}; dims must be >= 0, or -1 to infer one dim");
    }
    let copied = |i: usize| target.get(i) == Some(&COPIED_UNKNOWN);
    let rest_in = input.rank().and_then(|_| {
        input
            .dims()
            .iter()
            .enumerate()
            .filter(|&(i, _)| !copied(i))
            .try_fold(1i64, |acc, (_, &d)| {
                (d >= 0).then(|| acc.checked_mul(d)).flatten()
            })
    });
    let rest_out = target
        .iter()
        .filter(|&&d| d >= 0)
        .try_fold(1i64, |acc, &d| acc.checked_mul(d));
    let inferred = match (rest_in, rest_out) {
        (Some(i), Some(o)) if o > 0 && i.checked_rem(o) == Some(0) => i.checked_div(o),
        _ => None,
    };
    let dims: Dims = target
        .iter()
        .map(|&d| match d {
            COPIED_UNKNOWN => UNKNOWN_DIM,
            UNKNOWN_DIM => inferred.unwrap_or(UNKNOWN_DIM),
            known => known,
        })
        .collect();
    Ok(Shape::from_dims(&dims))
}

/// Fills the one `-1` from the element count and checks the count matches.
fn resolve_unknown(input: &Shape, mut dims: Dims) -> Result<Shape, OpError> {
    let total = input.num_elements().map_err(|_| {
        OpError::new(format!(
            "the element count of input shape {input} overflows int64"
        ))
    })?;
    let known = dims
        .iter()
        .filter(|&&d| d != UNKNOWN_DIM)
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| {
            OpError::new(format!(
                "the element count of target shape {dims:?} overflows int64"
            ))
        })?;
    let unknown_at = dims.iter().position(|&d| d == UNKNOWN_DIM);
    match (total, unknown_at) {
        (Some(total), Some(at)) => {
            match (total.checked_rem(known), total.checked_div(known)) {
                (Some(0), Some(q)) => dims[at] = q,
                _ => bail!("cannot reshape {total} elements (shape {input}) into {dims:?}: the -1 cannot be inferred"),
            }
        }
        (Some(total), None) if total != known => {
            bail!("cannot reshape {total} elements (shape {input}) into {dims:?}, which holds {known}");
        }
        _ => {}
    }
    Ok(Shape::from_dims(dims))
}

/// Ops that only change the dims (Reshape, Squeeze, ExpandDims, Flatten)
/// keep the elements of input 0 in order.
pub(super) fn fold_view(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(dims) = ctx.output_desc(0).map(|d| d.shape().dims().to_vec()) else {
        return Ok(());
    };
    match Elems::input(ctx, 0).and_then(|e| e.reshaped(&dims)) {
        Some(elems) => elems.write(ctx, 0),
        None => Ok(()),
    }
}
