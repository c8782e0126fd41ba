//! Model-local functions (`ModelProto.functions`, `FunctionProto`): a node
//! whose (domain, op_type, overload) names one is expanded in place while
//! decoding. Its body's nodes are copied with fresh value names (the
//! function's formal inputs and outputs bound to the call's values),
//! attribute references (`ref_attr_name`) resolved against the call's
//! attributes (or the function's defaults), and the function's own
//! `opset_import` governing its nodes. Calls inside a body are expanded in
//! turn.
//!
//! A hostile model can nest calls so that the expansion grows
//! exponentially (f0 calls f1 twice, f1 calls f2 twice ...) or recurse:
//! expansion stops with an error naming the function once the model's
//! inlined nodes pass [`MAX_INLINED_NODES`] or calls nest deeper than
//! [`MAX_FUNCTION_DEPTH`], and a function reached again from itself is an
//! error naming the cycle.

use super::node_slices::{GraphNodes, NodeProtoSlices, NodeTexts, NodeView};
use super::opset::{canonical_domain, opsets, Opsets};
use super::pb;
use super::value_names::{mentioned_prefixes, numbered_prefixes};
use crate::frontend::FrontendError;
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// The most nodes function expansion may add to one model, over all call
/// sites and nesting levels (a node with several outputs counts once per
/// output, and the nodes of a function's subgraphs count too).
pub const MAX_INLINED_NODES: usize = 100_000;
/// How deeply function calls may nest (a call within a called function's
/// body is one level deeper).
pub const MAX_FUNCTION_DEPTH: usize = 32;

/// A function's key: (canonical domain, name, overload).
type Key = (String, String, String);

fn key_of(domain: &str, name: &str, overload: &str) -> Key {
    (
        canonical_domain(domain).to_owned(),
        name.to_owned(),
        overload.to_owned(),
    )
}

fn show(key: &Key) -> String {
    match key.2.as_str() {
        "" => format!("{}::{}", key.0, key.1),
        overload => format!("{}::{}:{overload}", key.0, key.1),
    }
}

/// Where an inlined node comes from: the chain of functions it sits in
/// (outermost first) and the opsets its function imports.
pub(super) struct Scope {
    pub opsets: Opsets,
    chain: Vec<Key>,
}

/// A node to decode: the graph's own, or one copied out of a function body
/// (with the scope it was inlined in).
pub(super) struct Expanded<'g> {
    pub node: ExpandedNode<'g>,
    pub scope: Option<Rc<Scope>>,
}

/// A node of the graph (as decoded) or of a function body (the call's copy).
pub(super) enum ExpandedNode<'g> {
    /// The main graph's node at this position, borrowed from the file.
    Slices(usize, &'g NodeProtoSlices),
    /// A subgraph's node.
    Proto(&'g pb::NodeProto),
    /// Boxed: most nodes are not inlined, and the list moves every node.
    Inlined(Box<pb::NodeProto>),
}

impl<'g> ExpandedNode<'g> {
    /// Adds the node's text to `texts`; a main-graph node whose strings
    /// NodeProto's decoder would reject (not UTF-8) is an error naming its
    /// position (and its name, when that is text).
    pub fn push_to<'a>(&'a self, texts: &mut NodeTexts<'a>) -> Result<(), FrontendError> {
        match self {
            ExpandedNode::Slices(index, node) => texts.push_slices(node).map_err(|why| {
                let name = std::str::from_utf8(&node.name)
                    .ok()
                    .filter(|n| !n.is_empty())
                    .map_or(String::new(), |n| format!(" ('{n}')"));
                FrontendError::Decode(format!(
                    "node {index}{name} of the graph is not a valid NodeProto: {why}"
                ))
            }),
            ExpandedNode::Proto(node) => {
                texts.push_proto(node);
                Ok(())
            }
            ExpandedNode::Inlined(node) => {
                texts.push_proto(node);
                Ok(())
            }
        }
    }

    /// The function key the node would call; None when its strings are not
    /// text (no function has that key; [`Self::push_to`] rejects it).
    fn key(&self) -> Option<Key> {
        let (domain, op_type, overload) = match self {
            ExpandedNode::Slices(_, node) => (
                std::str::from_utf8(&node.domain).ok()?,
                std::str::from_utf8(&node.op_type).ok()?,
                std::str::from_utf8(&node.overload).ok()?,
            ),
            ExpandedNode::Proto(node) => (&*node.domain, &*node.op_type, &*node.overload),
            ExpandedNode::Inlined(node) => (&*node.domain, &*node.op_type, &*node.overload),
        };
        Some(key_of(domain, op_type, overload))
    }
}

/// The model's functions and what expanding them has used so far.
#[derive(Default)]
pub(super) struct Inliner<'m> {
    functions: FxHashMap<Key, &'m pb::FunctionProto>,
    inlined: usize,
    calls: usize,
    /// The prefixes ending in `#<digits>` of the value names the model
    /// uses and of those inlining has created (see [`numbered_prefixes`]):
    /// a call's prefix must be neither, so no name it makes is taken.
    mentioned: FxHashSet<&'m str>,
    created: FxHashSet<String>,
    /// How many `/` a call's prefix holds, per function name (the root has
    /// none): only prefixes of these lengths can ever clash.
    prefix_slashes: FxHashSet<usize>,
}

impl<'m> Inliner<'m> {
    /// The functions of a model whose main graph is `graph`; one defined
    /// twice is an error.
    pub fn new(
        functions: &'m [pb::FunctionProto],
        graph: &'m pb::GraphProtoWithSliceNodes,
    ) -> Result<Inliner<'m>, FrontendError> {
        let mut inliner = Inliner::default();
        if functions.is_empty() {
            return Ok(inliner);
        }
        inliner.prefix_slashes = functions
            .iter()
            .map(|f| 1 + f.name.matches('/').count())
            .collect();
        inliner.mentioned = mentioned_prefixes(graph, functions, &inliner.prefix_slashes);
        for f in functions {
            if f.name.is_empty() {
                return Err(FrontendError::Decode(
                    "the model has a function without a name".into(),
                ));
            }
            let key = key_of(&f.domain, &f.name, &f.overload);
            if inliner.functions.insert(key.clone(), f).is_some() {
                return Err(FrontendError::Decode(format!(
                    "the model defines function '{}' twice",
                    show(&key)
                )));
            }
        }
        Ok(inliner)
    }

    /// `nodes` with every call of a model function replaced by its body;
    /// `scope` is where these nodes are (None: outside any function).
    pub fn expand<'g>(
        &mut self,
        nodes: GraphNodes<'g>,
        scope: Option<&Rc<Scope>>,
    ) -> Result<Vec<Expanded<'g>>, FrontendError> {
        let mut out = Vec::with_capacity(nodes.len());
        match nodes {
            GraphNodes::Slices(list) => {
                for (index, node) in list.iter().enumerate() {
                    self.expand_node(ExpandedNode::Slices(index, node), scope, &mut out)?;
                }
            }
            GraphNodes::Protos(list) => {
                for node in list {
                    self.expand_node(ExpandedNode::Proto(node), scope, &mut out)?;
                }
            }
        }
        Ok(out)
    }

    fn expand_node<'g>(
        &mut self,
        node: ExpandedNode<'g>,
        scope: Option<&Rc<Scope>>,
        out: &mut Vec<Expanded<'g>>,
    ) -> Result<(), FrontendError> {
        // Without functions (most models) no node is a call: no key made.
        let call = if self.functions.is_empty() {
            None
        } else {
            node.key()
                .and_then(|key| Some((*self.functions.get(&key)?, key)))
        };
        let Some((function, key)) = call else {
            out.push(Expanded {
                node,
                scope: scope.cloned(),
            });
            return Ok(());
        };
        let mut texts = NodeTexts::default();
        node.push_to(&mut texts)?;
        let views = texts.views();
        // One node pushed, so one view.
        let Some(node) = views.first() else {
            return Ok(());
        };
        let call = call_label(node);
        let chain: &[Key] = scope.map_or(&[], |s| s.chain.as_slice());
        if let Some(at) = chain.iter().position(|k| *k == key) {
            let cycle: Vec<String> = chain[at..]
                .iter()
                .chain(std::iter::once(&key))
                .map(show)
                .collect();
            return Err(FrontendError::Decode(format!(
                "node '{call}' calls function '{}' recursively ({}); ONNX functions may not recurse",
                show(&key),
                cycle.join(" -> ")
            )));
        }
        if chain.len() >= MAX_FUNCTION_DEPTH {
            return Err(FrontendError::Decode(format!(
                "node '{call}' calls function '{}' nested more than {MAX_FUNCTION_DEPTH} calls deep (MAX_FUNCTION_DEPTH)",
                show(&key)
            )));
        }
        let body = self.instantiate(function, node, &key)?;
        let inner = Rc::new(Scope {
            opsets: function_opsets(function, &key)?,
            chain: chain.iter().cloned().chain(std::iter::once(key)).collect(),
        });
        for n in body {
            self.expand_node(ExpandedNode::Inlined(Box::new(n)), Some(&inner), out)?;
        }
        Ok(())
    }

    /// The call's copy of `function`'s body: fresh names, bound formals,
    /// resolved attribute references.
    fn instantiate(
        &mut self,
        function: &pb::FunctionProto,
        call: &NodeView<'_>,
        key: &Key,
    ) -> Result<Vec<pb::NodeProto>, FrontendError> {
        let label = call_label(call);
        let name = show(key);
        // A node with several outputs counts once per output, and the nodes
        // of its subgraphs count too: each is something the copy makes.
        let added = nodes_made(&function.node).saturating_add(function.output.len());
        self.inlined = self.inlined.saturating_add(added);
        if self.inlined > MAX_INLINED_NODES {
            return Err(FrontendError::Decode(format!(
                "node '{label}' calls function '{name}', and expanding the model's function calls \
                 would add more than {MAX_INLINED_NODES} nodes (MAX_INLINED_NODES)"
            )));
        }
        if call.input.len() > function.input.len() || call.output.len() > function.output.len() {
            return Err(FrontendError::Decode(format!(
                "node '{label}' calls function '{name}' with {} inputs and {} outputs; it takes at most {} and gives {}",
                call.input.len(),
                call.output.len(),
                function.input.len(),
                function.output.len()
            )));
        }
        let prefix = self.fresh_prefix(function, &label);
        let mut names: FxHashMap<&str, String> = FxHashMap::default();
        for (i, formal) in function.input.iter().enumerate() {
            let actual = call
                .input
                .get(i)
                .map_or_else(String::new, |a| (*a).to_owned());
            names.insert(formal.as_str(), actual);
        }
        for node in &function.node {
            for output in node.output.iter().filter(|o| !o.is_empty()) {
                if names.contains_key(output.as_str()) {
                    return Err(FrontendError::Decode(format!(
                        "function '{name}' assigns value '{output}' twice (or assigns one of its inputs)"
                    )));
                }
                let fresh = format!("{prefix}/{output}");
                self.claim(&fresh);
                names.insert(output.as_str(), fresh);
            }
        }
        let mut body = Vec::with_capacity(added);
        for node in &function.node {
            let mut copy = node.clone();
            copy.name = format!(
                "{prefix}/{}",
                if node.name.is_empty() {
                    node.output.first().map_or("node", String::as_str)
                } else {
                    node.name.as_str()
                }
            );
            for input in copy.input.iter_mut().filter(|i| !i.is_empty()) {
                match names.get(input.as_str()) {
                    Some(actual) => *input = actual.clone(),
                    None => {
                        return Err(FrontendError::Decode(format!(
                            "function '{name}' node '{}' reads '{input}', which is neither an input of the function nor computed in it",
                            node.name
                        )))
                    }
                }
            }
            for output in copy.output.iter_mut().filter(|o| !o.is_empty()) {
                *output = names[output.as_str()].clone();
            }
            resolve_attributes(&mut copy.attribute, call, function, &name, &label)?;
            for attr in &mut copy.attribute {
                resolve_in_graphs(attr, call, function, &name, &label)?;
            }
            // The values the node's subgraphs define get fresh names too: a
            // subgraph reads its own value before an outer one, so a local
            // named like the call's input would capture that input's reads.
            // A local named like one of the function's own values (a Loop
            // body's input may shadow one) keeps that value's binding, as
            // before: the locals map has no scopes. A graph the call passed
            // in as an attribute is renamed like the function's own.
            let mut locals: FxHashMap<String, String> = FxHashMap::default();
            for attr in &copy.attribute {
                for local in subgraph_values(attr) {
                    if names.contains_key(local) {
                        continue;
                    }
                    let fresh = format!("{prefix}/{local}");
                    self.claim(&fresh);
                    locals.insert(local.to_owned(), fresh);
                }
            }
            let rename = |value: &str| locals.get(value).or_else(|| names.get(value)).cloned();
            for attr in &mut copy.attribute {
                rename_in_graphs(attr, &rename);
            }
            body.push(copy);
        }
        // Bind the function's outputs to the call's: a node computing one
        // writes the call's value directly; an output that is an input of
        // the function (or computed nowhere) is copied with Identity.
        let mut rebound: FxHashMap<String, String> = FxHashMap::default();
        for (i, formal) in function.output.iter().enumerate() {
            let Some(&actual) = call.output.get(i).filter(|o| !o.is_empty()) else {
                continue;
            };
            let computed = function
                .node
                .iter()
                .any(|n| n.output.iter().any(|o| o == formal));
            if computed && !rebound.contains_key(&names[formal.as_str()]) {
                rebound.insert(names[formal.as_str()].clone(), actual.to_owned());
                continue;
            }
            let Some(source) = names.get(formal.as_str()).filter(|s| !s.is_empty()) else {
                return Err(FrontendError::Decode(format!(
                    "function '{name}' returns '{formal}', which node '{label}' does not give and no node of the function computes"
                )));
            };
            body.push(pb::NodeProto {
                input: vec![source.clone()],
                output: vec![actual.to_owned()],
                name: format!("{prefix}/{formal}"),
                op_type: "Identity".to_owned(),
                ..pb::NodeProto::default()
            });
        }
        if !rebound.is_empty() {
            for node in &mut body {
                for value in node.output.iter_mut().chain(node.input.iter_mut()) {
                    if let Some(actual) = rebound.get(value.as_str()) {
                        *value = actual.clone();
                    }
                }
                for attr in &mut node.attribute {
                    rename_in_graphs(attr, &|value| rebound.get(value).cloned());
                }
            }
        }
        Ok(body)
    }
}

impl Inliner<'_> {
    /// `<root>/<function>#<k>`, the prefix of the names a call's copy of
    /// `function` gets: unique by the call count `k`, which skips any count
    /// that begins a name the model (or an earlier call) uses. Rooted at the
    /// outermost call's label (not the whole chain: nested names would grow
    /// with the depth).
    fn fresh_prefix(&mut self, function: &pb::FunctionProto, label: &str) -> String {
        let root = label.split('/').next().unwrap_or(label);
        loop {
            // Ends: each count skipped is a distinct prefix of the sets, and
            // one lookup each keeps a model full of such names linear.
            self.calls = self.calls.saturating_add(1);
            let prefix = format!("{root}/{}#{}", function.name, self.calls);
            if !self.mentioned.contains(prefix.as_str()) && !self.created.contains(&prefix) {
                return prefix;
            }
        }
    }

    /// Records a name a copy makes, so that no later prefix begins it.
    fn claim(&mut self, name: &str) {
        for prefix in numbered_prefixes(name, &self.prefix_slashes) {
            if !self.created.contains(prefix) {
                self.created.insert(prefix.to_owned());
            }
        }
    }
}

/// A call site's label for names and messages: the node's name, else its
/// first output.
fn call_label(node: &NodeView<'_>) -> String {
    if !node.name.is_empty() {
        return node.name.to_owned();
    }
    node.output
        .iter()
        .find(|o| !o.is_empty())
        .unwrap_or(&node.op_type)
        .to_string()
}

/// The opsets a function's nodes use: its own `opset_import`.
fn function_opsets(function: &pb::FunctionProto, key: &Key) -> Result<Opsets, FrontendError> {
    opsets(&function.opset_import).map_err(|e| match e {
        FrontendError::Decode(why) => {
            FrontendError::Decode(format!("function '{}': {why}", show(key)))
        }
        other => other,
    })
}

/// Replaces each attribute referring to a function attribute
/// (`ref_attr_name`) by the call's value of it, else the function's
/// default; one with neither is dropped (it was not given).
fn resolve_attributes(
    attributes: &mut Vec<pb::AttributeProto>,
    call: &NodeView<'_>,
    function: &pb::FunctionProto,
    name: &str,
    label: &str,
) -> Result<(), FrontendError> {
    let mut kept = Vec::with_capacity(attributes.len());
    for attr in attributes.drain(..) {
        if attr.ref_attr_name.is_empty() {
            kept.push(attr);
            continue;
        }
        let wanted = attr.ref_attr_name.as_str();
        let declared = function.attribute.iter().any(|a| a == wanted)
            || function.attribute_proto.iter().any(|a| a.name == wanted);
        if !declared {
            return Err(FrontendError::Decode(format!(
                "function '{name}' refers to attribute '{wanted}', which it does not declare"
            )));
        }
        let value = call
            .attribute
            .iter()
            .find(|a| a.name == wanted)
            .or_else(|| function.attribute_proto.iter().find(|a| a.name == wanted));
        if let Some(value) = value {
            if !value.ref_attr_name.is_empty() {
                return Err(FrontendError::Decode(format!(
                    "node '{label}' passes attribute '{wanted}' as a reference to '{}' outside a function",
                    value.ref_attr_name
                )));
            }
            let mut resolved = value.clone();
            resolved.name = attr.name.clone();
            kept.push(resolved);
        }
    }
    *attributes = kept;
    Ok(())
}

/// What copying `nodes` makes: each node once per output (at least once),
/// with the nodes of its subgraphs, to any depth.
fn nodes_made(nodes: &[pb::NodeProto]) -> usize {
    nodes.iter().fold(0usize, |total, node| {
        let inner = node
            .attribute
            .iter()
            .flat_map(|a| a.g.iter().chain(&a.graphs))
            .fold(0usize, |sum, graph| {
                sum.saturating_add(nodes_made(&graph.node))
            });
        total
            .saturating_add(node.output.len().max(1))
            .saturating_add(inner)
    })
}

/// Resolves the attribute references of the nodes inside the subgraphs
/// of attribute `attr`, to any depth.
fn resolve_in_graphs(
    attr: &mut pb::AttributeProto,
    call: &NodeView<'_>,
    function: &pb::FunctionProto,
    name: &str,
    label: &str,
) -> Result<(), FrontendError> {
    for graph in attr.g.iter_mut().chain(attr.graphs.iter_mut()) {
        for node in &mut graph.node {
            resolve_attributes(&mut node.attribute, call, function, name, label)?;
            for inner in &mut node.attribute {
                resolve_in_graphs(inner, call, function, name, label)?;
            }
        }
    }
    Ok(())
}

/// The values the subgraphs of attribute `attr` define (inputs,
/// initializers, node outputs), to any depth.
fn subgraph_values(attr: &pb::AttributeProto) -> Vec<&str> {
    let mut values = Vec::new();
    for graph in attr.g.iter().chain(&attr.graphs) {
        values.extend(graph.input.iter().map(|i| i.name.as_str()));
        values.extend(graph.initializer.iter().map(|t| t.name.as_str()));
        for node in &graph.node {
            values.extend(node.output.iter().map(String::as_str));
            for inner in &node.attribute {
                values.extend(subgraph_values(inner));
            }
        }
    }
    values.retain(|v| !v.is_empty());
    values
}

/// Renames every value inside the subgraphs of `attr` (defined or read, to
/// any depth) that `rename` maps.
fn rename_in_graphs(attr: &mut pb::AttributeProto, rename: &dyn Fn(&str) -> Option<String>) {
    let apply = |value: &mut String| {
        if let Some(renamed) = rename(value) {
            *value = renamed;
        }
    };
    for graph in attr.g.iter_mut().chain(attr.graphs.iter_mut()) {
        for info in graph.input.iter_mut().chain(graph.output.iter_mut()) {
            apply(&mut info.name);
        }
        for tensor in &mut graph.initializer {
            apply(&mut tensor.name);
        }
        for node in &mut graph.node {
            for value in node.input.iter_mut().chain(node.output.iter_mut()) {
                apply(value);
            }
            for inner in &mut node.attribute {
                rename_in_graphs(inner, rename);
            }
        }
    }
}
