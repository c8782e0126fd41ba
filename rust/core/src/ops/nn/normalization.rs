//! Normalisation over feature dims: GE's LayerNorm (outputs y, mean,
//! variance) and LRN (TensorFlow's attributes, Caffe's `norm_region`).

use super::dims::merge_dim;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::common::normalize_axis;
use crate::types::{AttrType, AttrValue, DataType, Dims, Shape};

const FLOATS: &[DataType] = &[DataType::Float16, DataType::Float, DataType::Bf16];

pub(super) fn schemas() -> Vec<OpSchema> {
    let layer_norm = OpSchema::new("LayerNorm")
        .input(PortDef::new("x", ParamType::Required).dtypes(FLOATS))
        .input(PortDef::new("gamma", ParamType::Required).dtypes(FLOATS))
        // Required in GE; optional here, as ONNX's LayerNormalization bias is
        // (PyTorch's LayerNorm(bias=False) exports without it).
        .input(PortDef::new("beta", ParamType::Optional).dtypes(FLOATS))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .output(PortDef::new("mean", ParamType::Required).follow("x", FollowType::Dtype))
        .output(PortDef::new("variance", ParamType::Required).follow("x", FollowType::Dtype))
        .attr("begin_norm_axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("begin_params_axis", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("epsilon", AttrType::Float, Some(AttrValue::Float(1e-7)))
        // opgraph's: the non-negative axes a fused layer norm reduced, which
        // are trailing only if they reach the last axis (checked on the rank).
        .attr(
            "norm_axes",
            AttrType::ListInt,
            Some(AttrValue::ListInt(Vec::new())),
        )
        .infer_shape(op_fn(infer_layer_norm));
    let lrn = OpSchema::new("LRN")
        .input(PortDef::new("x", ParamType::Required).dtype_list(FLOATS))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .attr("depth_radius", AttrType::Int, Some(AttrValue::Int(5)))
        .attr("bias", AttrType::Float, Some(AttrValue::Float(1.0)))
        .attr("alpha", AttrType::Float, Some(AttrValue::Float(1.0)))
        .attr("beta", AttrType::Float, Some(AttrValue::Float(0.5)))
        .attr(
            "norm_region",
            AttrType::Str,
            Some(AttrValue::Str("ACROSS_CHANNELS".into())),
        )
        .verify(op_fn(verify_lrn))
        .infer_shape(op_fn(infer_lrn));
    vec![layer_norm, lrn]
}

/// gamma and beta (when given) cover x's dims from `begin_params_axis`;
/// mean and variance keep x's dims before `begin_norm_axis` and are 1
/// after it.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_layer_norm(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?.clone();
    let Some(rank) = x.rank() else {
        ctx.set_output_shape(1, Shape::unknown_rank())?;
        return ctx.set_output_shape(2, Shape::unknown_rank());
    };
    if rank == 0 {
        bail!("x must be at least 1-D");
    }
    let norm_axis = normalize_axis(ctx.attr_int("begin_norm_axis")?, rank)?;
    let norm_axes = ctx.attr_ints("norm_axes")?;
    if !norm_axes.is_empty() && norm_axes.iter().max() != Some(&(rank as i64 - 1)) {
        bail!(
            "was fused from a Mean over axes {norm_axes:?}, which on x {x} (rank {rank}) are \
             not the trailing axes: it is not a layer norm (load the model with the scope \
             pass ScopeLayerNormPass disabled)"
        );
    }
    let params_axis = normalize_axis(ctx.attr_int("begin_params_axis")?, rank)?;
    let expected = &x.dims()[params_axis..];
    for (i, name) in [(1, "gamma"), (2, "beta")] {
        let Some(p) = ctx.optional_input_desc(i)?.map(|d| d.shape()) else {
            continue;
        };
        if p.is_unknown_rank() {
            continue;
        }
        if p.dims().len() != expected.len() {
            bail!(
                "{name} has shape {p} but x {x} from begin_params_axis {params_axis} has {} dims",
                expected.len()
            );
        }
        for (&a, &b) in p.dims().iter().zip(expected) {
            merge_dim(a, b, &format!("{name} {p} vs x {x} from begin_params_axis"))?;
        }
    }
    let stats: Dims = x
        .dims()
        .iter()
        .enumerate()
        .map(|(i, &d)| if i < norm_axis { d } else { 1 })
        .collect();
    ctx.set_output_shape(1, Shape::from_dims(&stats))?;
    ctx.set_output_shape(2, Shape::from_dims(stats))?;
    let ones = vec![(1, 1); rank - norm_axis];
    super::range_rules::prefix_then(ctx, 1, 0, norm_axis, &ones)?;
    super::range_rules::prefix_then(ctx, 2, 0, norm_axis, &ones)
}

fn verify_lrn(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let radius = ctx.attr_int("depth_radius")?;
    if radius < 0 {
        bail!("depth_radius is {radius}, expected >= 0");
    }
    let region = ctx.attr_str("norm_region")?;
    if region != "ACROSS_CHANNELS" && region != "WITHIN_CHANNEL" {
        bail!("norm_region is '{region}', expected ACROSS_CHANNELS or WITHIN_CHANNEL");
    }
    let x = ctx.input_shape(0)?;
    if let Some(r) = x.rank() {
        if r != 4 {
            bail!("x must be 4-D, got shape {x}");
        }
    }
    Ok(())
}

/// x's shape; an x of unknown rank has the 4 dims LRN takes.
fn infer_lrn(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if ctx.input_shape(0)?.is_unknown_rank() {
        ctx.set_output_shape(0, Shape::unknown_dims(4))?;
    }
    Ok(()) // otherwise x's shape and range follow
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;
    use crate::test_graphs::{infer_all, input, op};

    /// LayerNorm over `x` dims with gamma/beta `[8]` and `attrs`; y's shape or the error.
    fn layer_norm(x: &[i64], attrs: &[(&str, AttrValue)]) -> Result<Vec<i64>, String> {
        let r = OpRegistry::with_builtins();
        let mut g = Graph::new("g");
        let f = DataType::Float;
        let ins = [
            input(&mut g, "x", f, x, Format::Nd),
            input(&mut g, "gamma", f, &[8], Format::Nd),
            input(&mut g, "beta", f, &[8], Format::Nd),
        ];
        let attrs: Attrs = attrs.iter().map(|(k, v)| (*k, v.clone())).collect();
        let y = op(&mut g, &r, "LayerNorm", "ln", &ins, attrs);
        infer_all(&mut g, &r)?;
        Ok(g.tensor(y).shape().dims().to_vec())
    }

    #[test]
    fn norm_axes_of_a_fused_layer_norm_must_reach_the_last_axis() {
        let fused = |axes: Vec<i64>, begin: i64| {
            vec![
                ("begin_norm_axis", AttrValue::Int(begin)),
                ("begin_params_axis", AttrValue::Int(-1)),
                ("norm_axes", AttrValue::ListInt(axes)),
            ]
        };
        // Axes [2] are trailing on rank 3, not on rank 4 (where
        // begin_norm_axis 2 would also normalise axis 3: not what the
        // fused Mean did).
        assert_eq!(
            layer_norm(&[2, 5, 8], &fused(vec![2], 2)).unwrap(),
            [2, 5, 8]
        );
        let e = layer_norm(&[2, 5, 4, 8], &fused(vec![2], 2)).unwrap_err();
        assert!(
            e.contains("over axes [2]") && e.contains("not the trailing axes"),
            "{e}"
        );
        assert_eq!(
            layer_norm(&[2, 5, 4, 8], &fused(vec![2, 3], 2)).unwrap(),
            [2, 5, 4, 8]
        );
    }
}
