//! Joining and unjoining along an axis: ConcatV2 / Concat (axis input),
//! Pack (new axis) and Unpack (dynamic outputs).

use super::host::{join_axis, slice_axis, Elems};
use super::{int_scalar, merge_dim, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::{add_dims, normalize_axis};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, Dims, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let axis = || {
        PortDef::new("concat_dim", ParamType::Required)
            .dtype_list(INDEX)
            .value_depend(ValueDepend::Required)
    };
    let concat_v2 = OpSchema::new("ConcatV2")
        .input(PortDef::new("x", ParamType::Dynamic))
        .input(axis())
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .optional_attr("N")
        .infer_shape(op_fn(|ctx| infer_concat(ctx, Layout::AxisLast)))
        .fold(op_fn(|ctx| fold_concat(ctx, Layout::AxisLast)));
    let concat = OpSchema::new("Concat")
        .input(axis())
        .input(PortDef::new("x", ParamType::Dynamic))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .optional_attr("N")
        .infer_shape(op_fn(|ctx| infer_concat(ctx, Layout::AxisFirst)))
        .fold(op_fn(|ctx| fold_concat(ctx, Layout::AxisFirst)));
    let pack = OpSchema::new("Pack")
        .input(PortDef::new("x", ParamType::Dynamic))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .optional_attr("N")
        .infer_shape(op_fn(infer_pack))
        .fold(op_fn(fold_pack));
    let unpack = OpSchema::new("Unpack")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Dynamic))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .optional_attr("num")
        .infer_dtype(op_fn(|ctx| {
            let dtype = ctx.input_dtype(0)?;
            (0..ctx.output_count()).try_for_each(|o| ctx.set_output_dtype(o, dtype))
        }))
        .infer_shape(op_fn(infer_unpack))
        .fold(op_fn(fold_unpack));
    vec![concat_v2, concat, pack, unpack]
}

/// Where the axis input sits: ConcatV2 (values, axis), Concat (axis, values).
#[derive(Clone, Copy)]
enum Layout {
    AxisLast,
    AxisFirst,
}

/// (instance of the axis input, instances of the values).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn instances(ctx: &OpContext<'_>, layout: Layout) -> Result<(usize, Vec<usize>), OpError> {
    let n = ctx.input_count();
    if n < 2 {
        bail!("it needs at least one value to concatenate");
    }
    check_n(ctx, n - 1)?;
    Ok(match layout {
        Layout::AxisLast => (n - 1, (0..n - 1).collect()),
        Layout::AxisFirst => (0, (1..n).collect()),
    })
}

/// TensorFlow's `N` attribute, when a node carries it, counts the values.
fn check_n(ctx: &OpContext<'_>, count: usize) -> Result<(), OpError> {
    match ctx.attr("N") {
        Some(&AttrValue::Int(n)) if n != count as i64 => {
            bail!("attribute N is {n} but there are {count} values")
        }
        _ => Ok(()),
    }
}

fn infer_concat(ctx: &mut OpContext<'_>, layout: Layout) -> Result<(), OpError> {
    let (axis_at, values) = instances(ctx, layout)?;
    let shapes: Vec<&Shape> = values
        .iter()
        .map(|&i| ctx.input_shape(i))
        .collect::<Result<_, _>>()?;
    let mut known = shapes.iter().filter_map(|s| s.rank());
    let Some(rank) = known.next() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    if let Some(other) = known.find(|&r| r != rank) {
        bail!("all values must have the same rank, got ranks {rank} and {other}");
    }
    if rank == 0 {
        bail!("cannot concatenate scalars; use Pack");
    }
    let Some(axis) = int_scalar(ctx, axis_at, "concat_dim")? else {
        return ctx.set_output_shape(0, Shape::unknown_dims(rank));
    };
    let axis = normalize_axis(axis, rank)?;
    let mut out: Dims = Dims::from_elem(UNKNOWN_DIM, rank);
    out[axis] = 0;
    for (k, shape) in shapes.iter().enumerate() {
        if shape.rank().is_none() {
            out[axis] = UNKNOWN_DIM;
            continue;
        }
        for (d, (o, &s)) in out.iter_mut().zip(shape.dims()).enumerate() {
            *o = if d == axis {
                add_dims(*o, s)?
            } else {
                merge_dim(
                    *o,
                    s,
                    &format!("value {k} at axis {d} (concatenating along {axis})"),
                )?
            };
        }
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        ranges::set_concat(ctx, &values, axis, rank)?;
    }
    Ok(())
}

fn fold_concat(ctx: &mut OpContext<'_>, layout: Layout) -> Result<(), OpError> {
    let (axis_at, values) = instances(ctx, layout)?;
    let dims = match ctx.output_desc(0) {
        Some(d) => d.shape().dims().to_vec(),
        None => return Ok(()),
    };
    let Some(axis) = int_scalar(ctx, axis_at, "concat_dim")? else {
        return Ok(());
    };
    let axis = normalize_axis(axis, dims.len())?;
    let parts: Option<Vec<Elems>> = values.iter().map(|&i| Elems::input(ctx, i)).collect();
    match parts.and_then(|p| join_axis(&p, axis, &dims)) {
        Some(elems) => elems.write(ctx, 0),
        None => Ok(()),
    }
}

/// Every value has the same shape; `N` of them stack at `axis`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_pack(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let n = ctx.input_count();
    if n == 0 {
        bail!("it needs at least one value to pack");
    }
    check_n(ctx, n)?;
    let mut merged: Option<Dims> = None;
    for i in 0..n {
        let shape = ctx.input_shape(i)?;
        let Some(rank) = shape.rank() else { continue };
        merged = Some(match merged {
            None => Dims::from_slice(shape.dims()),
            Some(m) if m.len() != rank => {
                bail!(
                    "all values must have the same shape, got ranks {} and {rank}",
                    m.len()
                )
            }
            Some(m) => m
                .iter()
                .zip(shape.dims())
                .map(|(&a, &b)| merge_dim(a, b, &format!("value {i}")))
                .collect::<Result<_, _>>()?,
        });
    }
    let Some(mut dims) = merged else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let at = normalize_axis(ctx.attr_int("axis")?, dims.len() + 1)?;
    dims.insert(at, n as i64);
    ctx.set_output_shape(0, Shape::from_dims(&dims))?;
    if ranges::wanted(ctx, 0) {
        // Every value has the same shape: each dim lies in all their ranges.
        let mut out = vec![ranges::ANY; dims.len() - 1];
        for i in 0..n {
            for (o, v) in out
                .iter_mut()
                .zip(ranges::of_input(ctx, i).unwrap_or_default())
            {
                *o = ranges::intersect(*o, v).unwrap_or(*o);
            }
        }
        out.insert(at, (n as i64, n as i64));
        ranges::set(ctx, 0, out)?;
    }
    Ok(())
}

fn fold_pack(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let dims = match ctx.output_desc(0) {
        Some(d) => d.shape().dims().to_vec(),
        None => return Ok(()),
    };
    let at = normalize_axis(ctx.attr_int("axis")?, dims.len())?;
    let mut parts = Vec::with_capacity(ctx.input_count());
    for i in 0..ctx.input_count() {
        let Some(mut e) = Elems::input(ctx, i) else {
            return Ok(());
        };
        e.dims.insert(at, 1);
        parts.push(e);
    }
    match join_axis(&parts, at, &dims) {
        Some(elems) => elems.write(ctx, 0),
        None => Ok(()),
    }
}

/// One output per slice along `axis`, that axis removed.
fn infer_unpack(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let count = ctx.output_count();
    if let Some(&AttrValue::Int(num)) = ctx.attr("num") {
        if num != count as i64 {
            bail!("attribute num is {num} but the node has {count} outputs");
        }
    }
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return (0..count).try_for_each(|o| ctx.set_output_shape(o, Shape::unknown_rank()));
    };
    if rank == 0 {
        bail!("cannot unpack a scalar");
    }
    let axis = normalize_axis(ctx.attr_int("axis")?, rank)?;
    let dim = input.dims()[axis];
    if dim != UNKNOWN_DIM && dim != count as i64 {
        bail!("axis {axis} has {dim} entries but the node has {count} outputs");
    }
    let mut dims = Dims::from_slice(input.dims());
    dims.remove(axis);
    (0..count).try_for_each(|o| {
        ctx.set_output_shape(o, Shape::from_dims(&dims))?;
        range_rules::propagate(ctx, o, |ctx| {
            let mut r = ranges::of_input(ctx, 0)?;
            r.remove(axis);
            Some(r)
        })
    })
}

fn fold_unpack(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(input) = Elems::input(ctx, 0) else {
        return Ok(());
    };
    let axis = normalize_axis(ctx.attr_int("axis")?, input.dims.len())?;
    for o in 0..ctx.output_count() {
        let mut part = slice_axis(&input, axis, o, 1);
        part.dims.remove(axis);
        part.write(ctx, o)?;
    }
    Ok(())
}
