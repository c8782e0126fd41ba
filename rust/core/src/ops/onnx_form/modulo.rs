//! Mod, ONNX Mod from opset 10: the remainder of `x1 / x2` with numpy
//! broadcasting. With `fmod` = 0 (for integers, and from opset 28 for
//! floats too) it takes the sign of the divisor, as TensorFlow's FloorMod
//! and numpy's mod do; with `fmod` = 1 it takes
//! the sign of the dividend (C's fmod, TensorFlow's TruncateMod). Integer
//! remainders of known values fold (shape arithmetic); a zero divisor or an
//! overflow leaves the value unfolded.

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::array::host::{for_each_index, strides};
use crate::ops::broadcast_shapes;
use crate::types::{AttrType, AttrValue, DataType, HostTensor};

pub(super) fn schemas() -> Vec<OpSchema> {
    let modulo = OpSchema::new("Mod")
        .input(PortDef::new("x1", ParamType::Required))
        .input(PortDef::new("x2", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).follow("x1", FollowType::Dtype))
        .attr("fmod", AttrType::Int, Some(AttrValue::Int(0)))
        .verify(op_fn(verify))
        .infer_shape(op_fn(infer))
        .fold(op_fn(fold));
    vec![modulo]
}

fn verify(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let fmod = ctx.attr_int("fmod")?;
    if fmod != 0 && fmod != 1 {
        bail!("attribute 'fmod' is {fmod}; it must be 0 or 1");
    }
    let (a, b) = (ctx.input_dtype(0)?, ctx.input_dtype(1)?);
    if a != b {
        bail!("x1 is {a} but x2 is {b}; they must match");
    }
    Ok(())
}

fn infer(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let out = broadcast_shapes(ctx.input_shape(0)?, ctx.input_shape(1)?).map_err(OpError::new)?;
    ctx.set_output_shape(0, out)
}

/// The remainder of one pair; `None` for a zero divisor or an overflow.
fn remainder(a: i64, b: i64, fmod: bool) -> Option<i64> {
    let r = a.checked_rem(b)?;
    if fmod || r == 0 || (r < 0) == (b < 0) {
        Some(r)
    } else {
        r.checked_add(b)
    }
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let fmod = ctx.attr_int("fmod")? == 1;
    let (Some(a), Some(b)) = (ctx.input_host_value(0), ctx.input_host_value(1)) else {
        return Ok(());
    };
    let dtype = a.dtype();
    if !matches!(dtype, DataType::Int32 | DataType::Int64) {
        return Ok(());
    }
    let (Some(av), Some(bv), Some(out)) = (
        a.to_ints(),
        b.to_ints(),
        ctx.output_desc(0).map(|d| d.shape().clone()),
    ) else {
        return Ok(());
    };
    if !out.is_static() {
        return Ok(());
    }
    let out_dims = out.dims().to_vec();
    // Flat index of an operand's element for an output coordinate: the
    // operand is right-aligned, and its dims of size 1 repeat.
    let source = |dims: &[i64], index: &[i64]| -> usize {
        let lead = index.len() - dims.len();
        dims.iter()
            .zip(strides(dims))
            .enumerate()
            .map(|(k, (&d, s))| {
                if d == 1 {
                    0
                } else {
                    index[lead + k] as usize * s
                }
            })
            .sum()
    };
    let (ad, bd) = (a.shape().dims().to_vec(), b.shape().dims().to_vec());
    let mut values = Vec::new();
    let mut ok = true;
    for_each_index(&out_dims, |index| {
        let pair = av.get(source(&ad, index)).zip(bv.get(source(&bd, index)));
        match pair.and_then(|(&x, &y)| remainder(x, y, fmod)) {
            Some(r) => values.push(r),
            None => ok = false,
        }
    });
    if !ok {
        return Ok(());
    }
    match HostTensor::from_ints(dtype, out, &values) {
        Some(value) => ctx.set_output_value(0, value),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::remainder;

    // Python's % (floor) and math.fmod (truncation).
    #[test]
    fn floor_and_truncated_remainders() {
        assert_eq!(remainder(-7, 3, false), Some(2));
        assert_eq!(remainder(7, -3, false), Some(-2));
        assert_eq!(remainder(-7, 3, true), Some(-1));
        assert_eq!(remainder(7, -3, true), Some(1));
        assert_eq!(remainder(6, 3, false), Some(0));
        assert_eq!(remainder(1, 0, false), None);
        assert_eq!(remainder(i64::MIN, -1, true), None);
    }
}
