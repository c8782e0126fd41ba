//! Frontend errors: decoding, missing plugins, plugin failures.

use std::fmt;

/// Why a parser plugin or scope pass rejected an op. `source` carries a
/// foreign error (e.g. a Python exception) through the converter untouched.
#[derive(Debug)]
pub struct PluginError {
    pub message: String,
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl PluginError {
    pub fn new(message: impl Into<String>) -> PluginError {
        PluginError {
            message: message.into(),
            source: None,
        }
    }

    pub fn with_source(
        message: impl Into<String>,
        source: Box<dyn std::error::Error + Send + Sync>,
    ) -> PluginError {
        PluginError {
            message: message.into(),
            source: Some(source),
        }
    }
}

impl fmt::Display for PluginError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One unsupported origin op type: how many nodes use it and one of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedOp {
    pub op_type: String,
    pub count: usize,
    pub example_node: String,
}

#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    /// The file could not be read or is not a valid model.
    #[error("{0}")]
    Decode(String),
    /// Every origin op type without a plugin, not just the first.
    #[error("{}", unsupported_message(.0))]
    Unsupported(Vec<UnsupportedOp>),
    /// A plugin (built-in or user) failed on a node.
    #[error("plugin for '{origin_op_type}' failed on node '{node}': {error}")]
    Plugin {
        node: String,
        origin_op_type: String,
        error: PluginError,
    },
    /// A scope-fusion pass failed.
    #[error("scope fusion pass '{pass}' failed: {error}")]
    ScopePass { pass: String, error: PluginError },
    /// The model's structure is wrong (dangling input, bad port, cycle …).
    #[error("{0}")]
    Graph(String),
    /// Loading stopped before the process ran out of memory.
    #[error("while loading the model, {0}")]
    Memory(#[from] crate::budget::OverBudget),
}

fn unsupported_message(ops: &[UnsupportedOp]) -> String {
    let list: Vec<String> = ops
        .iter()
        .map(|op| {
            format!(
                "{} ({} node{}, e.g. '{}')",
                op.op_type,
                op.count,
                if op.count == 1 { "" } else { "s" },
                op.example_node
            )
        })
        .collect();
    format!(
        "no parser plugin for {} op type{}: {}",
        ops.len(),
        if ops.len() == 1 { "" } else { "s" },
        crate::message::capped_list(&list, ", ")
    )
}

/// The messages opgraph decodes files with, which keep a schema message's
/// fields but leave its nodes encoded or borrowed, each with the schema
/// message users know it as. prost names the message a field failed in,
/// and a user reading about `ModelProtoWithSliceNodes` would not find it in
/// `onnx.proto`.
const DECODING_MESSAGES: [(&str, &str); 7] = [
    ("ModelProtoWithSliceNodes", "ModelProto"),
    ("GraphProtoWithSliceNodes", "GraphProto"),
    ("NodeProtoSlices", "NodeProto"),
    ("GraphDefWithEncodedNodes", "GraphDef"),
    ("FunctionDefLibraryWithEncodedNodes", "FunctionDefLibrary"),
    ("FunctionDefWithEncodedNodes", "FunctionDef"),
    ("NodeDefSlices", "NodeDef"),
];

/// A protobuf decoding error as text, naming the schema's messages.
pub(crate) fn decode_error_text(error: &prost::DecodeError) -> String {
    let mut text = error.to_string();
    for (ours, schema) in DECODING_MESSAGES {
        if text.contains(ours) {
            text = text.replace(ours, schema);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::DECODING_MESSAGES;
    use crate::frontend::{onnx, tensorflow, FrontendError};
    use bytes::Bytes;

    /// Field 1 as a length-delimited string: GraphDef's `node` (a message)
    /// takes it, ModelProto's `ir_version` (a varint) does not.
    const NODE_FIELD: &[u8] = &[0x0a, 0x00];
    /// Field 1 as a varint: the other way round.
    const VARINT_FIELD: &[u8] = &[0x08, 0x07];

    fn decode_message(error: FrontendError) -> String {
        match error {
            FrontendError::Decode(message) => message,
            other => panic!("expected a decode error, got {other}"),
        }
    }

    fn assert_schema_names_only(message: &str) {
        for (ours, _) in DECODING_MESSAGES {
            assert!(!message.contains(ours), "{message}");
        }
    }

    #[test]
    fn an_onnx_decode_error_names_the_schema_message() {
        let error = onnx::decode_model(Bytes::from_static(NODE_FIELD), None, "m").unwrap_err();
        let message = decode_message(error);
        assert!(message.contains("ModelProto.ir_version"), "{message}");
        assert_schema_names_only(&message);
    }

    #[test]
    fn a_tensorflow_decode_error_names_the_schema_message() {
        let error = tensorflow::decode_binary(Bytes::from_static(VARINT_FIELD)).unwrap_err();
        let message = decode_message(error);
        assert!(message.contains("GraphDef.node"), "{message}");
        assert_schema_names_only(&message);
    }
}
