//! ONNX's spatial sampling: GridSample (opsets 16–22: x `[N, C, D1..Dr]`
//! sampled at grid `[N, D1_out..Dr_out, r]` gives `[N, C, D1_out..Dr_out]`)
//! and AffineGrid (20: theta `[N, 2, 3]` or `[N, 3, 4]` and the
//! value-depend `size` `[N, C, H, W]` or `[N, C, D, H, W]` give the grid
//! `[N, H, W, 2]` or `[N, D, H, W, 3]`).

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::nn::dims::merge_dim;
use crate::types::{AttrType, AttrValue, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let grid_sample = OpSchema::new("GridSample")
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("grid", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("align_corners", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("mode", AttrType::Str, Some(AttrValue::Str("linear".into())))
        .attr(
            "padding_mode",
            AttrType::Str,
            Some(AttrValue::Str("zeros".into())),
        )
        .infer_shape(op_fn(infer_grid_sample));
    let affine_grid = OpSchema::new("AffineGrid")
        .input(PortDef::new("theta", ParamType::Required))
        .input(PortDef::new("size", ParamType::Required).value_depend(ValueDepend::Optional))
        .output(PortDef::new("grid", ParamType::Required).follow("theta", FollowType::Dtype))
        .attr("align_corners", AttrType::Int, Some(AttrValue::Int(0)))
        .infer_shape(op_fn(infer_affine_grid));
    vec![grid_sample, affine_grid]
}

fn infer_grid_sample(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (x, grid) = (ctx.input_shape(0)?, ctx.input_shape(1)?);
    let (Some(xr), Some(gr)) = (x.rank(), grid.rank()) else {
        let rank = x.rank().or(grid.rank());
        return ctx.set_output_shape(0, rank.map_or(Shape::unknown_rank(), Shape::unknown_dims));
    };
    if xr < 3 || gr != xr {
        bail!("x must be [N, C, D1..Dr] and grid [N, D1_out..Dr_out, r] of the same rank, got {x} and {grid}");
    }
    let spatial = xr.saturating_sub(2) as i64;
    let (xd, gd) = (x.dims(), grid.dims());
    let last = gd[gr.saturating_sub(1)];
    if last != UNKNOWN_DIM && last != spatial {
        bail!("grid {grid} must end in {spatial} (one coordinate per spatial dim of x {x})");
    }
    let mut out = vec![
        merge_dim(xd[0], gd[0], "x and grid have different batch sizes")?,
        xd[1],
    ];
    out.extend_from_slice(&gd[1..gr.saturating_sub(1)]);
    ctx.set_output_shape(0, Shape::from_dims(out))
}

fn infer_affine_grid(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let theta = ctx.input_shape(0)?;
    let size_len = ctx.input_shape(1)?.dims().first().copied();
    let spatial: usize = match (theta.dims(), theta.rank(), size_len) {
        ([_, 2, 3], _, _) | (_, None, Some(4)) => 2,
        ([_, 3, 4], _, _) | (_, None, Some(5)) => 3,
        (_, Some(3), _) if theta.dims()[1] == UNKNOWN_DIM => match size_len {
            Some(4) => 2,
            Some(5) => 3,
            _ => return ctx.set_output_shape(0, Shape::unknown_rank()),
        },
        (_, None, _) => return ctx.set_output_shape(0, Shape::unknown_rank()),
        _ => bail!("theta must be [N, 2, 3] (2-D) or [N, 3, 4] (3-D), got shape {theta}"),
    };
    let n_theta = theta.dims().first().copied().unwrap_or(UNKNOWN_DIM);
    let size = ctx.input_value(1).and_then(|v| v.to_ints());
    let mut out = Vec::with_capacity(spatial.saturating_add(2));
    match size.as_deref() {
        Some(s) if s.len() == spatial.saturating_add(2) => {
            if let Some(d) = s.iter().find(|&&d| d < 0) {
                bail!("size {s:?} has {d}; every size must be >= 0");
            }
            out.push(merge_dim(
                n_theta,
                s[0],
                "theta and size have different batch sizes",
            )?);
            out.extend_from_slice(&s[2..]);
        }
        Some(s) => bail!(
            "size {s:?} must have {} values for theta {theta}",
            spatial.saturating_add(2)
        ),
        None => {
            out.push(n_theta);
            out.extend(std::iter::repeat_n(UNKNOWN_DIM, spatial));
        }
    }
    out.push(spatial as i64);
    ctx.set_output_shape(0, Shape::from_dims(out))
}
