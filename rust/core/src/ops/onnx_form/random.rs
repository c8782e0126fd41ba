//! ONNX's generators: RandomNormal / RandomUniform (opsets 1–22: the
//! `shape` attribute, `dtype` default FLOAT), RandomNormalLike /
//! RandomUniformLike / Bernoulli (x's shape; `dtype`, else x's dtype),
//! EyeLike (9–22: a 2-D x's shape, `dtype` else x's) and Multinomial (7–22:
//! `[batch, sample_size]` class indices, `dtype` default INT32). The values
//! are random; only their dtype and shape matter here.

use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType, Shape};

pub(super) fn schemas() -> Vec<OpSchema> {
    let dtype = |default: DataType| Some(AttrValue::DataType(default));
    let mut all: Vec<OpSchema> = ["RandomNormal", "RandomUniform"]
        .into_iter()
        .map(|op_type| {
            OpSchema::new(op_type)
                .output(PortDef::new("y", ParamType::Required))
                .attr("shape", AttrType::ListInt, None)
                .attr("dtype", AttrType::DataType, dtype(DataType::Float))
                .infer_dtype(op_fn(|ctx| {
                    let dtype = ctx.attr_dtype("dtype")?;
                    ctx.set_output_dtype(0, dtype)
                }))
                .infer_shape(op_fn(|ctx| {
                    let dims = ctx.attr_ints("shape")?;
                    if let Some(d) = dims.iter().find(|&&d| d < 0) {
                        bail!("shape {dims:?} has {d}; every dim must be >= 0");
                    }
                    let shape = Shape::from_dims(dims);
                    ctx.set_output_shape(0, shape)
                }))
        })
        .collect();
    for op_type in [
        "RandomNormalLike",
        "RandomUniformLike",
        "Bernoulli",
        "EyeLike",
    ] {
        let mut schema = OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required))
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Shape))
            .attr("dtype", AttrType::DataType, dtype(DataType::Undefined))
            .infer_dtype(op_fn(|ctx| {
                let dtype = match ctx.attr_dtype("dtype")? {
                    DataType::Undefined => ctx.input_dtype(0)?,
                    dtype => dtype,
                };
                ctx.set_output_dtype(0, dtype)
            }));
        if op_type == "EyeLike" {
            schema = schema
                .attr("k", AttrType::Int, Some(AttrValue::Int(0)))
                .verify(op_fn(|ctx| {
                    let x = ctx.input_shape(0)?;
                    if x.rank().is_some_and(|r| r != 2) {
                        bail!("x must be 2-D, got shape {x}");
                    }
                    Ok(())
                }));
        }
        all.push(schema);
    }
    let multinomial = OpSchema::new("Multinomial")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required))
        .attr("sample_size", AttrType::Int, Some(AttrValue::Int(1)))
        .attr("dtype", AttrType::DataType, dtype(DataType::Int32))
        .infer_dtype(op_fn(|ctx| {
            let dtype = ctx.attr_dtype("dtype")?;
            if !matches!(dtype, DataType::Int32 | DataType::Int64) {
                bail!("dtype must be INT32 or INT64, got {dtype}");
            }
            ctx.set_output_dtype(0, dtype)
        }))
        .infer_shape(op_fn(infer_multinomial));
    all.push(multinomial);
    all
}

fn infer_multinomial(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let samples = ctx.attr_int("sample_size")?;
    if samples < 1 {
        bail!("sample_size is {samples}; it must be >= 1");
    }
    let x = ctx.input_shape(0)?;
    let batch = match (x.rank(), x.dims()) {
        (None, _) => crate::types::UNKNOWN_DIM,
        (Some(2), [batch, _]) => *batch,
        _ => bail!("x must be [batch_size, class_size], got shape {x}"),
    };
    ctx.set_output_shape(0, Shape::from_dims([batch, samples]))
}
