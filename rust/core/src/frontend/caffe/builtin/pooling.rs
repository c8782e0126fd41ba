//! Pooling → GE's Pooling, which implements Caffe's output size: rounded up
//! (or down with `round_mode: FLOOR`), with the last window clipped when it
//! would start in the padding.

use super::params::{expect_bottoms, Params};
use super::plugin;
use super::window::Window2d;
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::{AttrValue, Format};

/// PoolingParameter.PoolMethod; GE's `mode` uses the same numbers.
const POOL_METHODS: &[(&str, i64)] = &[("MAX", 0), ("AVE", 1), ("STOCHASTIC", 2)];
/// PoolingParameter.RoundMode; GE's `ceil_mode` uses the same numbers.
const ROUND_MODES: &[(&str, i64)] = &[("CEIL", 0), ("FLOOR", 1)];

pub(super) fn plugins() -> Vec<ParserPlugin> {
    vec![plugin("Pooling", &["Pooling"], parse_pooling)]
}

fn parse_pooling(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    expect_bottoms(src, 1..=1)?;
    let p = Params::of(src);
    let global = p.bool_or("global_pooling", false)?;
    if global {
        // Caffe: "With Global_pooling: true Filter size cannot specified".
        for field in ["kernel_size", "kernel_h", "kernel_w"] {
            if p.ints(field)?.iter().any(|&k| k != 0) {
                return Err(PluginError::new(format!(
                    "Pooling layer '{}' sets both global_pooling: true and '{field}'; a global pool's window is the whole input, so Caffe forbids a kernel size",
                    src.name
                )));
            }
        }
    }
    let window = Window2d::read(&p, &src.name, !global)?;
    if window.dilation != [1, 1] {
        return Err(PluginError::new(format!(
            "Pooling layer '{}' has a dilation; Caffe's pooling has none",
            src.name
        )));
    }
    // Caffe: "With Global_pooling: true; only pad = 0 and stride = 1".
    if global && (window.pad != [0, 0] || window.stride != [1, 1]) {
        return Err(PluginError::new(format!(
            "Pooling layer '{}' sets global_pooling: true with pad {:?} and stride {:?}; Caffe allows only pad 0 and stride 1 there",
            src.name, window.pad, window.stride
        )));
    }
    let kernel = if global { [1, 1] } else { window.kernel };
    dst.set_attr("mode", AttrValue::Int(p.enum_or("pool", POOL_METHODS, 0)?));
    dst.set_attr("global_pooling", AttrValue::Bool(global));
    dst.set_attr("window", AttrValue::ListInt(kernel.to_vec()));
    dst.set_attr("stride", AttrValue::ListInt(window.stride.to_vec()));
    dst.set_attr("pad", AttrValue::ListInt(window.pads()));
    let round = p.enum_or("round_mode", ROUND_MODES, 0)?;
    dst.set_attr("ceil_mode", AttrValue::Int(round));
    dst.set_attr("data_format", AttrValue::Str("NCHW".into()));
    dst.set_input_format(0, Format::Nchw);
    dst.set_output_format(0, Format::Nchw);
    Ok(())
}
