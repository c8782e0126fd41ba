//! GE's ops for the Caffe layers no TensorFlow-style op covers: Threshold,
//! BNLL, MVN (element-wise or normalising, `y` like `x`), Reduction (reduces
//! every dim from `axis`), ArgMaxWithK (Caffe's ArgMax, `topk` along an axis
//! or per item), TileWithAxis and FlattenV2 (Caffe's Flatten with
//! `end_axis`). Axes follow Caffe: in `[-rank, rank)`.

use super::dims::product;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::{mul_dims, normalize_axis};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Dims, Shape, UNKNOWN_DIM};

const F32_F16: &[DataType] = &[DataType::Float, DataType::Float16];
const FLOATING: &[DataType] = &[DataType::Float, DataType::Float16, DataType::Double];
const TILE_TYPES: &[DataType] = &[
    DataType::Bf16,
    DataType::Float16,
    DataType::Float,
    DataType::Int64,
    DataType::Int32,
    DataType::Int16,
    DataType::Int8,
    DataType::Uint64,
    DataType::Uint32,
    DataType::Uint16,
    DataType::Uint8,
];

/// ArgMaxWithK's `axis` when the layer sets none (GE's sentinel).
pub(crate) const ARGMAX_NO_AXIS: i64 = 10000;

/// `x` → `y` with `x`'s dtype, shape and format.
fn like_x(op_type: &str, dtypes: &[DataType]) -> OpSchema {
    OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Required).dtype_list(dtypes))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
}

pub(super) fn schemas() -> Vec<OpSchema> {
    let threshold = like_x("Threshold", F32_F16).attr(
        "threshold",
        AttrType::Float,
        Some(AttrValue::Float(0.0)),
    );
    let bnll = like_x("BNLL", FLOATING);
    let mvn = like_x("MVN", F32_F16)
        .attr(
            "normalize_variance",
            AttrType::Bool,
            Some(AttrValue::Bool(true)),
        )
        .attr(
            "across_channels",
            AttrType::Bool,
            Some(AttrValue::Bool(false)),
        )
        .attr("eps", AttrType::Float, Some(AttrValue::Float(1e-9)))
        .verify(op_fn(verify_mvn));
    let reduction = OpSchema::new("Reduction")
        .input(PortDef::new("x", ParamType::Required).dtype_list(F32_F16))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("operation", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("coeff", AttrType::Float, Some(AttrValue::Float(1.0)))
        .verify(op_fn(verify_reduction))
        .infer_shape(op_fn(infer_reduction));
    // Caffe's ArgMax has one top holding the indices, or with `out_max_val`
    // the values (or indices and values side by side): both GE outputs
    // take that shape and x's dtype (Caffe's indices are floats).
    let arg_max = OpSchema::new("ArgMaxWithK")
        .input(PortDef::new("x", ParamType::Required).dtype_list(F32_F16))
        .output(PortDef::new("indices", ParamType::Required).follow("x", FollowType::Dtype))
        .output(PortDef::new("values", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(ARGMAX_NO_AXIS)))
        .attr("out_max_val", AttrType::Bool, Some(AttrValue::Bool(false)))
        .attr("topk", AttrType::Int, Some(AttrValue::Int(1)))
        .infer_shape(op_fn(infer_arg_max_with_k));
    let tile = OpSchema::new("TileWithAxis")
        .input(PortDef::new("x", ParamType::Required).dtype_list(TILE_TYPES))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("axis", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("tiles", AttrType::Int, None)
        .infer_shape(op_fn(infer_tile_with_axis));
    let flatten = OpSchema::new("FlattenV2")
        .input(PortDef::new("x", ParamType::Required))
        .output(
            PortDef::new("y", ParamType::Required)
                .follow("x", FollowType::Dtype)
                .reuses_input("x"),
        )
        .attr("axis", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("end_axis", AttrType::Int, Some(AttrValue::Int(-1)))
        .infer_shape(op_fn(infer_flatten_v2));
    vec![threshold, bnll, mvn, reduction, arg_max, tile, flatten]
}

/// Caffe's MVN reads the input through its legacy N, C, H, W accessors,
/// so it takes at most four dims.
fn verify_mvn(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    match x.rank() {
        Some(r) if r == 0 || r > 4 => bail!("x must have 1 to 4 dims (N, C, H, W), got shape {x}"),
        _ => Ok(()),
    }
}

fn verify_reduction(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let operation = ctx.attr_int("operation")?;
    if !(1..=4).contains(&operation) {
        bail!("operation is {operation}, expected 1 (SUM), 2 (ASUM), 3 (SUMSQ) or 4 (MEAN)");
    }
    Ok(())
}

/// Caffe reduces every dim from `axis` on: `y` keeps the dims before it (a
/// scalar for axis 0).
fn infer_reduction(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let axis = normalize_axis(ctx.attr_int("axis")?, rank)?;
    let out = Shape::from_dims(&x.dims()[..axis]);
    ctx.set_output_shape(0, out)?;
    super::range_rules::prefix_then(ctx, 0, 0, axis, &[])
}

/// With an axis, x's shape with `topk` there. Without one, Caffe's per-item
/// form: rank max(rank, 3), all ones but N, `topk` at dim 2 and 2 at dim 1
/// when the values ride along with the indices.
fn infer_arg_max_with_k(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let topk = ctx.attr_int("topk")?;
    if topk < 1 {
        bail!("topk is {topk}, expected >= 1");
    }
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        ctx.set_output_shape(0, Shape::unknown_rank())?;
        return ctx.set_output_shape(1, Shape::unknown_rank());
    };
    let axis = ctx.attr_int("axis")?;
    let out: Dims = if axis == ARGMAX_NO_AXIS {
        if rank < 1 {
            bail!("x must have a batch dim, got a scalar");
        }
        let items = product(&x.dims()[1..])?;
        if items != UNKNOWN_DIM && topk > items {
            bail!("topk {topk} exceeds the {items} values per item of x {x}");
        }
        let mut dims: Dims = std::iter::repeat_n(1, rank.max(3)).collect();
        dims[0] = x.dims()[0];
        dims[2] = topk;
        if ctx.attr_bool("out_max_val")? {
            dims[1] = 2;
        }
        dims
    } else {
        let a = normalize_axis(axis, rank)?;
        let d = x.dims()[a];
        if d != UNKNOWN_DIM && topk > d {
            bail!("topk {topk} exceeds dim {a} of x {x}");
        }
        let mut dims: Dims = x.dims().iter().copied().collect();
        dims[a] = topk;
        dims
    };
    ctx.set_output_shape(0, Shape::from_dims(&out))?;
    ctx.set_output_shape(1, Shape::from_dims(out))
}

/// `y` repeats x `tiles` times along `axis`.
fn infer_tile_with_axis(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let tiles = ctx.attr_int("tiles")?;
    if tiles < 1 {
        bail!("tiles is {tiles}, expected >= 1");
    }
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let axis = normalize_axis(ctx.attr_int("axis")?, rank)?;
    let mut out: Dims = x.dims().iter().copied().collect();
    out[axis] = mul_dims(out[axis], tiles)?;
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        if let Some(mut r) = ranges::of_input(ctx, 0) {
            r[axis] = ranges::mul(r[axis], (tiles, tiles));
            ranges::set(ctx, 0, r)?;
        }
    }
    Ok(())
}

/// Caffe's Flatten: dims `axis ..= end_axis` become one (their product).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_flatten_v2(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let Some(rank) = x.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    if rank == 0 {
        bail!("x must have at least one dim, got a scalar");
    }
    let start = normalize_axis(ctx.attr_int("axis")?, rank)?;
    let end = normalize_axis(ctx.attr_int("end_axis")?, rank)?;
    if end + 1 < start {
        bail!("end_axis {end} comes before axis {start} (dims of x {x})");
    }
    let dims = x.dims();
    let mut out: Dims = dims[..start].iter().copied().collect();
    // `end_axis` just before `axis` flattens nothing: a new dim of 1.
    out.push(product(&dims[start..end + 1])?);
    out.extend_from_slice(&dims[end + 1..]);
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        if let Some(r) = ranges::of_input(ctx, 0) {
            let mut out: Vec<ranges::Range> = r[..start].to_vec();
            out.push(
                r[start..end + 1]
                    .iter()
                    .fold((1, 1), |a, &b| ranges::mul(a, b)),
            );
            out.extend_from_slice(&r[end + 1..]);
            ranges::set(ctx, 0, out)?;
        }
    }
    Ok(())
}
