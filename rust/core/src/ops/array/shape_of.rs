//! Shape, ShapeN, Size and Rank: integer descriptions of a tensor's shape.
//! They fold from the input's shape alone, so a partially known input
//! (`[?, 224, 224, 3]`) still yields its known dims.

use super::host::Elems;
use super::INDEX;
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, DataType, Shape};

pub(super) fn schemas() -> Vec<OpSchema> {
    let out_type = || Some(AttrValue::DataType(DataType::Int32));
    let shape = OpSchema::new("Shape")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).dtype_list(INDEX))
        .attr("out_type", AttrType::DataType, out_type())
        // ONNX Shape (opset 15): the dims `start .. end` only, each counted
        // from the end when negative and clamped to `[0, rank]`. The
        // defaults take the whole shape, as TensorFlow's Shape does.
        .attr("start", AttrType::Int, Some(AttrValue::Int(0)))
        .attr("end", AttrType::Int, Some(AttrValue::Int(i64::MAX)))
        .infer_dtype(op_fn(infer_out_type))
        .infer_shape(op_fn(infer_shape_of))
        .fold(op_fn(fold_shape_of));
    let shape_n = OpSchema::new("ShapeN")
        .input(PortDef::new("x", ParamType::Dynamic))
        .output(PortDef::new("y", ParamType::Dynamic).dtype_list(INDEX))
        .attr("out_type", AttrType::DataType, out_type())
        .optional_attr("N")
        .infer_dtype(op_fn(infer_out_type))
        .infer_shape(op_fn(infer_shape_of))
        .fold(op_fn(fold_shape_of));
    let size = OpSchema::new("Size")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).dtype_list(INDEX))
        .attr("out_type", AttrType::DataType, out_type())
        .infer_dtype(op_fn(infer_out_type))
        .infer_shape(op_fn(scalar_output))
        .fold(op_fn(fold_size));
    // TensorFlow's Rank has no out_type: the rank is always int32.
    let rank = OpSchema::new("Rank")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).dtype_list(&[DataType::Int32]))
        .infer_shape(op_fn(scalar_output))
        .fold(op_fn(fold_rank));
    vec![shape, shape_n, size, rank]
}

fn out_type(ctx: &OpContext<'_>) -> Result<DataType, OpError> {
    let dtype = ctx.attr_dtype("out_type")?;
    if !dtype.is_index_type() {
        bail!("attribute 'out_type' is {dtype}; it must be INT32 or INT64");
    }
    Ok(dtype)
}

fn infer_out_type(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let dtype = out_type(ctx)?;
    for o in 0..ctx.output_count() {
        ctx.set_output_dtype(o, dtype)?;
    }
    Ok(())
}

/// Output `o` of Shape / ShapeN is the rank-long vector of input `o`.
fn infer_shape_of(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    if ctx.output_count() != ctx.input_count() {
        bail!(
            "it has {} inputs but {} outputs; ShapeN needs one output per input",
            ctx.input_count(),
            ctx.output_count()
        );
    }
    if let Some(&AttrValue::Int(n)) = ctx.attr("N") {
        if n != ctx.input_count() as i64 {
            bail!("attribute N is {n} but it has {} inputs", ctx.input_count());
        }
    }
    let window = window(ctx)?;
    for i in 0..ctx.input_count() {
        let out = match ctx.input_shape(i)?.rank() {
            Some(rank) => Shape::from_dims([window.len_of(rank) as i64]),
            None => Shape::from_dims([-1]),
        };
        ctx.set_output_shape(i, out)?;
        if let (None, Some(most)) = (ctx.input_shape(i)?.rank(), window.most()) {
            ctx.set_output_shape_range(i, vec![(0, most)])?;
        }
    }
    Ok(())
}

/// Shape's `start` / `end` attributes (ShapeN has none: the whole shape).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Window {
    start: i64,
    end: i64,
}

impl Window {
    /// The dims `start .. end` of a shape of `rank` dims, ONNX's rule.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "both bounds are clamped to [0, rank] before subtracting"
    )]
    fn range(self, rank: usize) -> std::ops::Range<usize> {
        let r = i64::try_from(rank).unwrap_or(i64::MAX);
        let at = |v: i64| {
            let v = if v < 0 { v.saturating_add(r) } else { v };
            v.clamp(0, r) as usize
        };
        let (s, e) = (at(self.start), at(self.end));
        s..e.max(s)
    }

    /// The longest the window can be whatever the rank: `end - start`
    /// when both count from the start and `end` is given.
    fn most(self) -> Option<i64> {
        (self.start >= 0 && self.end >= 0 && self.end != i64::MAX)
            .then(|| self.end.saturating_sub(self.start).max(0))
    }

    fn len_of(self, rank: usize) -> usize {
        self.range(rank).len()
    }
}

fn window(ctx: &OpContext<'_>) -> Result<Window, OpError> {
    let read = |name: &str, default: i64| match ctx.attr(name) {
        None => Ok(default),
        Some(_) => ctx.attr_int(name),
    };
    Ok(Window {
        start: read("start", 0)?,
        end: read("end", i64::MAX)?,
    })
}

fn scalar_output(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    ctx.set_output_shape(0, Shape::scalar())
}

fn fold_shape_of(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let dtype = out_type(ctx)?;
    let window = window(ctx)?;
    for i in 0..ctx.input_count() {
        let shape = ctx.input_shape(i)?;
        let Some(rank) = shape.rank() else {
            continue;
        };
        let dims = &shape.dims()[window.range(rank)];
        let values: Vec<Option<i64>> = dims.iter().map(|&d| (d >= 0).then_some(d)).collect();
        let mut elems = Elems::from_ints(dtype, &[dims.len() as i64], &values);
        // The unknown dims' ranges bound the vector's entries (GE's value range).
        if let Some(r) = ctx.input_desc(i).and_then(ranges::of_desc) {
            elems.bounds = r[window.range(rank)].to_vec();
        }
        elems.write(ctx, i)?;
    }
    Ok(())
}

fn fold_size(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let dtype = out_type(ctx)?;
    let shape = ctx.input_shape(0)?;
    let Ok(Some(n)) = shape.num_elements() else {
        return Ok(());
    };
    Elems::from_ints(dtype, &[], &[Some(n)]).write(ctx, 0)
}

fn fold_rank(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let Some(rank) = ctx.input_shape(0)?.rank() else {
        return Ok(());
    };
    Elems::from_ints(DataType::Int32, &[], &[Some(rank as i64)]).write(ctx, 0)
}
