//! The value names a model mentions (its graph's, its subgraphs' to any
//! depth, and its functions' bodies'), reduced to what function inlining
//! must avoid. A call's copy of a function names its values
//! `<call>/<function>#<k>/<value>`; a model may already use such names
//! (legal ONNX), and a clash would fail the load or, in a branch, let an
//! inlined value shadow the outer one the branch reads. So `k` must not
//! begin any name the model uses: the sets hold the prefixes of names that
//! end in `#<digits>` just before a `/` and hold as many `/` as a call's
//! prefix can (a few per name, however long the name).

use super::pb;
use rustc_hash::FxHashSet;

/// The numbered prefixes of every name the model mentions, borrowed from
/// the decoded model. Names that are not UTF-8 are left out: the decoder
/// rejects their nodes anyway.
pub(super) fn mentioned_prefixes<'m>(
    graph: &'m pb::GraphProtoWithSliceNodes,
    functions: &'m [pb::FunctionProto],
    slashes: &FxHashSet<usize>,
) -> FxHashSet<&'m str> {
    let mut names = Names {
        prefixes: FxHashSet::default(),
        slashes,
    };
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
    names.prefixes
}

/// Every prefix of `name` that holds a number of `/` in `slashes`, ends in
/// `#` and one or more digits, and is followed by `/`: with slashes {0, 1},
/// `a#1/b#22/c#3/d` gives `a#1` and `a#1/b#22`.
pub(super) fn numbered_prefixes<'n, 's>(
    name: &'n str,
    slashes: &'s FxHashSet<usize>,
) -> impl Iterator<Item = &'n str> + use<'n, 's> {
    let most = slashes.iter().copied().max().unwrap_or(0);
    name.match_indices('/')
        .take(most.saturating_add(1))
        .enumerate()
        .filter_map(move |(held, (slash, _))| {
            let before = &name[..slash];
            let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            (slashes.contains(&held) && digits > 0 && before[..slash - digits].ends_with('#'))
                .then_some(before)
        })
}

struct Names<'m, 's> {
    prefixes: FxHashSet<&'m str>,
    slashes: &'s FxHashSet<usize>,
}

impl<'m> Names<'m, '_> {
    fn add(&mut self, name: &'m str) {
        self.prefixes.extend(numbered_prefixes(name, self.slashes));
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
    use rustc_hash::FxHashSet;

    #[test]
    fn numbered_prefixes_end_in_a_count_before_a_slash() {
        let all: FxHashSet<usize> = (0..8).collect();
        let found = |name| numbered_prefixes(name, &all).collect::<Vec<_>>();
        assert_eq!(found("a#1/b#22/c"), ["a#1", "a#1/b#22"]);
        assert_eq!(found("y/f#3/t"), ["y/f#3"]);
        assert!(found("y/f#/t").is_empty());
        assert!(found("y/f#3").is_empty());
        assert!(found("y/f3/t#4").is_empty());
        assert_eq!(found("#7/é#8/"), ["#7", "#7/é#8"]);
    }

    #[test]
    fn only_prefixes_as_long_as_a_calls_are_kept() {
        // Functions without '/' in their names: a prefix holds one '/'.
        let one: FxHashSet<usize> = [1].into_iter().collect();
        let found = |name| numbered_prefixes(name, &one).collect::<Vec<_>>();
        assert_eq!(found("a#1/b#22/c#3/d"), ["a#1/b#22"]);
        assert_eq!(found("y/f#3/t"), ["y/f#3"]);
        // A long name of counts costs one prefix, not one per slash.
        let long = "#1/".repeat(10_000);
        assert_eq!(found(&long), ["#1/#1"]);
    }
}
