//! Ops that make values rather than transform them (the random generators,
//! EyeLike, the signal windows, MelWeightMatrix) and DFT beside them. Their `dtype` / `output_datatype`
//! attributes are ONNX element types, given to the IR as dtypes.

use super::{plugin, Node};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::AttrValue;

pub(super) fn plugins() -> Vec<ParserPlugin> {
    let mut all = Vec::new();
    for op in ["RandomNormal", "RandomUniform"] {
        all.push(plugin(op, op, 1, |src, dst| {
            let node = Node::of(src);
            if node.ints("shape")?.is_none() {
                return Err(node.error("it needs attribute 'shape'"));
            }
            node.copy(dst, "shape", "shape");
            with_dtype(src, dst, "dtype", "dtype")
        }));
    }
    for op in [
        "RandomNormalLike",
        "RandomUniformLike",
        "Bernoulli",
        "EyeLike",
        "Multinomial",
    ] {
        all.push(plugin(op, op, 1, |src, dst| {
            let node = Node::of(src);
            for name in ["k", "sample_size"] {
                node.copy(dst, name, name);
            }
            with_dtype(src, dst, "dtype", "dtype")
        }));
    }
    for op in ["HannWindow", "HammingWindow", "BlackmanWindow"] {
        all.push(plugin(op, op, 1, |src, dst| {
            Node::of(src).copy(dst, "periodic", "periodic");
            with_dtype(src, dst, "output_datatype", "output_datatype")
        }));
    }
    all.push(plugin(
        "MelWeightMatrix",
        "MelWeightMatrix",
        1,
        |src, dst| with_dtype(src, dst, "output_datatype", "output_datatype"),
    ));
    // DFT's axis is an attribute until opset 20 (default 1), an input after
    // (default -2; the attribute stands in when the input is absent).
    all.push(plugin("DFT", "DFT", 1, |src, dst| {
        parse_dft(src, dst, None)
    }));
    all.push(plugin("DFT", "DFT", 20, |src, dst| {
        parse_dft(src, dst, Some(-2))
    }));
    all
}

fn parse_dft(
    src: &FrameworkOp,
    dst: &mut OpDraft,
    input_default: Option<i64>,
) -> Result<(), PluginError> {
    let node = Node::of(src);
    let axis = match input_default {
        Some(default) => default,
        None => node.int_or("axis", 1)?,
    };
    dst.set_attr("axis", AttrValue::Int(axis));
    node.copy(dst, "inverse", "inverse");
    node.copy(dst, "onesided", "onesided");
    Ok(())
}

/// ONNX element-type attribute `from` as the IR's dtype attribute `to`.
fn with_dtype(
    src: &FrameworkOp,
    dst: &mut OpDraft,
    from: &str,
    to: &str,
) -> Result<(), PluginError> {
    if let Some(dtype) = Node::of(src).dtype(from)? {
        dst.set_attr(to, AttrValue::DataType(dtype));
    }
    Ok(())
}
