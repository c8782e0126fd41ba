//! Decoder tests: GraphDefs built with the prost types, encoded and decoded
//! again (binary), hand-written text, TensorFlow's own files, and malformed
//! input of every kind.

mod attr_kinds;
mod files;
mod graphs;
mod malformed;
mod tensors;
mod text;

use super::decode_binary;
use super::pb::{self, attr_value::ListValue, attr_value::Value};
use crate::frontend::{FrameworkGraph, FrontendError};
use bytes::Bytes;
use prost::Message;

fn attr(value: Value) -> pb::AttrValue {
    pb::AttrValue { value: Some(value) }
}

fn list(list: ListValue) -> pb::AttrValue {
    attr(Value::List(Box::new(list)))
}

fn dtype_attr(dtype: pb::DataType) -> pb::AttrValue {
    attr(Value::Type(dtype as i32))
}

fn shape(dims: &[i64]) -> pb::TensorShapeProto {
    pb::TensorShapeProto {
        dim: dims
            .iter()
            .map(|&size| pb::tensor_shape_proto::Dim {
                size,
                name: String::new(),
            })
            .collect(),
        unknown_rank: false,
    }
}

fn node(name: &str, op: &str, inputs: &[&str], attrs: Vec<(&str, pb::AttrValue)>) -> pb::NodeDef {
    pb::NodeDef {
        name: name.into(),
        op: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        attr: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        ..pb::NodeDef::default()
    }
}

fn graph(nodes: Vec<pb::NodeDef>) -> pb::GraphDef {
    pb::GraphDef {
        node: nodes,
        ..pb::GraphDef::default()
    }
}

fn encode(graph: &pb::GraphDef) -> Bytes {
    Bytes::from(graph.encode_to_vec())
}

/// Encodes `graph` and decodes it again.
fn round_trip(graph: &pb::GraphDef) -> Result<FrameworkGraph, FrontendError> {
    decode_binary(encode(graph))
}

/// The decode error's message; fails the test on success or another error.
fn decode_error(result: Result<FrameworkGraph, FrontendError>) -> String {
    match result {
        Err(FrontendError::Decode(message)) => message,
        other => panic!("expected a decode error, got {other:?}"),
    }
}
