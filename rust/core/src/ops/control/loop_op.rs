//! Loop (ONNX): `input` is `[max_trip_count, cond, v_initial..., outer
//! values...]` (the ONNX plugin fills an absent trip count or condition with
//! a constant) and `body` takes the same list with the iteration number in
//! place of the trip count; it returns `[cond, v_out..., scan...]`. The
//! node's `output` is `[v_final..., scan_outputs...]`: `num_loop_vars` loop
//! variables, then one output per scan value, stacked over the iterations.
//!
//! The loop variables widen as While's do ([`loop_fixpoint`]); a scan
//! output is `[iterations, ...]` of the body's scan value, with the
//! iteration count known only when the trip count is, the initial condition
//! is the constant true (ONNX tests it before the first iteration) and the
//! body's condition is the constant true (no early exit).

use super::body::{body_outputs, set_output};
use super::while_loop::{loop_fixpoint, LastRun};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, Attrs, DataType, Format, HostTensor, Shape, TensorDesc, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    vec![OpSchema::new("Loop")
        .input(PortDef::new("input", ParamType::Dynamic))
        .output(PortDef::new("output", ParamType::Dynamic))
        .attr("num_loop_vars", AttrType::Int, None)
        .body_inputs(iteration_number)
        .verify(op_fn(verify_loop))
        .infer_dtype(op_fn(infer_loop))
        .infer_shape(op_fn(infer_loop))]
}

/// The body's first argument is the iteration number, an INT64 scalar whose
/// value changes every iteration, where the node has its trip count.
fn iteration_number(_attrs: &Attrs, inputs: &mut [Option<TensorDesc>]) {
    if let Some(first) = inputs.first_mut() {
        *first = Some(TensorDesc::new(
            DataType::Int64,
            Shape::scalar(),
            Format::Nd,
        ));
    }
}

/// (loop variables, scan outputs), checked against the inputs and the body.
fn counts(ctx: &OpContext<'_>) -> Result<(usize, usize), OpError> {
    let n = ctx.attr_int("num_loop_vars")?;
    let inputs = ctx.input_count();
    let Some(n) = usize::try_from(n)
        .ok()
        .filter(|&n| n.saturating_add(2) <= inputs)
    else {
        bail!("num_loop_vars is {n}, but it has {inputs} inputs (trip count, condition, then the variables)");
    };
    let Some(scans) = ctx.output_count().checked_sub(n) else {
        bail!(
            "it has {} outputs, fewer than its {n} loop variables",
            ctx.output_count()
        );
    };
    Ok((n, scans))
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "n + 2 <= the input count and n + scans == the output count (checked by counts)"
)]
fn verify_loop(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (n, scans) = counts(ctx)?;
    let body = body_outputs(ctx, "body")?;
    if body.len() != 1 + n + scans {
        bail!(
            "its body has {} outputs; it needs the condition, {n} loop variables and {scans} scan values",
            body.len()
        );
    }
    for (i, dtype) in [(0, DataType::Int64), (1, DataType::Bool)] {
        let given = ctx.input(i)?.dtype;
        if given != dtype && given != DataType::Undefined {
            bail!("input {i} must be {dtype}, got {given}");
        }
    }
    Ok(())
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "n + 2 <= the input count and n + scans == the output count (checked by counts)"
)]
fn infer_loop(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let (n, scans) = counts(ctx)?;
    let inputs: Vec<TensorDesc> = (0..ctx.input_count())
        .map(|i| ctx.input(i).cloned())
        .collect::<Result<_, _>>()?;
    let engine_pass: Vec<TensorDesc> = body_outputs(ctx, "body")?.into_iter().cloned().collect();
    let initial = inputs[2..2 + n].to_vec();
    // The body with the loop variables replaced by `vars`.
    let last_run = LastRun::new(initial.clone(), engine_pass);
    let run = |vars: &[TensorDesc]| -> Result<Vec<TensorDesc>, OpError> {
        last_run.outputs(vars, || {
            let mut bound: Vec<Option<TensorDesc>> = inputs.iter().cloned().map(Some).collect();
            iteration_number(&Attrs::default(), &mut bound);
            for (slot, var) in bound[2..2 + n].iter_mut().zip(vars) {
                *slot = Some(var.clone());
            }
            ctx.infer_body("body", &bound)
        })
    };
    let vars = loop_fixpoint(&initial, |vars| {
        run(vars).map(|out| Some(out.get(1..1 + n).unwrap_or_default().to_vec()))
    })?;
    let last = run(&vars)?;
    for (i, desc) in vars.iter().enumerate() {
        set_output(ctx, i, desc)?;
    }
    let iterations = iteration_count(ctx, &last);
    for k in 0..scans {
        let Some(value) = last.get(1 + n + k) else {
            bail!("its body has no scan value {k}");
        };
        let shape = match value.shape().rank() {
            Some(_) => {
                let dims: Vec<i64> = std::iter::once(iterations)
                    .chain(value.shape().dims().iter().copied())
                    .collect();
                Shape::from_dims(dims)
            }
            None => Shape::unknown_rank(),
        };
        ctx.set_output_dtype(n + k, value.dtype)?;
        ctx.set_output_shape(n + k, shape)?;
    }
    Ok(())
}

/// The trip count when every iteration runs: a known count, an initial
/// condition that is the constant true, and a body whose condition output is
/// the constant true. The body was inferred with its condition input bound
/// to the initial one and its loop variables widened, so a body condition
/// that is true there stays true on every later iteration. (The trip count
/// and initial condition are read whatever the prototype says: `input` is
/// not value-depend as a whole.)
fn iteration_count(ctx: &OpContext<'_>, body: &[TensorDesc]) -> i64 {
    let trips = ctx
        .input_host_value(0)
        .and_then(|v| v.to_ints())
        .and_then(|v| v.first().copied())
        .filter(|t| (0..i64::MAX).contains(t));
    let starts = is_true(ctx.input_host_value(1));
    let continues = is_true(body.first().and_then(|c| c.value.as_ref()));
    match trips {
        Some(t) if starts && continues => t,
        _ => UNKNOWN_DIM,
    }
}

/// Whether `value` is a known single true boolean.
fn is_true(value: Option<&HostTensor>) -> bool {
    value.is_some_and(|v| {
        v.dtype() == DataType::Bool && matches!(v.bytes().as_ref(), &[b] if b != 0)
    })
}
