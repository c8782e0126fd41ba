//! Scan (ONNX): `input` is `[state_initial..., scan_inputs..., outer
//! values...]`; `body` takes the states and one slice of each scan input
//! (the scanned axis removed), then the outer values, and returns `[state
//! out..., scan values...]`. The node's `output` is `[state_final...,
//! scan_outputs...]`: each scan output stacks the body's scan value over
//! the iterations along its `scan_output_axes` axis.
//!
//! The iteration count is the size of the scanned axis (known when any
//! scan input knows it; they must agree). States widen as Loop's and
//! While's variables do ([`loop_fixpoint`]).
//!
//! Opset 8's form (`batched` = 1) has a leading batch axis everywhere:
//! input 0 is `sequence_lens` (the plugin puts an empty constant where the
//! node has none), states are `[batch, ...]`, scan inputs `[batch, seq,
//! ...]`; the body sees neither axis, and scan outputs are `[batch, seq,
//! ...]`.

use super::body::{body_outputs, set_output};
use super::while_loop::{loop_fixpoint, LastRun};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, Attrs, Shape, TensorDesc, MAX_RANK, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let no_ints = || Some(AttrValue::ListInt(Vec::new()));
    vec![OpSchema::new("Scan")
        .input(PortDef::new("input", ParamType::Dynamic))
        .output(PortDef::new("output", ParamType::Dynamic))
        .attr("num_states", AttrType::Int, None)
        .attr("num_scan_inputs", AttrType::Int, None)
        .attr("scan_input_axes", AttrType::ListInt, no_ints())
        .attr("scan_output_axes", AttrType::ListInt, no_ints())
        .attr("scan_input_directions", AttrType::ListInt, no_ints())
        .attr("scan_output_directions", AttrType::ListInt, no_ints())
        .attr("batched", AttrType::Int, Some(AttrValue::Int(0)))
        .body_inputs(body_view)
        .verify(op_fn(verify_scan))
        .infer_dtype(op_fn(infer_scan))
        .infer_shape(op_fn(infer_scan))]
}

/// The node's configuration, read from its attributes.
struct Config {
    states: usize,
    scans: usize,
    batched: bool,
    input_axes: Vec<i64>,
    output_axes: Vec<i64>,
}

fn int_attr(attrs: &Attrs, name: &str) -> Option<i64> {
    match attrs.get(name) {
        Some(AttrValue::Int(v)) => Some(*v),
        _ => None,
    }
}

fn ints_attr(attrs: &Attrs, name: &str) -> Vec<i64> {
    match attrs.get(name) {
        Some(AttrValue::ListInt(v)) => v.clone(),
        _ => Vec::new(),
    }
}

impl Config {
    fn of(attrs: &Attrs) -> Option<Config> {
        Some(Config {
            states: usize::try_from(int_attr(attrs, "num_states")?).ok()?,
            scans: usize::try_from(int_attr(attrs, "num_scan_inputs")?).ok()?,
            batched: int_attr(attrs, "batched").unwrap_or(0) != 0,
            input_axes: ints_attr(attrs, "scan_input_axes"),
            output_axes: ints_attr(attrs, "scan_output_axes"),
        })
    }

    /// Where the body's inputs start among the node's (after opset 8's
    /// `sequence_lens`).
    fn first(&self) -> usize {
        usize::from(self.batched)
    }

    /// The scanned axis of scan input `j`, for an input of rank `rank`.
    fn input_axis(&self, j: usize, rank: usize) -> Option<usize> {
        if self.batched {
            return Some(1).filter(|&a| a < rank);
        }
        normalize(self.input_axes.get(j).copied().unwrap_or(0), rank)
    }
}

/// `axis` in `[-rank, rank)` as an index.
fn normalize(axis: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let fixed = if axis < 0 { axis.checked_add(r)? } else { axis };
    usize::try_from(fixed).ok().filter(|&a| a < rank)
}

/// `desc` without dim `axis` (what one slice of it looks like); its value
/// and partial values do not carry over.
fn without_axis(desc: &TensorDesc, axis: Option<usize>) -> TensorDesc {
    let shape = match (desc.shape().rank(), axis) {
        (Some(_), Some(a)) => {
            let mut dims = desc.shape().dims().to_vec();
            dims.remove(a);
            Shape::from_dims(dims)
        }
        _ => Shape::unknown_rank(),
    };
    TensorDesc::new(desc.dtype, shape, desc.origin_format)
}

/// What the body sees of the node's inputs: opset 8's `sequence_lens`
/// dropped (every later input moves up one), the batch axis stripped from
/// states, and each scan input's scanned axis removed.
fn body_view(attrs: &Attrs, inputs: &mut [Option<TensorDesc>]) {
    let Some(config) = Config::of(attrs) else {
        return;
    };
    if config.batched && !inputs.is_empty() {
        inputs.rotate_left(1);
        if let Some(last) = inputs.last_mut() {
            *last = None;
        }
    }
    for (i, slot) in inputs.iter_mut().enumerate() {
        let Some(desc) = slot.as_ref() else { continue };
        let rank = desc.shape().rank();
        if i < config.states {
            if config.batched {
                *slot = Some(without_axis(desc, rank.and_then(|r| normalize(0, r))));
            }
        } else if let Some(j) = i.checked_sub(config.states).filter(|&j| j < config.scans) {
            let axis = rank.and_then(|r| config.input_axis(j, r));
            let mut slice = without_axis(desc, axis);
            if config.batched {
                slice = without_axis(&slice, slice.shape().rank().and_then(|r| normalize(0, r)));
            }
            *slot = Some(slice);
        }
    }
}

fn config(ctx: &OpContext<'_>) -> Result<Config, OpError> {
    let n = ctx.attr_int("num_states")?;
    let m = ctx.attr_int("num_scan_inputs")?;
    if n < 0 || m < 1 {
        bail!("num_states is {n} and num_scan_inputs {m}; a Scan has states >= 0 and at least one scan input");
    }
    let Some(config) = Config::of(ctx.node_attrs()) else {
        bail!("its attributes num_states / num_scan_inputs are not ints");
    };
    let own = config
        .first()
        .saturating_add(config.states)
        .saturating_add(config.scans);
    if own > ctx.input_count() {
        bail!(
            "it has {} inputs, fewer than its {} states and {} scan inputs",
            ctx.input_count(),
            config.states,
            config.scans
        );
    }
    if ctx.output_count() < config.states {
        bail!(
            "it has {} outputs, fewer than its {} states",
            ctx.output_count(),
            config.states
        );
    }
    if !config.input_axes.is_empty() && config.input_axes.len() != config.scans {
        bail!(
            "scan_input_axes has {} entries for {} scan inputs",
            config.input_axes.len(),
            config.scans
        );
    }
    let outputs = ctx.output_count().saturating_sub(config.states);
    if !config.output_axes.is_empty() && config.output_axes.len() < outputs {
        bail!(
            "scan_output_axes has {} entries for {outputs} scan outputs",
            config.output_axes.len()
        );
    }
    Ok(config)
}

fn verify_scan(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let config = config(ctx)?;
    let body = body_outputs(ctx, "body")?;
    // The node may leave trailing scan outputs out; not the states.
    if body.len() < ctx.output_count().max(config.states) {
        bail!(
            "its body has {} outputs but the node has {} ({} states, then the scan outputs)",
            body.len(),
            ctx.output_count(),
            config.states
        );
    }
    Ok(())
}

/// The iteration count: the scanned axis of the scan inputs (unknown when
/// none knows it; an error when two disagree).
fn iterations(ctx: &OpContext<'_>, config: &Config) -> Result<i64, OpError> {
    let mut count = UNKNOWN_DIM;
    for j in 0..config.scans {
        let i = config
            .first()
            .saturating_add(config.states)
            .saturating_add(j);
        let shape = ctx.input_shape(i)?;
        let Some(rank) = shape.rank() else { continue };
        let Some(axis) = config.input_axis(j, rank) else {
            bail!("scan input {j} has shape {shape}, which has no axis to scan (scan_input_axes)");
        };
        let d = shape.dims()[axis];
        if d < 0 {
            continue;
        }
        if count >= 0 && count != d {
            bail!("the scan inputs disagree on the sequence length ({count} and {d})");
        }
        count = d;
    }
    Ok(count)
}

/// The batch size of opset 8's form (dim 0 of the states and scan inputs).
fn batch(ctx: &OpContext<'_>, config: &Config) -> i64 {
    (config.first()
        ..config
            .first()
            .saturating_add(config.states.saturating_add(config.scans)))
        .filter_map(|i| ctx.input_desc(i))
        .filter_map(|d| d.shape().dims().first().copied())
        .find(|&d| d >= 0)
        .unwrap_or(UNKNOWN_DIM)
}

/// `shape` with `dim` inserted at `axis` (of the result's rank).
fn insert_dim(shape: &Shape, axis: i64, dim: i64) -> Result<Shape, OpError> {
    let Some(rank) = shape.rank() else {
        return Ok(Shape::unknown_rank());
    };
    let out_rank = rank.saturating_add(1);
    if out_rank > MAX_RANK {
        bail!("a scan output would have rank {out_rank}, more than the maximum {MAX_RANK}");
    }
    let Some(a) = normalize(axis, out_rank) else {
        bail!("scan_output_axes entry {axis} is out of range for a scan output of rank {out_rank}");
    };
    let mut dims = shape.dims().to_vec();
    dims.insert(a, dim);
    Ok(Shape::from_dims(dims))
}

fn infer_scan(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let config = config(ctx)?;
    let n = config.states;
    let mut bound: Vec<Option<TensorDesc>> = (0..ctx.input_count())
        .map(|i| ctx.input_desc(i).cloned())
        .collect();
    body_view(ctx.node_attrs(), &mut bound);
    let initial: Vec<TensorDesc> = bound[..n]
        .iter()
        .map(|d| d.clone().unwrap_or_default())
        .collect();
    let engine_pass: Vec<TensorDesc> = body_outputs(ctx, "body")?.into_iter().cloned().collect();
    let last_run = LastRun::new(initial.clone(), engine_pass);
    let run = |vars: &[TensorDesc]| -> Result<Vec<TensorDesc>, OpError> {
        last_run.outputs(vars, || {
            let mut inputs = bound.clone();
            for (slot, var) in inputs.iter_mut().zip(vars) {
                *slot = Some(var.clone());
            }
            ctx.infer_body("body", &inputs)
        })
    };
    let vars = loop_fixpoint(&initial, |vars| {
        run(vars).map(|out| Some(out.get(..n).unwrap_or_default().to_vec()))
    })?;
    let last = run(&vars)?;
    let count = iterations(ctx, &config)?;
    let batch = batch(ctx, &config);
    for (i, desc) in vars.iter().enumerate() {
        if config.batched {
            let mut outer = TensorDesc::new(
                desc.dtype,
                insert_dim(desc.shape(), 0, batch)?,
                desc.origin_format,
            );
            outer.list = desc.list;
            set_output(ctx, i, &outer)?;
        } else {
            set_output(ctx, i, desc)?;
        }
    }
    for k in 0..ctx.output_count().saturating_sub(n) {
        let Some(value) = last.get(n.saturating_add(k)) else {
            bail!("its body has no scan value {k}");
        };
        let shape = if config.batched {
            insert_dim(&insert_dim(value.shape(), 0, count)?, 0, batch)?
        } else {
            let axis = config.output_axes.get(k).copied().unwrap_or(0);
            insert_dim(value.shape(), axis, count)?
        };
        let out = n.saturating_add(k);
        ctx.set_output_dtype(out, value.dtype)?;
        ctx.set_output_shape(out, shape)?;
    }
    Ok(())
}
