//! Cast: the same shape in another dtype (TensorFlow's `DstT`, GE's
//! `dst_type` as a GE dtype number). Folds integer and float elements, so
//! a cast shape vector keeps its (partially) known entries.

use super::host::{cast_raw, Elems};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType};

/// The dtypes TensorFlow's Cast converts between.
const CASTABLE: &[DataType] = &[
    DataType::Bool,
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::Uint8,
    DataType::Uint16,
    DataType::Uint32,
    DataType::Uint64,
    DataType::Float16,
    DataType::Bf16,
    DataType::Float,
    DataType::Double,
    DataType::Complex64,
    DataType::Complex128,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    // Neither attribute is declared with a default: a node gives one of
    // them, and `dst_type` (GE) wins over `DstT` (TensorFlow).
    let cast = OpSchema::new("Cast")
        .input(PortDef::new("x", ParamType::Required).dtype_list(CASTABLE))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtype_list(CASTABLE)
                .follow("x", FollowType::Shape),
        )
        .attr("Truncate", AttrType::Bool, Some(AttrValue::Bool(false)))
        .optional_attr("dst_type")
        .optional_attr("DstT")
        .verify(op_fn(|ctx| dst_type(ctx).map(|_| ())))
        .infer_dtype(op_fn(|ctx| {
            let dtype = dst_type(ctx)?;
            ctx.set_output_dtype(0, dtype)
        }))
        .fold(op_fn(|ctx| {
            let to = dst_type(ctx)?;
            fold_cast(ctx, to)
        }));
    // ONNX CastLike (opsets 15–23): the target dtype is `target_type`'s.
    let cast_like = OpSchema::new("CastLike")
        .input(PortDef::new("x", ParamType::Required).dtype_list(CASTABLE))
        .input(PortDef::new("target_type", ParamType::Required).dtype_list(CASTABLE))
        .output(PortDef::new("y", ParamType::Required).follow("target_type", FollowType::Dtype))
        .infer_shape(op_fn(|ctx| {
            let shape = ctx.input_shape(0)?.clone();
            ctx.set_output_shape(0, shape)
        }))
        .fold(op_fn(|ctx| {
            let to = ctx.input_dtype(1)?;
            fold_cast(ctx, to)
        }));
    vec![cast, cast_like]
}

fn dst_type(ctx: &OpContext<'_>) -> Result<DataType, OpError> {
    let dtype = match (ctx.attr("dst_type"), ctx.attr("DstT")) {
        (Some(AttrValue::Int(n)), _) => match DataType::from_ge(*n) {
            Some(d) => d,
            None => bail!("attribute 'dst_type' is {n}, which is not a GE data type"),
        },
        (Some(AttrValue::DataType(d)), _) | (None, Some(AttrValue::DataType(d))) => *d,
        (None, Some(AttrValue::Int(n))) => match DataType::from_ge(*n) {
            Some(d) => d,
            None => bail!("attribute 'DstT' is {n}, which is not a GE data type"),
        },
        (None, None) => bail!("Cast needs the target dtype: attribute 'dst_type' or 'DstT'"),
        (Some(v), _) | (None, Some(v)) => {
            bail!(
                "the target dtype attribute is a {}, expected a dtype",
                v.attr_type()
            )
        }
    };
    if !CASTABLE.contains(&dtype) {
        bail!("Cast cannot produce {dtype}");
    }
    Ok(dtype)
}

fn fold_cast(ctx: &mut OpContext<'_>, to: DataType) -> Result<(), OpError> {
    let Some(mut elems) = Elems::input(ctx, 0) else {
        return Ok(());
    };
    let from = elems.dtype;
    elems.items = elems
        .items
        .iter()
        .map(|raw| raw.and_then(|raw| cast_raw(from, to, raw)))
        .collect();
    if !keeps_bounds(from, to, &elems.bounds) {
        elems.bounds.clear();
    }
    elems.dtype = to;
    elems.write(ctx, 0)
}

/// Whether value bounds survive a cast from `from` to `to`: every value in
/// them converts to itself. Integers to INT64, or to INT32 when each bound
/// fits (an unbounded top could wrap past INT32); integers to FLOAT/DOUBLE
/// when each bound is exact there (rounding is monotonic, so every value
/// stays within its exact bounds; an unbounded top stays unbounded); and
/// back, the whole-number floats such a cast made, when bounded above.
fn keeps_bounds(from: DataType, to: DataType, bounds: &[(i64, i64)]) -> bool {
    let within = |limit: i64, top_needed: bool| {
        bounds.iter().all(|&(lo, hi)| {
            lo.checked_abs().is_some_and(|lo| lo <= limit)
                && if hi == ranges::UNBOUNDED {
                    !top_needed
                } else {
                    hi.checked_abs().is_some_and(|hi| hi <= limit)
                }
        })
    };
    let int32 = i64::from(i32::MAX);
    match (from, to) {
        _ if from == to => true,
        (DataType::Int32 | DataType::Int64, DataType::Int64) => true,
        (DataType::Int32 | DataType::Int64, DataType::Int32) => within(int32, true),
        (DataType::Int32 | DataType::Int64, DataType::Float) => {
            within(1 << f32::MANTISSA_DIGITS, false)
        }
        (DataType::Int32 | DataType::Int64, DataType::Double) => {
            within(1 << f64::MANTISSA_DIGITS, false)
        }
        (DataType::Float | DataType::Double, DataType::Int64) => within(i64::MAX, true),
        (DataType::Float | DataType::Double, DataType::Int32) => within(int32, true),
        _ => false,
    }
}
