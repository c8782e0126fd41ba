//! Builders the frontend tests share for framework graphs laid out as
//! TensorFlow's GraphDefs and FunctionDefs are: ops with TensorFlow input
//! strings (`n`, `n:1`, `n:arg:0` in a body, `^n` for control) and attrs as
//! the decoder converts them, Consts, Placeholders, function bodies.

use crate::frontend::tensorflow::{parse_input, NodeInput};
use crate::frontend::{FrameworkFunction, FrameworkGraph, FrameworkOp};
use crate::types::{AttrValue, DataType, HostTensor, NamedAttrs, Shape};
use bytes::Bytes;

/// A framework op; `inputs` as TensorFlow writes them.
pub(crate) fn op(
    name: &str,
    op_type: &str,
    inputs: &[&str],
    attrs: &[(&str, AttrValue)],
) -> FrameworkOp {
    let mut op = FrameworkOp {
        name: name.into(),
        op_type: op_type.into(),
        ..FrameworkOp::default()
    };
    for input in inputs {
        match parse_input(input, true) {
            Ok(NodeInput::Data(data)) => op.inputs.push(data),
            Ok(NodeInput::Control(node)) => op.control_inputs.push(node),
            Err(e) => panic!("test op '{name}' {e}"),
        }
    }
    for (k, v) in attrs {
        op.attrs.set(*k, v.clone());
    }
    op
}

/// `(name, type, inputs)` of an op without attrs.
pub(crate) type OpSpec<'a> = (&'a str, &'a str, &'a [&'a str]);

/// Ops without attrs, in order.
pub(crate) fn ops(specs: &[OpSpec<'_>]) -> Vec<FrameworkOp> {
    specs.iter().map(|(n, t, i)| op(n, t, i, &[])).collect()
}

/// The `T` attr.
pub(crate) fn t(dtype: DataType) -> (&'static str, AttrValue) {
    ("T", AttrValue::DataType(dtype))
}

pub(crate) fn f32() -> (&'static str, AttrValue) {
    t(DataType::Float)
}

pub(crate) fn i32() -> (&'static str, AttrValue) {
    t(DataType::Int32)
}

/// A function-valued attr naming `name`.
pub(crate) fn func(name: &str) -> AttrValue {
    AttrValue::NamedAttrs(Box::new(NamedAttrs {
        name: name.into(),
        attrs: Default::default(),
    }))
}

pub(crate) fn types(dtypes: &[DataType]) -> AttrValue {
    AttrValue::ListDataType(dtypes.to_vec())
}

pub(crate) fn placeholder(name: &str, dtype: DataType, dims: &[i64]) -> FrameworkOp {
    op(
        name,
        "Placeholder",
        &[],
        &[
            ("dtype", AttrValue::DataType(dtype)),
            ("shape", AttrValue::ListInt(dims.to_vec())),
        ],
    )
}

pub(crate) fn constant(name: &str, value: HostTensor) -> FrameworkOp {
    op(
        name,
        "Const",
        &[],
        &[
            ("dtype", AttrValue::DataType(value.dtype())),
            ("value", AttrValue::Tensor(value)),
        ],
    )
}

/// A float32 Const holding `values`.
pub(crate) fn floats(name: &str, dims: &[i64], values: &[f32]) -> FrameworkOp {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let value = HostTensor::new(DataType::Float, Shape::from_dims(dims), Bytes::from(bytes));
    constant(name, value.expect("as many values as the dims hold"))
}

/// A float32 Const of zeros.
pub(crate) fn weights(name: &str, dims: &[i64]) -> FrameworkOp {
    let count: i64 = dims.iter().product();
    floats(name, dims, &vec![0.0; count as usize])
}

/// An int32 Const holding `values`.
pub(crate) fn ints(name: &str, dims: &[i64], values: &[i64]) -> FrameworkOp {
    let value = HostTensor::from_ints(DataType::Int32, Shape::from_dims(dims), values);
    constant(name, value.expect("as many int32 values as the dims hold"))
}

/// A FunctionDef: `args` (name, dtype) become `_Arg` ops ahead of `ops`.
pub(crate) fn function(
    name: &str,
    args: &[(&str, DataType)],
    ops: Vec<FrameworkOp>,
    outputs: &[&str],
) -> FrameworkFunction {
    let mut all: Vec<FrameworkOp> = args
        .iter()
        .enumerate()
        .map(|(i, (arg, dtype))| {
            op(
                arg,
                "_Arg",
                &[],
                &[("index", AttrValue::Int(i as i64)), t(*dtype)],
            )
        })
        .collect();
    all.extend(ops);
    FrameworkFunction {
        name: name.into(),
        inputs: args.iter().map(|(a, _)| (*a).to_string()).collect(),
        outputs: op("ret", "X", outputs, &[]).inputs,
        ops: all,
        attrs: Default::default(),
    }
}

/// A top-level graph of `ops`, without functions.
pub(crate) fn graph(ops: Vec<FrameworkOp>) -> FrameworkGraph {
    FrameworkGraph {
        name: "model".into(),
        ops,
        functions: Vec::new(),
        ..FrameworkGraph::default()
    }
}

/// `name(type) <- inputs` lines, for whole-graph assertions.
pub(crate) fn describe(ops: &[FrameworkOp]) -> Vec<String> {
    ops.iter()
        .map(|op| {
            let mut inputs: Vec<String> = op
                .inputs
                .iter()
                .map(|i| format!("{}:{}", i.node, i.index))
                .collect();
            inputs.extend(op.control_inputs.iter().map(|c| format!("^{c}")));
            format!("{}({}) <- {}", op.name, op.op_type, inputs.join(", "))
        })
        .collect()
}
