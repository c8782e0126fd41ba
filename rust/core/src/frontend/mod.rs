//! Frontends: framework models (TensorFlow, Caffe) decoded into a
//! framework-level graph, rewritten by scope fusion, and mapped onto IR ops
//! by parser plugins (GE's `REGISTER_CUSTOM_OP` semantics).
//!
//! The stages, each its own module:
//! - [`framework`]: the decoded model before mapping (GE's "src" operators);
//! - [`scope`]: scope fusion over framework ops (TensorFlow);
//! - [`plugin`] and [`draft`]: parser plugins and the IR operator they fill in;
//! - [`convert`]: framework graph → IR [`Graph`](crate::graph::Graph);
//! - [`tensorflow`]: GraphDef decoding and the built-in TensorFlow plugins;
//! - [`caffe`]: prototxt/caffemodel decoding (with users' custom.proto) and
//!   the built-in Caffe plugins;
//! - [`onnx`]: ModelProto decoding (external data, subgraphs, opset
//!   versions) and the built-in ONNX plugins.
//!
//! Shared by the decoders: [`text_format`] (protobuf text with positions)
//! and [`mapped`] (memory-mapped model files), and `wire_strings` (string
//! fields borrowed from the encoded message).

pub mod auto_mapping;
pub mod caffe;
pub mod convert;
pub mod draft;
pub mod error;
pub mod framework;
pub mod insert_op;
pub mod mapped;
pub mod onnx;
pub mod plugin;
pub mod scope;
pub mod tensorflow;
pub mod text_format;
mod wire_strings;

#[cfg(test)]
pub(crate) mod test_graphs;

pub use draft::OpDraft;
pub use error::{FrontendError, PluginError};
pub use framework::{
    FrameworkFunction, FrameworkGraph, FrameworkInput, FrameworkOp, FunctionIndex, ParamValue,
    OPAQUE_TENSOR,
};
pub use plugin::{Framework, ParserPlugin, PluginRegistry};
