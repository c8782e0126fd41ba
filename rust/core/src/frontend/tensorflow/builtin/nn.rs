//! Neural-network ops: convolutions (whose TensorFlow filters are HWCN /
//! DHWCN whatever the data format), pooling, normalisation, activations,
//! matrix products, resizing, cropping, non-max suppression, losses.

use super::{plugin, renamed, same_names, same_names_sized};
use crate::frontend::auto_mapping::{auto_mapping, PortKind};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::{AttrValue, Format};

pub(super) fn plugins() -> Vec<ParserPlugin> {
    let mut all = vec![
        plugin("Conv2D", &["Conv2D"], parse_conv2d),
        plugin(
            "DepthwiseConv2dNative",
            &["DepthwiseConv2dNative"],
            |src, dst| with_filter_format(src, dst, 1, Format::Hwcn),
        ),
        plugin(
            "Conv2DBackpropInput",
            &["Conv2DBackpropInput"],
            |src, dst| with_filter_format(src, dst, 1, Format::Hwcn),
        ),
        plugin("Conv3D", &["Conv3D"], |src, dst| {
            with_filter_format(src, dst, 1, Format::Dhwcn)
        }),
        // BiasAddV1 is BiasAdd without data_format (always NHWC-like: bias on the last dim).
        renamed("BiasAdd", &["BiasAdd", "BiasAddV1"]),
        // BatchMatMulV3 adds output-type attrs; shapes follow BatchMatMulV2.
        renamed("BatchMatMulV2", &["BatchMatMulV2", "BatchMatMulV3"]),
    ];
    all.extend(same_names(&[
        "MaxPool",
        "MaxPoolV2",
        "AvgPool",
        "MaxPool3D",
        "AvgPool3D",
        "FusedBatchNorm",
        "FusedBatchNormV2",
        "FusedBatchNormV3",
        "LRN",
        "Relu",
        "Relu6",
        "Elu",
        "Selu",
        "LeakyRelu",
        "Sigmoid",
        "Tanh",
        "Softplus",
        "Softsign",
        "Softmax",
        "LogSoftmax",
        "MatMul",
        "BatchMatMul",
        "ResizeBilinear",
        "ResizeBicubic",
        "ResizeArea",
        "ResizeNearestNeighbor",
        "CropAndResize",
        "NonMaxSuppression",
        "NonMaxSuppressionV2",
        "NonMaxSuppressionV3",
        "NonMaxSuppressionV4",
        "NonMaxSuppressionV5",
        "CombinedNonMaxSuppression",
        "L2Loss",
        "DepthToSpace",
        "SpaceToDepth",
        "TopKV2",
    ]));
    all.extend(same_names_sized(
        &["Einsum"],
        &[(PortKind::Input, "x", "N")],
    ));
    all
}

/// TensorFlow's convolutions have no default `padding` or `strides`
/// ("NodeDef missing attr"); GE's Conv2D does (explicit zero pads), so a
/// missing one would silently mean VALID.
const CONV_REQUIRED_ATTRS: [&str; 2] = ["padding", "strides"];

fn require_conv_attrs(src: &FrameworkOp) -> Result<(), PluginError> {
    match CONV_REQUIRED_ATTRS
        .iter()
        .find(|a| src.attrs.get(a).is_none())
    {
        Some(missing) => Err(PluginError::new(format!(
            "{} needs attr '{missing}' (TensorFlow gives it no default)",
            src.op_type
        ))),
        None => Ok(()),
    }
}

/// `auto_mapping`, then input `index` (the filter) in `format`.
fn with_filter_format(
    src: &FrameworkOp,
    dst: &mut OpDraft,
    index: u32,
    format: Format,
) -> Result<(), PluginError> {
    require_conv_attrs(src)?;
    auto_mapping(src, dst)?;
    dst.set_input_format(index, format);
    Ok(())
}

/// Conv2D: HWCN filter, and GE's `pads` (top, bottom, left, right), which
/// TensorFlow only has for EXPLICIT padding (`explicit_paddings`: a
/// before/after pair per dim, in data_format order).
fn parse_conv2d(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    with_filter_format(src, dst, 1, Format::Hwcn)?;
    let explicit = matches!(src.attrs.get("padding"), Some(AttrValue::Str(p)) if p == "EXPLICIT");
    let pads = if explicit {
        let nchw = matches!(src.attrs.get("data_format"), Some(AttrValue::Str(f)) if f == "NCHW");
        let (h, w) = if nchw { (2, 3) } else { (1, 2) };
        match src.attrs.get("explicit_paddings") {
            Some(AttrValue::ListInt(p)) if p.len() == 8 => {
                vec![p[2 * h], p[2 * h + 1], p[2 * w], p[2 * w + 1]]
            }
            other => {
                return Err(PluginError::new(format!(
                    "padding is EXPLICIT, so 'explicit_paddings' must be 8 ints (a pair per dim), got {}",
                    match other {
                        Some(AttrValue::ListInt(p)) => format!("{} ints", p.len()),
                        Some(v) => format!("a {}", v.attr_type()),
                        None => "none".into(),
                    }
                )))
            }
        }
    } else {
        vec![0; 4]
    };
    dst.set_attr("pads", AttrValue::ListInt(pads));
    Ok(())
}
