//! NonZero, ONNX NonZero from opset 9: the coordinates of the non-zero
//! elements of `x` as an INT64 `[rank(x), n]` matrix, one COLUMN per
//! element. TensorFlow's Where (one input) gives the transpose, `[n, rank]`.
//! `n` is only known at run time: it is unknown, with the range
//! `[0, number of elements of x]` when that number is bounded.

use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::ops::array::range_rules::product;
use crate::ops::ranges::{self, UNBOUNDED};
use crate::types::{DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let nonzero = OpSchema::new("NonZero")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).dtype_list(&[DataType::Int64]))
        .infer_dtype(op_fn(infer_dtype))
        .infer_shape(op_fn(infer_shape));
    vec![nonzero]
}

fn infer_dtype(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    ctx.set_output_dtype(0, DataType::Int64)
}

fn infer_shape(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let rows = input.rank().map_or(UNKNOWN_DIM, |r| r as i64);
    // A scalar counts as one element (numpy's nonzero of a 0-d array).
    let elements = input.num_elements().ok().flatten();
    let columns = match elements {
        Some(0) => 0,
        _ => UNKNOWN_DIM,
    };
    ctx.set_output_shape(0, Shape::from_dims([rows, columns]))?;
    if columns == 0 {
        return Ok(());
    }
    // At most every element is non-zero.
    let Some(bound) = ranges::of_input(ctx, 0).map(|r| product(&r)) else {
        return Ok(());
    };
    if bound.1 == UNBOUNDED || rows == UNKNOWN_DIM {
        return Ok(());
    }
    ranges::set(ctx, 0, vec![(rows, rows), (0, bound.1)])
}
