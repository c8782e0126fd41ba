//! Reading and changing a list: TensorListGetItem / SetItem, PushBack /
//! PopBack, Resize, Length and ElementShape.

use super::{
    check_element_input, element_dtype, element_shape_port, elements, handle, handle_element_shape,
    int32, merged_element_shape, set_handle, SHAPE_TYPES,
};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::ops::nn::dims::merge_shapes;
use crate::types::{AttrType, AttrValue, DataType, Shape};

pub(super) fn schemas() -> Vec<OpSchema> {
    let element_dtype_attr = |s: OpSchema| s.attr("element_dtype", AttrType::DataType, None);
    // Also ONNX's SequenceAt: an INT64 position, and no element_dtype (the
    // handle carries it).
    let get_item = OpSchema::new("TensorListGetItem")
        .input(handle("input_handle"))
        .input(PortDef::new("index", ParamType::Required).dtype_list(SHAPE_TYPES))
        .input(element_shape_port(&[DataType::Int32]))
        .output(elements("item"))
        .attr(
            "element_dtype",
            AttrType::DataType,
            Some(AttrValue::DataType(DataType::Undefined)),
        )
        .infer_dtype(op_fn(|ctx| set_element_dtype(ctx, 0)))
        .infer_shape(op_fn(|ctx| {
            let element = merged_element_shape(ctx, 2)?;
            ctx.set_output_shape(0, element)
        }));
    let set_item = element_dtype_attr(
        OpSchema::new("TensorListSetItem")
            .input(handle("input_handle"))
            .input(int32("index"))
            .input(elements("item"))
            .output(handle("output_handle")),
    )
    .attr(
        "resize_if_index_out_of_bounds",
        AttrType::Bool,
        Some(AttrValue::Bool(false)),
    )
    .verify(op_fn(|ctx| check_element_input(ctx, 2, "item")))
    .infer_shape(op_fn(infer_set_item));
    let push_back = element_dtype_attr(
        OpSchema::new("TensorListPushBack")
            .input(handle("input_handle"))
            .input(elements("tensor"))
            .output(handle("output_handle")),
    )
    .verify(op_fn(|ctx| check_element_input(ctx, 1, "tensor")))
    .infer_shape(op_fn(keep_element_shape));
    let pop_back = element_dtype_attr(
        OpSchema::new("TensorListPopBack")
            .input(handle("input_handle"))
            .input(element_shape_port(&[DataType::Int32]))
            .output(handle("output_handle"))
            .output(elements("tensor")),
    )
    .infer_dtype(op_fn(|ctx| set_element_dtype(ctx, 1)))
    .infer_shape(op_fn(infer_pop_back));
    let resize = OpSchema::new("TensorListResize")
        .input(handle("input_handle"))
        .input(int32("size"))
        .output(handle("output_handle"))
        .verify(op_fn(|ctx| {
            let size = ctx.input_shape(1)?;
            if size.rank().is_some_and(|r| r != 0) {
                bail!("input 'size' must be a scalar, got shape {size}");
            }
            Ok(())
        }))
        .infer_shape(op_fn(keep_element_shape));
    let length = OpSchema::new("TensorListLength")
        .input(handle("input_handle"))
        .output(int32("length"))
        .infer_shape(op_fn(|ctx| ctx.set_output_shape(0, Shape::scalar())));
    let element_shape = OpSchema::new("TensorListElementShape")
        .input(handle("input_handle"))
        .output(PortDef::new("element_shape", ParamType::Required).dtype_list(SHAPE_TYPES))
        .attr("shape_type", AttrType::DataType, None)
        .infer_dtype(op_fn(|ctx| {
            let dtype = ctx.attr_dtype("shape_type")?;
            if !SHAPE_TYPES.contains(&dtype) {
                bail!("attribute shape_type must be INT32 or INT64, got {dtype}");
            }
            ctx.set_output_dtype(0, dtype)
        }))
        .infer_shape(op_fn(infer_element_shape));
    vec![
        get_item,
        set_item,
        push_back,
        pop_back,
        resize,
        length,
        element_shape,
    ]
}

fn set_element_dtype(ctx: &mut OpContext<'_>, out: usize) -> Result<(), OpError> {
    let dtype = element_dtype(ctx)?;
    ctx.set_output_dtype(out, dtype)
}

/// The item must fit the list's element shape; the list keeps it. A list
/// that carries no element shape stays without one (TensorFlow does not
/// learn it from the item either).
fn infer_set_item(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let element = handle_element_shape(ctx, 0)?;
    merge_shapes(
        ctx.input_shape(2)?,
        &element,
        "input 'item' does not fit the list's element shape",
    )?;
    set_handle(ctx, 0, element)
}

/// The output list has the input list's element shape.
fn keep_element_shape(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let element = handle_element_shape(ctx, 0)?;
    set_handle(ctx, 0, element)
}

/// The popped tensor has the list's element shape; TensorFlow's shape
/// function does not consult the `element_shape` input here.
fn infer_pop_back(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let element = handle_element_shape(ctx, 0)?;
    set_handle(ctx, 0, element.clone())?;
    ctx.set_output_shape(1, element)
}

/// A vector as long as the element rank, or unknown rank when that is
/// unknown (the op then returns the scalar -1). What is known of the
/// element shape is the output's shape value.
fn infer_element_shape(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let element = handle_element_shape(ctx, 0)?;
    match element.rank() {
        Some(rank) => {
            ctx.set_output_shape(0, Shape::from_dims([rank as i64]))?;
            ctx.set_output_shape_value(0, element)
        }
        None => ctx.set_output_shape(0, Shape::unknown_rank()),
    }
}
