//! Gathering: GatherV2 (axis input, batch_dims) / Gather (axis 0),
//! GatherNd, and OneHot (a gather from the identity matrix).

use super::host::{count, for_each_index, strides, Elems};
use super::{int_scalar, merge_dim, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::normalize_axis;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Dims, Shape, MAX_RANK, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let indices = || PortDef::new("indices", ParamType::Required).dtype_list(INDEX);
    let y = || PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype);
    let gather_v2 = OpSchema::new("GatherV2")
        .input(PortDef::new("x", ParamType::Required))
        .input(indices())
        .input(
            PortDef::new("axis", ParamType::Required)
                .dtype_list(INDEX)
                .value_depend(ValueDepend::Required),
        )
        .output(y())
        .attr("batch_dims", AttrType::Int, Some(AttrValue::Int(0)))
        // CANN's name: indices in [-dim, 0) count from the end (ONNX's Gather).
        .attr(
            "negative_index_support",
            AttrType::Bool,
            Some(AttrValue::Bool(false)),
        )
        .infer_shape(op_fn(infer_gather))
        .fold(op_fn(fold_gather));
    let gather = OpSchema::new("Gather")
        .input(PortDef::new("x", ParamType::Required))
        .input(indices())
        .output(y())
        .attr(
            "validate_indices",
            AttrType::Bool,
            Some(AttrValue::Bool(true)),
        )
        .attr("batch_dims", AttrType::Int, Some(AttrValue::Int(0)))
        .infer_shape(op_fn(infer_gather))
        .fold(op_fn(fold_gather));
    let gather_nd = OpSchema::new("GatherNd")
        .input(PortDef::new("x", ParamType::Required))
        .input(indices())
        .output(y())
        // ONNX GatherND (opset 12): the leading dims shared by x and indices.
        .attr("batch_dims", AttrType::Int, Some(AttrValue::Int(0)))
        .infer_shape(op_fn(infer_gather_nd))
        .fold(op_fn(fold_gather_nd));
    let one_hot = OpSchema::new("OneHot")
        .input(PortDef::new("x", ParamType::Required).dtype_list(&[
            DataType::Uint8,
            DataType::Int32,
            DataType::Int64,
        ]))
        .input(
            PortDef::new("depth", ParamType::Required)
                .dtype_list(&[DataType::Int32])
                .value_depend(ValueDepend::Required),
        )
        .input(PortDef::new("on_value", ParamType::Required))
        .input(PortDef::new("off_value", ParamType::Required).follow("on_value", FollowType::Dtype))
        .output(PortDef::new("y", ParamType::Required).follow("on_value", FollowType::Dtype))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(-1)))
        .infer_shape(op_fn(infer_one_hot));
    vec![gather_v2, gather, gather_nd, one_hot]
}

/// The gather axis and batch_dims, normalised; `None` when the axis is unknown.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn axes(
    ctx: &OpContext<'_>,
    params_rank: usize,
    indices_rank: usize,
) -> Result<Option<(usize, usize)>, OpError> {
    let axis = if ctx.input_count() > 2 {
        match int_scalar(ctx, 2, "axis")? {
            Some(a) => a,
            None => return Ok(None),
        }
    } else {
        0
    };
    let mut batch = ctx.attr_int("batch_dims")?;
    if batch < 0 {
        batch += indices_rank as i64;
    }
    if batch < 0 || batch > indices_rank as i64 {
        bail!(
            "batch_dims {} is out of range for indices of rank {indices_rank}",
            ctx.attr_int("batch_dims")?
        );
    }
    if params_rank == 0 {
        bail!("cannot gather from a scalar");
    }
    let axis = normalize_axis(axis, params_rank)?;
    if batch as usize > axis {
        bail!("batch_dims {batch} must be <= axis {axis}");
    }
    Ok(Some((axis, batch as usize)))
}

/// `params[:axis] + indices[batch_dims:] + params[axis+1:]`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_gather(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (params, indices) = (ctx.input_shape(0)?, ctx.input_shape(1)?);
    let (Some(p), Some(q)) = (params.rank(), indices.rank()) else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    if p == 0 {
        bail!("cannot gather from a scalar");
    }
    let Some((axis, batch)) = axes(ctx, p, q)? else {
        return ctx.set_output_shape(0, Shape::unknown_dims(p + q - 1));
    };
    let mut dims: Dims = params.dims()[..axis].iter().copied().collect();
    for b in 0..batch {
        dims[b] = merge_dim(
            dims[b],
            indices.dims()[b],
            &format!("batch dim {b} of params and indices"),
        )?;
    }
    dims.extend_from_slice(&indices.dims()[batch..]);
    dims.extend_from_slice(&params.dims()[axis + 1..]);
    if dims.len() > MAX_RANK {
        bail!(
            "the output rank {} exceeds the maximum rank {MAX_RANK}",
            dims.len()
        );
    }
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    range_rules::propagate(ctx, 0, |ctx| {
        let (p, i) = (ranges::of_input(ctx, 0)?, ranges::of_input(ctx, 1)?);
        Some(range_rules::gather(&p, &i, axis, batch))
    })
}

fn index_in(i: i64, dim: i64) -> Result<usize, OpError> {
    if i < 0 || i >= dim {
        bail!("index {i} is out of range for a dim of size {dim}");
    }
    Ok(i as usize)
}

/// `index_in`, where `negative` also takes `[-dim, 0)` as counting from the end.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "i is in [-dim, 0), so i + dim is in [0, dim)"
)]
fn index_from_either_end(i: i64, dim: i64, negative: bool) -> Result<usize, OpError> {
    if negative && (-dim..0).contains(&i) {
        return Ok((i + dim) as usize);
    }
    if negative && !(0..dim).contains(&i) {
        bail!("index {i} is out of range [-{dim}, {dim}) for a dim of size {dim}");
    }
    index_in(i, dim)
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold_gather(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (Some(params), Some(indices)) = (Elems::input(ctx, 0), Elems::input(ctx, 1)) else {
        return Ok(());
    };
    let Some((axis, batch)) = axes(ctx, params.dims.len(), indices.dims.len())? else {
        return Ok(());
    };
    let out_dims: Vec<i64> = match ctx.output_desc(0) {
        Some(d) => d.shape().dims().to_vec(),
        None => return Ok(()),
    };
    // Only GatherV2 has the attribute; Gather (TF v1) takes no negative index.
    let negative = ctx.attr_bool("negative_index_support").unwrap_or(false);
    let (ps, is) = (strides(&params.dims), strides(&indices.dims));
    let q = indices.dims.len() - batch;
    let mut sources = Vec::new();
    let mut error = None;
    for_each_index(&out_dims, |o| {
        // indices coordinate: the batch dims, then the gathered dims.
        let at: usize = o[..batch]
            .iter()
            .chain(&o[axis..axis + q])
            .zip(&is)
            .map(|(&c, &s)| c as usize * s)
            .sum();
        let source = indices.int_at(at).map(|i| {
            let i = index_from_either_end(i, params.dims[axis], negative)?;
            let coord = o[..axis]
                .iter()
                .copied()
                .chain([i as i64])
                .chain(o[axis + q..].iter().copied());
            Ok(coord.zip(&ps).map(|(c, &s)| c as usize * s).sum())
        });
        match source.transpose() {
            Ok(s) => sources.push(s),
            Err(e) => error = Some(e),
        }
    });
    if let Some(e) = error {
        return Err(e);
    }
    params.pick(&out_dims, sources).write(ctx, 0)
}

/// `indices[:-1] + params[indices[-1]:]`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_gather_nd(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (params, indices) = (ctx.input_shape(0)?, ctx.input_shape(1)?);
    let (Some(p), Some(q)) = (params.rank(), indices.rank()) else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    if q == 0 {
        bail!("indices must have rank >= 1");
    }
    let batch = ctx.attr_int("batch_dims")?;
    let b = usize::try_from(batch).unwrap_or(usize::MAX);
    if b >= q || b > p {
        bail!(
            "batch_dims {batch} must be >= 0 and below the ranks of params ({p}) and indices ({q})"
        );
    }
    let depth = indices.dims()[q - 1];
    if depth == UNKNOWN_DIM {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    }
    if depth as usize > p - b {
        bail!("indices address {depth} dims after {b} batch dims, but params has rank {p}");
    }
    for (i, (&x, &y)) in params.dims()[..b].iter().zip(indices.dims()).enumerate() {
        if x != UNKNOWN_DIM && y != UNKNOWN_DIM && x != y {
            bail!("batch dim {i} is {x} in params but {y} in indices");
        }
    }
    let depth = depth + b as i64;
    let dims: Dims = indices.dims()[..q - 1]
        .iter()
        .chain(&params.dims()[depth as usize..])
        .copied()
        .collect();
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    range_rules::propagate(ctx, 0, |ctx| {
        let (p, i) = (ranges::of_input(ctx, 0)?, ranges::of_input(ctx, 1)?);
        Some([&i[..q - 1], &p[depth as usize..]].concat())
    })
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold_gather_nd(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if ctx.attr_int("batch_dims")? != 0 {
        return Ok(());
    }
    let (Some(params), Some(indices)) = (Elems::input(ctx, 0), Elems::input(ctx, 1)) else {
        return Ok(());
    };
    let Some(&depth) = indices.dims.last() else {
        return Ok(());
    };
    let (depth, ps) = (depth as usize, strides(&params.dims));
    if depth > params.dims.len() {
        return Ok(());
    }
    let rows = count(&indices.dims[..indices.dims.len() - 1]);
    let inner = count(&params.dims[depth..]);
    let mut sources = Vec::with_capacity(rows * inner);
    for r in 0..rows {
        let mut base = Some(0usize);
        for (k, (&dim, &stride)) in params.dims.iter().zip(&ps).take(depth).enumerate() {
            base = match (base, indices.int_at(r * depth + k)) {
                (Some(b), Some(i)) => Some(b + index_in(i, dim)? * stride),
                _ => None,
            };
        }
        sources.extend((0..inner).map(|j| base.map(|b| b + j)));
    }
    let out_dims: Vec<i64> = match ctx.output_desc(0) {
        Some(d) => d.shape().dims().to_vec(),
        None => return Ok(()),
    };
    params.pick(&out_dims, sources).write(ctx, 0)
}

/// `depth` inserted at `axis` (-1: last) of the indices' shape.
fn infer_one_hot(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    for (i, name) in [(2, "on_value"), (3, "off_value")] {
        let shape = ctx.input_shape(i)?;
        if shape.rank().is_some_and(|r| r != 0) {
            bail!("input '{name}' must be a scalar, got shape {shape}");
        }
    }
    let depth = match int_scalar(ctx, 1, "depth")? {
        Some(d) if d < 0 => bail!("depth is {d}; it must be >= 0"),
        Some(d) => d,
        None => UNKNOWN_DIM,
    };
    let axis = ctx.attr_int("axis")?;
    let indices = ctx.input_shape(0)?;
    let Some(rank) = indices.rank() else {
        if axis < -1 {
            bail!("axis {axis} must be >= -1");
        }
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    if axis < -1 || axis > rank as i64 {
        bail!("axis {axis} is out of range for indices of rank {rank} (expected -1..={rank})");
    }
    let at = if axis == -1 { rank } else { axis as usize };
    let mut dims = Dims::from_slice(indices.dims());
    dims.insert(at, depth);
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    range_rules::propagate(ctx, 0, |ctx| {
        let mut r = ranges::of_input(ctx, 0)?;
        r.insert(at, ranges::of_dim(depth, None));
        Some(r)
    })
}
