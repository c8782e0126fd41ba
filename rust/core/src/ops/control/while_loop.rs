//! While / StatelessWhile (and GE's `_While`): loop variables `input` go
//! through `body` while `cond` holds; `output` are the loop variables after
//! the last iteration.
//!
//! GE infers the body with the loop variables' descriptors and, when the
//! body's outputs differ from them, widens the variables with the merge
//! rule and infers the body again, until nothing changes (giving up on
//! precision after a few passes). [`loop_fixpoint`] is that iteration over
//! a "run the body on these descriptors" function.
//!
//! The first body pass is the engine's (run before this node, with the
//! caller's inputs); each later pass re-infers a copy of the body with the
//! widened variables through `OpContext::infer_body`.

use super::body::body_outputs;
use super::body::set_output;
use super::merge_rule::merge_descs;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, Shape, TensorDesc};
use std::cell::RefCell;

/// GE's cap on widening passes before it makes what still changes unknown rank.
const WIDENING_PASSES: usize = 5;

pub(super) fn schemas() -> Vec<OpSchema> {
    let while_op = |op_type: &str, with_parallel_iterations: bool| {
        let s = OpSchema::new(op_type)
            .input(PortDef::new("input", ParamType::Dynamic))
            .output(PortDef::new("output", ParamType::Dynamic))
            .verify(op_fn(verify_while))
            .infer_dtype(op_fn(infer_while))
            .infer_shape(op_fn(infer_while));
        if with_parallel_iterations {
            s.attr(
                "parallel_iterations",
                AttrType::Int,
                Some(AttrValue::Int(10)),
            )
        } else {
            s
        }
    };
    vec![
        while_op("While", true),
        while_op("StatelessWhile", true),
        while_op("_While", false),
    ]
}

fn verify_while(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if ctx.schema().attr_def("parallel_iterations").is_some() {
        let p = ctx.attr_int("parallel_iterations")?;
        if p <= 0 {
            bail!("parallel_iterations must be positive, got {p}");
        }
    }
    let cond = body_outputs(ctx, "cond")?;
    if cond.len() != 1 {
        bail!(
            "its cond body must have one output (the predicate), it has {}",
            cond.len()
        );
    }
    let inputs = ctx.input_count();
    if ctx.output_count() != inputs {
        bail!(
            "it has {inputs} loop variables (inputs) but {} outputs; they must match",
            ctx.output_count()
        );
    }
    let body = body_outputs(ctx, "body")?;
    if body.len() != inputs {
        bail!(
            "its body has {} outputs but there are {inputs} loop variables",
            body.len()
        );
    }
    Ok(())
}

fn infer_while(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let initial: Vec<TensorDesc> = (0..ctx.input_count())
        .map(|i| ctx.input(i).cloned())
        .collect::<Result<_, _>>()?;
    let engine_pass: Vec<TensorDesc> = body_outputs(ctx, "body")?.into_iter().cloned().collect();
    // The first pass is the one the engine ran before this node; later
    // passes re-infer a copy of the body with the widened variables.
    let last_run = LastRun::new(initial.clone(), engine_pass);
    let run_body = |vars: &[TensorDesc]| {
        last_run
            .outputs(vars, || {
                let bound: Vec<Option<TensorDesc>> = vars.iter().cloned().map(Some).collect();
                ctx.infer_body("body", &bound)
            })
            .map(Some)
    };
    let vars = loop_fixpoint(&initial, run_body)?;
    for (i, desc) in vars.iter().enumerate() {
        set_output(ctx, i, desc)?;
    }
    Ok(())
}

/// GE's widening iteration: run the body on the variables, merge each
/// variable with the body's output for it, repeat until nothing changes.
/// `body` returns the body's output descriptors for the given variables, or
/// `None` when it cannot run for them (the variables widened so far are
/// then the answer).
/// After [`WIDENING_PASSES`] passes, a variable that still changes becomes
/// unknown rank (a fixpoint of the merge), so the loop ends within one pass
/// per variable after that.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
pub(super) fn loop_fixpoint(
    initial: &[TensorDesc],
    mut body: impl FnMut(&[TensorDesc]) -> Result<Option<Vec<TensorDesc>>, OpError>,
) -> Result<Vec<TensorDesc>, OpError> {
    let mut vars = initial.to_vec();
    for pass in 0..=WIDENING_PASSES + initial.len() {
        let Some(outputs) = body(&vars)? else {
            return Ok(vars);
        };
        if outputs.len() != vars.len() {
            bail!(
                "its body has {} outputs but there are {} loop variables",
                outputs.len(),
                vars.len()
            );
        }
        let mut changed = false;
        for (i, (var, out)) in vars.iter_mut().zip(&outputs).enumerate() {
            let mut next = merge_descs(var, out).map_err(|why| {
                OpError::new(format!(
                    "body output {i} does not match loop variable {i}: {why}"
                ))
            })?;
            if next != *var {
                if pass >= WIDENING_PASSES {
                    next.set_shape(Shape::unknown_rank());
                    next.shape_range = None;
                }
                *var = next;
                changed = true;
            }
        }
        if !changed {
            return Ok(vars);
        }
    }
    // Unreachable in practice: each pass after the cap turns at least one
    // more variable into unknown rank, which never changes again.
    bail!("the loop variables did not reach a fixpoint")
}

/// The body's outputs for the variables it last ran on, starting from the
/// engine's pass (the caller's variables). [`loop_fixpoint`] returns the
/// variables of its final pass, so Loop and Scan, which read the body's
/// scan values for them afterwards, get them from here instead of
/// inferring the body once more.
pub(super) struct LastRun {
    last: RefCell<(Vec<TensorDesc>, Vec<TensorDesc>)>,
}

impl LastRun {
    /// Remembers `outputs` as the body's for `vars` (the engine's pass).
    pub fn new(vars: Vec<TensorDesc>, outputs: Vec<TensorDesc>) -> LastRun {
        LastRun {
            last: RefCell::new((vars, outputs)),
        }
    }

    /// `run()`'s outputs for `vars`: remembered when the last call had the
    /// same variables, else run and remembered.
    pub fn outputs(
        &self,
        vars: &[TensorDesc],
        run: impl FnOnce() -> Result<Vec<TensorDesc>, OpError>,
    ) -> Result<Vec<TensorDesc>, OpError> {
        {
            let (seen, outputs) = &*self.last.borrow();
            if seen.as_slice() == vars {
                return Ok(outputs.clone());
            }
        }
        let outputs = run()?;
        *self.last.borrow_mut() = (vars.to_vec(), outputs.clone());
        Ok(outputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{DataType, Format};

    #[test]
    fn last_run_runs_the_body_once_per_distinct_variables() {
        let memo = LastRun::new(vec![f(&[1])], vec![f(&[1])]);
        let runs = std::cell::Cell::new(0);
        let run = |v: &[TensorDesc]| {
            memo.outputs(v, || {
                runs.set(runs.get() + 1);
                Ok(v.to_vec())
            })
        };
        let vars = loop_fixpoint(&[f(&[2, 3])], |v| run(v).map(Some)).unwrap();
        assert_eq!(runs.get(), 1);
        // The final read of the fixpoint's variables is remembered ...
        assert_eq!(run(&vars).unwrap(), vars);
        assert_eq!(runs.get(), 1);
        // ... and other variables run the body.
        assert_eq!(run(&[f(&[5])]).unwrap(), [f(&[5])]);
        assert_eq!(runs.get(), 2);
    }

    fn f(dims: &[i64]) -> TensorDesc {
        TensorDesc::new(DataType::Float, Shape::new(dims).unwrap(), Format::Nd)
    }

    /// A body that doubles dim 0 of variable 0 and passes variable 1 through.
    fn doubling(vars: &[TensorDesc]) -> Result<Option<Vec<TensorDesc>>, OpError> {
        let mut out = vars.to_vec();
        let d = out[0].shape().dims().to_vec();
        if let Some(first) = d.first().filter(|&&x| x >= 0) {
            let mut grown = d.clone();
            grown[0] = first * 2;
            out[0].set_shape(Shape::from_dims(grown));
        }
        Ok(Some(out))
    }

    #[test]
    fn a_growing_variable_widens_and_a_stable_one_stays() {
        let vars = loop_fixpoint(&[f(&[2, 3]), f(&[4])], doubling).unwrap();
        assert_eq!(vars, vec![f(&[-1, 3]), f(&[4])]);
    }

    #[test]
    fn a_stable_body_keeps_the_inputs() {
        let vars = loop_fixpoint(&[f(&[2]), f(&[])], |v| Ok(Some(v.to_vec()))).unwrap();
        assert_eq!(vars, vec![f(&[2]), f(&[])]);
    }

    #[test]
    fn dtype_changes_are_rejected() {
        let err = loop_fixpoint(&[f(&[2])], |_| {
            Ok(Some(vec![TensorDesc::new(
                DataType::Int32,
                Shape::from_dims([2]),
                Format::Nd,
            )]))
        })
        .unwrap_err();
        assert!(err.message.contains("dtypes differ"), "{}", err.message);
    }

    #[test]
    fn a_variable_that_keeps_changing_becomes_unknown_rank() {
        // Each pass the body changes the first still-known dim, so a rank-7
        // variable would need 7 passes; the cap stops it at unknown rank.
        let mut passes = 0;
        let vars = loop_fixpoint(&[f(&[1; 7])], |v| {
            passes += 1;
            let mut dims = v[0].shape().dims().to_vec();
            if let Some(d) = dims.iter_mut().find(|d| **d >= 0) {
                *d += 1;
            }
            Ok(Some(vec![f(&dims)]))
        })
        .unwrap();
        assert_eq!(vars, vec![f(&[-2])]);
        assert_eq!(passes, WIDENING_PASSES + 2);
        // Under the cap, the same body settles with every dim unknown.
        let vars = loop_fixpoint(&[f(&[1; 4])], |v| {
            let mut dims = v[0].shape().dims().to_vec();
            if let Some(d) = dims.iter_mut().find(|d| **d >= 0) {
                *d += 1;
            }
            Ok(Some(vec![f(&dims)]))
        })
        .unwrap();
        assert_eq!(vars, vec![f(&[-1; 4])]);
    }

    #[test]
    fn a_body_that_cannot_run_again_keeps_one_widening_step() {
        let initial = [f(&[2])];
        let vars = loop_fixpoint(&initial, |v| Ok((v == initial).then(|| vec![f(&[4])]))).unwrap();
        assert_eq!(vars, vec![f(&[-1])]);
    }
}
