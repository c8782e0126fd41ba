//! Ops that rebuild an image from windows. MaxUnpool (ONNX opsets 9–22)
//! scatters pooled values back to the pre-pooling size,
//! `(in - 1) * stride + kernel - pad_begin - pad_end` per spatial dim, or
//! to the value-depend `output_shape` when given. Col2Im (18) folds
//! `[N, C * prod(block_shape), L]` columns into `[N, C, image_shape...]`.

use super::window::per_axis;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let list = || Some(AttrValue::ListInt(Vec::new()));
    vec![
        OpSchema::new("MaxUnpool")
            .input(PortDef::new("x", ParamType::Required))
            .input(PortDef::new("indices", ParamType::Required).dtype_list(&[DataType::Int64]))
            .input(
                PortDef::new("output_shape", ParamType::Optional)
                    .dtype_list(&[DataType::Int64])
                    .value_depend(ValueDepend::Optional),
            )
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
            .attr("kernel_shape", AttrType::ListInt, None)
            .attr("strides", AttrType::ListInt, list())
            .attr("pads", AttrType::ListInt, list())
            .infer_shape(op_fn(infer_unpool)),
        OpSchema::new("Col2Im")
            .input(PortDef::new("input", ParamType::Required))
            .input(
                PortDef::new("image_shape", ParamType::Required)
                    .dtype_list(&[DataType::Int64])
                    .value_depend(ValueDepend::Optional),
            )
            .input(
                PortDef::new("block_shape", ParamType::Required)
                    .dtype_list(&[DataType::Int64])
                    .value_depend(ValueDepend::Optional),
            )
            .output(PortDef::new("output", ParamType::Required).follow("input", FollowType::Dtype))
            .attr("strides", AttrType::ListInt, list())
            .attr("pads", AttrType::ListInt, list())
            .attr("dilations", AttrType::ListInt, list())
            .infer_shape(op_fn(infer_col2im)),
    ]
}

fn infer_col2im(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let (batch, columns) = match (input.rank(), input.dims()) {
        (None, _) => (UNKNOWN_DIM, UNKNOWN_DIM),
        (Some(3), [n, c, _]) => (*n, *c),
        _ => bail!("input must be [N, C * prod(block_shape), L], got shape {input}"),
    };
    let image = ctx.input_value(1).and_then(|v| v.to_ints());
    let block = ctx.input_value(2).and_then(|v| v.to_ints());
    if let (Some(i), Some(b)) = (&image, &block) {
        if i.len() != b.len() {
            bail!(
                "image_shape {i:?} and block_shape {b:?} must have one value per spatial dim each"
            );
        }
    }
    for (name, values) in [("image_shape", &image), ("block_shape", &block)] {
        if let Some(d) = values.iter().flatten().find(|&&d| d < 1) {
            bail!("{name} has {d}; every size must be >= 1");
        }
    }
    let channels = match &block {
        Some(b) if columns != UNKNOWN_DIM => {
            let mut per_channel: i64 = 1;
            for &k in b {
                per_channel = per_channel.saturating_mul(k);
            }
            match crate::ops::common::exact_div_dim(columns, per_channel) {
                Some(c) => c,
                None => bail!(
                    "input's {columns} columns are not a multiple of prod(block_shape) = {per_channel}"
                ),
            }
        }
        _ => UNKNOWN_DIM,
    };
    let mut dims = vec![batch, channels];
    match image {
        Some(i) => dims.extend(i),
        None => match ctx.input_shape(1)?.dims() {
            [n] if *n >= 0 => dims.extend(std::iter::repeat_n(UNKNOWN_DIM, *n as usize)),
            _ => return ctx.set_output_shape(0, Shape::unknown_rank()),
        },
    }
    ctx.set_output_shape(0, Shape::from_dims(dims))
}

fn infer_unpool(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let kernel = ctx.attr_ints("kernel_shape")?.to_vec();
    let n = kernel.len();
    if let Some(k) = kernel.iter().find(|&&k| k < 1) {
        bail!("kernel_shape {kernel:?} has {k}; every size must be >= 1");
    }
    let strides = per_axis(ctx, "strides", n, 1, 1)?;
    let pads = per_axis(ctx, "pads", n.saturating_mul(2), 0, 0)?;
    let x = ctx.input_shape(0)?;
    if x.rank().is_some_and(|r| r != n.saturating_add(2)) {
        bail!(
            "x must be [N, C] and one dim per kernel_shape value (rank {}), got shape {x}",
            n.saturating_add(2)
        );
    }
    if let Some(desc) = ctx.optional_input_desc(2)? {
        let out = match ctx.input_value(2).and_then(|v| v.to_ints()) {
            Some(dims) => Shape::from_dims(dims),
            None => match desc.shape().dims() {
                [len] if *len >= 0 => Shape::unknown_dims(*len as usize),
                _ => Shape::unknown_rank(),
            },
        };
        return ctx.set_output_shape(0, out);
    }
    if x.is_unknown_rank() {
        return ctx.set_output_shape(0, Shape::unknown_dims(n.saturating_add(2)));
    }
    let mut out = x.dims().to_vec();
    for i in 0..n {
        let at = i.saturating_add(2);
        if out[at] == UNKNOWN_DIM {
            continue;
        }
        let size = i128::from(out[at])
            .saturating_sub(1)
            .saturating_mul(i128::from(strides[i]))
            .saturating_add(i128::from(kernel[i]))
            .saturating_sub(i128::from(pads[i]))
            .saturating_sub(i128::from(pads[n.saturating_add(i)]));
        out[at] = match i64::try_from(size) {
            Ok(s) if s >= 0 => s,
            _ => bail!("spatial dim {i} unpools to {size}, not a valid size"),
        };
    }
    ctx.set_output_shape(0, Shape::from_dims(out))
}
