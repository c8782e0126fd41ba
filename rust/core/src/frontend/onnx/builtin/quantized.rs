//! Quantised ops, as quantised exports write them: the QDQ pair
//! (QuantizeLinear / DequantizeLinear), DynamicQuantizeLinear, and the
//! QOperator forms (ConvInteger, QLinearConv, MatMulInteger,
//! QLinearMatMul). The IR ops keep ONNX's inputs and attributes.

use super::nn::copy_conv_attrs;
use super::{plugin, renamed, Node};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::AttrValue;

pub(super) fn plugins() -> Vec<ParserPlugin> {
    vec![
        plugin("QuantizeLinear", "QuantizeLinear", 1, parse_qdq),
        plugin("DequantizeLinear", "DequantizeLinear", 1, parse_qdq),
        renamed("DynamicQuantizeLinear", "DynamicQuantizeLinear"),
        renamed("MatMulInteger", "MatMulInteger"),
        renamed("QLinearMatMul", "QLinearMatMul"),
        plugin("ConvInteger", "ConvInteger", 1, copy_conv_attrs),
        plugin("QLinearConv", "QLinearConv", 1, copy_conv_attrs),
    ]
}

/// `axis` as is; `output_dtype` (opset 21+) as a dtype.
fn parse_qdq(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    node.copy(dst, "axis", "axis");
    if let Some(dtype) = node.dtype("output_dtype")? {
        dst.set_attr("output_dtype", AttrValue::DataType(dtype));
    }
    Ok(())
}
