//! Bytes or text → the GraphDef message, with prost (binary) and
//! prost-reflect (text format over the same schema), then → FrameworkGraph.

use super::decode::convert_graph;
use super::pb;
use crate::budget::Budget;
use crate::frontend::error::decode_error_text;
use crate::frontend::text_format;
use crate::frontend::{FrameworkGraph, FrontendError};
use bytes::Bytes;
use prost::Message;
use prost_reflect::DescriptorPool;
use std::sync::OnceLock;

/// Memory a text GraphDef takes while parsed, per byte of text: the
/// reflective message it parses into is built whole, at about 13 bytes per
/// byte of text (a 37 MB, 300,000-node pbtxt).
const TEXT_PARSE_BYTES_PER_BYTE: usize = 16;

/// Refuses up front a text of `len` bytes whose parse cannot fit, rather
/// than failing (aborting) inside the parser.
pub(super) fn check_text_fits(len: usize) -> Result<(), FrontendError> {
    Budget::for_this_process().check_with(len.saturating_mul(TEXT_PARSE_BYTES_PER_BYTE))?;
    Ok(())
}

/// The graph name given to graphs decoded from memory.
pub const DEFAULT_GRAPH_NAME: &str = "graph";

/// Decodes a binary GraphDef. `bytes` fields (weights) are slices of
/// `data`, so a memory-mapped file is borrowed, not copied.
pub fn decode_binary(data: Bytes) -> Result<FrameworkGraph, FrontendError> {
    let graph = parse_binary(data).map_err(|why| {
        FrontendError::Decode(format!(
            "the data is not a binary TensorFlow GraphDef: {why}"
        ))
    })?;
    convert_graph(graph, DEFAULT_GRAPH_NAME)
}

/// Decodes a text-format GraphDef (`.pbtxt`).
pub fn decode_text(text: &str) -> Result<FrameworkGraph, FrontendError> {
    check_text_fits(text.len())?;
    let graph = parse_text(text).map_err(|why| {
        FrontendError::Decode(format!("the text is not a TensorFlow GraphDef: {why}"))
    })?;
    convert_graph(graph, DEFAULT_GRAPH_NAME)
}

/// The message with its nodes still encoded (see
/// [`GraphDefWithEncodedNodes`](pb::GraphDefWithEncodedNodes)), or why
/// `data` is not one.
pub(super) fn parse_binary(data: Bytes) -> Result<ParsedGraph, String> {
    pb::GraphDefWithEncodedNodes::decode(data)
        .map(|graph| ParsedGraph::Binary(Box::new(graph)))
        .map_err(|e| decode_error_text(&e))
}

/// A parsed GraphDef: from binary, nodes still encoded; from text, whole.
pub(super) enum ParsedGraph {
    Binary(Box<pb::GraphDefWithEncodedNodes>),
    Text(Box<pb::GraphDef>),
}

impl ParsedGraph {
    pub(super) fn node_count(&self) -> usize {
        match self {
            ParsedGraph::Binary(g) => g.node.len(),
            ParsedGraph::Text(g) => g.node.len(),
        }
    }

    pub(super) fn has_functions(&self) -> bool {
        match self {
            ParsedGraph::Binary(g) => g.library.as_ref().is_some_and(|l| !l.function.is_empty()),
            ParsedGraph::Text(g) => g.library.as_ref().is_some_and(|l| !l.function.is_empty()),
        }
    }
}

/// The message, or why `text` is not one (with its line and column).
pub(super) fn parse_text(text: &str) -> Result<ParsedGraph, String> {
    let descriptor = descriptors()
        .map_err(|e| format!("opgraph's embedded schema is unusable ({e})"))?
        .get_message_by_name("tensorflow.GraphDef")
        .ok_or("opgraph's embedded schema has no GraphDef")?;
    text_format::parse_text(descriptor, text)?
        .transcode_to::<pb::GraphDef>()
        .map(|graph| ParsedGraph::Text(Box::new(graph)))
        .map_err(|e| e.to_string())
}

/// The schema, decoded once from the descriptor set `build.rs` embedded.
fn descriptors() -> Result<&'static DescriptorPool, String> {
    static POOL: OnceLock<Result<DescriptorPool, String>> = OnceLock::new();
    POOL.get_or_init(|| DescriptorPool::decode(pb::DESCRIPTOR_SET).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}
