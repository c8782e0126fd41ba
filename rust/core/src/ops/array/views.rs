//! Views that keep the elements in order: StopGradient, PreventGradient,
//! IdentityN (pass-through) and Squeeze, ExpandDims, Flatten (new dims).

use super::reshape::fold_view;
use super::{int_value, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::{known_rank, mul_dims, normalize_axis};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, Dims, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let pass = |op_type: &str| {
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required))
            .output(
                PortDef::new("y", ParamType::Required)
                    .follow("x", FollowType::All)
                    .reuses_input("x"),
            )
            .fold(op_fn(fold_pass_through))
    };
    let identity_n = OpSchema::new("IdentityN")
        .input(PortDef::new("x", ParamType::Dynamic))
        .output(PortDef::new("y", ParamType::Dynamic).reuses_input("x"))
        .infer_dtype(op_fn(infer_identity_n_dtypes))
        .infer_shape(op_fn(infer_identity_n_shapes))
        .fold(op_fn(fold_pass_through));
    let squeeze = OpSchema::new("Squeeze")
        .input(PortDef::new("x", ParamType::Required))
        .output(view_of_x())
        .attr("axis", AttrType::ListInt, Some(AttrValue::ListInt(vec![])))
        .optional_attr("squeeze_dims")
        .infer_shape(op_fn(infer_squeeze))
        .fold(op_fn(fold_view));
    let expand_dims = OpSchema::new("ExpandDims")
        .input(PortDef::new("x", ParamType::Required))
        .input(
            PortDef::new("axis", ParamType::Required)
                .dtype_list(INDEX)
                .value_depend(ValueDepend::Required),
        )
        .output(view_of_x())
        .infer_shape(op_fn(infer_expand_dims))
        .fold(op_fn(fold_view));
    let flatten = OpSchema::new("Flatten")
        .input(PortDef::new("x", ParamType::Required))
        .output(view_of_x())
        .attr("axis", AttrType::Int, Some(AttrValue::Int(1)))
        .infer_shape(op_fn(infer_flatten))
        .fold(op_fn(fold_view));
    let prevent = pass("PreventGradient").attr(
        "message",
        AttrType::Str,
        Some(AttrValue::Str(String::new())),
    );
    vec![
        pass("StopGradient"),
        prevent,
        identity_n,
        squeeze,
        expand_dims,
        flatten,
    ]
}

/// Output `y`: `x`'s elements in a new shape, in `x`'s memory.
fn view_of_x() -> PortDef {
    PortDef::new("y", ParamType::Required)
        .follow("x", FollowType::Dtype)
        .reuses_input("x")
}

/// Output `i` carries input `i`'s value (or partial shape value and value
/// range).
fn fold_pass_through(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    for i in 0..ctx.input_count().min(ctx.output_count()) {
        pass_known(ctx, i, i)?;
    }
    Ok(())
}

/// Output `output` carries what folding knows of input `input`: its value,
/// or its partial shape value and value range.
pub(crate) fn pass_known(
    ctx: &mut OpContext<'_>,
    input: usize,
    output: usize,
) -> Result<(), OpError> {
    let desc = ctx.input(input)?;
    if let Some(value) = desc.value.clone() {
        return ctx.set_output_value(output, value);
    }
    let (partial, bounds) = (
        desc.shape_value.as_deref().cloned(),
        desc.value_range.clone(),
    );
    if let Some(partial) = partial {
        ctx.set_output_shape_value(output, partial)?;
    }
    if let Some(bounds) = bounds {
        ctx.set_output_value_range(output, bounds.to_vec())?;
    }
    Ok(())
}

fn check_one_to_one(ctx: &OpContext<'_>) -> Result<(), OpError> {
    if ctx.input_count() != ctx.output_count() {
        bail!(
            "it has {} inputs but {} outputs; IdentityN needs one output per input",
            ctx.input_count(),
            ctx.output_count()
        );
    }
    Ok(())
}

fn infer_identity_n_dtypes(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    check_one_to_one(ctx)?;
    for i in 0..ctx.input_count() {
        let dtype = ctx.input_dtype(i)?;
        ctx.set_output_dtype(i, dtype)?;
    }
    Ok(())
}

fn infer_identity_n_shapes(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    for i in 0..ctx.input_count() {
        let input = ctx.input(i)?;
        ctx.set_output_shape(i, input.shape().clone())?;
        let format = input.origin_format;
        ctx.set_output_format(i, format)?;
    }
    Ok(())
}

/// The axes to squeeze: GE's `axis`, or TensorFlow's `squeeze_dims` when a
/// node carries that instead.
fn squeeze_axes(ctx: &OpContext<'_>) -> Result<Vec<i64>, OpError> {
    match ctx.attr("squeeze_dims") {
        Some(AttrValue::ListInt(dims)) if ctx.attr_ints("axis")?.is_empty() => Ok(dims.clone()),
        Some(AttrValue::ListInt(_)) | None => Ok(ctx.attr_ints("axis")?.to_vec()),
        Some(other) => bail!(
            "attribute 'squeeze_dims' is a {}, expected list[int]",
            other.attr_type()
        ),
    }
}

/// TensorFlow's rule: listed axes must be 1 (an unknown dim is taken to be
/// 1); with no axes every 1 goes, and an unknown dim makes the rank unknown.
fn infer_squeeze(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let axes = squeeze_axes(ctx)?;
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let mut drop = vec![false; rank];
    for &axis in &axes {
        let a = normalize_axis(axis, rank)?;
        match input.dims()[a] {
            1 | UNKNOWN_DIM => drop[a] = true,
            d => bail!("cannot squeeze axis {axis}: its dim is {d}, not 1"),
        }
    }
    if axes.is_empty() {
        if input.dims().contains(&UNKNOWN_DIM) {
            return ctx.set_output_shape(0, Shape::unknown_rank());
        }
        for (a, &d) in input.dims().iter().enumerate() {
            drop[a] = d == 1;
        }
    }
    let dims: Dims = input
        .dims()
        .iter()
        .zip(&drop)
        .filter(|(_, &gone)| !gone)
        .map(|(&d, _)| d)
        .collect();
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    if ranges::wanted(ctx, 0) {
        if let Some(r) = ranges::of_input(ctx, 0) {
            let kept = r.into_iter().zip(&drop).filter(|(_, &gone)| !gone);
            ranges::set(ctx, 0, kept.map(|(r, _)| r).collect())?;
        }
    }
    Ok(())
}

/// A 1 inserted at `axis` in `[-rank-1, rank]`; an unknown axis leaves the
/// dims unknown (the rank is still one more).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_expand_dims(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    let axis_shape = ctx.input_shape(1)?;
    if axis_shape.is_static() && axis_shape.num_elements().ok().flatten() != Some(1) {
        bail!("input 'axis' must hold one value, got shape {axis_shape}");
    }
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let Some(axis) = int_value(ctx, 1) else {
        return ctx.set_output_shape(0, Shape::unknown_dims(rank + 1));
    };
    let [axis] = axis[..] else {
        bail!("input 'axis' must hold one value, got {axis:?}");
    };
    let at = normalize_axis(axis, rank + 1)?;
    let mut dims = Dims::from_slice(input.dims());
    dims.insert(at, 1);
    ctx.set_output_shape(0, Shape::from_dims(dims))?;
    if ranges::wanted(ctx, 0) {
        if let Some(mut r) = ranges::of_input(ctx, 0) {
            r.insert(at, (1, 1));
            ranges::set(ctx, 0, r)?;
        }
    }
    Ok(())
}

/// GE's Flatten: `[prod(dims[..axis]), prod(dims[axis..])]`, axis in `[-rank, rank]`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_flatten(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input_shape(0)?;
    if input.rank().is_none() {
        return ctx.set_output_shape(0, Shape::unknown_dims(2));
    }
    let rank = known_rank(input, "Flatten")?;
    let axis = ctx.attr_int("axis")?;
    let r = rank as i64;
    if axis < -r || axis > r {
        bail!(
            "axis {axis} is out of range for rank {rank} (expected {}..={r})",
            -r
        );
    }
    let at = if axis < 0 { axis + r } else { axis } as usize;
    let product = |dims: &[i64]| dims.iter().try_fold(1, |acc, &d| mul_dims(acc, d));
    let (head, tail) = input.dims().split_at(at);
    let out = [product(head)?, product(tail)?];
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    range_rules::propagate(ctx, 0, |ctx| {
        let r = ranges::of_input(ctx, 0)?;
        let (head, tail) = r.split_at(at);
        Some(vec![range_rules::product(head), range_rules::product(tail)])
    })
}
