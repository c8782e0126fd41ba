//! Elementwise ops: unary math and activations, numpy-broadcasting binary
//! ops (ONNX broadcasts as numpy does from opset 7), variadic Max / Min /
//! Sum / Mean, Cast, Where and Clip.

use super::{float_tensor, plugin, renamed, Node};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::{AttrValue, Shape};

/// ONNX unary ops and their IR op (same semantics, no attributes).
const UNARY: &[(&str, &str)] = &[
    ("Abs", "Abs"),
    ("Acos", "Acos"),
    ("Acosh", "Acosh"),
    ("Asin", "Asin"),
    ("Asinh", "Asinh"),
    ("Atan", "Atan"),
    ("Atanh", "Atanh"),
    ("Ceil", "Ceil"),
    ("Cos", "Cos"),
    ("Cosh", "Cosh"),
    ("Erf", "Erf"),
    ("Exp", "Exp"),
    ("Floor", "Floor"),
    ("IsNaN", "IsNan"),
    ("Log", "Log"),
    ("Neg", "Neg"),
    ("Not", "LogicalNot"),
    ("Reciprocal", "Reciprocal"),
    ("Relu", "Relu"),
    ("Round", "Round"),
    ("Sigmoid", "Sigmoid"),
    ("Sign", "Sign"),
    ("Sin", "Sin"),
    ("Sinh", "Sinh"),
    ("Softplus", "Softplus"),
    ("Softsign", "Softsign"),
    ("Sqrt", "Sqrt"),
    ("Tan", "Tan"),
    ("Tanh", "Tanh"),
    ("HardSwish", "HardSwish"),
    ("Mish", "Mish"),
];

/// Unary ops with attributes: (ONNX op, IR op, attributes copied by name).
const UNARY_WITH_ATTRS: &[(&str, &str, &[&str])] = &[
    ("Elu", "Elu", &["alpha"]),
    ("Selu", "Selu", &[]),
    ("HardSigmoid", "HardSigmoid", &["alpha", "beta"]),
    ("Celu", "Celu", &["alpha"]),
    ("ThresholdedRelu", "ThresholdedRelu", &["alpha"]),
    ("Shrink", "Shrink", &["bias", "lambd"]),
    ("Gelu", "Gelu", &["approximate"]),
    ("IsInf", "IsInf", &[]),
];

/// Broadcasting binary ops and their IR op.
const BINARY: &[(&str, &str)] = &[
    ("Add", "Add"),
    ("Sub", "Sub"),
    ("Mul", "Mul"),
    ("Div", "Div"),
    ("Pow", "Pow"),
    ("Equal", "Equal"),
    ("Greater", "Greater"),
    ("Less", "Less"),
    ("GreaterOrEqual", "GreaterEqual"),
    ("LessOrEqual", "LessEqual"),
    ("And", "LogicalAnd"),
    ("Or", "LogicalOr"),
    // For booleans, exclusive or is inequality.
    ("Xor", "NotEqual"),
    ("PRelu", "PRelu"),
];

pub(super) fn plugins() -> Vec<ParserPlugin> {
    let mut all: Vec<ParserPlugin> = UNARY
        .iter()
        .chain(BINARY)
        .map(|&(onnx, ir)| renamed(ir, onnx))
        .collect();
    for &(onnx, ir, attrs) in UNARY_WITH_ATTRS {
        all.push(plugin(ir, onnx, 1, move |src, dst| {
            let node = Node::of(src);
            for &name in attrs {
                node.copy(dst, name, name);
            }
            Ok(())
        }));
    }
    // ONNX's default slope is 0.01; the IR op's (GE's) is 0.2.
    all.push(plugin("LeakyRelu", "LeakyRelu", 1, |src, dst| {
        let alpha = Node::of(src).float_or("alpha", 0.01)?;
        dst.set_attr("alpha", AttrValue::Float(alpha));
        Ok(())
    }));
    // The remainder takes the divisor's sign (FloorMod), or with fmod = 1
    // the dividend's (the IR's Mod, GE's truncating one).
    all.push(plugin("FloorMod", "Mod", 1, |src, dst| {
        if Node::of(src).int_or("fmod", 0)? == 1 {
            dst.op_type = "Mod".into();
            dst.set_attr("fmod", AttrValue::Int(1));
        }
        Ok(())
    }));
    all.push(plugin("Maximum", "Max", 1, |src, dst| {
        variadic(src, dst, Some("Maximum"), "MaxN")
    }));
    all.push(plugin("Minimum", "Min", 1, |src, dst| {
        variadic(src, dst, Some("Minimum"), "MinN")
    }));
    all.push(plugin("Add", "Sum", 1, |src, dst| {
        variadic(src, dst, Some("Add"), "SumN")
    }));
    all.push(plugin("MeanN", "Mean", 1, |src, dst| {
        variadic(src, dst, None, "MeanN")
    }));
    for (op, ir) in [
        ("BitwiseAnd", "BitwiseAnd"),
        ("BitwiseOr", "BitwiseOr"),
        ("BitwiseXor", "BitwiseXor"),
        ("BitwiseNot", "Invert"),
    ] {
        all.push(renamed(ir, op));
    }
    all.push(plugin("LeftShift", "BitShift", 1, parse_bit_shift));
    all.push(renamed("CastLike", "CastLike"));
    // ONNX's Swish (opset 24) is GE's with `alpha` as the scale.
    all.push(plugin("Swish", "Swish", 1, |src, dst| {
        let alpha = Node::of(src).float_or("alpha", 1.0)?;
        dst.set_attr("scale", AttrValue::Float(alpha));
        Ok(())
    }));
    all.push(plugin("Cast", "Cast", 1, parse_cast));
    all.push(renamed("SelectV2", "Where"));
    all.push(plugin("ClipByValue", "Clip", 1, parse_clip_attrs));
    // From opset 11 `min` and `max` are optional inputs: with one absent,
    // OnnxClip, whose absent bound is none, whatever x's dtype.
    all.push(plugin("ClipByValue", "Clip", 11, |src, dst| {
        let node = Node::of(src);
        if !(node.has_input(1) && node.has_input(2)) {
            dst.op_type = "OnnxClip".into();
        }
        Ok(())
    }));
    all
}

/// Max / Min / Sum / Mean of one input is that input; of two, the binary op
/// when there is one; of more, the N-ary op broadcasting them all.
fn variadic(
    src: &FrameworkOp,
    dst: &mut OpDraft,
    binary: Option<&str>,
    n_ary: &str,
) -> Result<(), PluginError> {
    let node = Node::of(src);
    let n = node.input_count();
    if (0..n).any(|i| !node.has_input(i)) || n == 0 {
        return Err(node.error("a variadic op needs every input given (none absent)"));
    }
    dst.op_type = match (n, binary) {
        (1, _) => "Identity".into(),
        (2, Some(binary)) => binary.into(),
        _ => {
            dst.set_dynamic_input("x", n as u32);
            n_ary.into()
        }
    };
    Ok(())
}

/// BitShift: `direction` LEFT or RIGHT picks the IR op.
fn parse_bit_shift(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    dst.op_type = match node.string_or("direction", "")?.as_str() {
        "LEFT" => "LeftShift".into(),
        "RIGHT" => "RightShift".into(),
        other => {
            return Err(node.error(format_args!(
                "attribute 'direction' is '{other}'; expected LEFT or RIGHT"
            )))
        }
    };
    Ok(())
}

/// Cast: `to` is an ONNX element type; the IR takes it as `DstT`.
fn parse_cast(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let Some(to) = node.dtype("to")? else {
        return Err(node.error("Cast has no attribute 'to'"));
    };
    dst.set_attr("DstT", AttrValue::DataType(to));
    Ok(())
}

/// Clip before opset 11: `min` and `max` attributes (default: no bound),
/// as FLOAT constant inputs.
fn parse_clip_attrs(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let min = node.float_or("min", f64::from(f32::MIN))? as f32;
    let max = node.float_or("max", f64::from(f32::MAX))? as f32;
    dst.insert_const_input(1, "min", float_tensor(&[min], Shape::scalar()));
    dst.insert_const_input(2, "max", float_tensor(&[max], Shape::scalar()));
    Ok(())
}
