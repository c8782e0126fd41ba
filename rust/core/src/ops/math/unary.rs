//! Element-wise unary ops: `y` has the dtype, shape and format of `x`.
//! One table row per op type with TensorFlow's dtype list and any float
//! attributes (GE's names and defaults).

use super::dtypes::*;
use super::fold_elementwise::{self, fold_unary};
use crate::op::{FollowType, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType};
use std::sync::Arc;

struct Unary {
    op_type: &'static str,
    dtypes: &'static [DataType],
    /// Float attributes with their defaults.
    attrs: &'static [(&'static str, f64)],
}

const fn row(
    op_type: &'static str,
    dtypes: &'static [DataType],
    attrs: &'static [(&'static str, f64)],
) -> Unary {
    Unary {
        op_type,
        dtypes,
        attrs,
    }
}

const CAFFE_EXP_LOG: &[(&str, f64)] = &[("base", -1.0), ("scale", 1.0), ("shift", 0.0)];

const UNARY: &[Unary] = &[
    row("Relu", RELU, &[]),
    row("Relu6", REAL, &[]),
    row("LeakyRelu", FLOATS, &[("alpha", 0.2)]),
    // GE's Elu scales as `output_scale * elu(input_scale * x, alpha)`.
    row(
        "Elu",
        FLOATS,
        &[("alpha", 1.0), ("input_scale", 1.0), ("output_scale", 1.0)],
    ),
    row("Selu", FLOATS, &[]),
    row("Sigmoid", FLOATS_COMPLEX, &[]),
    row("Tanh", FLOATS_COMPLEX, &[]),
    // GE's Exp and Log (Caffe's layers): `base^(shift + scale * x)` and
    // `log_base(shift + scale * x)`; base -1 means e.
    row("Exp", FLOATS_COMPLEX, CAFFE_EXP_LOG),
    row("Log", FLOATS_COMPLEX, CAFFE_EXP_LOG),
    row("Sqrt", FLOATS_COMPLEX, &[]),
    row("Rsqrt", FLOATS_COMPLEX, &[]),
    row("Reciprocal", FLOATS_INTS_COMPLEX, &[]),
    // TensorFlow's deprecated name for Reciprocal.
    row("Inv", FLOATS_INTS_COMPLEX, &[]),
    row("Square", SQUARE, &[]),
    row("Neg", SIGNED_NUMBER, &[]),
    row("Abs", SIGNED_REAL, &[]),
    row("Sign", SIGNED_NUMBER, &[]),
    row("Erf", FLOATS, &[]),
    row("Erfc", FLOATS, &[]),
    row("Log1p", FLOATS_COMPLEX, &[]),
    row("Expm1", FLOATS_COMPLEX, &[]),
    row("Sin", FLOATS_COMPLEX, &[]),
    row("Cos", FLOATS_COMPLEX, &[]),
    row("Tan", FLOATS_COMPLEX, &[]),
    row("Asin", FLOATS_COMPLEX, &[]),
    row("Acos", FLOATS_COMPLEX, &[]),
    row("Atan", FLOATS_COMPLEX, &[]),
    row("Sinh", FLOATS_COMPLEX, &[]),
    row("Cosh", FLOATS_COMPLEX, &[]),
    row("Asinh", FLOATS_COMPLEX, &[]),
    row("Acosh", FLOATS_COMPLEX, &[]),
    row("Atanh", FLOATS_COMPLEX, &[]),
    row("Gelu", FLOATS, &[]),
    row("Softplus", FLOATS, &[]),
    // `x / (1 + |x|)`.
    row("Softsign", FLOATS, &[]),
    // GE's Swish: `x * sigmoid(scale * x)`.
    row("Swish", FLOATS, &[("scale", 1.0)]),
    row("Floor", FLOATS, &[]),
    row("Ceil", FLOATS, &[]),
    row("Round", SIGNED_REAL, &[]),
    row("LogicalNot", BOOL, &[]),
    // Bitwise not (ONNX BitwiseNot, opset 18).
    row("Invert", INTEGER, &[]),
];

pub(super) fn schemas() -> Vec<OpSchema> {
    UNARY.iter().map(schema).collect()
}

fn schema(op: &Unary) -> OpSchema {
    let mut schema = OpSchema::new(op.op_type)
        .input(PortDef::new("x", ParamType::Required).dtypes(op.dtypes))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(op.dtypes)
                .follow("x", FollowType::All),
        );
    for &(name, default) in op.attrs {
        schema = schema.attr(name, AttrType::Float, Some(AttrValue::Float(default)));
    }
    if let Some(f) = elementwise(op.op_type) {
        schema = schema.fold(Arc::new(move |ctx| fold_unary(ctx, f, None)));
    }
    schema
}

/// Ops folded on whole known values (the scalar arithmetic around shapes).
fn elementwise(op_type: &str) -> Option<fold_elementwise::Unary> {
    use fold_elementwise as e;
    Some(match op_type {
        "Ceil" => e::ceil,
        "Floor" => e::floor,
        "Round" => e::round,
        "Sqrt" => e::sqrt,
        "Neg" => e::neg,
        "Abs" => e::abs,
        "Reciprocal" | "Inv" => e::reciprocal,
        "LogicalNot" => e::logical_not,
        _ => return None,
    })
}
