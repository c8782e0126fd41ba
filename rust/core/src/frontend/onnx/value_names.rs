//! Every value name a model mentions: its graph's, its subgraphs' (to any
//! depth) and its functions' bodies'. Function inlining gives the values it
//! creates fresh names; this is what "fresh" is checked against, so that a
//! model which already uses a name of the inliner's form (`<call>/<f>#<k>/
//! <value>`, legal ONNX) neither fails to load nor, worse, has an inlined
//! value shadow one a subgraph reads.

use super::pb;
use rustc_hash::FxHashSet;

/// The names, borrowed from the decoded model. Names that are not UTF-8
/// are left out: the decoder rejects their nodes anyway.
pub(super) fn mentioned_names<'m>(
    graph: &'m pb::GraphProtoWithSliceNodes,
    functions: &'m [pb::FunctionProto],
) -> FxHashSet<&'m str> {
    let mut names = Names::default();
    names.value_infos(&graph.input);
    names.value_infos(&graph.output);
    names.initializers(&graph.initializer);
    for node in &graph.node {
        for value in node.input.iter().chain(&node.output) {
            if let Ok(text) = std::str::from_utf8(value) {
                names.add(text);
            }
        }
        names.attributes(&node.attribute);
    }
    for function in functions {
        for value in function.input.iter().chain(&function.output) {
            names.add(value);
        }
        names.nodes(&function.node);
    }
    names.0
}

#[derive(Default)]
struct Names<'m>(FxHashSet<&'m str>);

impl<'m> Names<'m> {
    fn add(&mut self, name: &'m str) {
        if !name.is_empty() {
            self.0.insert(name);
        }
    }

    fn value_infos(&mut self, infos: &'m [pb::ValueInfoProto]) {
        for info in infos {
            self.add(&info.name);
        }
    }

    fn initializers(&mut self, tensors: &'m [pb::TensorProto]) {
        for tensor in tensors {
            self.add(&tensor.name);
        }
    }

    fn nodes(&mut self, nodes: &'m [pb::NodeProto]) {
        for node in nodes {
            for value in node.input.iter().chain(&node.output) {
                self.add(value);
            }
            self.attributes(&node.attribute);
        }
    }

    /// The names inside the attributes' subgraphs. Recursion is bounded by
    /// the nesting prost accepted when it decoded them.
    fn attributes(&mut self, attributes: &'m [pb::AttributeProto]) {
        for attr in attributes {
            for graph in attr.g.iter().chain(&attr.graphs) {
                self.value_infos(&graph.input);
                self.value_infos(&graph.output);
                self.initializers(&graph.initializer);
                self.nodes(&graph.node);
            }
        }
    }
}
