//! TensorFlow's TensorList ops: the lists behind `tf.TensorArray` in
//! control flow v2 and the Keras recurrent loops (a While whose body reads
//! time step `t` with TensorListGetItem and writes the output with
//! TensorListSetItem; TensorListStack turns the list into a tensor after).
//!
//! A list is a VARIANT scalar. TensorFlow's shape functions also track the
//! list's element shape beside the scalar ("handle data") so that reading
//! an element can be as precise as what was written. opgraph keeps that
//! element shape in the handle's `shape_value` (which for integer tensors
//! holds what is known of a shape vector): a list whose element shape has
//! a known rank carries it there; an unknown-rank element shape carries
//! none; the handle's `list` holds the element dtype and, when known, the
//! element count (ONNX's sequences are these handles too). Identity, body
//! inputs and body outputs pass them on with the rest of the descriptor;
//! joins (While / Loop variables across iterations, If outputs, Merge)
//! keep the element dtype and join the element shapes (unknown dims where
//! they differ; a list known to be empty takes the other side's).

mod access;
mod create;
mod stack;

use crate::bail;
use crate::infer::OpContext;
use crate::op::{OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::nn::dims::merge_shapes;
use crate::types::{DataType, ListInfo, Shape, MAX_RANK};

/// TensorFlow's `shape_type`: the dtypes of an element-shape input.
const SHAPE_TYPES: &[DataType] = &[DataType::Int32, DataType::Int64];

pub(crate) fn schemas() -> Vec<OpSchema> {
    let mut all = create::schemas();
    all.extend(access::schemas());
    all.extend(stack::schemas());
    all
}

/// A list handle port (input or output): one VARIANT tensor.
fn handle(name: &str) -> PortDef {
    PortDef::new(name, ParamType::Required).dtype_list(&[DataType::Variant])
}

/// An INT32 input (an index, a count, a size).
fn int32(name: &str) -> PortDef {
    PortDef::new(name, ParamType::Required).dtype_list(&[DataType::Int32])
}

/// An element-shape input: its value, when known, gives the element shape.
fn element_shape_port(dtypes: &[DataType]) -> PortDef {
    PortDef::new("element_shape", ParamType::Required)
        .dtype_list(dtypes)
        .value_depend(ValueDepend::Optional)
}

/// A port holding list elements (or several stacked): `element_dtype`.
fn elements(name: &str) -> PortDef {
    PortDef::new(name, ParamType::Required)
}

/// What the list holds: the `element_dtype` attribute, or, where the op
/// leaves it unset (ONNX's SequenceAt), what the handle (input 0) carries.
fn element_dtype(ctx: &OpContext<'_>) -> Result<DataType, OpError> {
    let from_attr = match ctx.schema().attr_def("element_dtype") {
        Some(_) => ctx.attr_dtype("element_dtype")?,
        None => DataType::Undefined,
    };
    if from_attr != DataType::Undefined {
        return Ok(from_attr);
    }
    match ctx.input_desc(0).and_then(|d| d.list) {
        Some(list) if list.element_dtype != DataType::Undefined => Ok(list.element_dtype),
        _ => bail!("the element dtype of the list is unknown: the op has no element_dtype and its handle carries none"),
    }
}

/// Checks that input `i` (named `name`) holds list elements.
fn check_element_input(ctx: &OpContext<'_>, i: usize, name: &str) -> Result<(), OpError> {
    let (got, want) = (ctx.input_dtype(i)?, element_dtype(ctx)?);
    if got != want {
        bail!("input '{name}' is {got}, but element_dtype says the list holds {want}");
    }
    Ok(())
}

/// Checks the `shape_type` attribute against the element-shape input `i`.
fn check_shape_type(ctx: &OpContext<'_>, i: usize) -> Result<(), OpError> {
    let (got, want) = (ctx.input_dtype(i)?, ctx.attr_dtype("shape_type")?);
    if got != want {
        bail!("input 'element_shape' is {got}, but attribute shape_type is {want}");
    }
    Ok(())
}

/// The element shape input `i` stands for, with TensorFlow's reading of a
/// shape tensor: a vector lists the dims (`-1` unknown); the scalar `-1`
/// means unknown rank. Without a value, a vector of known length still
/// gives the rank.
fn element_shape_input(ctx: &OpContext<'_>, i: usize) -> Result<Shape, OpError> {
    let shape = ctx.input_shape(i)?;
    match shape.dims() {
        _ if shape.is_unknown_rank() => Ok(Shape::unknown_rank()),
        [] => match ctx.input_value(i).and_then(|v| v.to_ints()).as_deref() {
            None | Some([-1]) => Ok(Shape::unknown_rank()),
            Some(v) => bail!(
                "input 'element_shape' is the scalar {v:?}; a scalar element shape must be -1 (unknown rank)"
            ),
        },
        [len] => {
            if *len > MAX_RANK as i64 {
                bail!("input 'element_shape' has {len} entries, more than the maximum rank {MAX_RANK}");
            }
            if let Some(dims) = ctx.input_value(i).and_then(|v| v.to_ints()) {
                if let Some(bad) = dims.iter().find(|&&d| d < -1) {
                    bail!("input 'element_shape' holds {bad}; dims must be >= 0, or -1 for unknown");
                }
                return Ok(Shape::from_dims(dims));
            }
            match ctx.input_shape_value(i) {
                Some(partial) => Ok(partial),
                None if *len >= 0 => Ok(Shape::unknown_dims(*len as usize)),
                None => Ok(Shape::unknown_rank()),
            }
        }
        _ => bail!("input 'element_shape' must be a scalar or a vector, got shape {shape}"),
    }
}

/// The element shape list handle input `i` carries (unknown rank when none).
fn handle_element_shape(ctx: &OpContext<'_>, i: usize) -> Result<Shape, OpError> {
    let desc = ctx.input(i)?;
    Ok(desc
        .shape_value
        .as_deref()
        .cloned()
        .unwrap_or_else(Shape::unknown_rank))
}

/// Output `out` is a list handle: a scalar carrying `element` (when its
/// rank is known).
fn set_handle(ctx: &mut OpContext<'_>, out: usize, element: Shape) -> Result<(), OpError> {
    ctx.set_output_shape(out, Shape::scalar())?;
    if let Ok(element_dtype) = element_dtype(ctx) {
        let length = match ctx.op_type() {
            "EmptyTensorList" => Some(0),
            _ => None,
        };
        ctx.set_output_list(
            out,
            ListInfo {
                element_dtype,
                length,
            },
        )?;
    }
    if !element.is_unknown_rank() {
        ctx.set_output_shape_value(out, element)?;
    }
    Ok(())
}

/// The element shape from the handle (input 0) refined by the
/// element-shape input `i`; they must agree (TensorFlow's `Merge`).
fn merged_element_shape(ctx: &OpContext<'_>, i: usize) -> Result<Shape, OpError> {
    let from_handle = handle_element_shape(ctx, 0)?;
    let from_input = element_shape_input(ctx, i)?;
    merge_shapes(
        &from_handle,
        &from_input,
        "the list's element shape and input 'element_shape' disagree",
    )
}

/// `lead` followed by `element`'s dims; unknown rank when `element` has one.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn prepend(lead: &[i64], element: &Shape) -> Result<Shape, OpError> {
    if element.is_unknown_rank() {
        return Ok(Shape::unknown_rank());
    }
    let rank = lead.len() + element.dims().len();
    if rank > MAX_RANK {
        bail!("the result would have rank {rank}, more than the maximum {MAX_RANK}");
    }
    Ok(Shape::from_dims(
        lead.iter()
            .chain(element.dims())
            .copied()
            .collect::<Vec<_>>(),
    ))
}

#[cfg(test)]
mod tests;
