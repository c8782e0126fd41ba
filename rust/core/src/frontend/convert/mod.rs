//! Framework graph → IR graph: every framework op goes through its parser
//! plugin (input edits, parse_params / fusion_parse_params, optional
//! parse_op_to_graph), function bodies become subgraphs, and the result is
//! wired by the IR prototypes.
//!
//! The steps, in order:
//! 1. prune to what `ConvertOptions::outputs` need ([`prune`]);
//! 2. report every origin op type without a plugin at once ([`support`]);
//! 3. order the ops producers first; a TF v1 loop's NextIteration → Merge
//!    edge is left out and patched with `Graph::set_input` once the graph
//!    is built ([`order`], [`body`]);
//! 4. map each op ([`node`]): input edits ([`edits`]), parsing, wiring by
//!    flat position over the prototype's ports ([`ports`]).
//!
//! Conventions the rest of opgraph can rely on:
//! - Placeholder (mapped to Data) becomes a graph input with `index` in
//!   framework order, its descriptor from `dtype` and `shape` (or
//!   `input_shapes`). Const keeps its `value` tensor (the decoder's bytes,
//!   not copied) as the output descriptor's host value, not as an attribute;
//!   a constant without host bytes (a string tensor: the decoder's opaque
//!   tensor) keeps only its dtype and shape.
//! - A function attribute (`then_branch`, `cond`, `f` ...; a list such as
//!   Case's `branches` gives `branches0`, `branches1` ...) becomes a
//!   subgraph of that name, converted from the library once per function
//!   (and argument offset) and shared by every call site; a graph whose
//!   inlined size passes `MAX_EXPANDED_NODES` is refused. Its
//!   `_Arg` ops become Data nodes whose `index` counts from the caller's
//!   first DYNAMIC input (If's and Case's selector is input 0); its returns
//!   are the subgraph's outputs. A function reached again while converting
//!   itself is an error.
//! - NoOp is dropped; its control inputs pass on to its control consumers.
//! - Formats: a draft's output formats go on the output descriptors (origin
//!   and storage). The IR has no per-input descriptor, so every input's
//!   format is recorded in the string-list attribute `_input_formats` (flat
//!   input order, "" where unset); a format the plugin set for one input
//!   explicitly (Conv2D's HWCN filter) also goes on the Const or Data that
//!   produces it (through Identity), whose descriptor inference reads.
//! - Default graph outputs are every output of the sinks (ops nothing
//!   consumes by data or control edge), other than inputs and constants.

mod body;
mod edits;
mod node;
mod order;
mod ports;
mod prune;
mod resolve;
mod support;

#[cfg(test)]
mod tests;

use super::{Framework, FrameworkGraph, FrameworkOp, FrontendError, PluginRegistry};
use crate::graph::{check_expansion, Graph};
use crate::op::OpRegistry;
use crate::types::{AttrValue, Shape};
use body::{Context, ConvertedBody, GraphBuilder};
use resolve::PluginResolver;
use rustc_hash::FxHashMap;
use std::fmt;
use std::sync::Arc;

/// The attribute holding the format of each input (see the module docs).
pub const INPUT_FORMATS_ATTR: &str = "_input_formats";

/// What the user asked of the conversion.
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions {
    /// Replaces the shape of the named Placeholder ops (e.g. `x` → [1, 224, 224, 3]).
    pub input_shapes: Vec<(String, Shape)>,
    /// Graph outputs as tensor names (`node` or `node:i`); the graph is pruned
    /// to what they need (ATC's `out_nodes`). Empty: the framework's sinks.
    pub outputs: Vec<String>,
}

/// Which graph an op belongs to, for messages: "the graph" or "function 'f'".
#[derive(Clone, Debug, PartialEq, Eq)]
enum Place {
    Top,
    Function(String),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Top => f.write_str("the graph"),
            Place::Function(name) => write!(f, "function '{name}'"),
        }
    }
}

/// Maps `framework` onto IR ops with `plugins`; ops are laid out by `ops`.
pub fn convert(
    framework: &FrameworkGraph,
    plugins: &PluginRegistry,
    ops: &OpRegistry,
    options: &ConvertOptions,
) -> Result<Graph, FrontendError> {
    let place = Place::Top;
    let names = order::index_names(&framework.ops, &place)?;
    let requested: Vec<_> = options
        .outputs
        .iter()
        .map(|o| prune::parse_output(o))
        .collect();
    let members = prune::needed_ops(&framework.ops, &names, &requested)?;
    let functions = framework.function_index();
    let plugins = PluginResolver::new(plugins, framework.framework);
    support::check_supported(
        &functions,
        members.iter().map(|&i| &framework.ops[i]),
        &plugins,
    )?;
    check_input_shapes(framework, options)?;
    let order::Ordered { order, sinks } =
        order::producers_first(&framework.ops, &names, &members, &place)?;

    let mut cx = Context {
        framework,
        plugins,
        ops,
        functions,
        calls: Vec::new(),
        bodies: FxHashMap::default(),
        nested: 0,
    };
    let mut builder = GraphBuilder::new(&mut cx, &framework.ops, names, place, 0);
    builder.input_shapes = &options.input_shapes;
    builder.convert_all(&order)?;
    let outputs = if requested.is_empty() {
        builder.sink_outputs(&sinks)
    } else {
        requested
    };
    let graph = builder.finish(&outputs)?;
    check_expansion(&graph).map_err(|e| FrontendError::Graph(e.to_string()))?;
    Ok(graph)
}

/// Every `input_shapes` entry must name a Placeholder of the model and, where
/// the model declares that input's rank (its `shape` as decoded, before any
/// plugin), keep it: a shape of another rank is a mistake the input's readers
/// would only report later, by their own names. Both hold for an input that
/// `outputs` prunes away too: the entry is wrong for the model either way.
fn check_input_shapes(
    framework: &FrameworkGraph,
    options: &ConvertOptions,
) -> Result<(), FrontendError> {
    if options.input_shapes.is_empty() {
        return Ok(());
    }
    let placeholders: Vec<&FrameworkOp> = framework
        .ops
        .iter()
        .filter(|op| op.op_type == "Placeholder")
        .collect();
    for (name, shape) in &options.input_shapes {
        let Some(input) = placeholders.iter().find(|op| op.name == *name) else {
            // Inputs decode as Placeholder ops; only TensorFlow users know them so.
            let (what, listed) = match framework.framework {
                Framework::TensorFlow => ("a Placeholder", "placeholders"),
                _ => ("an input", "inputs"),
            };
            let names: Vec<&str> = placeholders.iter().map(|op| op.name.as_str()).collect();
            return Err(FrontendError::Graph(format!(
                "input_shapes names '{name}', which is not {what} of the model (its {listed}: {})",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )));
        };
        let Some(AttrValue::ListInt(dims)) = input.attrs.get("shape") else {
            continue;
        };
        let Ok(declared) = Shape::new(dims) else {
            continue; // a malformed declared shape has no rank to keep; the given one replaces it
        };
        if let (Some(declared_rank), Some(given_rank)) = (declared.rank(), shape.rank()) {
            if declared_rank != given_rank {
                return Err(FrontendError::Graph(format!(
                    "input_shapes gives input '{name}' the shape {shape} (rank {given_rank}); \
                     the model declares {declared} (rank {declared_rank})"
                )));
            }
        }
    }
    Ok(())
}

/// How deeply function bodies may nest (calls within calls): a bound on
/// the recursion an untrusted model can cause.
pub const MAX_FUNCTION_DEPTH: usize = 64;

/// Library function `name` as a body graph whose arguments start at caller
/// input `arg_offset`. `referrer` names the attribute that calls it. Each
/// (function, offset) is converted once; later call sites share the body.
fn convert_function<'f>(
    cx: &mut Context<'f>,
    name: &str,
    arg_offset: usize,
    referrer: impl FnOnce() -> String,
) -> Result<Arc<Graph>, FrontendError> {
    let Some(function) = cx.functions.get(name) else {
        return Err(FrontendError::Graph(format!(
            "{} names function '{name}', which is not in the function library",
            referrer()
        )));
    };
    let name: &'f str = &function.name;
    if cx.calls.iter().any(|c| c == name) {
        let mut chain = cx.calls.clone();
        chain.push(name.to_owned());
        return Err(FrontendError::Graph(format!(
            "function '{name}' calls itself ({}); recursion cannot be converted to a static graph",
            chain.join(" -> ")
        )));
    }
    let too_deep = |depth: usize, referrer: String| {
        FrontendError::Graph(format!(
            "{referrer} calls function '{name}' nested {depth} deep; opgraph converts at most {MAX_FUNCTION_DEPTH} levels",
        ))
    };
    if let Some(body) = cx.bodies.get(&(name, arg_offset)) {
        let depth = cx.calls.len() + body.depth;
        if depth > MAX_FUNCTION_DEPTH {
            return Err(too_deep(depth, referrer()));
        }
        cx.nested = cx.nested.max(body.depth);
        return Ok(Arc::clone(&body.graph));
    }
    if cx.calls.len() >= MAX_FUNCTION_DEPTH {
        return Err(too_deep(cx.calls.len() + 1, referrer()));
    }
    cx.calls.push(name.to_owned());
    let outer_nested = std::mem::replace(&mut cx.nested, 0);
    let result = (|| {
        let place = Place::Function(name.to_owned());
        let names = order::index_names(&function.ops, &place)?;
        let members: Vec<usize> = (0..function.ops.len()).collect();
        let order = order::producers_first(&function.ops, &names, &members, &place)?.order;
        let mut builder = GraphBuilder::new(cx, &function.ops, names, place, arg_offset as i64);
        builder.convert_all(&order)?;
        builder.finish(&function.outputs)
    })();
    cx.calls.pop();
    let depth = cx.nested + 1;
    cx.nested = outer_nested.max(depth);
    let graph = Arc::new(result?);
    cx.bodies.insert(
        (name, arg_offset),
        ConvertedBody {
            graph: Arc::clone(&graph),
            depth,
        },
    );
    Ok(graph)
}
