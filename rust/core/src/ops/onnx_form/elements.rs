//! Element-wise indexing ops of ONNX: GatherElements (opset 11+),
//! ScatterElements (opset 11+, `reduction` from 16/18) and ScatterND
//! (opset 11+, `reduction` from 16/18). GatherElements picks one element of
//! `x` per entry of `indices` along `axis` (TensorFlow's GatherV2 instead
//! takes whole slices), so its output has the shape of `indices`. The
//! scatters write `updates` into a copy of `data`: the output is `data`'s
//! dtype and shape (TensorFlow's ScatterNd builds a new tensor from a
//! `shape` input instead).

use super::INDEX;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::normalize_axis;
use crate::types::{AttrType, AttrValue, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let gather = OpSchema::new("GatherElements")
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("indices", ParamType::Required).dtype_list(INDEX))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .infer_shape(op_fn(infer_gather_elements));
    let scatter = |op_type: &str| {
        OpSchema::new(op_type)
            .input(PortDef::new("data", ParamType::Required))
            .input(PortDef::new("indices", ParamType::Required).dtype_list(INDEX))
            .input(PortDef::new("updates", ParamType::Required))
            .output(PortDef::new("y", ParamType::Required).follow("data", FollowType::All))
            .attr(
                "reduction",
                AttrType::Str,
                Some(AttrValue::Str("none".to_owned())),
            )
    };
    let scatter_elements = scatter("ScatterElements")
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .verify(op_fn(verify_scatter_elements));
    let scatter_nd = scatter("ScatterND").verify(op_fn(verify_scatter_nd));
    vec![gather, scatter_elements, scatter_nd]
}

const REDUCTIONS: [&str; 5] = ["none", "add", "mul", "max", "min"];

fn same_rank(a: &Shape, b: &Shape, what: &str) -> Result<(), OpError> {
    if let (Some(ra), Some(rb)) = (a.rank(), b.rank()) {
        if ra != rb {
            bail!("{what}: ranks {ra} ({a}) and {rb} ({b}) must be equal");
        }
    }
    Ok(())
}

/// The axis checked against the rank of input 0, when known.
fn check_axis(ctx: &OpContext<'_>) -> Result<(), OpError> {
    let axis = ctx.attr_int("axis")?;
    if let Some(rank) = ctx.input_shape(0)?.rank() {
        normalize_axis(axis, rank)?;
    }
    Ok(())
}

fn infer_gather_elements(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (x, indices) = (ctx.input_shape(0)?, ctx.input_shape(1)?);
    same_rank(x, indices, "x and indices")?;
    check_axis(ctx)?;
    let out = indices.clone();
    ctx.set_output_shape(0, out)
}

fn check_reduction(ctx: &OpContext<'_>) -> Result<(), OpError> {
    let reduction = ctx.attr_str("reduction")?;
    if !REDUCTIONS.contains(&reduction) {
        bail!("attribute 'reduction' is {reduction:?}; expected one of {REDUCTIONS:?}");
    }
    Ok(())
}

fn check_dtypes(ctx: &OpContext<'_>) -> Result<(), OpError> {
    let (data, updates) = (ctx.input_dtype(0)?, ctx.input_dtype(2)?);
    if data != updates {
        bail!("updates is {updates} but data is {data}; they must match");
    }
    Ok(())
}

/// Dims that must agree: equal, or one unknown.
fn dims_agree(a: &[i64], b: &[i64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(&x, &y)| x == y || x == UNKNOWN_DIM || y == UNKNOWN_DIM)
}

fn verify_scatter_elements(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    check_reduction(ctx)?;
    check_dtypes(ctx)?;
    let (data, indices, updates) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.input_shape(2)?,
    );
    same_rank(data, indices, "data and indices")?;
    if indices.rank().is_some()
        && updates.rank().is_some()
        && !dims_agree(indices.dims(), updates.dims())
    {
        bail!("indices {indices} and updates {updates} must have the same shape");
    }
    check_axis(ctx)
}

/// `updates.shape == indices.shape[:-1] + data.shape[k:]` with
/// `k = indices.shape[-1] <= rank(data)`.
fn verify_scatter_nd(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    check_reduction(ctx)?;
    check_dtypes(ctx)?;
    let (data, indices, updates) = (
        ctx.input_shape(0)?,
        ctx.input_shape(1)?,
        ctx.input_shape(2)?,
    );
    let Some((&k, batch)) = indices.dims().split_last() else {
        if indices.rank() == Some(0) {
            bail!("indices must have rank >= 1, got a scalar");
        }
        return Ok(());
    };
    let (Some(rank), Some(_)) = (data.rank(), updates.rank()) else {
        return Ok(());
    };
    if k == UNKNOWN_DIM {
        return Ok(());
    }
    let Some(tail) = usize::try_from(k).ok().and_then(|k| data.dims().get(k..)) else {
        bail!("indices' last dim is {k}, more than the rank {rank} of data");
    };
    let want = [batch, tail].concat();
    if !dims_agree(&want, updates.dims()) {
        bail!(
            "updates {updates} must have shape {} (indices {indices} without its last dim, then data {data} from dim {k})",
            Shape::from_dims(want)
        );
    }
    Ok(())
}
