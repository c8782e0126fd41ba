//! Rearranging and repeating: Transpose (perm), ReverseV2 (axes), Tile
//! (multiples), BroadcastTo (shape); all value-depend on their second input.

use super::host::{for_each_index, strides, Elems};
use super::{int_value, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::{mul_dims, normalize_axis};
use crate::ops::ranges;
use crate::types::{Dims, Shape, MAX_RANK, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let with = |op_type: &str, name: &str| {
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required))
            .input(
                PortDef::new(name, ParamType::Required)
                    .dtype_list(INDEX)
                    .value_depend(ValueDepend::Required),
            )
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
    };
    // ONNX's Transpose may omit perm: the dims are then reversed.
    let transpose = OpSchema::new("Transpose")
        .input(PortDef::new("x", ParamType::Required))
        .input(
            PortDef::new("perm", ParamType::Optional)
                .dtype_list(INDEX)
                .value_depend(ValueDepend::Required),
        )
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype));
    vec![
        transpose
            .infer_shape(op_fn(infer_transpose))
            .fold(op_fn(fold_transpose)),
        with("ReverseV2", "axis")
            .infer_shape(op_fn(infer_reverse))
            .fold(op_fn(fold_reverse)),
        with("Tile", "multiples")
            .infer_shape(op_fn(infer_tile))
            .fold(op_fn(fold_tile)),
        with("BroadcastTo", "shape")
            .infer_shape(op_fn(infer_broadcast_to))
            .fold(op_fn(fold_tile)),
    ]
}

fn vector_len(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<Option<usize>, OpError> {
    let shape = ctx.input_shape(i)?;
    match shape.rank() {
        Some(1) => Ok(match shape.dims()[0] {
            UNKNOWN_DIM => None,
            n => Some(n as usize),
        }),
        Some(_) => bail!("input '{name}' must be a 1-D vector, got shape {shape}"),
        None => Ok(None),
    }
}

fn check_perm(perm: &[i64], rank: usize) -> Result<Vec<usize>, OpError> {
    if perm.len() != rank {
        bail!(
            "perm {perm:?} has {} entries but the input has rank {rank}",
            perm.len()
        );
    }
    let mut seen = vec![false; rank];
    let mut out = Vec::with_capacity(rank);
    for &p in perm {
        let a = normalize_axis(p, rank)?;
        if std::mem::replace(&mut seen[a], true) {
            bail!("perm {perm:?} is not a permutation of 0..{rank}");
        }
        out.push(a);
    }
    Ok(out)
}

/// Whether the node gives no perm (ONNX: reverse the dims).
fn reverses(ctx: &OpContext<'_>) -> bool {
    ctx.input_desc(1).is_none()
}

/// The perm: input 1's value, or the reversed dims when the node has none.
fn perm_value(ctx: &OpContext<'_>, rank: usize) -> Option<Vec<i64>> {
    if reverses(ctx) {
        return Some((0..rank as i64).rev().collect());
    }
    int_value(ctx, 1)
}

fn infer_transpose(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let len = if reverses(ctx) {
        None
    } else {
        vector_len(ctx, 1, "perm")?
    };
    let rank = match (input.rank(), len) {
        (Some(r), Some(n)) if r != n => bail!("perm has {n} entries but the input has rank {r}"),
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => return ctx.set_output_shape(0, Shape::unknown_rank()),
    };
    let Some(perm) = perm_value(ctx, rank) else {
        return ctx.set_output_shape(0, Shape::unknown_dims(rank));
    };
    let perm = check_perm(&perm, rank)?;
    let out: Dims = match input.rank() {
        Some(_) => perm.iter().map(|&p| input.dims()[p]).collect(),
        None => Dims::from_elem(UNKNOWN_DIM, rank),
    };
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        if let Some(r) = ranges::of_input(ctx, 0) {
            ranges::set(ctx, 0, perm.iter().map(|&p| r[p]).collect())?;
        }
    }
    Ok(())
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold_transpose(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(input) = Elems::input(ctx, 0) else {
        return Ok(());
    };
    let Some(perm) = perm_value(ctx, input.dims.len()) else {
        return Ok(());
    };
    let perm = check_perm(&perm, input.dims.len())?;
    let out_dims: Vec<i64> = perm.iter().map(|&p| input.dims[p]).collect();
    let st = strides(&input.dims);
    let mut sources = Vec::new();
    for_each_index(&out_dims, |o| {
        sources.push(Some(
            o.iter().zip(&perm).map(|(&c, &p)| c as usize * st[p]).sum(),
        ));
    });
    input.pick(&out_dims, sources).write(ctx, 0)
}

fn reverse_axes(ctx: &OpContext<'_>, rank: usize) -> Result<Option<Vec<bool>>, OpError> {
    let Some(axes) = int_value(ctx, 1) else {
        return Ok(None);
    };
    let mut flip = vec![false; rank];
    for &a in &axes {
        let at = normalize_axis(a, rank)?;
        if std::mem::replace(&mut flip[at], true) {
            bail!("axis {a} is given more than once in {axes:?}");
        }
    }
    Ok(Some(flip))
}

fn infer_reverse(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    vector_len(ctx, 1, "axis")?;
    let input = ctx.input_shape(0)?.clone();
    if let Some(rank) = input.rank() {
        reverse_axes(ctx, rank)?;
    }
    ctx.set_output_shape(0, input)
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold_reverse(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(input) = Elems::input(ctx, 0) else {
        return Ok(());
    };
    let Some(flip) = reverse_axes(ctx, input.dims.len())? else {
        return Ok(());
    };
    let st = strides(&input.dims);
    let mut sources = Vec::new();
    for_each_index(&input.dims, |o| {
        let flat = (0..o.len())
            .map(|a| {
                let c = if flip[a] {
                    input.dims[a] - 1 - o[a]
                } else {
                    o[a]
                };
                c as usize * st[a]
            })
            .sum();
        sources.push(Some(flat));
    });
    input.pick(&input.dims.clone(), sources).write(ctx, 0)
}

fn infer_tile(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let len = vector_len(ctx, 1, "multiples")?;
    let rank = match (input.rank(), len) {
        (Some(r), Some(n)) if r != n => {
            bail!("multiples has {n} entries but the input has rank {r}")
        }
        (Some(r), _) | (None, Some(r)) => r,
        (None, None) => return ctx.set_output_shape(0, Shape::unknown_rank()),
    };
    let Some(multiples) = int_value(ctx, 1) else {
        return ctx.set_output_shape(0, Shape::unknown_dims(rank));
    };
    if let Some(bad) = multiples.iter().find(|&&m| m < 0) {
        bail!("multiples holds {bad}; multiples must be >= 0");
    }
    let out: Dims = match input.rank() {
        Some(_) => input
            .dims()
            .iter()
            .zip(&multiples)
            .map(|(&d, &m)| mul_dims(d, m))
            .collect::<Result<_, _>>()?,
        None => multiples
            .iter()
            .map(|&m| if m == 0 { 0 } else { UNKNOWN_DIM })
            .collect(),
    };
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    if ranges::wanted(ctx, 0) {
        if let Some(r) = ranges::of_input(ctx, 0) {
            let tiled = r
                .iter()
                .zip(&multiples)
                .map(|(&r, &m)| ranges::mul(r, (m, m)));
            ranges::set(ctx, 0, tiled.collect())?;
        }
    }
    Ok(())
}

/// numpy's `broadcast_to`: the target has at least the input's rank, and
/// each input dim is 1 or the target's.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_broadcast_to(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let len = vector_len(ctx, 1, "shape")?;
    let target: Vec<i64> = match (int_value(ctx, 1), ctx.input_shape_value(1), len) {
        (Some(v), _, _) => {
            if let Some(bad) = v.iter().find(|&&d| d < 0) {
                bail!("shape holds {bad}; dims must be >= 0");
            }
            v
        }
        (None, Some(partial), _) if !partial.is_unknown_rank() => partial.dims().to_vec(),
        (None, _, Some(n)) if n > MAX_RANK => {
            bail!("shape has {n} elements, more than the maximum rank {MAX_RANK}")
        }
        (None, _, Some(n)) => vec![UNKNOWN_DIM; n],
        _ => return ctx.set_output_shape(0, Shape::unknown_rank()),
    };
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::from_dims(target));
    };
    if rank > target.len() {
        bail!("cannot broadcast rank {rank} to the shorter shape {target:?}");
    }
    let offset = target.len() - rank;
    let mut out = target.clone();
    for (a, &d) in input.dims().iter().enumerate() {
        let t = &mut out[offset + a];
        match (d, *t) {
            (1, _) | (UNKNOWN_DIM, _) => {}
            (d, UNKNOWN_DIM) => *t = d,
            (d, t) if d == t => {}
            (d, t) => bail!("cannot broadcast dim {d} (axis {a}) to {t}"),
        }
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    // Each input dim against its (possibly unknown) target dim.
    range_rules::propagate(ctx, 0, |ctx| {
        let mut r: Vec<_> = target.iter().map(|&t| ranges::of_dim(t, None)).collect();
        for (a, x) in ranges::of_input(ctx, 0)?.into_iter().enumerate() {
            r[offset + a] = ranges::broadcast(x, r[offset + a]);
        }
        Some(r)
    })
}

/// Tile and BroadcastTo: output coordinate `c` reads input `c mod dim`
/// (right-aligned for BroadcastTo).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold_tile(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(input) = Elems::input(ctx, 0) else {
        return Ok(());
    };
    let out_dims: Vec<i64> = match ctx.output_desc(0) {
        Some(d) => d.shape().dims().to_vec(),
        None => return Ok(()),
    };
    let rank = input.dims.len();
    if rank > out_dims.len() {
        return Ok(());
    }
    if input.dims.contains(&0) {
        // An empty input tiles or broadcasts only to an empty output.
        return input.pick(&out_dims, std::iter::empty()).write(ctx, 0);
    }
    let offset = out_dims.len() - rank;
    let st = strides(&input.dims);
    let mut sources = Vec::new();
    for_each_index(&out_dims, |o| {
        let flat = (0..rank)
            .map(|a| (o[offset + a] % input.dims[a]) as usize * st[a])
            .sum();
        sources.push(Some(flat));
    });
    input.pick(&out_dims, sources).write(ctx, 0)
}
