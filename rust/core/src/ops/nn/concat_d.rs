//! GE's ConcatD: concatenation along the `concat_dim` attribute of a
//! dynamic input. (GE's SoftmaxV2 lives with the math ops.)

use super::dims::merge_dim;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::array::host::{join_axis, Elems};
use crate::ops::common::{add_dims, normalize_axis};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, Dims, Shape};

pub(super) fn schemas() -> Vec<OpSchema> {
    let concat = OpSchema::new("ConcatD")
        .input(PortDef::new("x", ParamType::Dynamic))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("concat_dim", AttrType::Int, None)
        .attr("N", AttrType::Int, Some(AttrValue::Int(1)))
        .infer_shape(op_fn(infer_concat))
        .fold(op_fn(fold_concat));
    vec![concat]
}

/// Known elements of the inputs joined along `concat_dim`: shape vectors
/// built from parts (ONNX's Shape → Gather → Unsqueeze → Concat), unknown
/// parts staying unknown entries.
fn fold_concat(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(dims) = ctx.output_desc(0).map(|d| d.shape().dims().to_vec()) else {
        return Ok(());
    };
    if dims.iter().any(|&d| d < 0) {
        return Ok(());
    }
    let axis = normalize_axis(ctx.attr_int("concat_dim")?, dims.len())?;
    let count = ctx.dynamic_input_count(0)?;
    let parts: Option<Vec<Elems>> = (0..count).map(|i| Elems::input(ctx, i)).collect();
    match parts.and_then(|p| join_axis(&p, axis, &dims)) {
        Some(elems) => elems.write(ctx, 0),
        None => Ok(()),
    }
}

/// Every input has x0's rank and dims except along `concat_dim`, which adds
/// up. `N` (when set to more than its default 1) must count the inputs.
fn infer_concat(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let count = ctx.dynamic_input_count(0)?;
    if count == 0 {
        bail!("ConcatD needs at least one input");
    }
    let n = ctx.attr_int("N")?;
    if n != 1 && n != count as i64 {
        bail!("N is {n} but the node has {count} inputs");
    }
    let dtype = ctx.dynamic_input_desc(0, 0)?.dtype;
    let mut known: Option<(usize, Dims)> = None;
    let mut total: i64 = 0;
    let concat_dim = ctx.attr_int("concat_dim")?;
    for i in 0..count {
        let desc = ctx.dynamic_input_desc(0, i)?;
        if desc.dtype != dtype {
            bail!("input x{i} has dtype {} but x0 has {dtype}", desc.dtype);
        }
        let Some(rank) = desc.shape().rank() else {
            total = -1;
            continue;
        };
        if rank == 0 {
            bail!("input x{i} is a scalar; ConcatD needs at least 1-D inputs");
        }
        let axis = normalize_axis(concat_dim, rank)?;
        let dims = desc.shape().dims();
        total = add_dims(total, dims[axis])?;
        match &mut known {
            None => known = Some((axis, dims.iter().copied().collect())),
            Some((_, acc)) if acc.len() != rank => {
                bail!("input x{i} has rank {rank} but x0 has rank {}", acc.len())
            }
            Some((_, acc)) => {
                for (j, (a, &d)) in acc.iter_mut().zip(dims).enumerate() {
                    if j != axis {
                        *a = merge_dim(*a, d, &format!("input x{i} differs in dim {j}"))?;
                    }
                }
            }
        }
    }
    let Some((axis, mut dims)) = known else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    dims[axis] = total;
    let rank = dims.len();
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    if ranges::wanted(ctx, 0) {
        let values: Vec<usize> = (0..count).collect();
        ranges::set_concat(ctx, &values, axis, rank)?;
    }
    Ok(())
}
