//! Matrix multiply: MatMul (2-D), BatchMatMul (equal batch dims) and
//! BatchMatMulV2 (numpy-broadcast batch dims; as in GE, a 1-D operand is
//! promoted, x1 `[k]` to the row `[1, k]` and x2 `[k]` to the column
//! `[k, 1]`, and the promoted dim leaves the output: numpy's matmul, which
//! ONNX's MatMul is. Where GE differs, opgraph follows numpy: two vectors
//! give a scalar (GE keeps `[1, 1]`), and a vector of unknown length is
//! promoted too. The adjoint attributes apply to the promoted matrix, as in
//! GE's older infer function; its newer one ignores them for vectors). TensorFlow's attribute names
//! (`transpose_a` / `transpose_b`, `adj_x` / `adj_y`) and GE's
//! (`transpose_x1` / `transpose_x2`, `adj_x1` / `adj_x2`) are both accepted;
//! either one set transposes.

use super::dims::merge_dim;
use crate::bail;
use crate::infer::OpContext;
use crate::op::with_arg;
use crate::op::{OpError, OpSchema, ParamType, PortDef};
use crate::ops::broadcast_shapes;
use crate::types::DataType::{self, *};
use crate::types::{AttrType, AttrValue, Dims, Shape, UNKNOWN_DIM};

const TYPES: &[DataType] = &[
    Float16, Float, Double, Bf16, Int32, Int64, Complex64, Complex128,
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    MatMul,
    Batch,
    BatchBroadcast,
}

pub(super) fn schemas() -> Vec<OpSchema> {
    let no = || Some(AttrValue::Bool(false));
    let base = |op_type: &str, kind: Kind| {
        OpSchema::new(op_type)
            .input(PortDef::new("x1", ParamType::Required).dtypes(TYPES))
            .input(PortDef::new("x2", ParamType::Required).dtypes(TYPES))
            .input(PortDef::new("bias", ParamType::Optional).dtypes(TYPES))
            .output(PortDef::new("y", ParamType::Required).dtypes(TYPES))
            .infer_shape(with_arg(infer_matmul, kind))
    };
    let matmul = base("MatMul", Kind::MatMul)
        .attr("transpose_a", AttrType::Bool, no())
        .attr("transpose_b", AttrType::Bool, no())
        .attr("transpose_x1", AttrType::Bool, no())
        .attr("transpose_x2", AttrType::Bool, no());
    let batch = |op_type: &str, kind: Kind| {
        base(op_type, kind)
            .attr("adj_x", AttrType::Bool, no())
            .attr("adj_y", AttrType::Bool, no())
            .attr("adj_x1", AttrType::Bool, no())
            .attr("adj_x2", AttrType::Bool, no())
    };
    vec![
        matmul,
        batch("BatchMatMul", Kind::Batch),
        batch("BatchMatMulV2", Kind::BatchBroadcast),
    ]
}

fn transposes(ctx: &OpContext<'_>, kind: Kind) -> Result<(bool, bool), OpError> {
    let [a, b, a_ge, b_ge] = if kind == Kind::MatMul {
        ["transpose_a", "transpose_b", "transpose_x1", "transpose_x2"]
    } else {
        ["adj_x", "adj_y", "adj_x1", "adj_x2"]
    };
    Ok((
        ctx.attr_bool(a)? || ctx.attr_bool(a_ge)?,
        ctx.attr_bool(b)? || ctx.attr_bool(b_ge)?,
    ))
}

fn infer_matmul(ctx: &mut OpContext<'_>, kind: Kind) -> Result<(), OpError> {
    let (ta, tb) = transposes(ctx, kind)?;
    let (a, b) = (ctx.input_shape(0)?, ctx.input_shape(1)?);
    let vector = |s: &Shape| kind == Kind::BatchBroadcast && s.rank() == Some(1);
    let (row, column) = (vector(a), vector(b));
    let out = match kind {
        Kind::MatMul => {
            let a = matrix(a, "x1", true)?;
            let b = matrix(b, "x2", true)?;
            let (m, n) = product_dims(&a, &b, ta, tb)?;
            Shape::from_dims([m, n])
        }
        Kind::Batch => batch_matmul(a, b, ta, tb, kind)?,
        Kind::BatchBroadcast => {
            for (shape, name) in [(a, "x1"), (b, "x2")] {
                if shape.rank() == Some(0) {
                    bail!(
                        "input '{name}' must be at least 1-D (a vector is promoted), got a scalar"
                    );
                }
            }
            // The promoted dim of an adjointed vector would be contracted,
            // and the dim dropped from the product would not be the one it
            // added: no framework defines that.
            for (is_vector, adjoint, name, attr) in
                [(row, ta, "x1", "adj_x1"), (column, tb, "x2", "adj_x2")]
            {
                if is_vector && adjoint {
                    bail!("input '{name}' is a vector, which has no adjoint; {attr} must be false");
                }
            }
            let a = if row { &promoted(a, 0) } else { a };
            let b = if column { &promoted(b, 1) } else { b };
            let out = batch_matmul(a, b, ta, tb, kind)?;
            without_promoted(out, row, column)
        }
    };
    check_bias(ctx, &out)?;
    ctx.set_output_shape(0, out)?;
    if row || column {
        return Ok(()); // the range rules read matrices
    }
    let batched = kind != Kind::MatMul;
    super::range_rules::matmul(ctx, (ta, tb), batched, kind == Kind::BatchBroadcast)
}

/// A 1-D operand `[k]` with a 1 inserted at `at`: the row `[1, k]` (0) or
/// the column `[k, 1]` (1).
fn promoted(vector: &Shape, at: usize) -> Shape {
    let mut dims = vector.dims().to_vec();
    dims.insert(at, 1);
    Shape::from_dims(dims)
}

/// The product's shape without the dims the promoted operands added: the
/// row's (second to last) and the column's (last).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "a product of matrices has rank >= 2"
)]
fn without_promoted(out: Shape, row: bool, column: bool) -> Shape {
    let Some(rank) = out.rank() else {
        return out;
    };
    let mut dims = out.dims().to_vec();
    if column {
        dims.remove(rank - 1);
    }
    if row {
        dims.remove(rank - 2);
    }
    Shape::from_dims(dims)
}

/// The dims of an operand: exactly 2-D for MatMul, at least 2-D for the
/// batch variants; `None` when the rank is unknown.
fn matrix(shape: &Shape, what: &str, exact: bool) -> Result<Dims, OpError> {
    let Some(rank) = shape.rank() else {
        return Ok(Dims::from_slice(&[UNKNOWN_DIM, UNKNOWN_DIM]));
    };
    if (exact && rank != 2) || rank < 2 {
        let need = if exact { "2-D" } else { "at least 2-D" };
        bail!("input '{what}' must be {need}, got shape {shape}");
    }
    Ok(shape.dims().iter().copied().collect())
}

/// `(M, N)` of the product of the last two dims of `a` and `b`, checking
/// the contracted dims agree.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn product_dims(a: &[i64], b: &[i64], ta: bool, tb: bool) -> Result<(i64, i64), OpError> {
    let (ar, br) = (a.len(), b.len());
    let (m, ka) = if ta {
        (a[ar - 1], a[ar - 2])
    } else {
        (a[ar - 2], a[ar - 1])
    };
    let (kb, n) = if tb {
        (b[br - 1], b[br - 2])
    } else {
        (b[br - 2], b[br - 1])
    };
    merge_dim(ka, kb, "the contracted dims of x1 and x2 differ")?;
    Ok((m, n))
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn batch_matmul(a: &Shape, b: &Shape, ta: bool, tb: bool, kind: Kind) -> Result<Shape, OpError> {
    let ad = matrix(a, "x1", false)?;
    let bd = matrix(b, "x2", false)?;
    let (m, n) = product_dims(&ad, &bd, ta, tb)?;
    let batch_of = |s: &Shape, d: &Dims| {
        if s.is_unknown_rank() {
            Shape::unknown_rank()
        } else {
            Shape::from_dims(&d[..d.len() - 2])
        }
    };
    let (ab, bb) = (batch_of(a, &ad), batch_of(b, &bd));
    let batch = if kind == Kind::BatchBroadcast {
        broadcast_shapes(&ab, &bb)
            .map_err(|e| OpError::new(format!("the batch dims cannot be broadcast: {e}")))?
    } else {
        super::dims::merge_shapes(&ab, &bb, "BatchMatMul needs equal batch dims")?
    };
    if batch.is_unknown_rank() {
        return Ok(Shape::unknown_rank());
    }
    let mut dims: Dims = batch.dims().iter().copied().collect();
    dims.extend([m, n]);
    Ok(Shape::from_dims(dims))
}

/// The optional bias broadcasts against the output's last dim (`[N]` or `[1]`).
fn check_bias(ctx: &OpContext<'_>, out: &Shape) -> Result<(), OpError> {
    let Some(bias) = ctx.optional_input_desc(2)? else {
        return Ok(());
    };
    if out.rank() == Some(0) {
        bail!("a bias needs a product with a last dim to add to; two vectors multiply to a scalar");
    }
    let n = out.dims().last().copied().unwrap_or(UNKNOWN_DIM);
    match bias.shape().dims() {
        _ if bias.shape().is_unknown_rank() || out.is_unknown_rank() => Ok(()),
        [1] => Ok(()),
        [b] => merge_dim(*b, n, "the bias length differs from the output's last dim").map(|_| ()),
        _ => bail!("bias must be 1-D, got shape {}", bias.shape()),
    }
}
