//! Adding op nodes to a graph by prototype: inputs given per prototype port
//! (single, absent, or a list for a dynamic port), attributes coerced to
//! their declared types, dynamic output counts by port name.

use crate::graph::{Graph, GraphError, Node, NodeId, OutputRef, Subgraph};
use crate::op::{OpRegistry, OpSchema, ParamType};
use crate::types::Attrs;
use smallvec::SmallVec;

/// What feeds one prototype input.
#[derive(Clone, Debug, PartialEq)]
pub enum PortInput {
    /// A REQUIRED or OPTIONAL port (`None`: absent optional input).
    Single(Option<OutputRef>),
    /// The instances of a DYNAMIC port.
    Many(Vec<OutputRef>),
}

#[derive(Clone, Debug, Default)]
pub struct OpSpec {
    pub op_type: String,
    pub name: String,
    /// Per prototype input, in prototype order; missing trailing ports are absent.
    pub inputs: Vec<PortInput>,
    pub attrs: Attrs,
    /// Instance counts of DYNAMIC outputs by port name (default 1).
    pub dynamic_outputs: Vec<(String, u32)>,
    pub subgraphs: Vec<Subgraph>,
    pub control_inputs: Vec<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("cannot add node '{node}': op type '{op_type}' is not registered")]
    UnknownOp { node: String, op_type: String },
    #[error("cannot add node '{node}' ({op_type}): {reason}")]
    BadPorts {
        node: String,
        op_type: String,
        reason: String,
    },
    #[error(transparent)]
    Graph(#[from] GraphError),
}

/// Adds the node `spec` describes, laid out by its registered prototype.
pub fn add_op(
    graph: &mut Graph,
    registry: &OpRegistry,
    spec: OpSpec,
) -> Result<NodeId, BuildError> {
    let Some(schema) = registry.get(&spec.op_type) else {
        return Err(BuildError::UnknownOp {
            node: spec.name,
            op_type: spec.op_type,
        });
    };
    add_op_by(graph, schema, spec)
}

/// [`add_op`] with the prototype of `spec.op_type` already looked up.
pub(crate) fn add_op_by(
    graph: &mut Graph,
    schema: &OpSchema,
    spec: OpSpec,
) -> Result<NodeId, BuildError> {
    debug_assert_eq!(schema.op_type, spec.op_type);
    let bad = |reason: String| BuildError::BadPorts {
        node: spec.name.clone(),
        op_type: spec.op_type.clone(),
        reason,
    };
    if spec.inputs.len() > schema.inputs.len() {
        return Err(bad(format!(
            "it takes {} inputs ({}), got {}",
            schema.inputs.len(),
            schema
                .inputs
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            spec.inputs.len()
        )));
    }
    let given_count: usize = spec
        .inputs
        .iter()
        .map(|given| match given {
            PortInput::Single(_) => 1,
            PortInput::Many(edges) => edges.len(),
        })
        .sum();
    // Exactly sized: the node keeps this vector for the graph's lifetime.
    let mut inputs = Vec::with_capacity(given_count.max(schema.inputs.len()));
    let mut input_counts = SmallVec::new();
    let mut given_inputs = spec.inputs.into_iter();
    for port in &schema.inputs {
        let given = given_inputs.next().unwrap_or(PortInput::Single(None));
        match (port.param_type, given) {
            (ParamType::Dynamic, PortInput::Many(v)) => {
                input_counts.push(v.len() as u32);
                inputs.extend(v.into_iter().map(Some));
            }
            (ParamType::Dynamic, PortInput::Single(e)) => {
                input_counts.push(u32::from(e.is_some()));
                inputs.extend(e.map(Some));
            }
            (ParamType::Required, PortInput::Single(None)) => {
                return Err(bad(format!("required input '{}' is not given", port.name)))
            }
            (_, PortInput::Single(e)) => {
                input_counts.push(1);
                inputs.push(e);
            }
            (_, PortInput::Many(_)) => {
                return Err(bad(format!(
                    "input '{}' is not dynamic; give one tensor",
                    port.name
                )))
            }
        }
    }
    for (name, _) in &spec.dynamic_outputs {
        match schema.output_index(name) {
            Some(o) if schema.outputs[o].param_type == ParamType::Dynamic => {}
            _ => return Err(bad(format!("'{name}' is not a dynamic output"))),
        }
    }
    let output_counts: SmallVec<[u32; 2]> = schema
        .outputs
        .iter()
        .map(|p| {
            spec.dynamic_outputs
                .iter()
                .find(|(n, _)| *n == p.name)
                .map_or(1, |(_, c)| *c)
        })
        .collect();
    let mut attrs = spec.attrs;
    for def in &schema.attrs {
        if let Some((name, value)) = attrs.remove_entry(&def.name) {
            // A value that cannot be coerced is kept as given; the prototype
            // check reports it with the node's context.
            let value = value.coerce(def.ty).unwrap_or_else(|v| v);
            attrs.set(name, value);
        }
    }
    attrs.shrink_to_fit();
    let mut node = Node::new(
        spec.name,
        spec.op_type,
        inputs,
        output_counts.iter().sum::<u32>() as usize,
    );
    node.input_counts = input_counts;
    node.output_counts = output_counts;
    node.attrs = attrs;
    node.subgraphs = spec.subgraphs.into();
    node.control_inputs = spec.control_inputs.into();
    Ok(graph.add_node(node)?)
}
