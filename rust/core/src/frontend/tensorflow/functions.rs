//! FunctionDef → [`FrameworkFunction`] (the bodies of If, While, Case and
//! function calls). Each argument becomes a synthetic `_Arg` op named after
//! it (attrs `index`, `T`, and the FunctionDef's `arg_attr` for it, e.g.
//! `_output_shapes`), placed before the body ops; outputs follow the
//! signature's output order through the `ret` map. `control_ret` is not
//! kept: control outputs order side effects, which inference ignores.

use super::attrs::convert_attrs;
use super::decode::{convert_encoded, convert_node};
use super::dtype::{ge_dtype, tf_dtype_name};
use super::inputs::{parse_input, NodeInput};
use super::pb::{self, attr_value, op_def::ArgDef, OpDef};
use crate::frontend::{FrameworkFunction, FrameworkOp, FrontendError};
use crate::types::{AttrValue, DataType};
use std::collections::HashMap;

/// The op type of a function argument's synthetic op (TensorFlow's own).
pub const ARG_OP_TYPE: &str = "_Arg";

/// The [`FunctionParts`] of a FunctionDef, decoded or with encoded nodes
/// (two message types with the same fields).
macro_rules! function_parts {
    ($function:expr) => {
        FunctionParts {
            signature: $function.signature.as_ref(),
            attr: &$function.attr,
            arg_attr: &$function.arg_attr,
            ret: &$function.ret,
        }
    };
}

pub(super) fn convert_function(
    function: &pb::FunctionDef,
) -> Result<FrameworkFunction, FrontendError> {
    convert_parts(
        &function_parts!(function),
        function.node_def.len(),
        |name, ops| {
            for node in &function.node_def {
                ops.push(convert_node(node, Some(name))?);
            }
            Ok(())
        },
    )
}

/// [`convert_function`] for a function of a binary GraphDef, whose body
/// nodes are still encoded: each is decoded in turn, borrowed from the file.
pub(super) fn convert_encoded_function(
    function: &pb::FunctionDefWithEncodedNodes,
) -> Result<FrameworkFunction, FrontendError> {
    convert_parts(
        &function_parts!(function),
        function.node_def.len(),
        |name, ops| {
            let mut node = pb::NodeDefSlices::default();
            for (index, encoded) in function.node_def.iter().enumerate() {
                let position = || format!("function '{name}' node {index}");
                ops.push(convert_encoded(
                    &mut node,
                    encoded.clone(),
                    Some(name),
                    position,
                )?);
            }
            Ok(())
        },
    )
}

/// What a FunctionDef holds besides its body nodes.
struct FunctionParts<'a> {
    signature: Option<&'a OpDef>,
    attr: &'a HashMap<String, pb::AttrValue>,
    arg_attr: &'a HashMap<u32, pb::function_def::ArgAttrs>,
    ret: &'a HashMap<String, String>,
}

/// The function of `parts` whose `body_len` body ops `push_body` appends
/// (given the function's name) after the argument ops.
fn convert_parts(
    parts: &FunctionParts<'_>,
    body_len: usize,
    push_body: impl FnOnce(&str, &mut Vec<FrameworkOp>) -> Result<(), FrontendError>,
) -> Result<FrameworkFunction, FrontendError> {
    let signature = parts
        .signature
        .filter(|s| !s.name.is_empty())
        .ok_or_else(|| {
            FrontendError::Decode(
                "a function in the library has no signature name; every function needs one".into(),
            )
        })?;
    let name = signature.name.as_str();
    let bad = |what: String| FrontendError::Decode(format!("function '{name}' {what}"));

    let mut ops = Vec::with_capacity(signature.input_arg.len() + body_len);
    for (index, arg) in signature.input_arg.iter().enumerate() {
        ops.push(arg_op(parts.arg_attr, signature, index, arg).map_err(bad)?);
    }
    push_body(name, &mut ops)?;
    let mut outputs = Vec::with_capacity(signature.output_arg.len());
    for arg in &signature.output_arg {
        let ret = parts.ret.get(&arg.name).ok_or_else(|| {
            bad(format!(
                "has output '{}' but no `ret` entry saying which tensor it returns",
                arg.name
            ))
        })?;
        match parse_input(ret, true) {
            Ok(NodeInput::Data(input)) => outputs.push(input),
            Ok(NodeInput::Control(_)) | Err(_) => {
                return Err(bad(format!(
                    "returns '{ret}' as output '{}', but a return value must be \
                     'node:output_arg:index' or an argument name",
                    arg.name
                )))
            }
        }
    }
    let attrs = convert_attrs(parts.attr)
        .map_err(|attr| FrontendError::Decode(format!("function '{name}': {attr}")))?;
    Ok(FrameworkFunction {
        name: name.to_owned(),
        inputs: signature.input_arg.iter().map(|a| a.name.clone()).collect(),
        outputs,
        ops,
        attrs,
    })
}

/// The synthetic `_Arg` op of input argument `index`.
fn arg_op(
    arg_attr: &HashMap<u32, pb::function_def::ArgAttrs>,
    signature: &OpDef,
    index: usize,
    arg: &ArgDef,
) -> Result<FrameworkOp, String> {
    if arg.name.is_empty() {
        return Err(format!("has an unnamed argument at index {index}"));
    }
    let mut op = FrameworkOp {
        name: arg.name.clone(),
        op_type: ARG_OP_TYPE.into(),
        ..FrameworkOp::default()
    };
    op.attrs.set("index", AttrValue::Int(index as i64));
    if let Some(dtype) = arg_dtype(signature, arg)? {
        op.attrs.set("T", AttrValue::DataType(dtype));
    }
    let extra = u32::try_from(index).ok().and_then(|i| arg_attr.get(&i));
    if let Some(extra) = extra {
        let attrs = convert_attrs(&extra.attr)
            .map_err(|attr| format!("has argument '{}' whose {attr}", arg.name))?;
        // `index` and `T` come from the signature, whatever arg_attr says.
        for (key, value) in attrs.iter().filter(|(k, _)| !matches!(*k, "index" | "T")) {
            op.attrs.set(key, value.clone());
        }
    }
    Ok(op)
}

/// An argument's type: fixed, or from its type attr's default. `None` for
/// a polymorphic argument whose type only an instantiation would fix
/// (frozen graphs have none).
fn arg_dtype(signature: &OpDef, arg: &ArgDef) -> Result<Option<DataType>, String> {
    let unsupported = |t: i32| {
        format!(
            "has argument '{}' of TensorFlow type {}, which opgraph does not support",
            arg.name,
            tf_dtype_name(t)
        )
    };
    if arg.r#type != pb::DataType::DtInvalid as i32 {
        return ge_dtype(arg.r#type)
            .map(Some)
            .ok_or_else(|| unsupported(arg.r#type));
    }
    if arg.type_attr.is_empty() {
        return Ok(None);
    }
    let default = signature
        .attr
        .iter()
        .find(|a| a.name == arg.type_attr)
        .and_then(|a| a.default_value.as_ref())
        .and_then(|v| v.value.as_ref());
    match default {
        Some(attr_value::Value::Type(t)) => ge_dtype(*t).map(Some).ok_or_else(|| unsupported(*t)),
        _ => Ok(None),
    }
}
