//! Framework inputs and outputs against IR prototypes: the flat input list
//! laid out over the prototype's ports (DYNAMIC ports sized by the draft),
//! and framework output references (`node:i`, `node:arg:i`) turned into
//! flat IR output indices.

use crate::builder::PortInput;
use crate::frontend::{FrameworkInput, OpDraft};
use crate::graph::OutputRef;
use crate::op::{OpSchema, ParamType, PortDef};
use smallvec::SmallVec;
use std::sync::Arc;

/// `inputs` (flat, in framework order after edits) laid out over the
/// prototype ports of `schema`, in order: one per REQUIRED port, one or
/// none (when the inputs have run out) per OPTIONAL port, and the draft's
/// count per DYNAMIC port. A DYNAMIC port the draft did not size takes the
/// inputs the other ports leave when it is the only unsized one, else one.
/// An absent input (`None`, ONNX's "") may only fill an OPTIONAL port.
/// Errors say what the prototype expected.
pub(super) fn lay_out_inputs(
    schema: &OpSchema,
    draft: &OpDraft,
    inputs: &[Option<OutputRef>],
) -> Result<Vec<PortInput>, String> {
    let sized = |port: &PortDef| {
        draft
            .dynamic_inputs
            .iter()
            .find(|(name, _)| *name == port.name)
            .map(|&(_, n)| n as usize)
    };
    let dynamic = |p: &&PortDef| p.param_type == ParamType::Dynamic;
    if let Some((name, _)) = draft.dynamic_inputs.iter().find(|(name, _)| {
        !schema
            .inputs
            .iter()
            .filter(dynamic)
            .any(|p| p.name == *name)
    }) {
        return Err(format!(
            "the plugin sizes dynamic input '{name}', which {} does not have ({})",
            schema.op_type,
            describe_ports(schema, draft)
        ));
    }
    let unsized_ports = schema
        .inputs
        .iter()
        .filter(dynamic)
        .filter(|p| sized(p).is_none())
        .count();
    let other_slots: usize = schema
        .inputs
        .iter()
        .map(|p| match p.param_type {
            ParamType::Dynamic => sized(p).unwrap_or(0),
            _ => 1,
        })
        .sum();
    let leftover = inputs.len().saturating_sub(other_slots);

    let mut laid_out = Vec::with_capacity(schema.inputs.len());
    let mut at = 0;
    for port in &schema.inputs {
        match port.param_type {
            ParamType::Required => {
                let Some(&given) = inputs.get(at) else {
                    return Err(format!(
                        "it has {}, but {} needs one for required input '{}' ({})",
                        count_inputs(inputs.len()),
                        schema.op_type,
                        port.name,
                        describe_ports(schema, draft)
                    ));
                };
                let Some(edge) = given else {
                    return Err(format!(
                        "its input {at} is absent, but {} input '{}' is required ({})",
                        schema.op_type,
                        port.name,
                        describe_ports(schema, draft)
                    ));
                };
                laid_out.push(PortInput::Single(Some(edge)));
                at += 1;
            }
            ParamType::Optional => {
                let edge = inputs.get(at).copied();
                at += usize::from(edge.is_some());
                laid_out.push(PortInput::Single(edge.flatten()));
            }
            ParamType::Dynamic => {
                let count = match sized(port) {
                    Some(n) => n,
                    None if unsized_ports == 1 => leftover,
                    None => 1,
                };
                let Some(edges) = inputs.get(at..at + count) else {
                    return Err(format!(
                        "dynamic input '{}' of {} takes {}, but only {} of its {} remain ({})",
                        port.name,
                        schema.op_type,
                        count_inputs(count),
                        inputs.len() - at,
                        count_inputs(inputs.len()),
                        describe_ports(schema, draft)
                    ));
                };
                let Some(edges) = edges.iter().copied().collect::<Option<Vec<_>>>() else {
                    return Err(format!(
                        "an input of dynamic input '{}' of {} is absent; only optional inputs may be",
                        port.name, schema.op_type
                    ));
                };
                laid_out.push(PortInput::Many(edges));
                at += count;
            }
        }
    }
    if at < inputs.len() {
        return Err(format!(
            "it has {}, but {} takes {at} ({})",
            count_inputs(inputs.len()),
            schema.op_type,
            describe_ports(schema, draft)
        ));
    }
    // An absent optional input still has its place (a plugin may give every
    // port a format whether or not the model feeds it).
    let places: usize = laid_out
        .iter()
        .map(|p| match p {
            PortInput::Single(_) => 1,
            PortInput::Many(edges) => edges.len(),
        })
        .sum();
    if let Some(&(index, _)) = draft
        .input_formats
        .iter()
        .find(|(i, _)| *i as usize >= places)
    {
        return Err(format!(
            "the plugin sets the format of input {index}, but it has {}",
            count_inputs(places)
        ));
    }
    Ok(laid_out)
}

fn count_inputs(n: usize) -> String {
    format!("{n} input{}", if n == 1 { "" } else { "s" })
}

/// `x, filter, bias?, values*3`: the ports with `?` for optional and the
/// draft's count for dynamic ones.
fn describe_ports(schema: &OpSchema, draft: &OpDraft) -> String {
    let names: Vec<String> = schema
        .inputs
        .iter()
        .map(|p| match p.param_type {
            ParamType::Required => p.name.clone(),
            ParamType::Optional => format!("{}?", p.name),
            ParamType::Dynamic => match draft.dynamic_inputs.iter().find(|(n, _)| *n == p.name) {
                Some((_, n)) => format!("{}*{n}", p.name),
                None => format!("{}*", p.name),
            },
        })
        .collect();
    if names.is_empty() {
        "no inputs".into()
    } else {
        names.join(", ")
    }
}

/// The flat input position of the first DYNAMIC input port's first
/// instance (0 without one): where a body's arguments start among its
/// caller's inputs (If's and Case's selector comes first).
pub(super) fn first_dynamic_input(schema: &OpSchema, laid_out: &[PortInput]) -> usize {
    let mut at = 0;
    for (port, given) in schema.inputs.iter().zip(laid_out) {
        if port.param_type == ParamType::Dynamic {
            return at;
        }
        at += match given {
            PortInput::Single(_) => 1,
            PortInput::Many(v) => v.len(),
        };
    }
    0
}

/// A converted node's outputs by IR port: how framework references to them
/// become flat output indices. Every converted op keeps one until the
/// conversion ends, so it borrows the prototype instead of copying names.
#[derive(Clone, Debug)]
pub(super) enum OutputLayout {
    /// The ports of an IR prototype, with the instances of each.
    Ports {
        schema: Arc<OpSchema>,
        counts: SmallVec<[u32; 2]>,
    },
    /// One port named `output` (the outputs of a body whose op type has no
    /// prototype).
    List { op_type: Box<str>, count: u32 },
}

impl OutputLayout {
    /// The layout of `schema`'s outputs with `counts` instances per port.
    pub(super) fn of(schema: &Arc<OpSchema>, counts: &[u32]) -> OutputLayout {
        OutputLayout::Ports {
            schema: Arc::clone(schema),
            counts: counts.iter().copied().collect(),
        }
    }

    /// One port named `output` with `count` instances.
    pub(super) fn list(op_type: &str, count: u32) -> OutputLayout {
        OutputLayout::List {
            op_type: op_type.into(),
            count,
        }
    }

    fn op_type(&self) -> &str {
        match self {
            OutputLayout::Ports { schema, .. } => &schema.op_type,
            OutputLayout::List { op_type, .. } => op_type,
        }
    }

    /// (port name, first flat index, instance count), in port order.
    fn ports(&self) -> SmallVec<[(&str, u32, u32); 2]> {
        match self {
            OutputLayout::Ports { schema, counts } => {
                let mut start = 0;
                schema
                    .outputs
                    .iter()
                    .zip(counts)
                    .map(|(port, &count)| {
                        let entry = (port.name.as_str(), start, count);
                        start += count;
                        entry
                    })
                    .collect()
            }
            OutputLayout::List { count, .. } => [("output", 0, *count)].into_iter().collect(),
        }
    }

    pub(super) fn total(&self) -> u32 {
        match self {
            OutputLayout::Ports { counts, .. } => counts.iter().sum(),
            OutputLayout::List { count, .. } => *count,
        }
    }

    /// The flat output index `input` names. `node:i` is already flat;
    /// `node:arg:i` is instance `i` of the port named `arg` (TensorFlow's
    /// output argument names are our IR port names for the ops we map), or
    /// of the only port when there is one (single-output ops name their
    /// output differently: `z`, `output`, `product` ...), or, for `output`,
    /// of the first port (TensorFlow's usual name for an op's main result).
    /// Errors end a sentence naming the reference.
    pub(super) fn flat_index(&self, input: &FrameworkInput) -> Result<u32, String> {
        let total = self.total();
        let Some(arg) = input.output_arg.as_deref() else {
            if input.index < total {
                return Ok(input.index);
            }
            return Err(format!(
                "output {} of '{}', which has {total} output{} as {}",
                input.index,
                input.node,
                if total == 1 { "" } else { "s" },
                self.op_type()
            ));
        };
        let ports = self.ports();
        let port = ports
            .iter()
            .find(|p| p.0 == arg)
            .or_else(|| match ports.as_slice() {
                [only] => Some(only),
                [first, ..] if arg == "output" => Some(first),
                _ => None,
            });
        let Some((name, start, count)) = port else {
            let names: Vec<&str> = ports.iter().map(|p| p.0).collect();
            return Err(format!(
                "output '{arg}:{}' of '{}', but its IR op {} has no output named '{arg}' (it has {})",
                input.index,
                input.node,
                self.op_type(),
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
        };
        if input.index < *count {
            Ok(start + input.index)
        } else {
            Err(format!(
                "output '{arg}:{}' of '{}', but its output '{name}' has {count} instance{}",
                input.index,
                input.node,
                if *count == 1 { "" } else { "s" }
            ))
        }
    }
}
