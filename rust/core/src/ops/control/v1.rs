//! TensorFlow v1 control flow: Switch, Merge, Enter, Exit, NextIteration,
//! LoopCond and their Ref variants. They forward tensors (in their input's
//! memory: `reuses_input`); only Merge joins several (with the merge rule).
//!
//! A v1 loop is a cycle (NextIteration feeds back into Merge). GE breaks it
//! by inferring Merge from the inputs already known on the first pass;
//! Merge here likewise skips inputs that have no dtype yet, and the engine
//! passes over the frame again until its Merges settle. The engine also
//! reads a Merge's dead inputs (behind a Switch whose predicate folds) as
//! not yet known (see `infer::dead`).

use super::merge_rule::merge_all;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::ops::array::views::pass_known;
use crate::ops::tf_dtypes;
use crate::types::{AttrType, AttrValue, DataType, Shape, TensorDesc};

/// What TensorFlow's `op_type` takes on its first input (any dtype for
/// every v1 control-flow op, VARIANT, RESOURCE and STRING included), from
/// TensorFlow's op registry.
fn forwarded(op_type: &str) -> Vec<DataType> {
    tf_dtypes::of(op_type)
        .and_then(|op| op.inputs.first())
        .map(|arg| arg.types.to_dtypes())
        .unwrap_or_default()
}

pub(super) fn schemas() -> Vec<OpSchema> {
    let mut all = vec![loop_cond()];
    for op_type in ["Switch", "RefSwitch"] {
        all.push(switch(op_type));
    }
    for op_type in ["Merge", "RefMerge"] {
        all.push(merge(op_type));
    }
    for op_type in ["Enter", "RefEnter"] {
        all.push(
            forward(op_type)
                .attr("frame_name", AttrType::Str, None)
                .attr("is_constant", AttrType::Bool, Some(AttrValue::Bool(false)))
                .attr(
                    "parallel_iterations",
                    AttrType::Int,
                    Some(AttrValue::Int(10)),
                )
                .verify(op_fn(verify_enter)),
        );
    }
    for op_type in ["Exit", "RefExit", "NextIteration", "RefNextIteration"] {
        all.push(forward(op_type));
    }
    all
}

/// `x -> y`, `y` a copy of `x`'s descriptor.
fn forward(op_type: &str) -> OpSchema {
    let dtypes = forwarded(op_type);
    OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Required).dtype_list(&dtypes))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtype_list(&dtypes)
                .follow("x", FollowType::All)
                .reuses_input("x"),
        )
        .fold(op_fn(forward_handle_data))
}

/// A handle's element shape (a TensorList's or TensorArray's, which
/// opgraph keeps in `shape_value`) goes with it to every output, as
/// TensorFlow's Enter / Exit / NextIteration / Switch pass on a handle's
/// "handle data": a TensorArray handle reaches the reads and writes inside
/// a loop frame through an Enter.
///
/// Other tensors' values do not go through: code behind an Enter or a
/// Switch may never run, and folding there could fail where TensorFlow
/// never computes (a division by a zero the branch guards against).
fn forward_handle_data(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let input = ctx.input(0)?;
    if !matches!(input.dtype, DataType::Resource | DataType::Variant) {
        return Ok(());
    }
    let Some(element) = input.shape_value.as_deref().cloned() else {
        return Ok(());
    };
    for out in 0..ctx.output_count() {
        ctx.set_output_shape_value(out, element.clone())?;
    }
    Ok(())
}

/// A Switch passes on a handle's element shape; when its predicate is
/// known, the output it takes (which then surely runs) carries everything
/// known of the data: value, or partial shape value and value range.
fn fold_switch(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    forward_handle_data(ctx)?;
    let Some(taken) = ctx.input_host_value(1).and_then(|p| p.to_bool_scalar()) else {
        return Ok(());
    };
    pass_known(ctx, 0, usize::from(taken))
}

/// LoopCond's value is its input's: a loop whose condition is a constant
/// false runs no iteration (its Switches then kill the body).
fn fold_loop_cond(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    pass_known(ctx, 0, 0)
}

fn switch(op_type: &str) -> OpSchema {
    let dtypes = forwarded(op_type);
    let out = |name: &str| {
        PortDef::new(name, ParamType::Required)
            .dtype_list(&dtypes)
            .follow("data", FollowType::All)
            .reuses_input("data")
    };
    OpSchema::new(op_type)
        .input(PortDef::new("data", ParamType::Required).dtype_list(&dtypes))
        .input(PortDef::new("pred", ParamType::Required).dtype_list(&[DataType::Bool]))
        .output(out("output_false"))
        .output(out("output_true"))
        .verify(op_fn(|ctx| scalar_input(ctx, 1, "pred")))
        .fold(op_fn(fold_switch))
}

fn merge(op_type: &str) -> OpSchema {
    let dtypes = forwarded(op_type);
    OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Dynamic).dtype_list(&dtypes))
        .output(PortDef::new("y", ParamType::Required).dtype_list(&dtypes))
        .output(PortDef::new("value_index", ParamType::Required).dtype_list(&[DataType::Int32]))
        .infer_dtype(op_fn(infer_merge))
        .infer_shape(op_fn(infer_merge))
}

fn loop_cond() -> OpSchema {
    OpSchema::new("LoopCond")
        .input(PortDef::new("x", ParamType::Required).dtype_list(&[DataType::Bool]))
        .output(
            PortDef::new("y", ParamType::Required)
                .dtype_list(&[DataType::Bool])
                .follow("x", FollowType::All)
                .reuses_input("x"),
        )
        .verify(op_fn(|ctx| scalar_input(ctx, 0, "x")))
        .fold(op_fn(fold_loop_cond))
}

/// TensorFlow requires the predicate of Switch / LoopCond to be a scalar
/// (an unknown rank passes).
fn scalar_input(ctx: &mut OpContext<'_>, i: usize, name: &str) -> Result<(), OpError> {
    let shape = ctx.input_shape(i)?;
    if matches!(shape.rank(), Some(r) if r != 0) {
        bail!("{name} must be a scalar, got shape {shape}");
    }
    Ok(())
}

fn verify_enter(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if ctx.attr_str("frame_name")?.is_empty() {
        bail!("frame_name must not be empty");
    }
    let p = ctx.attr_int("parallel_iterations")?;
    if p <= 0 {
        bail!("parallel_iterations must be positive, got {p}");
    }
    Ok(())
}

/// `y` is the merge of the inputs inferred so far (an input whose producer
/// has no dtype yet is the loop's back edge on the first pass);
/// `value_index` is an int32 scalar.
fn infer_merge(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let count = ctx.dynamic_input_count(0)?;
    let mut known: Vec<&TensorDesc> = Vec::with_capacity(count);
    for k in 0..count {
        let desc = ctx.dynamic_input_desc(0, k)?;
        if desc.dtype != DataType::Undefined {
            known.push(desc);
        }
    }
    let merged = merge_all(known.iter().copied()).map_err(|(k, why)| {
        OpError::new(format!(
            "the inputs of Merge disagree: {why} (at known input {k})"
        ))
    })?;
    let Some(y) = merged else {
        bail!("none of its {count} inputs is known yet");
    };
    ctx.set_output_dtype(0, y.dtype)?;
    ctx.set_output_shape(0, y.origin_shape.clone())?;
    ctx.set_output_format(0, y.origin_format)?;
    if let Some(range) = y.shape_range {
        ctx.set_output_shape_range(0, range)?;
    }
    ctx.set_output_dtype(1, DataType::Int32)?;
    ctx.set_output_shape(1, Shape::scalar())
}
