//! Caffe-style layers as GE defines them: FullyConnection (InnerProduct),
//! Eltwise, Power and Crop.

use super::dims::{attr_floats, merge_dim, merge_shapes, product};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::normalize_axis;
use crate::types::{AttrType, AttrValue, DataType, Dims, Shape};

const FLOATS: &[DataType] = &[DataType::Float16, DataType::Float, DataType::Bf16];
const CROP_TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Float,
    DataType::Int8,
    DataType::Uint8,
    DataType::Int16,
    DataType::Uint16,
    DataType::Int32,
    DataType::Uint32,
    DataType::Int64,
    DataType::Uint64,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    use DataType::*;
    let fc = OpSchema::new("FullyConnection")
        .input(PortDef::new("x", ParamType::Required).dtypes(&[Float16, Int8, Float, Bf16]))
        .input(PortDef::new("w", ParamType::Required).dtypes(&[Float16, Int8, Float, Bf16]))
        .input(PortDef::new("b", ParamType::Optional).dtypes(&[Float16, Int32, Float, Bf16]))
        .input(PortDef::new("offset_w", ParamType::Optional).dtype_list(&[Int8, Int4]))
        .output(PortDef::new("y", ParamType::Required).dtypes(&[Float16, Int32, Float, Bf16]))
        .attr("num_output", AttrType::Int, None)
        .attr("transpose", AttrType::Bool, Some(AttrValue::Bool(false)))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("offset_x", AttrType::Int, Some(AttrValue::Int(0)))
        .infer_shape(op_fn(infer_fully_connection))
        .weight_shapes(super::weight_shapes::fully_connection);
    let eltwise = OpSchema::new("Eltwise")
        .input(PortDef::new("x", ParamType::Dynamic).dtype_list(FLOATS))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("N", AttrType::Int, None)
        .attr("mode", AttrType::Int, Some(AttrValue::Int(1)))
        .attr(
            "coeff",
            AttrType::ListFloat,
            Some(AttrValue::ListFloat(vec![])),
        )
        .verify(op_fn(verify_eltwise))
        .infer_shape(op_fn(infer_eltwise));
    let power = OpSchema::new("Power")
        .input(PortDef::new("x", ParamType::Required).dtype_list(FLOATS))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .attr("power", AttrType::Float, Some(AttrValue::Float(1.0)))
        .attr("scale", AttrType::Float, Some(AttrValue::Float(1.0)))
        .attr("shift", AttrType::Float, Some(AttrValue::Float(0.0)));
    let crop = OpSchema::new("Crop")
        .input(PortDef::new("x", ParamType::Required).dtype_list(CROP_TYPES))
        .input(PortDef::new("size", ParamType::Required).dtype_list(CROP_TYPES))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(2)))
        .attr("offsets", AttrType::ListInt, None)
        .infer_shape(op_fn(infer_crop));
    vec![fc, eltwise, power, crop]
}

/// Caffe InnerProduct: `x` flattens from `axis` into K; `w` is
/// `[num_output, K…]` (or `[K…, num_output]` with `transpose`); the output
/// keeps `x`'s dims before `axis` and appends `num_output`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_fully_connection(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let num_output = ctx.attr_int("num_output")?;
    if num_output < 1 {
        bail!("num_output is {num_output}, expected >= 1");
    }
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let axis = normalize_axis(ctx.attr_int("axis")?, rank)?;
    let k = product(&x.dims()[axis..])?;
    let w = ctx.input_shape(1)?;
    if let Some(w_rank) = w.rank() {
        if w_rank < 2 {
            bail!("the weight w must be at least 2-D, got shape {w}");
        }
        let d = w.dims();
        let (n, wk) = if ctx.attr_bool("transpose")? {
            (d[w_rank - 1], product(&d[..w_rank - 1])?)
        } else {
            (d[0], product(&d[1..])?)
        };
        merge_dim(n, num_output, "the weight's output dim vs num_output")?;
        merge_dim(
            wk,
            k,
            &format!("the weight's input size vs x {x} flattened from axis {axis}"),
        )?;
    }
    if let Some(b) = ctx.optional_input_desc(2)? {
        if !b.shape().is_unknown_rank() {
            merge_dim(
                product(b.shape().dims())?,
                num_output,
                "the bias size vs num_output",
            )?;
        }
    }
    let mut out: Dims = x.dims()[..axis].iter().copied().collect();
    out.push(num_output);
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    super::range_rules::prefix_then(ctx, 0, 0, axis, &[(num_output, num_output)])
}

fn verify_eltwise(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let count = ctx.dynamic_input_count(0)?;
    let n = ctx.attr_int("N")?;
    if n != count as i64 {
        bail!("N is {n} but the node has {count} inputs");
    }
    if count < 1 {
        bail!("Eltwise needs at least one input");
    }
    let mode = ctx.attr_int("mode")?;
    if !(0..=2).contains(&mode) {
        bail!("mode is {mode}, expected 0 (product), 1 (sum) or 2 (max)");
    }
    let coeff = attr_floats(ctx, "coeff")?;
    if !coeff.is_empty() {
        if mode != 1 {
            bail!("coeff is only allowed for mode 1 (sum)");
        }
        if coeff.len() != count {
            bail!(
                "coeff has {} values but there are {count} inputs",
                coeff.len()
            );
        }
    }
    let first = ctx.dynamic_input_desc(0, 0)?.dtype;
    for i in 1..count {
        let d = ctx.dynamic_input_desc(0, i)?.dtype;
        if d != first {
            bail!("input x{i} has dtype {d} but x0 has {first}");
        }
    }
    Ok(())
}

/// All inputs share one shape (Caffe requires it); unknown dims take the
/// known ones.
fn infer_eltwise(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let mut shape = ctx.dynamic_input_desc(0, 0)?.shape().clone();
    for i in 1..ctx.dynamic_input_count(0)? {
        let other = ctx.dynamic_input_desc(0, i)?.shape();
        shape = merge_shapes(
            &shape,
            other,
            &format!("Eltwise input x{i} differs from x0"),
        )?;
    }
    let format = ctx.dynamic_input_desc(0, 0)?.origin_format;
    ctx.set_output_shape(0, shape)?;
    super::range_rules::intersect_dynamic(ctx)?;
    ctx.set_output_format(0, format)
}

/// `y` takes `x`'s dims before `axis` and `size`'s from `axis` on, cropped
/// at `offsets` (one for all cropped dims, or one per dim).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; divisors were checked >= 1 above"
)]
fn infer_crop(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let size = ctx.input_shape(1)?;
    let (Some(rank), Some(size_rank)) = (x.rank(), size.rank()) else {
        let rank = x.rank().or(size.rank());
        let out = rank.map_or_else(Shape::unknown_rank, Shape::unknown_dims);
        return ctx.set_output_shape(0, out);
    };
    if rank != size_rank {
        bail!("x {x} and the reference size {size} must have the same rank");
    }
    let axis = normalize_axis(ctx.attr_int("axis")?, rank)?;
    let offsets = ctx.attr_ints("offsets")?;
    let cropped = rank - axis;
    if offsets.len() != 1 && offsets.len() != cropped {
        bail!(
            "offsets has {} values, expected 1 or {cropped} (one per dim from axis {axis})",
            offsets.len()
        );
    }
    let mut out: Dims = x.dims().iter().copied().collect();
    for i in axis..rank {
        let offset = offsets[if offsets.len() == 1 { 0 } else { i - axis }];
        let (xd, sd) = (x.dims()[i], size.dims()[i]);
        if offset < 0 {
            bail!("offset {offset} for dim {i} must be >= 0");
        }
        if xd >= 0 && sd >= 0 && (offset as i128) + (sd as i128) > xd as i128 {
            bail!("cropping dim {i} to {sd} at offset {offset} overruns x's size {xd}");
        }
        out[i] = sd;
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    super::range_rules::crop(ctx, axis, offsets)
}
