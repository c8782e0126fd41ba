//! ONNX: `.onnx` models (a `ModelProto`, decoded with prost against
//! opgraph's own `onnx.proto`) mapped onto IR ops by ONNX parser plugins
//! with GE's semantics (ATC `--framework=5`).
//!
//! # The framework graph an ONNX model becomes (the contract with plugins)
//! - Each initializer is a `Const` op named after it, with attrs `value`
//!   (the tensor; raw and external bytes borrowed, not copied) and `dtype`.
//!   A graph input that is also an initializer is that constant (IR >= 4).
//! - Each other graph input is a `Placeholder` op named after it, with
//!   attrs `dtype` and `shape` (ListInt, -1 for a symbolic or unknown dim;
//!   no `shape` when the rank is unknown) and, when any dim is symbolic,
//!   `dim_params` (ListStr, the `dim_param` names, "" elsewhere).
//! - Each node is an op of origin type `domain::opset::op_type`, where
//!   opset is the model's version for the node's domain (`ai.onnx` for the
//!   empty domain); see [`opset`] for how a plugin is chosen. The op is
//!   named after the node, or after its first output when the node has no
//!   name; a name already taken gets `_2`, `_3` ... Its inputs are the
//!   node's, trailing absent ones dropped and absent ones in between kept
//!   as inputs of node "" (the converter leaves that optional IR input
//!   unconnected). Attributes keep their ONNX names; `_output_count` gives
//!   the node's output count.
//! - A GRAPH attribute (If's branches, Loop's and Scan's body) is a
//!   function named `<node>/<attr>` (attr value: a named attrs of that
//!   name; GRAPHS: a list of names). The body's formal inputs, then the
//!   values it reads from enclosing graphs, are its `_Arg` ops; the node
//!   takes those outer values as extra inputs after its own (their count in
//!   `_captured_inputs`).
//! - A node calling a model-local function (`ModelProto.functions`) is
//!   replaced by the function's nodes before anything else sees it (see
//!   `functions`): plugins never see the call, only the inlined nodes,
//!   named `<call>/<function>#<k>/<node>` (their values likewise; `k`
//!   counts calls and skips any count whose value names the model already
//!   uses), whose origin types use the function's `opset_import`.
//! - The model's graph outputs are the IR graph's outputs, unless the user
//!   names others.
//!
//! # Modules
//! [`opset`] (versions and origin types), `graph` (GraphProto → ops),
//! `functions` (model-local functions expanded at their calls;
//! `value_names`, the names their values must avoid),
//! `attrs`, `tensor` and `external` (values), `builtin` (the plugins).

use super::convert::{convert, ConvertOptions};
use super::error::decode_error_text;
use super::mapped::map_file;
use super::{FrameworkGraph, FrameworkInput, FrontendError, ParserPlugin, PluginRegistry};
use crate::graph::Graph;
use crate::op::OpRegistry;
use external::ExternalFiles;
use prost::Message;
use std::path::Path;

mod attrs;
mod builtin;
mod conv_kernels;
pub mod dtype;
mod external;
mod functions;
pub mod graph;
mod node_slices;
pub mod opset;
pub mod pb;
pub mod symbols;
mod tensor;
mod value_names;

pub use functions::{MAX_FUNCTION_DEPTH, MAX_INLINED_NODES};
pub use graph::{CAPTURE_COUNT_ATTR, DIM_PARAMS_ATTR, MAX_SUBGRAPH_DEPTH, OUTPUT_COUNT_ATTR};
pub use opset::DEFAULT_DOMAIN;

/// The graph name given to models whose graph has none.
pub const DEFAULT_GRAPH_NAME: &str = "onnx_graph";

/// Every built-in ONNX plugin.
pub fn builtin_plugins() -> Vec<ParserPlugin> {
    builtin::plugins()
}

/// A decoded model: its framework graph, and what opgraph needs besides.
#[derive(Clone, Debug)]
pub struct DecodedModel {
    pub graph: FrameworkGraph,
    /// The graph's outputs as framework tensor names (`node:i`).
    pub outputs: Vec<String>,
    /// Every value of the main graph and the framework tensor holding it,
    /// in no particular order; [`DecodedModel::value_tensors`] names them.
    pub values: Vec<(String, FrameworkInput)>,
    /// The model's opset versions by domain.
    pub opsets: Vec<(String, i64)>,
    pub ir_version: i64,
    pub producer: String,
    /// Each graph input's symbolic dims (`dim_param`, "" elsewhere), for
    /// inputs that have any.
    pub symbols: Vec<(String, Vec<String>)>,
}

/// A framework tensor's name, `node:i`.
fn tensor_name(input: &FrameworkInput) -> String {
    format!("{}:{}", input.node, input.index)
}

impl DecodedModel {
    /// Every main-graph value → the framework tensor (`node:i`) holding it,
    /// sorted by value name.
    pub fn value_tensors(&self) -> Vec<(String, String)> {
        let mut named: Vec<(String, String)> = self
            .values
            .iter()
            .map(|(value, input)| (value.clone(), tensor_name(input)))
            .collect();
        named.sort_unstable();
        named
    }

    /// [`DecodedModel::value_tensors`] split by whether `graph`, the model
    /// converted, holds the tensor: the values it holds, and (sorted) those
    /// of ops no graph output needs, which conversion prunes as ATC does.
    pub fn value_tensors_in(&self, graph: &Graph) -> (Vec<(String, String)>, Vec<String>) {
        let mut held = Vec::with_capacity(self.values.len());
        let mut pruned = Vec::new();
        for (value, input) in &self.values {
            if graph.find(&input.node).is_some() {
                held.push((value.clone(), tensor_name(input)));
            } else {
                pruned.push(value.clone());
            }
        }
        held.sort_unstable();
        pruned.sort_unstable();
        (held, pruned)
    }
}

/// Decodes the model file at `path`; external data is read relative to its
/// directory. Errors name the file.
pub fn decode_file(path: &Path) -> Result<DecodedModel, FrontendError> {
    let data = map_file(path, "an ONNX model (.onnx)")?;
    let base = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .map(Path::to_path_buf);
    let fallback = path.file_stem().map_or_else(
        || DEFAULT_GRAPH_NAME.to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    decode_model(data, base.as_deref(), &fallback).map_err(|e| match e {
        FrontendError::Decode(why) => FrontendError::Decode(format!("'{}': {why}", path.display())),
        other => other,
    })
}

/// Decodes a serialized `ModelProto`. `base_dir` is where external data
/// lives (`None`: a model with external data is an error); the graph is
/// named after the ONNX graph's name, else `fallback_name`.
pub fn decode_model(
    data: bytes::Bytes,
    base_dir: Option<&Path>,
    fallback_name: &str,
) -> Result<DecodedModel, FrontendError> {
    let model = pb::ModelProtoWithSliceNodes::decode(data).map_err(|e| {
        FrontendError::Decode(format!(
            "not an ONNX model (ModelProto): {}",
            decode_error_text(&e)
        ))
    })?;
    let Some(graph) = &model.graph else {
        return Err(FrontendError::Decode(
            "the ONNX model has no graph (ModelProto field 7)".into(),
        ));
    };
    if model.opset_import.is_empty() {
        return Err(FrontendError::Decode(
            "the ONNX model imports no operator set (opset_import is empty)".into(),
        ));
    }
    let opsets = opset::opsets(&model.opset_import)?;
    let mut decoder =
        graph::Decoder::new(&opsets, ExternalFiles::new(base_dir.map(Path::to_path_buf)))
            .with_functions(&model.functions, graph)?;
    let decoded = decoder.decode_graph(graph::GraphParts::of_model(graph), None)?;
    let functions = decoder.functions;
    let mut opsets: Vec<(String, i64)> = opsets.into_iter().collect();
    opsets.sort_unstable();
    let graph = FrameworkGraph {
        name: if graph.name.is_empty() {
            fallback_name.to_owned()
        } else {
            graph.name.clone()
        },
        framework: super::Framework::Onnx,
        ops: decoded.ops,
        functions,
    };
    Ok(DecodedModel {
        symbols: symbols::input_symbols(&graph),
        outputs: decoded.outputs.iter().map(tensor_name).collect(),
        // Moved, not formatted: only a caller that reports them pays for names.
        values: decoded.values,
        opsets,
        ir_version: model.ir_version,
        producer: format!("{} {}", model.producer_name, model.producer_version)
            .trim()
            .to_owned(),
        graph,
    })
}

/// Decode → plugins: an ONNX model as an (uninferred) IR graph, with the
/// decoded model's value map. The model's outputs are the graph's unless
/// `options.outputs` names others.
pub fn load_reported(
    path: &Path,
    options: &ConvertOptions,
    plugins: &PluginRegistry,
    ops: &OpRegistry,
) -> Result<(Graph, DecodedModel), FrontendError> {
    let mut model = decode_file(path)?;
    let mut options = options.clone();
    if options.outputs.is_empty() {
        options.outputs = model.outputs.clone();
    }
    let extra = symbols::propagate(
        &model.symbols,
        &symbols::declared_shapes(&model.graph),
        &options.input_shapes,
    )?;
    options.input_shapes.extend(extra);
    let graph = convert(&model.graph, plugins, ops, &options)?;
    // The framework graph is not needed after conversion (its constants
    // live on in the IR); keep only what the report uses.
    model.graph.ops = Vec::new();
    model.graph.functions = Vec::new();
    Ok((graph, model))
}

/// [`load_reported`] without the report.
pub fn load(
    path: &Path,
    options: &ConvertOptions,
    plugins: &PluginRegistry,
    ops: &OpRegistry,
) -> Result<Graph, FrontendError> {
    load_reported(path, options, plugins, ops).map(|(graph, _)| graph)
}

#[cfg(test)]
mod tests;
