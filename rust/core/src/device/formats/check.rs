//! The validity check of a prepared graph: every edge delivers its tensor
//! in the storage its consumer needs (as `decide` defines it), every
//! output is stored as its node's rule says, every TransData converts
//! what its attributes say, and graph outputs are in their origin format.
//! Bodies are checked too.

use super::decide::{decide, Out, View};
use super::edges::constant_outputs;
use super::rules::{rule, Rule};
use super::spec::{Device, Storage};
use crate::device::dead_code::DeadCode;
use crate::device::soc::Soc;
use crate::graph::{topological_order, Graph};
use crate::op::OpRegistry;
use crate::types::{AttrValue, TensorDesc};
use rustc_hash::FxHashSet;
use std::fmt;
use std::sync::Arc;

/// One place where storage does not fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The node (`caller/body/name` inside a body), or `<graph outputs>`.
    pub node: String,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node '{}': {}", self.node, self.message)
    }
}

/// Every violation in `graph` and its bodies (empty: the storage is consistent).
pub fn check_formats(graph: &Graph, registry: &OpRegistry, soc: &Soc) -> Vec<Violation> {
    let mut found = Vec::new();
    let mut checked = FxHashSet::default();
    check_graph(graph, registry, soc, "", &mut checked, &mut found);
    found
}

fn stored(desc: &TensorDesc) -> String {
    format!(
        "{}{} (origin {}{})",
        desc.storage_format, desc.storage_shape, desc.origin_format, desc.origin_shape
    )
}

fn wanted(storage: Storage, desc: &TensorDesc) -> String {
    match storage {
        Storage::Plain => format!("its origin format {}", desc.origin_format),
        Storage::Device(d) => match d.layout() {
            Some(layout) if d != Device::FractalNz => format!("{} read as {layout}", d.format()),
            _ => d.format().to_string(),
        },
    }
}

fn check_graph(
    graph: &Graph,
    registry: &OpRegistry,
    soc: &Soc,
    prefix: &str,
    checked: &mut FxHashSet<*const Graph>,
    found: &mut Vec<Violation>,
) {
    let mut report = |node: &str, message: String| {
        found.push(Violation {
            node: format!("{prefix}{node}"),
            message,
        })
    };
    let order = match topological_order(graph) {
        Ok(order) => order,
        Err(e) => return report("<graph>", e.to_string()),
    };
    let dead_code = DeadCode::of(graph, &order);
    let constant = constant_outputs(graph, &order, &dead_code);
    let view = View {
        graph,
        registry,
        soc,
        constant: &constant,
        dead_code: &dead_code,
    };
    for id in graph.node_ids() {
        let node = graph.node(id);
        let decision = decide(&view, id);
        for (i, need) in decision.inputs.iter().enumerate() {
            let (Some(storage), Some(from)) = (need, node.inputs[i]) else {
                continue;
            };
            let desc = graph.tensor(from);
            if !storage.holds(desc, soc) {
                let producer = &graph.node(from.node).name;
                report(
                    &node.name,
                    format!(
                        "input {i} ('{producer}' output {}) is stored as {}, but it needs {}",
                        from.index,
                        stored(desc),
                        wanted(*storage, desc)
                    ),
                );
            }
        }
        for (o, out) in decision.outputs.iter().enumerate() {
            let desc = &node.outputs[o];
            match *out {
                Out::Store(storage) if !storage.holds(desc, soc) => report(
                    &node.name,
                    format!(
                        "output {o} is stored as {}, but {} stores it as {}",
                        stored(desc),
                        node.op_type,
                        wanted(storage, desc)
                    ),
                ),
                Out::Copy(i) => {
                    let Some(src) = node.inputs.get(i).copied().flatten() else {
                        continue;
                    };
                    let src = graph.tensor(src);
                    let same = src.storage_format == desc.storage_format
                        && src.storage_shape == desc.storage_shape
                        && src.origin_format == desc.origin_format;
                    if !same {
                        report(
                            &node.name,
                            format!(
                                "output {o} is stored as {}, but it passes input {i} through, stored as {}",
                                stored(desc),
                                stored(src)
                            ),
                        );
                    }
                }
                _ => {}
            }
        }
        if rule(&node.op_type) == Rule::TransData {
            if let Some(problem) = trans_data_problem(graph, node) {
                report(&node.name, problem);
            }
        }
    }
    for (k, &out) in graph.outputs().iter().enumerate() {
        let desc = graph.tensor(out);
        if !Storage::Plain.holds(desc, soc) {
            found.push(Violation {
                node: format!("{prefix}<graph outputs>"),
                message: format!(
                    "output {k} ('{}' output {}) is stored as {}, but graph outputs are in their origin format",
                    graph.node(out.node).name,
                    out.index,
                    stored(desc)
                ),
            });
        }
    }
    for node in graph.nodes() {
        for body in &node.subgraphs {
            // A body shared by several call sites is checked once (its
            // violations named at the first).
            if checked.insert(Arc::as_ptr(&body.graph)) {
                let prefix = format!("{prefix}{}/{}/", node.name, body.name);
                check_graph(&body.graph, registry, soc, &prefix, checked, found);
            }
        }
    }
}

/// What is wrong with a TransData node, if anything: it must convert from
/// its input's storage format to its output's, keeping dtype and origin shape.
fn trans_data_problem(graph: &Graph, node: &crate::graph::Node) -> Option<String> {
    let from = node.inputs.first().copied().flatten()?;
    let (src, dst) = (graph.tensor(from), node.outputs.first()?);
    let attr = |name: &str| match node.attrs.get(name) {
        Some(AttrValue::Str(s)) => s.clone(),
        _ => String::new(),
    };
    if attr("src_format") != src.storage_format.name() {
        return Some(format!(
            "src_format is '{}', but its input is stored as {}",
            attr("src_format"),
            src.storage_format
        ));
    }
    if attr("dst_format") != dst.storage_format.name() {
        return Some(format!(
            "dst_format is '{}', but its output is stored as {}",
            attr("dst_format"),
            dst.storage_format
        ));
    }
    if src.origin_shape != dst.origin_shape || src.dtype != dst.dtype {
        return Some(format!(
            "it changes the tensor: {} in, {} out",
            src.summary(),
            dst.summary()
        ));
    }
    None
}
