//! Select (TensorFlow v1: a condition of x's shape, or a vector over x's
//! first dim) and SelectV2 (numpy broadcasting of all three inputs).

use super::{merge_dim, range_rules};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::broadcast_shapes;
use crate::ops::ranges;
use crate::types::{DataType, Dims, Shape};

pub(super) fn schemas() -> Vec<OpSchema> {
    let base = |op_type: &str| {
        OpSchema::new(op_type)
            .input(PortDef::new("condition", ParamType::Required).dtype_list(&[DataType::Bool]))
            .input(PortDef::new("x1", ParamType::Required))
            .input(PortDef::new("x2", ParamType::Required).follow("x1", FollowType::Dtype))
            .output(PortDef::new("y", ParamType::Required).follow("x1", FollowType::Dtype))
    };
    vec![
        base("Select").infer_shape(op_fn(infer_select)),
        base("SelectV2")
            .infer_shape(op_fn(infer_select_v2))
            .fold(op_fn(crate::ops::math::fold_elementwise::fold_select)),
    ]
}

fn merge_shapes(a: &Shape, b: &Shape) -> Result<Shape, OpError> {
    match (a.rank(), b.rank()) {
        (None, _) => Ok(b.clone()),
        (_, None) => Ok(a.clone()),
        (Some(x), Some(y)) if x != y => bail!("x1 {a} and x2 {b} must have the same shape"),
        _ => {
            let dims: Dims = a
                .dims()
                .iter()
                .zip(b.dims())
                .map(|(&p, &q)| merge_dim(p, q, &format!("x1 {a} and x2 {b}")))
                .collect::<Result<_, _>>()?;
            Ok(Shape::from_dims(dims))
        }
    }
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_select(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let out = merge_shapes(ctx.input_shape(1)?, ctx.input_shape(2)?)?;
    let cond = ctx.input_shape(0)?;
    let (Some(c), Some(r)) = (cond.rank(), out.rank()) else {
        return ctx.set_output_shape(0, out);
    };
    // TensorFlow's Select: a scalar condition picks x1 or x2 whole.
    let out = if c == 0 {
        out
    } else if c == 1 && r > 1 {
        let mut dims = Dims::from_slice(out.dims());
        dims[0] = merge_dim(
            dims[0],
            cond.dims()[0],
            "the condition vector and x's first dim",
        )?;
        Shape::from_dims(dims)
    } else if c == r {
        merge_shapes(&out, cond).map_err(|_| {
            OpError::new(format!(
                "the condition {cond} must have the shape of x1 and x2 ({out})"
            ))
        })?
    } else {
        bail!("the condition {cond} must have the shape of x1 and x2 ({out}), or be a vector over their first dim");
    };
    ctx.set_output_shape(0, out)?;
    // The output is x1 and x2 (and a full condition) at once.
    range_rules::propagate(ctx, 0, |ctx| {
        let mut all: Vec<_> = (0..3).filter_map(|i| ranges::of_input(ctx, i)).collect();
        if c == 1 && r > 1 {
            let first = all.remove(0)[0];
            all.push([vec![first], vec![ranges::ANY; r - 1]].concat());
        }
        Some(range_rules::intersect_all(all, r))
    })
}

fn infer_select_v2(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let xy = broadcast_shapes(ctx.input_shape(1)?, ctx.input_shape(2)?).map_err(OpError::new)?;
    let out = broadcast_shapes(ctx.input_shape(0)?, &xy).map_err(OpError::new)?;
    let rank = out.rank();
    ctx.set_output_shape(0, out)?;
    range_rules::propagate(ctx, 0, |ctx| {
        let all: Option<Vec<_>> = (0..3).map(|i| ranges::of_input(ctx, i)).collect();
        Some(range_rules::broadcast_all(&all?, rank?))
    })
}
