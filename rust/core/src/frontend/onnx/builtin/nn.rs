//! Neural-network layers: convolution and pooling over NCHW (ONNX's only
//! layout; filters are `[C_out, C_in / group, k...]`, recorded as NCHW as
//! GE does), normalisations, Gemm / MatMul, softmax, Einsum, and the
//! depth-space rearrangements.

use super::{plugin, Node};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::{AttrValue, Format};

pub(super) fn plugins() -> Vec<ParserPlugin> {
    let copying = |ir: &'static str, onnx: &'static str, attrs: &'static [(&str, &str)]| {
        plugin(ir, onnx, 1, move |src, dst| {
            let node = Node::of(src);
            for &(from, to) in attrs {
                node.copy(dst, from, to);
            }
            Ok(())
        })
    };
    vec![
        plugin("Conv2D", "Conv", 1, parse_conv),
        copying(
            "ConvTranspose",
            "ConvTranspose",
            &[
                ("strides", "strides"),
                ("pads", "pads"),
                ("dilations", "dilations"),
                ("output_padding", "output_padding"),
                ("output_shape", "output_shape"),
                ("group", "group"),
                ("auto_pad", "auto_pad"),
                ("kernel_shape", "kernel_shape"),
            ],
        ),
        plugin("MaxPoolV3", "MaxPool", 1, |src, dst| {
            parse_pool(src, dst, false)
        }),
        plugin("AvgPoolV2", "AveragePool", 1, |src, dst| {
            parse_pool(src, dst, false)
        }),
        plugin("AvgPoolV2", "GlobalAveragePool", 1, |src, dst| {
            parse_pool(src, dst, true)
        }),
        plugin("MaxPoolV3", "GlobalMaxPool", 1, |src, dst| {
            parse_pool(src, dst, true)
        }),
        plugin("AvgPoolV2", "GlobalLpPool", 1, |src, dst| {
            parse_pool(src, dst, true)
        }),
        // LpPool has AveragePool's window and output size.
        plugin("AvgPoolV2", "LpPool", 1, |src, dst| {
            parse_pool(src, dst, false)
        }),
        copying(
            "MaxUnpool",
            "MaxUnpool",
            &[
                ("kernel_shape", "kernel_shape"),
                ("strides", "strides"),
                ("pads", "pads"),
            ],
        ),
        copying(
            "GridSample",
            "GridSample",
            &[
                ("align_corners", "align_corners"),
                ("mode", "mode"),
                ("padding_mode", "padding_mode"),
            ],
        ),
        copying(
            "AffineGrid",
            "AffineGrid",
            &[("align_corners", "align_corners")],
        ),
        plugin("Hardmax", "Hardmax", 1, |src, dst| parse_axis(src, dst, 1)),
        plugin("Hardmax", "Hardmax", 13, |src, dst| {
            parse_axis(src, dst, -1)
        }),
        copying(
            "LpNormalization",
            "LpNormalization",
            &[("axis", "axis"), ("p", "p")],
        ),
        copying(
            "MeanVarianceNormalization",
            "MeanVarianceNormalization",
            &[("axes", "axes")],
        ),
        copying(
            "RMSNormalization",
            "RMSNormalization",
            &[
                ("axis", "axis"),
                ("epsilon", "epsilon"),
                ("stash_type", "stash_type"),
            ],
        ),
        copying(
            "RotaryEmbedding",
            "RotaryEmbedding",
            &[
                ("interleaved", "interleaved"),
                ("rotary_embedding_dim", "rotary_embedding_dim"),
                ("num_heads", "num_heads"),
            ],
        ),
        copying("Det", "Det", &[]),
        plugin("DeformConv", "DeformConv", 1, |src, dst| {
            copy_conv_attrs(src, dst)?;
            Node::of(src).copy(dst, "offset_group", "offset_group");
            Ok(())
        }),
        copying(
            "Col2Im",
            "Col2Im",
            &[
                ("strides", "strides"),
                ("pads", "pads"),
                ("dilations", "dilations"),
            ],
        ),
        plugin("Attention", "Attention", 1, parse_attention),
        copying(
            "TensorScatter",
            "TensorScatter",
            &[("axis", "axis"), ("mode", "mode")],
        ),
        plugin("BatchNorm", "BatchNormalization", 1, parse_batch_norm),
        copying(
            "InstanceNormalization",
            "InstanceNormalization",
            &[("epsilon", "epsilon")],
        ),
        copying(
            "GroupNormalization",
            "GroupNormalization",
            &[("epsilon", "epsilon"), ("num_groups", "num_groups")],
        ),
        plugin("LayerNorm", "LayerNormalization", 1, parse_layer_norm),
        plugin("LRN", "LRN", 1, parse_lrn),
        plugin("CommonLSTM", "LSTM", 1, parse_rnn),
        plugin("CommonGRU", "GRU", 1, parse_rnn),
        plugin("CommonRNN", "RNN", 1, parse_rnn),
        plugin("MatMulV2", "Gemm", 1, parse_gemm),
        plugin("BatchMatMulV2", "MatMul", 1, |_, _| Ok(())),
        plugin("SoftmaxV2", "Softmax", 1, |src, dst| {
            parse_softmax(src, dst, 1)
        }),
        plugin("SoftmaxV2", "Softmax", 13, |src, dst| {
            parse_softmax(src, dst, -1)
        }),
        plugin("LogSoftmaxV2", "LogSoftmax", 1, |src, dst| {
            parse_softmax(src, dst, 1)
        }),
        plugin("LogSoftmaxV2", "LogSoftmax", 13, |src, dst| {
            parse_softmax(src, dst, -1)
        }),
        plugin("Einsum", "Einsum", 1, parse_einsum),
        plugin("DepthToSpace", "DepthToSpace", 1, parse_depth_space),
        plugin("SpaceToDepth", "SpaceToDepth", 1, parse_depth_space),
        copying(
            "ROIAlign",
            "RoiAlign",
            &[
                ("output_height", "output_height"),
                ("output_width", "output_width"),
                ("sampling_ratio", "sampling_ratio"),
                ("spatial_scale", "spatial_scale"),
                ("mode", "mode"),
                (
                    "coordinate_transformation_mode",
                    "coordinate_transformation_mode",
                ),
            ],
        ),
    ]
}

/// How many spatial dims a convolution or pooling node works over, from
/// whichever window attribute gives it (2 when none does).
fn spatial_rank(node: &Node<'_>) -> Result<usize, PluginError> {
    for name in ["kernel_shape", "strides", "dilations"] {
        if let Some(v) = node.ints(name)? {
            return Ok(v.len());
        }
    }
    Ok(node.ints("pads")?.map_or(2, |p| p.len() / 2))
}

/// A per-spatial-dim attribute (`strides`, `dilations`), default 1s.
fn per_dim(node: &Node<'_>, name: &str, rank: usize) -> Result<Vec<i64>, PluginError> {
    let values = node.ints(name)?.unwrap_or_else(|| vec![1; rank]);
    if values.len() != rank {
        return Err(node.error(format_args!(
            "attribute '{name}' has {} values for {rank} spatial dims",
            values.len()
        )));
    }
    Ok(values)
}

/// ONNX `pads` (all begins, then all ends) as (begin, end) per dim.
fn pad_pairs(node: &Node<'_>, rank: usize) -> Result<Vec<(i64, i64)>, PluginError> {
    let pads = node.ints("pads")?.unwrap_or_else(|| vec![0; 2 * rank]);
    if pads.len() != 2 * rank {
        return Err(node.error(format_args!(
            "attribute 'pads' has {} values; {rank} spatial dims need {}",
            pads.len(),
            2 * rank
        )));
    }
    Ok((0..rank).map(|i| (pads[i], pads[i + rank])).collect())
}

/// `auto_pad` as the IR's `padding`: "" for explicit pads, SAME or VALID.
/// SAME_LOWER puts the odd pad first, which changes no shape.
fn padding(node: &Node<'_>) -> Result<&'static str, PluginError> {
    match node.string_or("auto_pad", "NOTSET")?.as_str() {
        "NOTSET" | "" => Ok(""),
        "SAME_UPPER" | "SAME_LOWER" => Ok("SAME"),
        "VALID" => Ok("VALID"),
        other => Err(node.error(format_args!(
            "attribute 'auto_pad' is '{other}'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID"
        ))),
    }
}

/// Conv over 2 spatial dims → Conv2D, over 3 → Conv3D, NCHW / NCDHW.
fn parse_conv(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let rank = spatial_rank(&node)?;
    let (op_type, format) = match rank {
        // `[N, C, L]`: ONNX's attributes as they are (Conv1D).
        1 => {
            dst.op_type = "Conv1D".into();
            return copy_conv_attrs(src, dst);
        }
        2 => ("Conv2D", Format::Nchw),
        3 => ("Conv3D", Format::Ncdhw),
        other => {
            return Err(node.error(format_args!(
                "Conv over {other} spatial dims; opgraph maps 1-D, 2-D and 3-D convolutions"
            )))
        }
    };
    dst.op_type = op_type.into();
    let with_nc = |v: Vec<i64>| [1, 1].into_iter().chain(v).collect::<Vec<i64>>();
    dst.set_attr(
        "strides",
        AttrValue::ListInt(with_nc(per_dim(&node, "strides", rank)?)),
    );
    dst.set_attr(
        "dilations",
        AttrValue::ListInt(with_nc(per_dim(&node, "dilations", rank)?)),
    );
    let pads = pad_pairs(&node, rank)?
        .into_iter()
        .flat_map(|(b, e)| [b, e])
        .collect();
    dst.set_attr("pads", AttrValue::ListInt(pads));
    dst.set_attr("padding", AttrValue::Str(padding(&node)?.into()));
    dst.set_attr("groups", AttrValue::Int(node.int_or("group", 1)?));
    dst.set_attr("data_format", AttrValue::Str(format.name().into()));
    dst.set_input_format(0, format);
    dst.set_input_format(1, format);
    dst.set_output_format(0, format);
    Ok(())
}

/// ONNX's convolution attributes, copied by name (Conv1D, ConvInteger,
/// QLinearConv take them as they are).
pub(super) fn copy_conv_attrs(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    for name in [
        "kernel_shape",
        "strides",
        "dilations",
        "pads",
        "auto_pad",
        "group",
    ] {
        node.copy(dst, name, name);
    }
    Ok(())
}

/// Attention: the attributes by name; the optional outputs the node uses.
fn parse_attention(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    for name in [
        "q_num_heads",
        "kv_num_heads",
        "is_causal",
        "scale",
        "softcap",
        "qk_matmul_output_mode",
        "softmax_precision",
    ] {
        node.copy(dst, name, name);
    }
    let extra = node.output_count().saturating_sub(1);
    dst.set_dynamic_output("present", extra as u32);
    Ok(())
}

/// `axis` with the opset's default.
fn parse_axis(src: &FrameworkOp, dst: &mut OpDraft, default: i64) -> Result<(), PluginError> {
    let axis = Node::of(src).int_or("axis", default)?;
    dst.set_attr("axis", AttrValue::Int(axis));
    Ok(())
}

/// MaxPool / AveragePool (a window per spatial dim) and the global pools.
fn parse_pool(src: &FrameworkOp, dst: &mut OpDraft, global: bool) -> Result<(), PluginError> {
    let node = Node::of(src);
    if global {
        dst.set_attr("global_pooling", AttrValue::Bool(true));
        return Ok(());
    }
    if dst.op_type == "MaxPoolV3" {
        // The optional Indices output exists when the node lists it.
        dst.set_dynamic_output("indices", u32::from(node.output_count() > 1));
    }
    let Some(kernel) = node.ints("kernel_shape")? else {
        return Err(node.error("a pooling node needs attribute 'kernel_shape'"));
    };
    let rank = kernel.len();
    dst.set_attr("ksize", AttrValue::ListInt(kernel));
    dst.set_attr(
        "strides",
        AttrValue::ListInt(per_dim(&node, "strides", rank)?),
    );
    dst.set_attr(
        "dilations",
        AttrValue::ListInt(per_dim(&node, "dilations", rank)?),
    );
    let pads = pad_pairs(&node, rank)?;
    let (begins, ends): (Vec<i64>, Vec<i64>) = pads.into_iter().unzip();
    dst.set_attr(
        "pads",
        AttrValue::ListInt(begins.into_iter().chain(ends).collect()),
    );
    dst.set_attr("ceil_mode", AttrValue::Int(node.int_or("ceil_mode", 0)?));
    dst.set_attr(
        "auto_pad",
        AttrValue::Str(node.string_or("auto_pad", "NOTSET")?),
    );
    node.copy(dst, "count_include_pad", "count_include_pad");
    Ok(())
}

/// BatchNormalization: the running statistics are outputs only when the
/// node lists them (training mode, opset 14+).
fn parse_batch_norm(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    for name in ["epsilon", "momentum", "training_mode", "spatial"] {
        node.copy(dst, name, name);
    }
    let stats = u32::from(node.output_count() >= 3);
    dst.set_dynamic_output("running_mean", stats);
    dst.set_dynamic_output("running_var", stats);
    Ok(())
}

/// LayerNormalization normalises (and scales) the dims from `axis` on.
fn parse_layer_norm(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let axis = node.int_or("axis", -1)?;
    dst.set_attr("begin_norm_axis", AttrValue::Int(axis));
    dst.set_attr("begin_params_axis", AttrValue::Int(axis));
    dst.set_attr("epsilon", AttrValue::Float(node.float_or("epsilon", 1e-5)?));
    Ok(())
}

/// LSTM / GRU / RNN: the attributes keep their ONNX names.
fn parse_rnn(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    for name in [
        "hidden_size",
        "direction",
        "layout",
        "clip",
        "activations",
        "input_forget",
        "linear_before_reset",
    ] {
        node.copy(dst, name, name);
    }
    Ok(())
}

/// LRN: ONNX's window `size` across channels is TensorFlow's
/// `2 * depth_radius + 1`, and ONNX divides alpha by the size.
fn parse_lrn(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let Some(size) = node.int("size")? else {
        return Err(node.error("LRN needs attribute 'size'"));
    };
    if size < 1 {
        return Err(node.error(format_args!("LRN has size {size}; expected >= 1")));
    }
    dst.set_attr("depth_radius", AttrValue::Int((size - 1) / 2));
    dst.set_attr(
        "alpha",
        AttrValue::Float(node.float_or("alpha", 1e-4)? / size as f64),
    );
    dst.set_attr("beta", AttrValue::Float(node.float_or("beta", 0.75)?));
    dst.set_attr("bias", AttrValue::Float(node.float_or("bias", 1.0)?));
    Ok(())
}

/// Gemm: `alpha * A' * B' + beta * C`, A' and B' optionally transposed.
fn parse_gemm(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    dst.set_attr(
        "transpose_x1",
        AttrValue::Bool(node.int_or("transA", 0)? != 0),
    );
    dst.set_attr(
        "transpose_x2",
        AttrValue::Bool(node.int_or("transB", 0)? != 0),
    );
    dst.set_attr("alpha", AttrValue::Float(node.float_or("alpha", 1.0)?));
    dst.set_attr("beta", AttrValue::Float(node.float_or("beta", 1.0)?));
    Ok(())
}

/// Softmax / LogSoftmax over `axis` (opset 13 changed the default from 1
/// to -1, and the older opsets' flatten-at-axis rule does not change shapes).
fn parse_softmax(
    src: &FrameworkOp,
    dst: &mut OpDraft,
    default_axis: i64,
) -> Result<(), PluginError> {
    let axis = Node::of(src).int_or("axis", default_axis)?;
    dst.set_attr("axes", AttrValue::ListInt(vec![axis]));
    Ok(())
}

fn parse_einsum(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let equation = node.string_or("equation", "")?;
    if equation.is_empty() {
        return Err(node.error("Einsum needs attribute 'equation'"));
    }
    dst.set_attr("equation", AttrValue::Str(equation));
    dst.set_dynamic_input("x", src.inputs.len() as u32);
    dst.set_attr("N", AttrValue::Int(src.inputs.len() as i64));
    Ok(())
}

/// DepthToSpace / SpaceToDepth over NCHW (DCR and CRD give the same shape).
fn parse_depth_space(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    let node = Node::of(src);
    let Some(block) = node.int("blocksize")? else {
        return Err(node.error("it needs attribute 'blocksize'"));
    };
    dst.set_attr("block_size", AttrValue::Int(block));
    dst.set_attr("data_format", AttrValue::Str("NCHW".into()));
    dst.format = Some(Format::Nchw);
    Ok(())
}
