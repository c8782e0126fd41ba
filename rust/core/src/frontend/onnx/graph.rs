//! `GraphProto` → framework ops: initializers become `Const` ops, graph
//! inputs `Placeholder` ops, nodes ops of origin type
//! `domain::opset::op_type`; value names resolve to (producer, output).
//!
//! A subgraph (an If branch, a Loop or Scan body) becomes a
//! [`FrameworkFunction`]: its formal inputs and every value it reads from
//! an enclosing graph (ONNX's outer-scope references) are `_Arg` ops, the
//! formal inputs first. The node owning the subgraph gets the outer values
//! as extra inputs after its own, so the IR sees ordinary data edges.

use super::attrs::{attr_value, kind_of};
use super::conv_kernels::complete_conv_kernels;
use super::dtype::{ge_dtype, onnx_dtype_name};
use super::external::ExternalFiles;
use super::functions::{Expanded, Inliner, Scope};
use super::node_slices::{GraphNodes, NodeTexts, NodeView};
use super::opset::{origin_op_type, Opsets};
use super::pb;
use super::pb::attribute_proto::AttributeType as Kind;
use super::tensor::tensor_value;
use crate::frontend::tensorflow::ARG_OP_TYPE;
use crate::frontend::{FrameworkFunction, FrameworkInput, FrameworkOp, FrontendError};
use crate::types::{AttrValue, Attrs, DataType, NamedAttrs};
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;
use std::rc::Rc;

/// The origin op types of a graph's sources.
pub const PLACEHOLDER: &str = "Placeholder";
pub const CONST: &str = "Const";

/// The attribute giving a node's ONNX output count (trailing absent
/// outputs excluded), for plugins of variadic ops (Split).
pub const OUTPUT_COUNT_ATTR: &str = "_output_count";
/// The attribute giving the subgraph's outer values an op reads, after its
/// own inputs (their count).
pub const CAPTURE_COUNT_ATTR: &str = "_captured_inputs";
/// A Placeholder's symbolic dim names (`dim_param`), "" for other dims.
pub const DIM_PARAMS_ATTR: &str = "dim_params";

/// A decoded graph: its ops and where each value comes from.
pub(super) struct DecodedGraph {
    pub ops: Vec<FrameworkOp>,
    /// Value name → producer and output, in no particular order (the main
    /// graph's only: no caller reads a subgraph's).
    pub values: Vec<(String, FrameworkInput)>,
    /// The graph's outputs, in order.
    pub outputs: Vec<FrameworkInput>,
    /// Outer values read (subgraphs only), in first-use order.
    pub captures: Vec<String>,
}

/// State shared by a model's graphs while decoding.
pub(super) struct Decoder<'m> {
    pub opsets: &'m Opsets,
    pub external: ExternalFiles,
    /// Subgraph bodies, named uniquely.
    pub functions: Vec<FrameworkFunction>,
    function_names: FxHashSet<String>,
    /// How deeply subgraphs nest at this point.
    depth: usize,
    /// The model's functions, expanded at their call sites.
    inliner: Inliner<'m>,
    /// The function body the subgraph being decoded sits in, if any.
    scope: Option<Rc<Scope>>,
    /// Origin op types under the model's opsets, by domain then op type:
    /// formatted once per distinct type, not once per node.
    origins: FxHashMap<String, FxHashMap<String, String>>,
}

/// The parts of a GraphProto that decoding reads, from either message.
#[derive(Clone, Copy)]
pub(super) struct GraphParts<'g> {
    pub node: GraphNodes<'g>,
    pub initializer: &'g [pb::TensorProto],
    pub sparse_initializer: &'g [pb::SparseTensorProto],
    pub input: &'g [pb::ValueInfoProto],
    pub output: &'g [pb::ValueInfoProto],
}

impl<'g> GraphParts<'g> {
    pub fn of_model(graph: &'g pb::GraphProtoWithSliceNodes) -> GraphParts<'g> {
        GraphParts {
            node: GraphNodes::Slices(&graph.node),
            initializer: &graph.initializer,
            sparse_initializer: &graph.sparse_initializer,
            input: &graph.input,
            output: &graph.output,
        }
    }

    pub fn of_subgraph(graph: &'g pb::GraphProto) -> GraphParts<'g> {
        GraphParts {
            node: GraphNodes::Protos(&graph.node),
            initializer: &graph.initializer,
            sparse_initializer: &graph.sparse_initializer,
            input: &graph.input,
            output: &graph.output,
        }
    }
}

/// How deeply subgraphs (If within Loop within If ...) may nest: a bound on
/// the recursion an untrusted model can cause.
pub const MAX_SUBGRAPH_DEPTH: usize = 64;

/// Records that `value` is `input`; a value defined before is an error.
fn define_value<'v>(
    values: &mut FxHashMap<&'v str, FrameworkInput>,
    value: &'v str,
    input: FrameworkInput,
    at: &str,
) -> Result<(), FrontendError> {
    if values.insert(value, input).is_some() {
        return Err(FrontendError::Decode(format!(
            "{at} defines value '{value}' twice; ONNX values are assigned once"
        )));
    }
    Ok(())
}

/// Which graph a message is about.
fn place(function: Option<&str>) -> String {
    match function {
        None => "the graph".to_owned(),
        Some(f) => format!("subgraph '{f}'"),
    }
}

impl<'m> Decoder<'m> {
    pub fn new(opsets: &'m Opsets, external: ExternalFiles) -> Decoder<'m> {
        Decoder {
            opsets,
            external,
            functions: Vec::new(),
            function_names: FxHashSet::default(),
            depth: 0,
            inliner: Inliner::default(),
            scope: None,
            origins: FxHashMap::default(),
        }
    }

    /// `domain::opset::op_type` for a node of the main graph or a subgraph
    /// (the model's opsets: memoised), or of a function body (its own).
    fn origin(
        &mut self,
        scope: Option<&Rc<Scope>>,
        domain: &str,
        op_type: &str,
    ) -> Result<String, String> {
        if let Some(scope) = scope {
            return origin_op_type(&scope.opsets, domain, op_type);
        }
        if let Some(known) = self.origins.get(domain).and_then(|m| m.get(op_type)) {
            return Ok(known.clone());
        }
        let origin = origin_op_type(self.opsets, domain, op_type)?;
        self.origins
            .entry(domain.to_owned())
            .or_default()
            .insert(op_type.to_owned(), origin.clone());
        Ok(origin)
    }

    /// Expands calls of `functions` (the model's) where nodes make them.
    pub fn with_functions(
        mut self,
        functions: &'m [pb::FunctionProto],
        graph: &'m pb::GraphProtoWithSliceNodes,
    ) -> Result<Self, FrontendError> {
        self.inliner = Inliner::new(functions, graph)?;
        Ok(self)
    }

    /// The ops of `graph`; `function` names a subgraph (then unknown value
    /// names are captures of outer values instead of errors).
    pub fn decode_graph(
        &mut self,
        graph: GraphParts<'_>,
        function: Option<&str>,
    ) -> Result<DecodedGraph, FrontendError> {
        let at = place(function);
        let node_count = graph.node.len();
        let sources = graph.initializer.len() + graph.input.len();
        let mut names = Names::with_capacity(node_count + sources);
        let mut ops = Vec::with_capacity(node_count + sources);
        // Keyed by the names as decoded (borrowed: no copy per value).
        // Most nodes write one value; reserve for them up front.
        let mut values: FxHashMap<&str, FrameworkInput> =
            FxHashMap::with_capacity_and_hasher(node_count + sources, Default::default());
        let define = |values: &mut _, value, input| define_value(values, value, input, &at);

        for tensor in graph.initializer {
            if tensor.name.is_empty() {
                return Err(FrontendError::Decode(format!(
                    "{at} has an initializer without a name"
                )));
            }
            let value = tensor_value(tensor, &mut self.external)
                .map_err(|e| FrontendError::Decode(format!("initializer '{}' {e}", tensor.name)))?;
            let name = names.claim(&tensor.name);
            define(&mut values, &tensor.name, FrameworkInput::new(&name, 0))?;
            ops.push(const_op(name, value));
        }
        if let Some(sparse) = graph.sparse_initializer.first() {
            let name = sparse.values.as_ref().map_or("", |v| v.name.as_str());
            return Err(FrontendError::Decode(format!(
                "{at} has sparse initializer '{name}'; opgraph reads dense initializers only"
            )));
        }
        let mut formal = Vec::new();
        for (index, input) in graph.input.iter().enumerate() {
            if values.contains_key(input.name.as_str()) {
                // IR >= 4: an input that is also an initializer is a
                // constant with a default value; opgraph takes the value.
                continue;
            }
            let name = names.claim(&input.name);
            define(&mut values, &input.name, FrameworkInput::new(&name, 0))?;
            let op = match function {
                None => placeholder_op(name, input)?,
                Some(_) => arg_op(name, index, input),
            };
            formal.push(op);
        }
        let first_node = ops.len() + formal.len();
        ops.extend(formal);

        // Calls of model functions become the functions' nodes.
        let scope = self.scope.clone();
        let nodes: Vec<Expanded<'_>> = self.inliner.expand(graph.node, scope.as_ref())?;
        let mut texts = NodeTexts::with_capacity(nodes.len());
        for Expanded { node, .. } in &nodes {
            node.push_to(&mut texts)?;
        }
        let views: Vec<NodeView<'_>> = texts.views();

        // Names and outputs first: a value may be read before the node
        // that writes it (the converter orders ops; ONNX files need not).
        let mut node_names = Vec::with_capacity(nodes.len());
        for node in &views {
            let preferred = if node.name.is_empty() {
                node.output
                    .iter()
                    .find(|o| !o.is_empty())
                    .map_or("node", |&o| o)
            } else {
                node.name
            };
            let name = names.claim(preferred);
            for (i, &output) in node.output.iter().enumerate() {
                if !output.is_empty() {
                    define(&mut values, output, FrameworkInput::new(&name, i as u32))?;
                }
            }
            node_names.push(name);
        }

        let mut captures: Vec<String> = Vec::new();
        for ((node, Expanded { scope, .. }), name) in views.iter().zip(&nodes).zip(node_names) {
            let op =
                self.decode_node(node, scope.as_ref(), name, function, &values, &mut captures)?;
            ops.push(op);
        }
        let (sources, decoded) = ops.split_at_mut(first_node);
        complete_conv_kernels(decoded, sources, graph.initializer);
        // Outer values read by this graph become `_Arg` ops after the formal inputs.
        let mut arguments: FxHashMap<&str, FrameworkInput> = FxHashMap::default();
        for (k, capture) in captures.iter().enumerate() {
            let name = names.claim(capture);
            arguments.insert(capture, FrameworkInput::new(&name, 0));
            let index = graph.input.len() + k;
            ops.push(FrameworkOp {
                name,
                op_type: ARG_OP_TYPE.into(),
                attrs: [
                    ("index", AttrValue::Int(index as i64)),
                    ("T", AttrValue::DataType(DataType::Undefined)),
                ]
                .into_iter()
                .collect(),
                ..FrameworkOp::default()
            });
        }
        // A capture read by a node was recorded by its value name; point
        // those inputs at the `_Arg` ops now that they exist.
        if !captures.is_empty() {
            for op in &mut ops[first_node..] {
                for input in &mut op.inputs {
                    if let Some(stripped) = input.node.strip_prefix(CAPTURE_MARK) {
                        if let Some(argument) = arguments.get(stripped) {
                            *input = argument.clone();
                        }
                    }
                }
            }
        }
        let mut outputs = Vec::with_capacity(graph.output.len());
        for output in graph.output {
            match values.get(output.name.as_str()) {
                Some(input) => outputs.push(input.clone()),
                None if function.is_some() => {
                    return Err(FrontendError::Decode(format!(
                        "{at} returns '{}', an outer value; opgraph needs a body to compute its outputs",
                        output.name
                    )))
                }
                None => {
                    return Err(FrontendError::Decode(format!(
                        "the graph's output '{}' is not produced by any node, input or initializer",
                        output.name
                    )))
                }
            }
        }
        // Only the main graph's value map is reported.
        let values = match function {
            None => values
                .into_iter()
                .map(|(value, input)| (value.to_owned(), input))
                .collect(),
            Some(_) => Vec::new(),
        };
        Ok(DecodedGraph {
            ops,
            values,
            outputs,
            captures,
        })
    }

    #[allow(clippy::too_many_arguments, reason = "the decoding state of one node")]
    fn decode_node(
        &mut self,
        node: &NodeView<'_>,
        scope: Option<&Rc<Scope>>,
        name: String,
        function: Option<&str>,
        values: &FxHashMap<&str, FrameworkInput>,
        captures: &mut Vec<String>,
    ) -> Result<FrameworkOp, FrontendError> {
        // A node inlined from a function uses the function's opsets.
        let op_type = self
            .origin(scope, node.domain, node.op_type)
            .map_err(|why| {
                FrontendError::Decode(format!("node '{name}' ({}) {why}", node.op_type))
            })?;
        // Trailing absent inputs are the same as missing ones.
        let given = node
            .input
            .iter()
            .rposition(|i| !i.is_empty())
            .map_or(0, |last| last + 1);
        let mut inputs = Vec::with_capacity(given);
        for value in &node.input[..given] {
            inputs.push(self.resolve(value, &name, function, values, captures)?);
        }
        let mut attrs = Attrs::with_capacity(node.attribute.len() + 2);
        let mut outer: Vec<String> = Vec::new();
        // The bodies this node's attributes hold: (function, formal inputs).
        let mut bodies: Vec<(String, usize)> = Vec::new();
        // Subgraphs of a node inlined from a function are in its scope (an
        // error leaves it set: decoding stops then).
        let enclosing = std::mem::replace(&mut self.scope, scope.cloned());
        for attr in node.attribute {
            let bad = |why: String| {
                FrontendError::Decode(format!("node '{name}' attribute '{}' {why}", attr.name))
            };
            if !attr.ref_attr_name.is_empty() {
                return Err(bad(format!(
                    "refers to function attribute '{}' outside a function",
                    attr.ref_attr_name
                )));
            }
            let value = match kind_of(attr) {
                Kind::Graph => {
                    let body = attr.g.as_ref().ok_or_else(|| bad("has no graph".into()))?;
                    let f = self.subgraph(body, &name, &attr.name, &mut outer)?;
                    bodies.push((f.clone(), body.input.len()));
                    AttrValue::NamedAttrs(Box::new(NamedAttrs {
                        name: f,
                        attrs: Attrs::default(),
                    }))
                }
                Kind::Graphs => {
                    let mut names = Vec::with_capacity(attr.graphs.len());
                    for (i, body) in attr.graphs.iter().enumerate() {
                        let label = format!("{}{i}", attr.name);
                        let f = self.subgraph(body, &name, &label, &mut outer)?;
                        bodies.push((f.clone(), body.input.len()));
                        names.push(f);
                    }
                    AttrValue::ListStr(names)
                }
                _ => attr_value(attr, &mut self.external).map_err(bad)?,
            };
            attrs.set(attr.name.as_str(), value);
        }
        self.scope = enclosing;
        // Every body takes all the node's outer values, in the node's order
        // (a body's own capture order may differ: If's branches read
        // different ones).
        for (f, formal) in &bodies {
            self.align_captures(f, *formal, &outer);
        }
        // The outer values the subgraphs read, after the node's own inputs.
        if !outer.is_empty() {
            // Absent inputs in between stay absent: captures follow the
            // node's full input list.
            for _ in given..node.input.len() {
                inputs.push(FrameworkInput::new("", 0));
            }
            attrs.set(CAPTURE_COUNT_ATTR, AttrValue::Int(outer.len() as i64));
            for value in &outer {
                inputs.push(self.resolve(value, &name, function, values, captures)?);
            }
        }
        let outputs = node
            .output
            .iter()
            .rposition(|o| !o.is_empty())
            .map_or(0, |last| last + 1);
        attrs.set(OUTPUT_COUNT_ATTR, AttrValue::Int(outputs as i64));
        Ok(FrameworkOp {
            name,
            op_type: op_type.into(),
            inputs,
            attrs,
            ..FrameworkOp::default()
        })
    }

    /// Where value `value` comes from: a producer in this graph, absent
    /// (""), or, in a subgraph, an outer value (recorded as a capture).
    fn resolve(
        &self,
        value: &str,
        node: &str,
        function: Option<&str>,
        values: &FxHashMap<&str, FrameworkInput>,
        captures: &mut Vec<String>,
    ) -> Result<FrameworkInput, FrontendError> {
        if value.is_empty() {
            return Ok(FrameworkInput::new("", 0));
        }
        if let Some(input) = values.get(value) {
            return Ok(input.clone());
        }
        if function.is_none() {
            return Err(FrontendError::Decode(format!(
                "node '{node}' reads value '{value}', which no node, graph input or initializer produces"
            )));
        }
        if !captures.iter().any(|c| c == value) {
            captures.push(value.to_owned());
        }
        Ok(FrameworkInput::new(format!("{CAPTURE_MARK}{value}"), 0))
    }

    /// Renumbers function `name`'s capture arguments (those past its
    /// `formal` inputs) by their position in `outer`, the caller's list.
    fn align_captures(&mut self, name: &str, formal: usize, outer: &[String]) {
        let Some(f) = self.functions.iter_mut().rev().find(|f| f.name == name) else {
            return;
        };
        let captured: Vec<String> = f.inputs.get(formal..).unwrap_or_default().to_vec();
        for op in &mut f.ops {
            if op.op_type != ARG_OP_TYPE {
                continue;
            }
            let Some(AttrValue::Int(index)) = op.attrs.get("index") else {
                continue;
            };
            let Some(k) = usize::try_from(*index)
                .ok()
                .and_then(|i| i.checked_sub(formal))
            else {
                continue;
            };
            let Some(at) = captured
                .get(k)
                .and_then(|c| outer.iter().position(|o| o == c))
            else {
                continue;
            };
            op.attrs.set("index", AttrValue::Int((formal + at) as i64));
        }
        f.inputs.truncate(formal);
        f.inputs.extend(outer.iter().cloned());
    }

    /// Decodes subgraph `body` of `node`'s attribute `attr` as a function;
    /// its outer values are appended to `outer`. Returns the function name.
    fn subgraph(
        &mut self,
        body: &pb::GraphProto,
        node: &str,
        attr: &str,
        outer: &mut Vec<String>,
    ) -> Result<String, FrontendError> {
        if self.depth >= MAX_SUBGRAPH_DEPTH {
            return Err(FrontendError::Decode(format!(
                "node '{node}' attribute '{attr}' nests subgraphs more than {MAX_SUBGRAPH_DEPTH} deep"
            )));
        }
        let mut name = format!("{node}/{attr}");
        let mut k = 1;
        while self.function_names.contains(&name) {
            k += 1;
            name = format!("{node}/{attr}_{k}");
        }
        self.function_names.insert(name.clone());
        self.depth += 1;
        let decoded = self.decode_graph(GraphParts::of_subgraph(body), Some(&name));
        self.depth -= 1;
        let decoded = decoded?;
        for capture in &decoded.captures {
            if !outer.contains(capture) {
                outer.push(capture.clone());
            }
        }
        let inputs = body
            .input
            .iter()
            .map(|i| i.name.clone())
            .chain(decoded.captures.iter().cloned())
            .collect();
        self.functions.push(FrameworkFunction {
            name: name.clone(),
            inputs,
            outputs: decoded.outputs,
            ops: decoded.ops,
            attrs: Attrs::default(),
        });
        Ok(name)
    }
}

/// Marks a not-yet-bound outer value in a subgraph op's input (a prefix no
/// op name starts with: [`Names::claim`] replaces its NUL; the mark is
/// stripped before anything else sees the op).
const CAPTURE_MARK: &str = "\u{0}capture:";

/// Unique op names within one graph: a name already taken gets `_2`, `_3` ...
#[derive(Default)]
struct Names<'a> {
    /// Borrowed from the decoded names; owned for the suffixed ones.
    taken: FxHashSet<Cow<'a, str>>,
    /// The next suffix to try for a name claimed more than once, so that n
    /// nodes sharing one name cost O(n), not O(n^2), in a hostile model.
    next_suffix: FxHashMap<String, u64>,
}

impl<'a> Names<'a> {
    fn with_capacity(n: usize) -> Names<'a> {
        Names {
            taken: FxHashSet::with_capacity_and_hasher(n, Default::default()),
            next_suffix: FxHashMap::default(),
        }
    }

    fn claim(&mut self, preferred: &'a str) -> String {
        match preferred.strip_prefix(CAPTURE_MARK) {
            // A NUL is legal in an ONNX name, which only labels the op, but
            // an op name starting with CAPTURE_MARK would be taken for a
            // capture: its NUL becomes U+FFFD. Other names stay as given.
            Some(rest) => {
                self.claim_cow(Cow::Owned(format!("\u{FFFD}{}{rest}", &CAPTURE_MARK[1..])))
            }
            None => self.claim_cow(Cow::Borrowed(preferred)),
        }
    }

    fn claim_cow(&mut self, preferred: Cow<'a, str>) -> String {
        let name = preferred.to_string();
        if self.taken.insert(preferred) {
            return name;
        }
        let preferred = name;
        let k = self.next_suffix.entry(preferred.clone()).or_insert(2);
        loop {
            let name = format!("{preferred}_{k}");
            *k += 1;
            if !self.taken.contains(name.as_str()) {
                self.taken.insert(Cow::Owned(name.clone()));
                return name;
            }
        }
    }
}

fn const_op(name: String, value: AttrValue) -> FrameworkOp {
    let dtype = match &value {
        AttrValue::Tensor(t) => Some(t.dtype()),
        AttrValue::NamedAttrs(t) => match t.attrs.get("dtype") {
            Some(AttrValue::DataType(d)) => Some(*d),
            _ => None,
        },
        _ => None,
    };
    let mut attrs = Attrs::default();
    attrs.set("value", value);
    if let Some(dtype) = dtype {
        attrs.set("dtype", AttrValue::DataType(dtype));
    }
    FrameworkOp {
        name,
        op_type: CONST.into(),
        attrs,
        ..FrameworkOp::default()
    }
}

/// The tensor type of a value's `ValueInfoProto`, if it has one.
fn tensor_type(info: &pb::ValueInfoProto) -> Option<&pb::type_proto::Tensor> {
    match info.r#type.as_ref()?.value.as_ref()? {
        pb::type_proto::Value::TensorType(t) => Some(t),
        _ => None,
    }
}

/// A graph input: dtype, and dims (-1 for a symbol or an unnamed unknown
/// dim; the symbols in [`DIM_PARAMS_ATTR`]); no shape: unknown rank.
fn placeholder_op(name: String, input: &pb::ValueInfoProto) -> Result<FrameworkOp, FrontendError> {
    let Some(tensor) = tensor_type(input) else {
        return Err(FrontendError::Decode(format!(
            "graph input '{}' is not a tensor (sequence, map and optional inputs are not supported)",
            input.name
        )));
    };
    let dtype = ge_dtype(tensor.elem_type).ok_or_else(|| {
        FrontendError::Decode(format!(
            "graph input '{}' has element type {}, which opgraph does not support",
            input.name,
            onnx_dtype_name(tensor.elem_type)
        ))
    })?;
    let mut attrs = Attrs::default();
    attrs.set("dtype", AttrValue::DataType(dtype));
    if let Some(shape) = &tensor.shape {
        let mut dims = Vec::with_capacity(shape.dim.len());
        let mut params = Vec::with_capacity(shape.dim.len());
        for dim in &shape.dim {
            use pb::tensor_shape_proto::dimension::Value;
            match &dim.value {
                Some(Value::DimValue(v)) if *v >= 0 => {
                    dims.push(*v);
                    params.push(String::new());
                }
                Some(Value::DimValue(v)) => {
                    return Err(FrontendError::Decode(format!(
                        "graph input '{}' has dim {v}; a dim is >= 0 or a symbol",
                        input.name
                    )))
                }
                Some(Value::DimParam(p)) => {
                    dims.push(-1);
                    params.push(p.clone());
                }
                None => {
                    dims.push(-1);
                    params.push(String::new());
                }
            }
        }
        attrs.set("shape", AttrValue::ListInt(dims));
        if params.iter().any(|p| !p.is_empty()) {
            attrs.set(DIM_PARAMS_ATTR, AttrValue::ListStr(params));
        }
    }
    Ok(FrameworkOp {
        name,
        op_type: PLACEHOLDER.into(),
        attrs,
        ..FrameworkOp::default()
    })
}

/// A subgraph's formal input `index`: an `_Arg` op (dtype from its type
/// when given; the caller's descriptor replaces it during inference).
fn arg_op(name: String, index: usize, input: &pb::ValueInfoProto) -> FrameworkOp {
    let dtype = tensor_type(input)
        .and_then(|t| ge_dtype(t.elem_type))
        .unwrap_or(DataType::Undefined);
    FrameworkOp {
        name,
        op_type: ARG_OP_TYPE.into(),
        attrs: [
            ("index", AttrValue::Int(index as i64)),
            ("T", AttrValue::DataType(dtype)),
        ]
        .into_iter()
        .collect(),
        ..FrameworkOp::default()
    }
}
