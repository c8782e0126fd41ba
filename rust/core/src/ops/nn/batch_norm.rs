//! Batch normalisation: TensorFlow's FusedBatchNorm / FusedBatchNormV3
//! (y plus the per-channel batch statistics and reserve spaces) and GE's
//! BNInference (Caffe BatchNorm in inference mode).

use super::dims::{check_vector, merge_dim};
use super::window::layout;
use crate::bail;
use crate::infer::OpContext;
use crate::op::with_arg;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

const V3_TYPES: &[DataType] = &[DataType::Float16, DataType::Bf16, DataType::Float];
const FLOATS: &[DataType] = &[DataType::Float16, DataType::Float, DataType::Bf16];

pub(super) fn schemas() -> Vec<OpSchema> {
    let mut all = vec![fused("FusedBatchNorm", &[DataType::Float], false)];
    all.push(fused("FusedBatchNormV2", V3_TYPES, false));
    all.push(fused("FusedBatchNormV3", V3_TYPES, true).attr(
        "exponential_avg_factor",
        AttrType::Float,
        Some(AttrValue::Float(1.0)),
    ));
    let param = |name: &str, kind: ParamType| PortDef::new(name, kind).dtype_list(FLOATS);
    all.push(
        OpSchema::new("BNInference")
            .input(param("x", ParamType::Required))
            .input(param("mean", ParamType::Required))
            .input(param("variance", ParamType::Required))
            .input(param("momentum", ParamType::Required))
            .input(param("scale", ParamType::Optional))
            .input(param("offset", ParamType::Optional))
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
            .attr("epsilon", AttrType::Float, Some(AttrValue::Float(1e-5)))
            .attr(
                "use_global_stats",
                AttrType::Bool,
                Some(AttrValue::Bool(true)),
            )
            .attr("mode", AttrType::Int, Some(AttrValue::Int(1)))
            .verify(op_fn(verify_bn_inference))
            .weight_shapes(super::weight_shapes::batch_norm),
    );
    all
}

/// `x` has dtype T; scale, offset, mean, variance and every statistic
/// output have U (float).
fn fused(op_type: &str, t: &[DataType], v3: bool) -> OpSchema {
    let named = |name: &str| PortDef::new(name, ParamType::Required).dtype_list(&[DataType::Float]);
    let stat =
        |name: &str| PortDef::new(name, ParamType::Required).follow("scale", FollowType::Dtype);
    let mut schema = OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Required).dtype_list(t))
        .input(named("scale"))
        .input(named("offset"))
        .input(named("mean"))
        .input(named("variance"))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .output(stat("batch_mean"))
        .output(stat("batch_variance"))
        .output(stat("reserve_space_1"))
        .output(stat("reserve_space_2"));
    if v3 {
        schema = schema.output(stat("reserve_space_3"));
    }
    schema
        .attr("epsilon", AttrType::Float, Some(AttrValue::Float(1e-4)))
        .attr(
            "data_format",
            AttrType::Str,
            Some(AttrValue::Str("NHWC".into())),
        )
        .attr("is_training", AttrType::Bool, Some(AttrValue::Bool(true)))
        .infer_shape(with_arg(infer_fused, v3))
}

/// y has x's shape; the four statistics are `[C]`; V3's reserve_space_3 is
/// opaque in training (unknown rank, as TensorFlow leaves it) and empty at
/// inference (`[0]`: nothing uses the reserve space then, and TensorFlow's
/// kernel returns an empty tensor), so plans and costs can size it. V3
/// also takes 5-D input.
fn infer_fused(ctx: &mut OpContext<'_>, v3: bool) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?.clone();
    let format = ctx.attr_str("data_format")?;
    let rank = match x.rank() {
        None if format.len() == 5 => 5,
        None => 4,
        Some(r @ 4) => r,
        Some(r @ 5) if v3 => r,
        Some(r) => {
            let allowed = if v3 { "4-D or 5-D" } else { "4-D" };
            bail!("x must be {allowed}, got rank {r} (shape {x})")
        }
    };
    let layout = layout(format, rank)?;
    // As TensorFlow's shape function: an input of unknown rank has the
    // rank the op takes, and its channels are the vectors' length.
    let mut dims = if x.is_unknown_rank() {
        vec![UNKNOWN_DIM; rank]
    } else {
        x.dims().to_vec()
    };
    let training = ctx.attr_bool("is_training")?;
    for (i, name) in [(1, "scale"), (2, "offset"), (3, "mean"), (4, "variance")] {
        let shape = ctx.input_shape(i)?;
        // In training TensorFlow lets mean / variance be empty.
        if training && i >= 3 && shape.dims() == [0] {
            continue;
        }
        check_vector(shape, dims[layout.c], name)?;
        // In training TensorFlow's shape function sizes the channels from
        // scale and offset only.
        if let ([length], false) = (shape.dims(), training && i >= 3) {
            dims[layout.c] = merge_dim(dims[layout.c], *length, name)?;
        }
    }
    let channels = dims[layout.c];
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    ctx.set_output_format(0, layout.format)?;
    for i in 1..5 {
        ctx.set_output_shape(i, Shape::from_dims([channels]))?;
    }
    super::range_rules::copy(ctx, 0, 0)?;
    let c_range = super::range_rules::input_dim(ctx, 0, layout.c);
    for i in 1..5 {
        super::range_rules::prefix_then(ctx, i, 0, 0, &[c_range])?;
    }
    if v3 {
        let reserve = if training {
            Shape::unknown_rank()
        } else {
            Shape::from_dims([0])
        };
        ctx.set_output_shape(5, reserve)?;
    }
    Ok(())
}

/// mean, variance (and scale / offset when present) are per channel (dim 1
/// of the NCHW input); momentum is a one-element scale factor.
fn verify_bn_inference(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let channels = match x.rank() {
        None => UNKNOWN_DIM,
        Some(r) if r >= 2 => x.dims()[1],
        Some(_) => bail!("x must be at least 2-D (N, C, …), got shape {x}"),
    };
    check_vector(ctx.input_shape(1)?, channels, "mean")?;
    check_vector(ctx.input_shape(2)?, channels, "variance")?;
    for (i, name) in [(4, "scale"), (5, "offset")] {
        if let Some(d) = ctx.optional_input_desc(i)? {
            check_vector(d.shape(), channels, name)?;
        }
    }
    let momentum = ctx.input_shape(3)?;
    if !momentum.is_unknown_rank() {
        let n = super::dims::product(momentum.dims())?;
        if n != 1 && n != UNKNOWN_DIM {
            bail!("momentum (the scale factor) must hold one element, got shape {momentum}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use crate::test_graphs::{infer_all, input, op};

    /// FusedBatchNormV3 on an NHWC `[2, 4, 4, 3]` x: every output's shape,
    /// `None` for an unknown rank.
    fn fused_v3(is_training: bool) -> Vec<Option<Vec<i64>>> {
        let r = OpRegistry::with_builtins();
        let mut g = Graph::new("g");
        let f = DataType::Float;
        let mut ins = vec![input(&mut g, "x", f, &[2, 4, 4, 3], Format::Nhwc)];
        for name in ["scale", "offset", "mean", "variance"] {
            ins.push(input(&mut g, name, f, &[3], Format::Nd));
        }
        let attrs: Attrs = [("is_training", AttrValue::Bool(is_training))]
            .into_iter()
            .collect();
        let y = op(&mut g, &r, "FusedBatchNormV3", "bn", &ins, attrs);
        infer_all(&mut g, &r).unwrap();
        (0..6)
            .map(|i| {
                let shape = g.tensor(OutputRef::new(y.node, i)).shape().clone();
                shape.rank().map(|_| shape.dims().to_vec())
            })
            .collect()
    }

    #[test]
    fn reserve_space_3_is_empty_at_inference_and_opaque_in_training() {
        let at_inference = fused_v3(false);
        assert_eq!(at_inference[0], Some(vec![2, 4, 4, 3]));
        assert_eq!(
            at_inference[5],
            Some(vec![0]),
            "TensorFlow's kernel returns an empty tensor"
        );
        assert_eq!(
            fused_v3(true)[5],
            None,
            "TensorFlow's shape function leaves it unknown"
        );
    }
}
