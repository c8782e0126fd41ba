//! One framework op → one IR node: plugin lookup, input edits, parsing
//! (`parse_params`, or `fusion_parse_params` for a fused op), wiring by
//! the IR prototype, function bodies, source descriptors (Data, Const),
//! tensor formats; or a PartitionedCall of the plugin's `parse_op_to_graph`
//! body. `_Arg` becomes an indexed Data node; NoOp is dropped.

use super::body::{Converted, GraphBuilder};
use super::edits::apply_edits;
use super::ports::{first_dynamic_input, lay_out_inputs, OutputLayout};
use super::support::function_refs;
use super::{Place, INPUT_FORMATS_ATTR};
use crate::builder::{add_op, add_op_by, OpSpec, PortInput};
use crate::frontend::framework::OPAQUE_TENSOR;
use crate::frontend::{FrameworkOp, FrontendError, OpDraft, PluginError};
use crate::graph::{Graph, NodeId, OutputRef, Subgraph};
use crate::op::{OpRegistry, OpSchema, ParamType};
use crate::types::{AttrValue, DataType, Format, NamedAttrs, Shape, TensorDesc};
use smallvec::SmallVec;

impl<'f> GraphBuilder<'_, 'f> {
    pub(super) fn convert_op(&mut self, k: usize) -> Result<(), FrontendError> {
        let op: &'f FrameworkOp = &self.ops[k];
        let converted = match op.op_type.as_str() {
            "_Arg" => self.add_arg(op)?,
            "NoOp" => Converted::Dropped {
                controls: self.control_inputs(op)?,
            },
            _ => self.add_mapped(k, op)?,
        };
        self.converted[k] = Some(converted);
        Ok(())
    }

    /// A function argument: Data with `index` = its position plus the
    /// offset of the caller's arguments, dtype from `T` (the caller's
    /// descriptor replaces it during inference).
    fn add_arg(&mut self, op: &FrameworkOp) -> Result<Converted, FrontendError> {
        let Some(AttrValue::Int(index)) = op.attrs.get("index") else {
            return Err(FrontendError::Graph(format!(
                "argument '{}' of {} has no int attribute 'index'",
                op.name, self.place
            )));
        };
        let Some(index) = index.checked_add(self.arg_offset).filter(|&i| i >= 0) else {
            return Err(FrontendError::Graph(format!(
                "argument '{}' of {} has index {index}; expected a small non-negative int",
                op.name, self.place
            )));
        };
        let dtype = match op.attrs.get("T") {
            Some(AttrValue::DataType(t)) => *t,
            _ => DataType::Undefined,
        };
        let spec = OpSpec {
            op_type: "Data".into(),
            name: op.name.clone(),
            attrs: [("index", AttrValue::Int(index))].into_iter().collect(),
            ..OpSpec::default()
        };
        let id = add_op(&mut self.graph, self.cx.ops, spec)
            .map_err(|e| FrontendError::Graph(e.to_string()))?;
        self.graph.node_mut(id).outputs[0] =
            TensorDesc::new(dtype, Shape::unknown_rank(), Format::Nd);
        self.args.push((index, id));
        Ok(Converted::Node {
            id,
            outputs: match self.cx.ops.get("Data") {
                Some(schema) => OutputLayout::of(schema, &[1]),
                None => OutputLayout::list("Data", 1),
            },
        })
    }

    fn add_mapped(&mut self, k: usize, op: &'f FrameworkOp) -> Result<Converted, FrontendError> {
        let plugin_error = |error: PluginError| FrontendError::Plugin {
            node: op.name.clone(),
            origin_op_type: op.op_type.to_string(),
            error,
        };
        let Some(plugin) = self.cx.plugins.get(&op.op_type) else {
            return Err(FrontendError::Unsupported(vec![
                crate::frontend::error::UnsupportedOp {
                    op_type: op.op_type.to_string(),
                    count: 1,
                    example_node: op.name.clone(),
                },
            ]));
        };
        let (ops, names) = (self.ops, &self.names);
        let origin_type = |name: &str| names.get(name).map(|i| ops[i].op_type.as_str());
        let inputs = apply_edits(op, &plugin.input_edits, origin_type)
            .map_err(|m| plugin_error(PluginError::new(m)))?;

        let mut draft = OpDraft::new(&op.name, &plugin.op_type);
        if op.fused_ops.is_empty() {
            if let Some(parse) = &plugin.parse_params {
                parse(op, &mut draft).map_err(plugin_error)?;
            }
        } else {
            let Some(fuse) = &plugin.fusion_parse_params else {
                return Err(plugin_error(PluginError::new(format!(
                    "the node fuses {} ops, but the plugin has no fusion_parse_params",
                    op.fused_ops.len()
                ))));
            };
            // What the pass knew of the whole graph, as GE's fused op desc.
            draft.attrs = op.attrs.clone();
            fuse(&op.fused_ops, &mut draft).map_err(plugin_error)?;
        }

        let controls = self.control_inputs(op)?;
        let (mut edges, later) = self.resolve_inputs(op, &inputs)?;
        self.insert_const_inputs(op, &mut draft, &mut edges)?;
        let (id, outputs) = match &plugin.parse_op_to_graph {
            Some(expand) => {
                let body = expand(&draft).map_err(plugin_error)?;
                self.add_call(op, draft, body, edges, controls)?
            }
            None => self.add_node(k, op, draft, &edges, controls)?,
        };
        self.defer_back_edges(id, &op.name, later);
        Ok(Converted::Node { id, outputs })
    }

    /// Adds the draft's constant inputs as Const nodes and splices them
    /// into `edges`: one fills an absent input at its position, else is
    /// inserted there (absent inputs fill any gap before it).
    fn insert_const_inputs(
        &mut self,
        op: &FrameworkOp,
        draft: &mut OpDraft,
        edges: &mut Vec<Option<OutputRef>>,
    ) -> Result<(), FrontendError> {
        for input in std::mem::take(&mut draft.const_inputs) {
            let position = input.position as usize;
            if position > edges.len() {
                edges.resize(position, None);
            }
            // Not a name the graph has, nor one a framework op still to be
            // converted will claim (an ONNX node may be called `r/axes`).
            let mut name = format!("{}/{}", op.name, input.label);
            let mut k = 2;
            while self.graph.find(&name).is_some() || self.names.get(&name).is_some() {
                name = format!("{}/{}_{k}", op.name, input.label);
                k += 1;
            }
            let spec = OpSpec {
                op_type: "Const".into(),
                name,
                ..OpSpec::default()
            };
            let id = add_op(&mut self.graph, self.cx.ops, spec)
                .map_err(|e| FrontendError::Graph(format!("node '{}': {e}", op.name)))?;
            self.graph.node_mut(id).outputs[0] = TensorDesc::constant(input.value, Format::Nd);
            let edge = Some(OutputRef::new(id, 0));
            match edges.get_mut(position) {
                Some(slot @ None) => *slot = edge,
                _ => edges.insert(position, edge),
            }
        }
        Ok(())
    }

    /// The node of an IR op the draft describes, wired by its prototype.
    fn add_node(
        &mut self,
        k: usize,
        op: &'f FrameworkOp,
        mut draft: OpDraft,
        edges: &[Option<OutputRef>],
        controls: Vec<NodeId>,
    ) -> Result<(NodeId, OutputLayout), FrontendError> {
        let ops: &'f OpRegistry = self.cx.ops;
        let Some(schema) = ops.get(&draft.op_type) else {
            return Err(FrontendError::Plugin {
                node: op.name.clone(),
                origin_op_type: op.op_type.to_string(),
                error: PluginError::new(format!(
                    "the plugin maps it to IR op type '{}', which is not registered",
                    draft.op_type
                )),
            });
        };
        // `schema` is the draft's IR op type's: its name stays for messages
        // once the draft's is moved into the node.
        let mapping = || format!("node '{}' ({} → {})", op.name, op.op_type, schema.op_type);
        let inputs = lay_out_inputs(schema, &draft, edges)
            .map_err(|m| FrontendError::Graph(format!("{}: {m}", mapping())))?;
        output_counts(schema, &draft)
            .map_err(|m| FrontendError::Graph(format!("{}: {m}", mapping())))?;
        let refs = function_refs(&op.attrs, &self.cx.functions);
        let subgraphs = self.function_bodies(op, refs, first_dynamic_input(schema, &inputs))?;
        let mut attrs = std::mem::take(&mut draft.attrs);
        let source = match draft.op_type.as_str() {
            "Data" | "Placeholder" => Some(self.input_desc(op, &attrs)?),
            "Const" => match attrs.remove("value") {
                Some(AttrValue::Tensor(value)) => Some(TensorDesc::constant(value, Format::Nd)),
                // Strings (and other tensors without host bytes): the
                // descriptor only.
                Some(AttrValue::NamedAttrs(t)) if t.name == OPAQUE_TENSOR => {
                    Some(opaque_desc(op, &t)?)
                }
                _ => {
                    return Err(FrontendError::Graph(format!(
                        "Const '{}' has no tensor attribute 'value'",
                        op.name
                    )))
                }
            },
            _ => None,
        };
        if let Some(formats) = input_formats(&draft, edges.len()) {
            attrs.set(INPUT_FORMATS_ATTR, formats);
        }
        let spec = OpSpec {
            op_type: std::mem::take(&mut draft.op_type),
            name: take_node_name(&mut draft, op),
            inputs,
            attrs,
            dynamic_outputs: std::mem::take(&mut draft.dynamic_outputs),
            subgraphs,
            control_inputs: controls,
        };
        let id = add_op_by(&mut self.graph, schema, spec)
            .map_err(|e| FrontendError::Graph(format!("{}: {e}", mapping())))?;
        if let Some(desc) = source {
            if let Some(slot) = self.graph.node_mut(id).outputs.first_mut() {
                *slot = desc;
            }
            let is_input = matches!(schema.op_type.as_str(), "Data" | "Placeholder");
            if is_input && self.place == Place::Top {
                self.placeholders.push((k, id));
            }
        }
        self.apply_formats(id, &draft);
        let layout = OutputLayout::of(schema, &self.graph.node(id).output_counts);
        Ok((id, layout))
    }

    /// The descriptor of a graph input: dtype from `dtype`, shape from the
    /// user's `input_shapes` or the `shape` attribute (unknown rank without).
    fn input_desc(
        &self,
        op: &FrameworkOp,
        attrs: &crate::types::Attrs,
    ) -> Result<TensorDesc, FrontendError> {
        let Some(AttrValue::DataType(dtype)) = attrs.get("dtype") else {
            return Err(FrontendError::Graph(format!(
                "placeholder '{}' has no DataType attribute 'dtype'",
                op.name
            )));
        };
        let given = self.input_shapes.iter().find(|(name, _)| *name == op.name);
        let shape = match (given, attrs.get("shape")) {
            (Some((_, shape)), _) => shape.clone(),
            (None, Some(AttrValue::ListInt(dims))) => Shape::new(dims).map_err(|e| {
                FrontendError::Graph(format!(
                    "placeholder '{}' has shape attribute [{}]: {e}",
                    op.name,
                    crate::message::capped_list(dims, ", ")
                ))
            })?,
            (None, None) => Shape::unknown_rank(),
            (None, Some(other)) => {
                return Err(FrontendError::Graph(format!(
                    "placeholder '{}' has a {} 'shape' attribute; expected a list of ints",
                    op.name,
                    other.attr_type()
                )))
            }
        };
        Ok(TensorDesc::new(*dtype, shape, Format::Nd))
    }

    /// Output formats go on the output descriptors. An input format the
    /// plugin set explicitly (e.g. Conv2D's HWCN filter) also goes on the
    /// producing Data or Const (through Identity): that descriptor is the
    /// one inference reads, and sources keep theirs. A producer that
    /// already has a format other than ND keeps it.
    fn apply_formats(&mut self, id: NodeId, draft: &OpDraft) {
        let node = self.graph.node_mut(id);
        for (i, desc) in node.outputs.iter_mut().enumerate() {
            if let Some(format) = draft.output_format(i as u32) {
                desc.set_format(format);
            }
        }
        for &(i, format) in &draft.input_formats {
            if let Some(Some(edge)) = self.graph.node(id).inputs.get(i as usize).copied() {
                self.set_source_format(edge, format);
            }
        }
    }

    fn set_source_format(&mut self, mut edge: OutputRef, format: Format) {
        loop {
            let node = self.graph.node(edge.node);
            match node.op_type.as_str() {
                "Identity" | "EnsureShape" => match node.inputs.first() {
                    Some(Some(input)) => edge = *input,
                    _ => return,
                },
                "Const" | "Data" | "Placeholder" => {
                    let desc = &mut self.graph.node_mut(edge.node).outputs[edge.index as usize];
                    if desc.origin_format == Format::Nd {
                        desc.set_format(format);
                    }
                    return;
                }
                _ => return,
            }
        }
    }

    /// GE's one-to-many mapping: a PartitionedCall of the plugin's body
    /// (its Data nodes' `index` = the original input), taking every input.
    /// Framework references to the op's outputs resolve against the draft's
    /// IR op type when it is registered (its ports in order), else as one list.
    fn add_call(
        &mut self,
        op: &FrameworkOp,
        draft: OpDraft,
        body: Graph,
        edges: Vec<Option<OutputRef>>,
        controls: Vec<NodeId>,
    ) -> Result<(NodeId, OutputLayout), FrontendError> {
        let plugin_error = |message: String| FrontendError::Plugin {
            node: op.name.clone(),
            origin_op_type: op.op_type.to_string(),
            error: PluginError::new(message),
        };
        let Some(edges) = edges.into_iter().collect::<Option<Vec<_>>>() else {
            return Err(plugin_error(
                "an input is absent, but the node becomes a call of parse_op_to_graph's body, \
                 which takes every input"
                    .into(),
            ));
        };
        let count = body.outputs().len() as u32;
        if count == 0 {
            return Err(plugin_error(
                "parse_op_to_graph returned a graph without outputs; set its outputs".into(),
            ));
        }
        let outputs = match self.cx.ops.get(&draft.op_type) {
            Some(schema) => {
                let counts = output_counts(schema, &draft).map_err(plugin_error)?;
                let layout = OutputLayout::of(schema, &counts);
                if layout.total() != count {
                    return Err(plugin_error(format!(
                        "parse_op_to_graph returned a graph with {count} outputs, but {} has {}",
                        draft.op_type,
                        layout.total()
                    )));
                }
                layout
            }
            None => OutputLayout::list(&draft.op_type, count),
        };
        let f = NamedAttrs {
            name: body.name.clone(),
            attrs: draft.attrs,
        };
        let spec = OpSpec {
            op_type: "PartitionedCall".into(),
            name: op.name.clone(),
            inputs: vec![PortInput::Many(edges)],
            attrs: [("f", AttrValue::NamedAttrs(Box::new(f)))]
                .into_iter()
                .collect(),
            dynamic_outputs: vec![("output".into(), count)],
            subgraphs: vec![Subgraph::new("f", body)],
            control_inputs: controls,
        };
        let id = add_op(&mut self.graph, self.cx.ops, spec)
            .map_err(|e| FrontendError::Graph(format!("node '{}': {e}", op.name)))?;
        Ok((id, outputs))
    }
}

/// The IR node's name: the framework op's. The draft holds a copy made for
/// the plugin; when the plugin left it as it was, its buffer is reused.
fn take_node_name(draft: &mut OpDraft, op: &FrameworkOp) -> String {
    if draft.name == op.name {
        std::mem::take(&mut draft.name)
    } else {
        op.name.clone()
    }
}

/// The most outputs one node may have: far more than any real op, and a
/// bound on what an untrusted count attribute (`num_split`, `N`) allocates.
pub(super) const MAX_NODE_OUTPUTS: u64 = 1 << 16;

/// Instances per output port of `schema` (the draft's count for a DYNAMIC
/// port, else 1), checked against [`MAX_NODE_OUTPUTS`].
fn output_counts(schema: &OpSchema, draft: &OpDraft) -> Result<SmallVec<[u32; 2]>, String> {
    let is_dynamic = |name: &str| {
        schema
            .outputs
            .iter()
            .any(|p| p.name == name && p.param_type == ParamType::Dynamic)
    };
    if let Some((name, _)) = draft.dynamic_outputs.iter().find(|(n, _)| !is_dynamic(n)) {
        let dynamic: Vec<&str> = schema
            .outputs
            .iter()
            .filter(|p| p.param_type == ParamType::Dynamic)
            .map(|p| p.name.as_str())
            .collect();
        return Err(format!(
            "the plugin sizes dynamic output '{name}', which {} does not have (its dynamic \
             outputs: {})",
            schema.op_type,
            if dynamic.is_empty() {
                "none".to_owned()
            } else {
                dynamic.join(", ")
            }
        ));
    }
    let counts: SmallVec<[u32; 2]> = schema
        .outputs
        .iter()
        .map(|p| {
            draft
                .dynamic_outputs
                .iter()
                .find(|(n, _)| *n == p.name)
                .map_or(1, |&(_, c)| c)
        })
        .collect();
    let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    if total > MAX_NODE_OUTPUTS {
        return Err(format!(
            "it would have {total} outputs; a node may have at most {MAX_NODE_OUTPUTS}"
        ));
    }
    if let Some(&(index, _)) = draft
        .output_formats
        .iter()
        .find(|(i, _)| u64::from(*i) >= total)
    {
        return Err(format!(
            "the plugin sets the format of output {index}, but it has {total} output{}",
            if total == 1 { "" } else { "s" }
        ));
    }
    Ok(counts)
}

/// `_input_formats`: every flat input's format name ("" where the plugin set
/// none), when the plugin set any.
fn input_formats(draft: &OpDraft, inputs: usize) -> Option<AttrValue> {
    if draft.format.is_none() && draft.input_formats.is_empty() {
        return None;
    }
    let names = (0..inputs as u32)
        .map(|i| draft.input_format(i).map_or("", Format::name).to_owned())
        .collect();
    Some(AttrValue::ListStr(names))
}

/// The descriptor of a constant the decoder could not hold as host bytes
/// (an opaque tensor: `dtype` and `shape` attributes).
fn opaque_desc(op: &FrameworkOp, tensor: &NamedAttrs) -> Result<TensorDesc, FrontendError> {
    match (tensor.attrs.get("dtype"), tensor.attrs.get("shape")) {
        (Some(AttrValue::DataType(dtype)), Some(AttrValue::ListInt(dims))) => {
            Ok(TensorDesc::new(*dtype, Shape::from_dims(dims), Format::Nd))
        }
        _ => Err(FrontendError::Graph(format!(
            "Const '{}' holds an opaque tensor without a dtype and a shape",
            op.name
        ))),
    }
}
