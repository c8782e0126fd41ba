//! Reductions. `axes` is an attribute until opset 13 (ReduceSum) or 18 (the
//! rest) and an optional input after; either way the IR op takes it as
//! optional input 1. ONNX reduces every dim when no axes are given (unless
//! `noop_with_empty_axes`) and keeps reduced dims by default.

use super::{int64_vector, plugin, Node};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::AttrValue;

/// (ONNX op, IR op, the opset where `axes` became an input).
const REDUCTIONS: &[(&str, &str, i64)] = &[
    ("ReduceSum", "ReduceSum", 13),
    ("ReduceMean", "ReduceMean", 18),
    ("ReduceMax", "ReduceMax", 18),
    ("ReduceMin", "ReduceMin", 18),
    ("ReduceProd", "ReduceProd", 18),
    ("ReduceL1", "ReduceL1", 18),
    ("ReduceL2", "ReduceL2", 18),
    ("ReduceLogSum", "ReduceLogSum", 18),
    ("ReduceLogSumExp", "ReduceLogSumExp", 18),
    ("ReduceSumSquare", "ReduceSumSquare", 18),
];

pub(super) fn plugins() -> Vec<ParserPlugin> {
    let mut all = Vec::new();
    for &(onnx, ir, input_since) in REDUCTIONS {
        all.push(plugin(ir, onnx, 1, |src, dst| parse_reduce(src, dst, true)));
        all.push(plugin(ir, onnx, input_since, |src, dst| {
            parse_reduce(src, dst, false)
        }));
    }
    all
}

fn parse_reduce(src: &FrameworkOp, dst: &mut OpDraft, axes_attr: bool) -> Result<(), PluginError> {
    let node = Node::of(src);
    dst.set_attr(
        "keep_dims",
        AttrValue::Bool(node.int_or("keepdims", 1)? != 0),
    );
    let noop = node.int_or("noop_with_empty_axes", 0)? != 0;
    dst.set_attr("noop_with_empty_axes", AttrValue::Bool(noop));
    if axes_attr {
        if let Some(axes) = node.ints("axes")? {
            dst.insert_const_input(1, "axes", int64_vector(&axes));
        }
    }
    Ok(())
}
