//! Caffe: network definitions (`.prototxt`, text) and weights
//! (`.caffemodel`, binary) decoded against opgraph's own `caffe.proto`,
//! compiled at run time so that users' `custom.proto` files merge into it
//! the way GE merges them, then mapped by Caffe parser plugins.
//!
//! # The framework graph a Caffe net becomes (the contract with plugins)
//! - Each net input (`input` + `input_dim` / `input_shape`, or an `Input`
//!   layer's top) is a `Placeholder` op with attrs `dtype` (FLOAT) and
//!   `shape` (ListInt).
//! - Each layer kept by the TEST-phase `include`/`exclude` rules is one
//!   `FrameworkOp`: `name` = layer name, `op_type` = the layer type string
//!   (legacy V1 `layers` enum types become their current names, e.g.
//!   `CONVOLUTION` → `Convolution`), `inputs` = its bottoms resolved to the
//!   op that produced each blob at that point (in-place layers, top ==
//!   bottom, make a new version of the blob, so every tensor is distinct),
//!   then one input per weight blob, in blob order.
//! - Weight blobs are `Const` ops named `<layer>/blobs/<i>` holding the
//!   values borrowed from the mapped `.caffemodel` (attr `value`). Without a
//!   weights file, the blobs a layer type needs are still there, as `Const`
//!   ops whose `value` is an opaque tensor (dtype and shape, unknown dims -1,
//!   no bytes; see `OPAQUE_TENSOR`), so shapes still infer.
//! - Layer parameters become attributes with GE's rules: scalar fields by
//!   field name, nested non-repeated messages flattened into the same map,
//!   repeated scalars as lists, enums as their numbers, repeated messages as
//!   one JSON string attribute; `double` and `uint64` are supported.
//!   [`attrs`] documents the exact naming, precedence and defaults (enum
//!   names in `<field>_name`; `bottom` and `top` as ListStr).
//! - Layers with several tops have one output per top, in order.
//!
//! # Details the contract leaves open
//! - Net inputs and Input-layer tops are named after their blob; a layer
//!   is named after itself. Duplicate op names are a decode error.
//! - Weight `Const` ops also carry `dtype` (FLOAT), like TensorFlow's.
//!   Every weight is FLOAT: `double_data` is converted, as Caffe does.
//! - A layer takes its blobs from the `.caffemodel` layer of the same name
//!   when that has any, else from `blobs` written in the prototxt, else
//!   opaque ones shaped by [`weightless`]'s table. Blobs of caffemodel
//!   layers the net does not have are ignored.
//! - The graph is named after the net's `name`, else the prototxt's stem.
//! - V0 nets (`layers { layer { ... } }`) are reported, not upgraded.
//!
//! # Modules
//! [`schema`] compiles caffe.proto (+ [`custom`] protos); [`weights`] and
//! `blob` read caffemodels zero-copy; `layer`, `rules`, [`attrs`],
//! [`weightless`] and [`net`] build the framework graph.

use super::convert::{convert, ConvertOptions};
use super::mapped::map_file;
use super::text_format::parse_text;
use super::{Framework, FrameworkGraph, FrontendError, ParserPlugin, PluginRegistry};
use crate::graph::Graph;
use crate::op::OpRegistry;
use net::NetError;
use prost_reflect::DynamicMessage;
use std::path::{Path, PathBuf};

pub mod attrs;
mod blob;
pub mod custom;
mod custom_blobs;
mod layer;
mod message;
pub mod net;
mod params;
mod rules;
pub mod schema;
pub mod weightless;
pub mod weights;

pub use attrs::ENUM_NAME_SUFFIX;
pub use net::{CONST, PLACEHOLDER};
pub use schema::CaffeSchema;
pub use weights::{decode_weights, CaffeWeights};

/// The graph name given to nets decoded from memory without a `name`.
pub const DEFAULT_NET_NAME: &str = "net";

mod builtin;

/// Every built-in Caffe plugin.
pub fn builtin_plugins() -> Vec<ParserPlugin> {
    builtin::plugins()
}

/// The files of one Caffe model.
#[derive(Clone, Debug, Default)]
pub struct CaffeFiles {
    pub prototxt: PathBuf,
    pub weights: Option<PathBuf>,
    /// Users' `custom.proto` files, merged in order.
    pub custom_protos: Vec<PathBuf>,
}

/// Decodes a Caffe model into a framework graph. Errors name the file.
pub fn decode(files: &CaffeFiles) -> Result<FrameworkGraph, FrontendError> {
    decode_reported(files).map(|(graph, _)| graph)
}

/// [`decode`], with warnings as `(layer type, message)`: set layer fields
/// the flattened attributes drop (name clashes), one per layer type.
pub fn decode_reported(
    files: &CaffeFiles,
) -> Result<(FrameworkGraph, Vec<(String, String)>), FrontendError> {
    let schema = CaffeSchema::with_custom_proto_files(&files.custom_protos)?;
    let path = &files.prototxt;
    let data = map_file(path, "a Caffe net definition (.prototxt)")?;
    let text = std::str::from_utf8(&data).map_err(|e| {
        FrontendError::Decode(format!(
            "'{}' is not a text .prototxt: byte {} is not UTF-8 (a binary .caffemodel goes in \
             the weights)",
            path.display(),
            e.valid_up_to()
        ))
    })?;
    let net = parse_net(&schema, text).map_err(|e| in_file(path, e))?;
    let weights = match &files.weights {
        Some(weights) => {
            let data = map_file(weights, "a binary Caffe model (.caffemodel)")?;
            let text = std::str::from_utf8(&data).is_ok();
            Some(decode_weights(data).map_err(|e| match e {
                // Binary weights are hardly ever valid UTF-8 throughout.
                FrontendError::Decode(why) if text => FrontendError::Decode(format!(
                    "'{}' is text, not a binary .caffemodel (a .prototxt goes first): {why}",
                    weights.display()
                )),
                other => in_file(weights, other),
            })?)
        }
        None => None,
    };
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| DEFAULT_NET_NAME.to_owned());
    net::convert_net(&net, weights.as_ref(), &stem).map_err(|error| match error {
        NetError::Net(why) => in_file(path, FrontendError::Decode(why)),
        NetError::Weights(why) => in_file(
            files.weights.as_deref().unwrap_or(path),
            FrontendError::Decode(why),
        ),
    })
}

/// Decodes a text net (`.prototxt` content) against `schema`, with weights
/// from [`decode_weights`] if any; the graph is named after the net's
/// `name`, else `fallback_name`.
pub fn decode_net(
    schema: &CaffeSchema,
    text: &str,
    weights: Option<&CaffeWeights>,
    fallback_name: &str,
) -> Result<FrameworkGraph, FrontendError> {
    let net = parse_net(schema, text)?;
    net::convert_net(&net, weights, fallback_name)
        .map(|(graph, _)| graph)
        .map_err(|error| match error {
            NetError::Net(why) | NetError::Weights(why) => FrontendError::Decode(why),
        })
}

fn parse_net(schema: &CaffeSchema, text: &str) -> Result<DynamicMessage, FrontendError> {
    parse_text(schema.message("NetParameter")?, text)
        .map_err(|why| FrontendError::Decode(format!("not a Caffe net (prototxt): {why}")))
}

/// Names the file in a decode error about its content.
fn in_file(path: &Path, error: FrontendError) -> FrontendError {
    match error {
        FrontendError::Decode(why) => FrontendError::Decode(format!("'{}': {why}", path.display())),
        other => other,
    }
}

/// Decode → plugins: a Caffe model as an (uninferred) IR graph.
pub fn load(
    files: &CaffeFiles,
    options: &ConvertOptions,
    plugins: &PluginRegistry,
    ops: &OpRegistry,
) -> Result<Graph, FrontendError> {
    load_reported(files, options, plugins, ops).map(|(graph, _)| graph)
}

/// [`load`], with [`decode_reported`]'s warnings for the layer types a
/// user plugin maps: built-in plugins are written against the flattened
/// view and never read a dropped field, so only a user's plugin may be
/// missing one.
pub fn load_reported(
    files: &CaffeFiles,
    options: &ConvertOptions,
    plugins: &PluginRegistry,
    ops: &OpRegistry,
) -> Result<(Graph, Vec<String>), FrontendError> {
    let (mut framework, warnings) = decode_reported(files)?;
    custom_blobs::declare_plugin_blobs(&mut framework, plugins)?;
    let graph = convert(&framework, plugins, ops, options)?;
    let warnings = warnings
        .into_iter()
        .filter(|(kind, _)| {
            plugins
                .get(Framework::Caffe, kind)
                .is_some_and(|plugin| !plugin.builtin)
        })
        .map(|(_, message)| message)
        .collect();
    Ok((graph, warnings))
}

#[cfg(test)]
mod tests;
