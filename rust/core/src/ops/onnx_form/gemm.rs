//! `MatMulV2` serves ONNX Gemm (opsets 7–13): `alpha * op(x1) @ op(x2) +
//! beta * bias`, x1 and x2 2-D, `op` a transpose when `transpose_x1` /
//! `transpose_x2`, bias OPTIONAL and unidirectionally broadcastable to
//! `[M, N]`. GE's name and input names; unlike TensorFlow's MatMul
//! (`transpose_a` / `transpose_b`, no bias) it takes the bias and ONNX's
//! alpha / beta, which only scale values.

use super::dims::merge_dim;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape, UNKNOWN_DIM};

const GEMM_TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Bf16,
    DataType::Float,
    DataType::Double,
    DataType::Int32,
    DataType::Int64,
    DataType::Uint32,
    DataType::Uint64,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let gemm = OpSchema::new("MatMulV2")
        .input(PortDef::new("x1", ParamType::Required).dtypes(GEMM_TYPES))
        .input(PortDef::new("x2", ParamType::Required).dtypes(GEMM_TYPES))
        .input(PortDef::new("bias", ParamType::Optional).dtypes(GEMM_TYPES))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtypes(GEMM_TYPES)
                .follow("x1", FollowType::Dtype),
        )
        .attr("transpose_x1", AttrType::Bool, Some(AttrValue::Bool(false)))
        .attr("transpose_x2", AttrType::Bool, Some(AttrValue::Bool(false)))
        .attr("alpha", AttrType::Float, Some(AttrValue::Float(1.0)))
        .attr("beta", AttrType::Float, Some(AttrValue::Float(1.0)))
        .infer_shape(op_fn(infer_gemm));
    vec![gemm]
}

/// `[rows, cols]` of a 2-D operand after its optional transpose.
fn matrix(shape: &Shape, transpose: bool, what: &str) -> Result<(i64, i64), OpError> {
    let (r, c) = match shape.dims() {
        _ if shape.is_unknown_rank() => (UNKNOWN_DIM, UNKNOWN_DIM),
        &[r, c] => (r, c),
        _ => bail!("{what} must be 2-D, got shape {shape}"),
    };
    Ok(if transpose { (c, r) } else { (r, c) })
}

fn infer_gemm(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (m, k1) = matrix(ctx.input_shape(0)?, ctx.attr_bool("transpose_x1")?, "x1")?;
    let (k2, n) = matrix(ctx.input_shape(1)?, ctx.attr_bool("transpose_x2")?, "x2")?;
    merge_dim(k1, k2, "the contracted dims of x1 and x2 (K) differ")?;
    if let Some(bias) = ctx.input_desc(2) {
        let shape = bias.shape();
        if let Some(rank) = shape.rank() {
            if rank > 2 {
                bail!("bias must have rank <= 2 to broadcast to [M, N] = [{m}, {n}], got shape {shape}");
            }
            // Right-aligned against [M, N]: each bias dim is 1 or the target.
            let targets = [m, n];
            for (&b, &t) in shape.dims().iter().rev().zip(targets.iter().rev()) {
                if b != 1 && b != UNKNOWN_DIM && t != UNKNOWN_DIM && b != t {
                    bail!("bias {shape} does not broadcast to [M, N] = [{m}, {n}]");
                }
            }
        }
    }
    ctx.set_output_shape(0, Shape::from_dims([m, n]))?;
    if ranges::wanted(ctx, 0) {
        // M and N are dims of x1 and x2 (after their transposes).
        let side = |ctx: &OpContext<'_>, i: usize, transpose: bool, keep_first: bool| {
            match ranges::of_input(ctx, i).as_deref() {
                Some(&[a, _]) if transpose != keep_first => a,
                Some(&[_, b]) => b,
                _ => ranges::ANY,
            }
        };
        let m_range = side(ctx, 0, ctx.attr_bool("transpose_x1")?, true);
        let n_range = side(ctx, 1, ctx.attr_bool("transpose_x2")?, false);
        ranges::set(ctx, 0, vec![m_range, n_range])?;
    }
    Ok(())
}
