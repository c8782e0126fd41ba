//! Builders the engine and op tests share: graph inputs, constants, op
//! nodes laid out by prototype, and a stand-in for the Shape op that records
//! a partial shape value.

use crate::graph::Subgraph;
use crate::prelude::*;
use crate::types::NamedAttrs;
use bytes::Bytes;
use std::sync::Arc;

pub(crate) fn input(
    g: &mut Graph,
    name: &str,
    dtype: DataType,
    dims: &[i64],
    format: Format,
) -> OutputRef {
    g.add_input_node(name, TensorDesc::new(dtype, Shape::from_dims(dims), format))
        .unwrap()
}

/// A `PartitionedCall` of `body` (as function `f`) on `inputs`.
pub(crate) fn call(g: &mut Graph, r: &OpRegistry, inputs: &[OutputRef], body: Graph) -> NodeId {
    let function = AttrValue::NamedAttrs(Box::new(NamedAttrs {
        name: "f".into(),
        attrs: Attrs::new(),
    }));
    let spec = OpSpec {
        op_type: "PartitionedCall".into(),
        name: "call".into(),
        inputs: vec![PortInput::Many(inputs.to_vec())],
        attrs: [("f", function)].into_iter().collect(),
        subgraphs: vec![Subgraph::new("f", body)],
        ..OpSpec::default()
    };
    add_op(g, r, spec).unwrap()
}

/// A Const of an INT32 / INT64 tensor.
pub(crate) fn int_const(
    g: &mut Graph,
    name: &str,
    dtype: DataType,
    dims: &[i64],
    values: &[i64],
) -> OutputRef {
    let t = HostTensor::from_ints(dtype, Shape::from_dims(dims), values).unwrap();
    g.add_const_node(name, t).unwrap()
}

/// A Const of a scalar bool (a cond's predicate).
pub(crate) fn bool_const(g: &mut Graph, name: &str, value: bool) -> OutputRef {
    let t = HostTensor::new(
        DataType::Bool,
        Shape::scalar(),
        bytes::Bytes::from(vec![u8::from(value)]),
    )
    .unwrap();
    g.add_const_node(name, t).unwrap()
}

/// Output 0 of a new `op_type` node fed one tensor per prototype input.
pub(crate) fn op(
    g: &mut Graph,
    r: &OpRegistry,
    op_type: &str,
    name: &str,
    inputs: &[OutputRef],
    attrs: Attrs,
) -> OutputRef {
    let spec = OpSpec {
        op_type: op_type.into(),
        name: name.into(),
        inputs: inputs.iter().map(|&e| PortInput::Single(Some(e))).collect(),
        attrs,
        ..OpSpec::default()
    };
    OutputRef::new(add_op(g, r, spec).unwrap(), 0)
}

/// Registers `TestShapeOf`: an INT64 vector whose fold records its input's
/// shape as a partial shape value (what the built-in Shape op does).
pub(crate) fn register_shape_of(r: &mut OpRegistry) {
    let schema = OpSchema::new("TestShapeOf")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).dtype_list(&[DataType::Int64]))
        .infer_shape(Arc::new(|ctx| {
            let rank = ctx.input_shape(0)?.rank().unwrap_or(0) as i64;
            ctx.set_output_shape(0, Shape::from_dims([rank]))
        }))
        .fold(Arc::new(|ctx| {
            let shape = ctx.input_shape(0)?.clone();
            ctx.set_output_shape_value(0, shape)
        }));
    r.register(schema, false).unwrap();
}

/// A graph input with per-dim shape ranges.
pub(crate) fn ranged_input(
    g: &mut Graph,
    name: &str,
    dtype: DataType,
    dims: &[i64],
    range: &[(i64, i64)],
) -> OutputRef {
    let mut desc = TensorDesc::new(dtype, Shape::from_dims(dims), Format::Nd);
    desc.shape_range = Some(range.into());
    g.add_input_node(name, desc).unwrap()
}

/// Infers `g` with the built-ins: Ok, or every failure in one string (for
/// asserting on error messages).
pub(crate) fn infer_all(g: &mut Graph, r: &OpRegistry) -> Result<(), String> {
    let options = InferOptions {
        collect_errors: true,
        ..InferOptions::default()
    };
    infer_graph(g, r, options).map_err(|failures| {
        let messages: Vec<String> = failures.iter().map(ToString::to_string).collect();
        messages.join("\n")
    })
}

/// A graph built op by op for engine tests: ops named uniquely, INT32
/// constants, inference with its errors joined, and output dims read back.
pub(crate) struct OpCase {
    pub(crate) r: OpRegistry,
    pub(crate) g: Graph,
    n: usize,
}

impl OpCase {
    pub(crate) fn new() -> OpCase {
        OpCase {
            r: OpRegistry::with_builtins(),
            g: Graph::new("g"),
            n: 0,
        }
    }

    fn name(&mut self, prefix: &str) -> String {
        self.n += 1;
        format!("{prefix}{}", self.n)
    }

    pub(crate) fn input(&mut self, dtype: DataType, dims: &[i64]) -> OutputRef {
        let name = self.name("in");
        input(&mut self.g, &name, dtype, dims, Format::Nd)
    }

    /// A graph input with per-dim shape ranges.
    pub(crate) fn ranged_input(
        &mut self,
        dtype: DataType,
        dims: &[i64],
        range: &[(i64, i64)],
    ) -> OutputRef {
        let name = self.name("in");
        ranged_input(&mut self.g, &name, dtype, dims, range)
    }

    /// An INT32 constant: a scalar for one value unless `vector`.
    pub(crate) fn ints(&mut self, values: &[i64], vector: bool) -> OutputRef {
        let name = self.name("c");
        let dims: Vec<i64> = if vector {
            vec![values.len() as i64]
        } else {
            vec![]
        };
        int_const(&mut self.g, &name, DataType::Int32, &dims, values)
    }

    /// A FLOAT scalar constant.
    pub(crate) fn float(&mut self, value: f32) -> OutputRef {
        let name = self.name("c");
        let bytes = Bytes::copy_from_slice(&value.to_le_bytes());
        let t = HostTensor::new(DataType::Float, Shape::scalar(), bytes).unwrap();
        self.g.add_const_node(&name, t).unwrap()
    }

    pub(crate) fn op(
        &mut self,
        op_type: &str,
        inputs: &[OutputRef],
        attrs: &[(&str, AttrValue)],
    ) -> OutputRef {
        let attrs: Attrs = attrs.iter().map(|(k, v)| (*k, v.clone())).collect();
        let name = self.name(op_type);
        op(&mut self.g, &self.r, op_type, &name, inputs, attrs)
    }

    /// `ConcatV2(parts, axis)`: a DYNAMIC input, which `op` cannot lay out.
    pub(crate) fn concat(&mut self, parts: &[OutputRef], axis: i64) -> OutputRef {
        let axis = self.ints(&[axis], false);
        let spec = OpSpec {
            op_type: "ConcatV2".into(),
            name: self.name("ConcatV2"),
            inputs: vec![
                PortInput::Many(parts.to_vec()),
                PortInput::Single(Some(axis)),
            ],
            ..OpSpec::default()
        };
        let node = add_op(&mut self.g, &self.r, spec).unwrap();
        OutputRef { node, index: 0 }
    }

    pub(crate) fn infer(&mut self) -> Result<(), String> {
        infer_graph(&mut self.g, &self.r, InferOptions::default()).map_err(|errors| {
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    pub(crate) fn error(&mut self) -> String {
        self.infer().expect_err("inference should fail")
    }

    pub(crate) fn desc(&self, t: OutputRef) -> &TensorDesc {
        self.g.tensor(t)
    }

    pub(crate) fn dims(&self, t: OutputRef) -> Vec<i64> {
        self.desc(t).shape().dims().to_vec()
    }

    /// A tensor's shape range, if it has one.
    pub(crate) fn range(&self, t: OutputRef) -> Option<Vec<(i64, i64)>> {
        self.desc(t).shape_range.as_ref().map(|r| r.to_vec())
    }

    /// The shape value a tensor carries (a TensorList / TensorArray handle's
    /// element shape, a Shape op's partial value).
    pub(crate) fn carried(&self, t: OutputRef) -> Option<Vec<i64>> {
        self.desc(t).shape_value.as_ref().map(|s| s.dims().to_vec())
    }
}
