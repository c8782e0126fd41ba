//! Broadcasting binary ops: arithmetic, comparisons and logical and/or.
//! One table row per op type; `x1`, `x2` and `y` as GE names them.

use super::broadcast_shapes;
use super::dtypes::*;
use super::fold::{fold_int_binary, IntOp};
use super::fold_elementwise::{self, fold_binary, fold_compare};
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape};
use std::sync::Arc;

/// What the output holds.
#[derive(Clone, Copy)]
enum Output {
    /// The inputs' dtype (arithmetic).
    Same,
    /// BOOL (comparisons, logical ops).
    Bool,
}

struct Binary {
    op_type: &'static str,
    dtypes: &'static [DataType],
    output: Output,
    /// Integer host evaluation for value folding.
    fold: Option<IntOp>,
}

const fn row(
    op_type: &'static str,
    dtypes: &'static [DataType],
    output: Output,
    fold: Option<IntOp>,
) -> Binary {
    Binary {
        op_type,
        dtypes,
        output,
        fold,
    }
}

use Output::{Bool, Same};

/// TensorFlow's dtype lists (`AddV2` and the division family take the
/// unsigned types too; `Add` keeps GE's list).
const BINARY: &[Binary] = &[
    row("Add", ADD, Same, Some(IntOp::Add)),
    row("AddV2", NUMBER, Same, Some(IntOp::Add)),
    row("Sub", NUMBER, Same, Some(IntOp::Sub)),
    row("Mul", NUMBER, Same, Some(IntOp::Mul)),
    row("RealDiv", NUMBER, Same, None),
    row("Div", NUMBER, Same, None),
    row("FloorDiv", NUMBER, Same, Some(IntOp::FloorDiv)),
    row("FloorMod", FLOOR_MOD, Same, Some(IntOp::FloorMod)),
    row("Maximum", REAL, Same, Some(IntOp::Maximum)),
    row("Minimum", REAL, Same, Some(IntOp::Minimum)),
    row("Pow", POW, Same, None),
    row("SquaredDifference", SQUARED_DIFFERENCE, Same, None),
    // DivNoNan and MulNoNan give 0 where x2 is 0, Xdivy and Xlogy where x1 is.
    row("DivNoNan", FLOATS_COMPLEX, Same, None),
    row("MulNoNan", FLOATS_COMPLEX, Same, None),
    row("Xdivy", FLOATS_COMPLEX, Same, None),
    row("Xlogy", FLOATS_COMPLEX, Same, None),
    // atan(x1 / x2) with the quadrant of (x2, x1).
    row("Atan2", FLOATS, Same, None),
    row("Equal", EQUALITY, Bool, None),
    row("NotEqual", EQUALITY, Bool, None),
    row("Less", REAL, Bool, None),
    row("LessEqual", REAL, Bool, None),
    row("Greater", REAL, Bool, None),
    row("GreaterEqual", REAL, Bool, None),
    row("LogicalAnd", BOOL, Bool, None),
    // ONNX BitwiseAnd / Or / Xor (opset 18) and BitShift (11) map here.
    row("BitwiseAnd", INTEGER, Same, None),
    row("BitwiseOr", INTEGER, Same, None),
    row("BitwiseXor", INTEGER, Same, None),
    row("LeftShift", INTEGER, Same, None),
    row("RightShift", INTEGER, Same, None),
    row("LogicalOr", BOOL, Bool, None),
];

pub(super) fn schemas() -> Vec<OpSchema> {
    BINARY.iter().map(schema).collect()
}

/// `y = x1 op x2` with numpy broadcasting; `x1` and `x2` share a dtype.
fn schema(op: &Binary) -> OpSchema {
    let output = PortDef::new("y", ParamType::Required).follow("x1", FollowType::Format);
    let output = match op.output {
        Output::Same => output.dtypes(op.dtypes),
        Output::Bool => output.dtypes(&vec![DataType::Bool; op.dtypes.len()]),
    };
    let mut schema = OpSchema::new(op.op_type)
        .input(PortDef::new("x1", ParamType::Required).dtypes(op.dtypes))
        .input(PortDef::new("x2", ParamType::Required).dtypes(op.dtypes))
        .output(output)
        .infer_shape(op_fn(infer_broadcast));
    if matches!(op.op_type, "Equal" | "NotEqual") {
        // TF: with `false`, incompatible shapes compare unequal (a scalar
        // at run time) instead of failing.
        schema = schema.attr(
            "incompatible_shape_error",
            AttrType::Bool,
            Some(AttrValue::Bool(true)),
        );
    }
    let out_dtype = match op.output {
        Output::Same => None,
        Output::Bool => Some(DataType::Bool),
    };
    match (op.fold, elementwise(op.op_type)) {
        (Some(int_op), generic) => {
            schema = schema.fold(Arc::new(move |ctx| {
                let dtype = ctx.input_dtype(0)?;
                match generic {
                    Some(f) if !matches!(dtype, DataType::Int32 | DataType::Int64) => {
                        fold_binary(ctx, f, out_dtype)
                    }
                    _ => fold_int_binary(ctx, int_op),
                }
            }))
        }
        (None, Some(f)) if out_dtype == Some(DataType::Bool) && !is_logical(op.op_type) => {
            schema = schema.fold(Arc::new(move |ctx| fold_compare(ctx, f)))
        }
        (None, Some(f)) => {
            schema = schema.fold(Arc::new(move |ctx| fold_binary(ctx, f, out_dtype)))
        }
        (None, None) => {}
    }
    schema
}

fn is_logical(op_type: &str) -> bool {
    matches!(op_type, "LogicalAnd" | "LogicalOr")
}

/// The host function of ops folded on whole known values of any numeric
/// dtype (floats included); integer shape vectors known in part go
/// through [`fold_int_binary`].
fn elementwise(op_type: &str) -> Option<fold_elementwise::Binary> {
    use fold_elementwise as e;
    Some(match op_type {
        "Add" | "AddV2" => e::add,
        "Sub" => e::sub,
        "Mul" => e::mul,
        "Div" | "RealDiv" => e::div,
        "Maximum" => e::max,
        "Minimum" => e::min,
        "Pow" => e::pow,
        "Equal" => e::equal,
        "NotEqual" => e::not_equal,
        "Less" => e::less,
        "LessEqual" => e::less_equal,
        "Greater" => e::greater,
        "GreaterEqual" => e::greater_equal,
        "LogicalAnd" => e::logical_and,
        "LogicalOr" => e::logical_or,
        _ => return None,
    })
}

fn infer_broadcast(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    match broadcast_shapes(ctx.input_shape(0)?, ctx.input_shape(1)?) {
        Ok(shape) => {
            ctx.set_output_shape(0, shape)?;
            broadcast_range(ctx)
        }
        // TF's shape function leaves the shape unknown in that case.
        Err(_) if tolerates_incompatible_shapes(ctx) => {
            ctx.set_output_shape(0, Shape::unknown_rank())
        }
        Err(message) => Err(OpError::new(message)),
    }
}

/// Each output dim's range broadcasts the inputs' ranges, right-aligned;
/// missing leading dims are 1.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn broadcast_range(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if !ranges::wanted(ctx, 0) {
        return Ok(());
    }
    let (Some(a), Some(b)) = (ranges::of_input(ctx, 0), ranges::of_input(ctx, 1)) else {
        return Ok(());
    };
    let rank = a.len().max(b.len());
    let at = |r: &[ranges::Range], i: usize| match (i + r.len()).checked_sub(rank) {
        Some(k) => r[k],
        None => (1, 1),
    };
    let out = (0..rank)
        .map(|i| ranges::broadcast(at(&a, i), at(&b, i)))
        .collect();
    ranges::set(ctx, 0, out)
}

fn tolerates_incompatible_shapes(ctx: &OpContext<'_>) -> bool {
    ctx.schema().attr_def("incompatible_shape_error").is_some()
        && matches!(ctx.attr_bool("incompatible_shape_error"), Ok(false))
}
