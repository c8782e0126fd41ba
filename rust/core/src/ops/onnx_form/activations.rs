//! ONNX activations without a GE/TensorFlow op of the same meaning:
//! HardSigmoid (opsets 6–22: `max(0, min(1, alpha * x + beta))`),
//! HardSwish (14–22), Mish (18–22), Celu (12–22), ThresholdedRelu (10–22)
//! and Shrink (9–22). Element-wise: `y` has the dtype, shape and format of
//! `x`; the float attributes carry ONNX's names and defaults.

use super::{FLOATS, NUMBERS};
use crate::op::{FollowType, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType};

type Row = (
    &'static str,
    &'static [DataType],
    &'static [(&'static str, f64)],
);

const ACTIVATIONS: &[Row] = &[
    ("HardSigmoid", FLOATS, &[("alpha", 0.2), ("beta", 0.5)]),
    ("HardSwish", FLOATS, &[]),
    ("Mish", FLOATS, &[]),
    ("Celu", FLOATS, &[("alpha", 1.0)]),
    ("ThresholdedRelu", FLOATS, &[("alpha", 1.0)]),
    ("Shrink", NUMBERS, &[("bias", 0.0), ("lambd", 0.5)]),
];

pub(super) fn schemas() -> Vec<OpSchema> {
    ACTIVATIONS
        .iter()
        .map(|&(op_type, dtypes, attrs)| {
            let mut schema = OpSchema::new(op_type)
                .input(PortDef::new("x", ParamType::Required).dtypes(dtypes))
                .output(
                    PortDef::new("y", ParamType::Required)
                        .dtypes(dtypes)
                        .follow("x", FollowType::All),
                );
            for &(name, default) in attrs {
                schema = schema.attr(name, AttrType::Float, Some(AttrValue::Float(default)));
            }
            schema
        })
        .collect()
}
