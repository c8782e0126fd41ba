//! Padding: Pad (zeros), PadV2 (a constant), MirrorPad (REFLECT /
//! SYMMETRIC). `paddings` is an `[rank, 2]` value-depend input of
//! (before, after) counts.

use super::host::{for_each_index, strides, Elems};
use super::{int_value, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::add_dims;
use crate::ops::ranges;
use crate::types::{AttrType, Dims, Shape, MAX_RANK};

pub(super) fn schemas() -> Vec<OpSchema> {
    let base = |op_type: &str| {
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required))
            .input(
                PortDef::new("paddings", ParamType::Required)
                    .dtype_list(INDEX)
                    .value_depend(ValueDepend::Required),
            )
    };
    let y = || PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype);
    let pad = base("Pad")
        .output(y())
        .infer_shape(op_fn(infer_pad))
        .fold(op_fn(fold_pad));
    let pad_v2 = base("PadV2")
        .input(PortDef::new("constant_values", ParamType::Required).follow("x", FollowType::Dtype))
        .output(y())
        .infer_shape(op_fn(infer_pad))
        .fold(op_fn(fold_pad));
    let mirror = base("MirrorPad")
        .output(y())
        .attr("mode", AttrType::Str, None)
        .verify(op_fn(|ctx| mode(ctx).map(|_| ())))
        .infer_shape(op_fn(infer_pad))
        .fold(op_fn(fold_pad));
    vec![pad, pad_v2, mirror]
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Constant,
    Reflect,
    Symmetric,
}

fn mode(ctx: &OpContext<'_>) -> Result<Mode, OpError> {
    if ctx.op_type() != "MirrorPad" {
        return Ok(Mode::Constant);
    }
    match ctx.attr_str("mode")?.to_ascii_uppercase().as_str() {
        "REFLECT" => Ok(Mode::Reflect),
        "SYMMETRIC" => Ok(Mode::Symmetric),
        other => bail!("mode is '{other}'; MirrorPad takes REFLECT or SYMMETRIC"),
    }
}

/// The (before, after) pairs when known, checked against the input dims.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn pairs(ctx: &OpContext<'_>, dims: Option<&[i64]>) -> Result<Option<Vec<(i64, i64)>>, OpError> {
    let shape = ctx.input_shape(1)?;
    if shape.rank().is_some_and(|r| r != 2)
        || shape.dims().get(1).is_some_and(|&d| d != 2 && d != -1)
    {
        bail!("paddings must have shape [rank, 2], got {shape}");
    }
    let Some(values) = int_value(ctx, 1) else {
        return Ok(None);
    };
    let pairs: Vec<(i64, i64)> = values.chunks_exact(2).map(|c| (c[0], c[1])).collect();
    let mode = mode(ctx)?;
    if let Some(dims) = dims {
        if pairs.len() != dims.len() {
            bail!(
                "paddings has {} rows but the input has rank {}",
                pairs.len(),
                dims.len()
            );
        }
    }
    for (i, &(before, after)) in pairs.iter().enumerate() {
        if before < 0 || after < 0 {
            bail!("paddings[{i}] = [{before}, {after}]; paddings must be >= 0");
        }
        let Some(&dim) = dims.and_then(|d| d.get(i)) else {
            continue;
        };
        let limit = match mode {
            Mode::Constant => continue,
            Mode::Reflect => dim - 1,
            Mode::Symmetric => dim,
        };
        if dim >= 0 && (before > limit || after > limit) {
            bail!("paddings[{i}] = [{before}, {after}] exceed {limit}, the most a mirror pad of a dim of {dim} allows");
        }
    }
    Ok(Some(pairs))
}

fn infer_pad(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if ctx.input_count() > 2 {
        let c = ctx.input_shape(2)?;
        if c.rank().is_some_and(|r| r != 0) {
            bail!("input 'constant_values' must be a scalar, got shape {c}");
        }
    }
    let input = ctx.input_shape(0)?;
    let rows = ctx.input_shape(1)?.dims().first().copied();
    let Some(pairs) = pairs(ctx, input.rank().map(|_| input.dims()))? else {
        // Unknown paddings only grow each dim.
        let grown = |ctx: &OpContext<'_>| {
            Some(
                ranges::of_input(ctx, 0)?
                    .iter()
                    .map(|r| (r.0, -1))
                    .collect(),
            )
        };
        let set = match (input.rank(), rows) {
            (Some(r), _) => ctx.set_output_shape(0, Shape::unknown_dims(r)),
            (None, Some(n)) if (0..=MAX_RANK as i64).contains(&n) => {
                ctx.set_output_shape(0, Shape::unknown_dims(n as usize))
            }
            _ => ctx.set_output_shape(0, Shape::unknown_rank()),
        };
        return set.and_then(|()| range_rules::propagate(ctx, 0, grown));
    };
    let dims: Vec<i64> = match input.rank() {
        Some(_) => input.dims().to_vec(),
        None => vec![-1; pairs.len()],
    };
    let out: Dims = dims
        .iter()
        .zip(&pairs)
        .map(|(&d, &(b, a))| add_dims(d, b).and_then(|s| add_dims(s, a)))
        .collect::<Result<_, _>>()?;
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    range_rules::propagate(ctx, 0, |ctx| {
        let r = ranges::of_input(ctx, 0)?;
        let padded = r
            .iter()
            .zip(&pairs)
            .map(|(&r, &(b, a))| ranges::add(r, (b.saturating_add(a), b.saturating_add(a))));
        Some(padded.collect())
    })
}

/// Where padded coordinate `c` (already shifted by `before`) reads along a
/// dim of `d`: inside, mirrored, or `None` for the constant.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn source_coord(c: i64, d: i64, mode: Mode) -> Option<i64> {
    if (0..d).contains(&c) {
        return Some(c);
    }
    match mode {
        Mode::Constant => None,
        Mode::Reflect if c < 0 => Some(-c),
        Mode::Reflect => Some(2 * (d - 1) - c),
        Mode::Symmetric if c < 0 => Some(-c - 1),
        Mode::Symmetric => Some(2 * d - 1 - c),
    }
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "folded tensors are bounded by the fold limit, so coordinates and flat indices stay small"
)]
fn fold_pad(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(input) = Elems::input(ctx, 0) else {
        return Ok(());
    };
    let Some(pairs) = pairs(ctx, Some(&input.dims))? else {
        return Ok(());
    };
    let mode = mode(ctx)?;
    let fill = match ctx.input_count() > 2 {
        true => Elems::input(ctx, 2).and_then(|c| c.items.first().copied().flatten()),
        false => Some(0),
    };
    let out_dims: Vec<i64> = input
        .dims
        .iter()
        .zip(&pairs)
        .map(|(&d, &(b, a))| d.saturating_add(b).saturating_add(a))
        .collect();
    let st = strides(&input.dims);
    let mut items = Vec::new();
    for_each_index(&out_dims, |o| {
        let mut flat = Some(0usize);
        for (a, &c) in o.iter().enumerate() {
            let src = source_coord(c - pairs[a].0, input.dims[a], mode);
            flat = flat.zip(src).map(|(f, s)| f + s as usize * st[a]);
        }
        items.push(match flat {
            Some(f) => input.items[f],
            None => fill,
        });
    });
    Elems {
        dtype: input.dtype,
        dims: out_dims,
        items,
        bounds: Vec::new(),
    }
    .write(ctx, 0)
}
