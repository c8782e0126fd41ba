//! MatrixBandPart (TensorFlow, GE): the innermost matrices of `x` with
//! everything outside a band around the diagonal set to zero. The output is
//! x's shape; `num_lower` / `num_upper` are scalars, negative for "all",
//! and may not exceed the rows / columns (TensorFlow's kernel rule, checked
//! when the values and dims are known).

use super::{int_scalar, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::types::UNKNOWN_DIM;

pub(super) fn schemas() -> Vec<OpSchema> {
    let bound = |name: &str| {
        PortDef::new(name, ParamType::Required)
            .dtype_list(INDEX)
            .value_depend(ValueDepend::Optional)
    };
    let band = OpSchema::new("MatrixBandPart")
        .input(PortDef::new("x", ParamType::Required))
        .input(bound("num_lower"))
        .input(bound("num_upper"))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .verify(op_fn(verify_band));
    vec![band]
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn verify_band(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let x = ctx.input_shape(0)?;
    if x.rank().is_some_and(|r| r < 2) {
        bail!("x must have rank >= 2 (matrices), got shape {x}");
    }
    // (input, name, the matrix dim it may not exceed, what that dim is)
    for (i, name, from_end, what) in [(1, "num_lower", 2, "rows"), (2, "num_upper", 1, "columns")] {
        let shape = ctx.input_shape(i)?;
        if shape.rank().is_some_and(|r| r != 0) {
            bail!("{name} must be a scalar, got shape {shape}");
        }
        let limit = x.rank().map_or(UNKNOWN_DIM, |r| x.dims()[r - from_end]);
        if let Some(v) = int_scalar(ctx, i, name)? {
            if limit != UNKNOWN_DIM && v > limit {
                bail!("{name} is {v}, more than the {limit} {what} of x {x} (negative keeps them all)");
            }
        }
    }
    Ok(())
}
