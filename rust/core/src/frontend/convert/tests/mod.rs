//! Conversion tests on framework graphs built by hand, laid out as
//! TensorFlow's GraphDefs and FunctionDefs are (node names, input strings,
//! attrs as the decoder converts them); shapes are checked after inference
//! against hand-computed ones.

mod errors;
mod functions;
mod graphs;
mod libraries;
mod plugins;
mod v1_conds;
mod v1_loops;

use super::{convert, ConvertOptions};
use crate::frontend::test_graphs::*;
use crate::frontend::{FrameworkGraph, FrameworkInput, FrameworkOp, FrontendError, PluginRegistry};
use crate::graph::{Graph, OutputRef};
use crate::infer::{infer_graph, InferOptions};
use crate::op::OpRegistry;
use crate::types::{AttrValue, DataType, Shape};

pub(super) fn convert_with(
    framework: &FrameworkGraph,
    plugins: &PluginRegistry,
    options: &ConvertOptions,
) -> Result<Graph, FrontendError> {
    convert(framework, plugins, &OpRegistry::with_builtins(), options)
}

/// Converts with the built-in plugins and infers.
pub(super) fn convert_and_infer(framework: &FrameworkGraph, options: &ConvertOptions) -> Graph {
    let mut g = convert_with(framework, &PluginRegistry::with_builtins(), options)
        .unwrap_or_else(|e| panic!("conversion failed: {e}"));
    infer(&mut g);
    g
}

pub(super) fn infer(g: &mut Graph) {
    if let Err(failures) = infer_graph(g, &OpRegistry::with_builtins(), InferOptions::default()) {
        let text: Vec<String> = failures.iter().map(|f| f.to_string()).collect();
        panic!("inference failed: {}", text.join("\n"));
    }
}

/// Shape of output `index` of node `name`.
pub(super) fn shape(g: &Graph, name: &str, index: u32) -> Vec<i64> {
    let id = g.find(name).unwrap_or_else(|| panic!("no node '{name}'"));
    g.tensor(OutputRef::new(id, index)).shape().dims().to_vec()
}

/// The error text of a failed conversion with the built-in plugins.
pub(super) fn error(framework: &FrameworkGraph, options: &ConvertOptions) -> String {
    match convert_with(framework, &PluginRegistry::with_builtins(), options) {
        Ok(_) => panic!("conversion should fail"),
        Err(e) => e.to_string(),
    }
}
