//! The value names a model mentions (its graph's, its subgraphs' to any
//! depth, and its functions' bodies'), reduced to what function inlining
//! must avoid. A call's copy of a function names its values
//! `<call>/<function>#<k>/<value>`; a model may already use such names
//! (legal ONNX), and a clash would fail the load or, in a branch, let an
//! inlined value shadow the outer one the branch reads. So `k` must not
//! begin any name the model uses: the sets hold every prefix of a name that
//! ends in `#<digits>` just before a `/`.

use super::pb;
use rustc_hash::FxHashSet;

/// The numbered prefixes of every name the model mentions, borrowed from
/// the decoded model. Names that are not UTF-8 are left out: the decoder
/// rejects their nodes anyway.
pub(super) fn mentioned_prefixes<'m>(
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
        // Graph-valued attribute defaults are copied into calls.
        names.attributes(&function.attribute_proto);
    }
    names.0
}

/// Every prefix of `name` that ends in `#` and one or more digits and is
/// followed by `/`: `a#1/b#22/c` gives `a#1` and `a#1/b#22`.
pub(super) fn numbered_prefixes(name: &str) -> impl Iterator<Item = &str> {
    name.match_indices('/').filter_map(move |(slash, _)| {
        let before = &name[..slash];
        let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        (digits > 0 && before[..slash - digits].ends_with('#')).then_some(before)
    })
}

#[derive(Default)]
struct Names<'m>(FxHashSet<&'m str>);

impl<'m> Names<'m> {
    fn add(&mut self, name: &'m str) {
        self.0.extend(numbered_prefixes(name));
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

#[cfg(test)]
mod tests {
    use super::numbered_prefixes;

    #[test]
    fn numbered_prefixes_end_in_a_count_before_a_slash() {
        let found = |name| numbered_prefixes(name).collect::<Vec<_>>();
        assert_eq!(found("a#1/b#22/c"), ["a#1", "a#1/b#22"]);
        assert_eq!(found("y/f#3/t"), ["y/f#3"]);
        assert!(found("y/f#/t").is_empty());
        assert!(found("y/f#3").is_empty());
        assert!(found("y/f3/t#4").is_empty());
        assert_eq!(found("#7/é#8/"), ["#7", "#7/é#8"]);
    }
}
