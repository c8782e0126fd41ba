//! SpaceToDepth / DepthToSpace: blocks of `block_size x block_size` pixels
//! move between the spatial dims and the channel dim (NHWC or NCHW).

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::{checked_mul, exact_div_dim, mul_dims};
use crate::types::{AttrType, AttrValue, Shape};

pub(super) fn schemas() -> Vec<OpSchema> {
    let op = |op_type: &str, to_depth: bool| {
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required))
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
            .attr("block_size", AttrType::Int, None)
            .attr(
                "data_format",
                AttrType::Str,
                Some(AttrValue::Str("NHWC".into())),
            )
            .infer_shape(op_fn(if to_depth {
                space_to_depth
            } else {
                depth_to_space
            }))
    };
    vec![op("SpaceToDepth", true), op("DepthToSpace", false)]
}

/// (block size, index of C, indices of H and W) after validation.
fn layout(ctx: &OpContext<'_>) -> Result<(i64, usize, [usize; 2]), OpError> {
    let block = ctx.attr_int("block_size")?;
    if block < 2 {
        bail!("block_size is {block}; it must be >= 2");
    }
    match ctx.attr_str("data_format")? {
        "NHWC" => Ok((block, 3, [1, 2])),
        "NCHW" => Ok((block, 1, [2, 3])),
        other => bail!("data_format is '{other}'; expected NHWC or NCHW"),
    }
}

fn input_dims(ctx: &OpContext<'_>) -> Result<Option<Vec<i64>>, OpError> {
    let input = ctx.input_shape(0)?;
    match input.rank() {
        None => Ok(None),
        Some(4) => Ok(Some(input.dims().to_vec())),
        Some(_) => bail!("the input must have rank 4, got shape {input}"),
    }
}

fn space_to_depth(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (block, c, hw) = layout(ctx)?;
    let Some(mut dims) = input_dims(ctx)? else {
        return ctx.set_output_shape(0, Shape::unknown_dims(4));
    };
    for a in hw {
        let d = dims[a];
        dims[a] = exact_div_dim(d, block).ok_or_else(|| {
            OpError::new(format!(
                "spatial dim {d} is not divisible by block_size {block}"
            ))
        })?;
    }
    let area = checked_mul(block, block, "block_size * block_size")?;
    dims[c] = mul_dims(dims[c], area)?;
    ctx.set_output_shape(0, Shape::from_dims(dims))
}

fn depth_to_space(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (block, c, hw) = layout(ctx)?;
    let Some(mut dims) = input_dims(ctx)? else {
        return ctx.set_output_shape(0, Shape::unknown_dims(4));
    };
    let area = checked_mul(block, block, "block_size * block_size")?;
    let d = dims[c];
    dims[c] = exact_div_dim(d, area).ok_or_else(|| {
        OpError::new(format!(
            "the depth {d} is not divisible by block_size^2 = {area}"
        ))
    })?;
    for a in hw {
        dims[a] = mul_dims(dims[a], block)?;
    }
    ctx.set_output_shape(0, Shape::from_dims(dims))
}
