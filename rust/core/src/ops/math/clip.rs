//! ClipByValue (TensorFlow, GE): `x` clamped to `[clip_value_min,
//! clip_value_max]`. The output is x's shape. Each bound is a scalar or has
//! x's shape (TensorFlow's kernel rule; its shape function only keeps x's
//! shape), checked here where the shapes are known. OnnxClip is ONNX's Clip
//! (opset 11) with a bound absent: an absent bound is none, whatever x's
//! dtype (GE's ClipByValue takes both; the ONNX plugin maps a Clip with
//! both onto it).

use super::dtypes::NUMBER;
use super::softmax::infer_same_shape;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let clip = |op_type: &str, bounds: ParamType| {
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required).dtypes(NUMBER))
            .input(PortDef::new("clip_value_min", bounds).dtypes(NUMBER))
            .input(PortDef::new("clip_value_max", bounds).dtypes(NUMBER))
            .output(
                PortDef::new("y", ParamType::Required)
                    .dtypes(NUMBER)
                    .follow("x", FollowType::All),
            )
            .verify(op_fn(verify_bounds))
            .infer_shape(op_fn(infer_same_shape))
            .fold(op_fn(super::fold_elementwise::fold_clip))
    };
    vec![
        clip("ClipByValue", ParamType::Required),
        clip("OnnxClip", ParamType::Optional),
    ]
}

fn verify_bounds(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    let dtype = ctx.input_dtype(0)?;
    for (i, name) in [(1, "clip_value_min"), (2, "clip_value_max")] {
        let Some(desc) = ctx.optional_input_desc(i)? else {
            continue;
        };
        if desc.dtype != dtype {
            bail!("{name} is {} but x is {dtype}; they must match", desc.dtype);
        }
        let bound = desc.shape();
        if !scalar_or_like(bound, x) {
            bail!("{name} must be a scalar or have the shape of x {x}, got shape {bound}");
        }
    }
    Ok(())
}

/// Whether `bound` can be a scalar or `x`'s shape (unknowns agree).
fn scalar_or_like(bound: &Shape, x: &Shape) -> bool {
    let (Some(rank), Some(x_rank)) = (bound.rank(), x.rank()) else {
        return true;
    };
    rank == 0
        || (rank == x_rank
            && bound
                .dims()
                .iter()
                .zip(x.dims())
                .all(|(&b, &d)| b == d || b == UNKNOWN_DIM || d == UNKNOWN_DIM))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_scalars_or_shaped_like_x() {
        let s = |d: &[i64]| Shape::from_dims(d);
        let x = s(&[2, -1]);
        assert!(scalar_or_like(&s(&[]), &x));
        assert!(scalar_or_like(&s(&[2, 7]), &x));
        assert!(scalar_or_like(&s(&[-1, -1]), &x));
        assert!(scalar_or_like(&Shape::unknown_rank(), &x));
        assert!(scalar_or_like(&s(&[5]), &Shape::unknown_rank()));
        assert!(!scalar_or_like(&s(&[3, 1]), &x));
        // Broadcasting is not enough: TensorFlow's kernel wants x's shape.
        assert!(!scalar_or_like(&s(&[1]), &s(&[4])));
        assert!(!scalar_or_like(&s(&[2]), &x));
    }
}
