//! Caffe decoder tests: the shared reference nets, fixtures written by
//! tests/caffe/generators/make_decode_models.py (tests/caffe/data), nets
//! built here with the schema itself, and malformed input.

mod attrs;
mod custom;
mod malformed;
mod params;
mod shared;
mod structure;
mod weightless;
mod weights;

use crate::frontend::caffe::{decode, decode_net, CaffeFiles, CaffeSchema};
use crate::frontend::{FrameworkGraph, FrameworkInput, FrameworkOp, FrontendError};
use crate::types::{AttrValue, HostTensor};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/caffe/data")
        .join(name)
}

/// `<stem>.prototxt` with `<stem>.caffemodel` when `weights`.
fn decode_fixture(stem: &str, weights: Option<&str>) -> FrameworkGraph {
    decode(&CaffeFiles {
        prototxt: fixture(&format!("{stem}.prototxt")),
        weights: weights.map(fixture),
        custom_protos: Vec::new(),
    })
    .unwrap_or_else(|e| panic!("{stem}: {e}"))
}

/// A net given as text, with the built-in schema.
fn decode_text(text: &str) -> Result<FrameworkGraph, FrontendError> {
    decode_net(CaffeSchema::builtin().unwrap(), text, None, "net")
}

fn decode_error(text: &str) -> String {
    match decode_text(text) {
        Err(FrontendError::Decode(message)) => message,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

fn op<'g>(graph: &'g FrameworkGraph, name: &str) -> &'g FrameworkOp {
    graph
        .ops
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no op '{name}' in {:?}", names(graph)))
}

fn names(graph: &FrameworkGraph) -> Vec<&str> {
    graph.ops.iter().map(|o| o.name.as_str()).collect()
}

fn input(node: &str, index: u32) -> FrameworkInput {
    FrameworkInput::new(node, index)
}

fn attr<'o>(op: &'o FrameworkOp, name: &str) -> &'o AttrValue {
    op.attrs
        .get(name)
        .unwrap_or_else(|| panic!("op '{}' has no attr '{name}': {:?}", op.name, op.attrs))
}

/// The tensor a Const op holds.
fn tensor(op: &FrameworkOp) -> &HostTensor {
    match attr(op, "value") {
        AttrValue::Tensor(t) => t,
        other => panic!("'{}' holds no tensor: {other:?}", op.name),
    }
}

/// The float values of a FLOAT tensor.
fn floats(tensor: &HostTensor) -> Vec<f32> {
    tensor
        .bytes()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The (dtype, shape) of an opaque weight.
fn opaque_shape(op: &FrameworkOp) -> Vec<i64> {
    match attr(op, "value") {
        AttrValue::NamedAttrs(t) if t.name == crate::frontend::OPAQUE_TENSOR => {
            assert_eq!(
                t.attrs.get("dtype"),
                Some(&AttrValue::DataType(crate::types::DataType::Float))
            );
            match t.attrs.get("shape") {
                Some(AttrValue::ListInt(dims)) => dims.clone(),
                other => panic!("opaque tensor without shape: {other:?}"),
            }
        }
        other => panic!("'{}' holds no opaque tensor: {other:?}", op.name),
    }
}
