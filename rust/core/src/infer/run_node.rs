//! One node's op functions in GE's order: the prototype check, verify,
//! infer dtype and shape (with the prototype's defaults for what they leave
//! unset: `Follow` sources, a single allowed dtype), the output check, and
//! value folding where the outputs are small.

use super::check::{check_prototype, dtype_names, LiveCombinations};
use super::context::{OpContext, SET_DTYPE, SET_FORMAT, SET_SHAPE};
use super::error::Stage;
use super::InferOptions;
use crate::graph::Node;
use crate::internal::{catch_internal, InternalError};
use crate::op::{OpError, OpFn, OpOrigin, OpRegistry, OpSchema};
use crate::types::{DataType, TensorDesc};

pub(super) type StageResult = Result<(), (Stage, OpError)>;

/// Runs the node's functions; folds its value when `folds`. Why a built-in
/// op's fold could not compute the value goes to `fold_failure` (with `Ok`:
/// everything before the fold succeeded), for the caller to decide.
pub(super) fn run_node(
    node: &Node,
    schema: &OpSchema,
    inputs: &[Option<&TensorDesc>],
    outputs: &mut [TensorDesc],
    engine: &EngineView<'_>,
    folds: bool,
    fold_failure: &mut Option<OpError>,
) -> StageResult {
    let live = check_prototype(node, schema, inputs).map_err(|e| (Stage::Prototype, e))?;
    let mut ctx = OpContext::new(node, schema, inputs, outputs);
    ctx.attach_engine(engine.registry, engine.options);
    call(&schema.verify, &mut ctx, Stage::Verify)?;
    call(&schema.infer_dtype, &mut ctx, Stage::InferDtype)?;
    if !schema.source {
        default_dtypes(&mut ctx, schema, &live).map_err(|e| (Stage::InferDtype, e))?;
    }
    call(&schema.infer_shape, &mut ctx, Stage::InferShape)?;
    if !schema.source {
        default_shapes_and_formats(&mut ctx, schema).map_err(|e| (Stage::InferShape, e))?;
    }
    check_output_dtypes(&ctx, schema).map_err(|e| (Stage::InferDtype, e))?;
    if folds && schema.fold.is_some() && outputs_within(&ctx, engine.options.fold_limit) {
        match call(&schema.fold, &mut ctx, Stage::InferShape) {
            // A built-in op's own error (not a user op's, nor a panic or
            // an interrupt, which carry their source).
            Err((Stage::InferShape, e))
                if schema.origin == OpOrigin::Builtin && e.source.is_none() =>
            {
                *fold_failure = Some(e);
            }
            other => other?,
        }
    }
    Ok(())
}

/// What op functions may see of the running engine.
pub(super) struct EngineView<'r> {
    pub registry: &'r OpRegistry,
    pub options: InferOptions,
}

/// True when every output has a static shape of at most `limit` elements.
fn outputs_within(ctx: &OpContext<'_>, limit: usize) -> bool {
    (0..ctx.output_count()).all(|i| {
        ctx.output_desc(i).is_some_and(|d| {
            // Floats reach shapes only as scalars and short vectors (scales,
            // padding arithmetic); larger float values are weights, not
            // worth copying element by element.
            let limit = match d.dtype {
                DataType::Float | DataType::Float16 | DataType::Bf16 | DataType::Double => {
                    limit.min(FLOAT_FOLD_LIMIT)
                }
                _ => limit,
            };
            d.shape()
                .num_elements()
                .ok()
                .flatten()
                .is_some_and(|n| n as u64 <= limit as u64)
        })
    })
}

/// The most elements a folded floating-point output may have.
pub const FLOAT_FOLD_LIMIT: usize = 256;

fn call(f: &Option<OpFn>, ctx: &mut OpContext<'_>, stage: Stage) -> StageResult {
    match f {
        Some(f) => match catch_internal(|| f(ctx)) {
            Ok(result) => result.map_err(|e| (stage, e)),
            Err(bug) => Err((Stage::Internal, internal_failure(bug))),
        },
        None => Ok(()),
    }
}

/// A caught panic as the node's error: its text, with the
/// [`InternalError`] as the source (for its location).
pub(super) fn internal_failure(bug: InternalError) -> OpError {
    OpError::with_source(bug.to_string(), Box::new(bug))
}

/// `(instance, prototype port)` of every output instance, from the node's
/// per-port instance counts.
fn output_instances(counts: &[u32]) -> impl Iterator<Item = (usize, usize)> + '_ {
    counts
        .iter()
        .enumerate()
        .flat_map(|(port, &count)| std::iter::repeat_n(port, count as usize))
        .enumerate()
}

fn default_dtypes(
    ctx: &mut OpContext<'_>,
    schema: &OpSchema,
    live: &LiveCombinations,
) -> Result<(), OpError> {
    for (o, p) in output_instances(ctx.node_output_counts()) {
        if ctx.set_by_fn[o] & SET_DTYPE != 0 {
            continue;
        }
        let port = &schema.outputs[p];
        let dtype = if let Some(src) = schema.follow_sources[p].dtype {
            match ctx.first_instance_of(src) {
                Some(d) => d.dtype,
                None => crate::bail!(
                    "output '{}' follows input '{}', which is absent",
                    port.name,
                    schema.inputs[src].name
                ),
            }
        } else if port.in_combinations() {
            let mut candidates = live
                .iter()
                .zip(&port.dtypes)
                .filter(|(l, _)| **l)
                .map(|(_, d)| *d);
            let first = candidates.next();
            match first {
                Some(d) if candidates.all(|c| c == d) => d,
                _ => crate::bail!("the dtype of output '{}' is ambiguous among the allowed combinations; give an infer_dtype function", port.name),
            }
        } else if port.dtype_list && port.dtypes.len() == 1 {
            port.dtypes[0]
        } else {
            crate::bail!(
                "the infer_dtype function did not set the dtype of output '{}'",
                port.name
            )
        };
        ctx.set_output_dtype(o, dtype)?;
    }
    Ok(())
}

fn default_shapes_and_formats(ctx: &mut OpContext<'_>, schema: &OpSchema) -> Result<(), OpError> {
    for (o, p) in output_instances(ctx.node_output_counts()) {
        let sources = schema.follow_sources[p];
        let set = ctx.set_by_fn[o];
        if set & SET_SHAPE == 0 {
            let Some(src) = sources.shape.and_then(|s| ctx.first_instance_of(s)) else {
                crate::bail!(
                    "the infer_shape function did not set the shape of output '{}'",
                    schema.outputs[p].name
                );
            };
            ctx.set_output_shape(o, src.shape().clone())?;
            if let Some(range) = &src.shape_range {
                ctx.set_output_shape_range(o, range.clone())?;
            }
        }
        if set & SET_FORMAT == 0 {
            if let Some(src) = sources.format.and_then(|s| ctx.first_instance_of(s)) {
                ctx.set_output_format(o, src.origin_format)?;
            }
        }
    }
    Ok(())
}

fn check_output_dtypes(ctx: &OpContext<'_>, schema: &OpSchema) -> Result<(), OpError> {
    for (o, p) in output_instances(ctx.node_output_counts()) {
        let port = &schema.outputs[p];
        let dtype = ctx.output_desc(o).map_or(DataType::Undefined, |d| d.dtype);
        if dtype == DataType::Undefined {
            crate::bail!("output '{}' was left without a dtype", port.name);
        }
        if !port.dtypes.is_empty() && !port.dtypes.contains(&dtype) {
            crate::bail!(
                "output '{}' was inferred as {dtype}, but the prototype allows {}",
                port.name,
                dtype_names(&port.dtypes)
            );
        }
    }
    Ok(())
}
