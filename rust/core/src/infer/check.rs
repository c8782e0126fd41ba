//! The prototype check GE runs before a node's own functions: port
//! arity, dtype combinations, formats, input Follow constraints and attributes.

use super::context::filled;
use crate::graph::Node;
use crate::op::{OpError, OpSchema, ParamType, PortDef};
use crate::types::{DataType, Format, TensorDesc};
use smallvec::SmallVec;

/// Which parallel dtype combinations the inputs leave possible.
pub(crate) type LiveCombinations = SmallVec<[bool; 16]>;

/// Fills empty per-port instance counts from the prototype: one instance per
/// REQUIRED/OPTIONAL port, the remainder for a single DYNAMIC port.
pub(crate) fn port_counts(ports: &[PortDef], instances: usize) -> Option<SmallVec<[u32; 4]>> {
    let dynamic: Vec<usize> = (0..ports.len())
        .filter(|&i| ports[i].param_type == ParamType::Dynamic)
        .collect();
    let fixed = ports.len() - dynamic.len();
    let mut counts: SmallVec<[u32; 4]> = SmallVec::from_elem(1, ports.len());
    match dynamic.as_slice() {
        [] if instances == ports.len() => {}
        [d] if instances >= fixed => counts[*d] = (instances - fixed) as u32,
        _ => return None,
    }
    Some(counts)
}

pub(crate) fn check_prototype(
    node: &Node,
    schema: &OpSchema,
    inputs: &[Option<&TensorDesc>],
) -> Result<LiveCombinations, OpError> {
    check_arity(node, schema)?;
    let live = check_input_dtypes(node, schema, inputs)?;
    check_attrs(node, schema)?;
    Ok(live)
}

fn check_arity(node: &Node, schema: &OpSchema) -> Result<(), OpError> {
    if node.input_counts.len() != schema.inputs.len() {
        crate::bail!(
            "it has {} inputs but {} takes {} ({})",
            node.inputs.len(),
            schema.op_type,
            schema.inputs.len(),
            port_names(&schema.inputs)
        );
    }
    let mut at = 0;
    for (port, &count) in schema.inputs.iter().zip(&node.input_counts) {
        let instances = &node.inputs[at..at + count as usize];
        at += count as usize;
        match port.param_type {
            ParamType::Required if count != 1 || instances[0].is_none() => {
                crate::bail!("required input '{}' is not connected", port.name)
            }
            ParamType::Optional if count > 1 => {
                crate::bail!(
                    "optional input '{}' has {count} instances; it takes at most one",
                    port.name
                )
            }
            ParamType::Dynamic if instances.iter().any(Option::is_none) => {
                crate::bail!("dynamic input '{}' has an unconnected instance", port.name)
            }
            _ => {}
        }
    }
    if node.output_counts.len() != schema.outputs.len() {
        crate::bail!(
            "it has {} outputs but {} produces {} ({})",
            node.outputs.len(),
            schema.op_type,
            schema.outputs.len(),
            port_names(&schema.outputs)
        );
    }
    for (port, &count) in schema.outputs.iter().zip(&node.output_counts) {
        if port.param_type == ParamType::Required && count != 1 {
            crate::bail!(
                "required output '{}' has {count} instances; it takes one",
                port.name
            );
        }
    }
    Ok(())
}

fn port_names(ports: &[PortDef]) -> String {
    let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn check_input_dtypes(
    node: &Node,
    schema: &OpSchema,
    inputs: &[Option<&TensorDesc>],
) -> Result<LiveCombinations, OpError> {
    let mut live: LiveCombinations = filled(true, schema.combination_count());
    let mut at = 0;
    for (p, (port, &count)) in schema.inputs.iter().zip(&node.input_counts).enumerate() {
        for desc in inputs[at..at + count as usize].iter().flatten() {
            let dtype = desc.dtype;
            // Not inferred yet: only a TF v1 loop back edge on the first pass
            // over its frame looks like this (a failed producer's consumers
            // are skipped, and Data / Const reject an undefined dtype). The
            // Merge rule ignores it; the next pass brings its real desc.
            if dtype == DataType::Undefined {
                continue;
            }
            if port.dtype_list && !port.dtypes.is_empty() && !port.dtypes.contains(&dtype) {
                crate::bail!(
                    "input '{}' is {dtype}, but it takes {}",
                    port.name,
                    dtype_names(&port.dtypes)
                );
            }
            if port.in_combinations() {
                // Registration gives every combination port the same length.
                for (alive, &allowed) in live.iter_mut().zip(&port.dtypes) {
                    *alive &= allowed == dtype;
                }
            }
            check_format(port, desc.origin_format)?;
            check_input_follow(schema, p, desc, inputs, node)?;
        }
        at += count as usize;
    }
    if !live.is_empty() && !live.contains(&true) {
        let (actual, mixed) = combination_dtypes(node, schema, inputs);
        let mixed = match mixed {
            Some(port) => format!(
                "; the elements of one dynamic input share one dtype, and '{port}' mixes them"
            ),
            None => String::new(),
        };
        crate::bail!(
            "its input dtypes ({}) match none of the allowed combinations {}{mixed}",
            actual.join(", "),
            combinations(schema)
        );
    }
    Ok(live)
}

/// The dtypes of the combination inputs, each element of a dynamic input
/// by index (`x[0]=FLOAT, x[1]=FLOAT16`), and the first dynamic input whose
/// elements differ.
fn combination_dtypes(
    node: &Node,
    schema: &OpSchema,
    inputs: &[Option<&TensorDesc>],
) -> (Vec<String>, Option<String>) {
    let mut actual = Vec::new();
    let mut mixed = None;
    let mut at = 0;
    for (port, &count) in schema.inputs.iter().zip(&node.input_counts) {
        let instances = &inputs[at..at + count as usize];
        at += count as usize;
        if !port.in_combinations() {
            continue;
        }
        let dynamic = port.param_type == ParamType::Dynamic;
        let mut first = None;
        for (i, desc) in instances.iter().enumerate() {
            let Some(desc) = desc else { continue };
            if dynamic {
                actual.push(format!("{}[{i}]={}", port.name, desc.dtype));
                match first {
                    None => first = Some(desc.dtype),
                    Some(dtype) if dtype != desc.dtype && mixed.is_none() => {
                        mixed = Some(port.name.clone());
                    }
                    Some(_) => {}
                }
            } else {
                actual.push(format!("{}={}", port.name, desc.dtype));
            }
        }
    }
    (actual, mixed)
}

fn check_format(port: &PortDef, format: Format) -> Result<(), OpError> {
    let allowed = port.formats.is_empty()
        || format == Format::Nd
        || port.formats.contains(&format)
        || port.formats.contains(&Format::Nd);
    if !allowed {
        let names: Vec<&str> = port.formats.iter().map(|f| f.name()).collect();
        crate::bail!(
            "input '{}' is in format {format}, but it takes {}",
            port.name,
            names.join(" or ")
        );
    }
    Ok(())
}

/// An input that follows another input must agree with it.
fn check_input_follow(
    schema: &OpSchema,
    port: usize,
    desc: &TensorDesc,
    inputs: &[Option<&TensorDesc>],
    node: &Node,
) -> Result<(), OpError> {
    let Some(follow) = &schema.inputs[port].follow else {
        return Ok(());
    };
    let Some(target) = schema.input_index(&follow.port) else {
        return Ok(());
    };
    let start: u32 = node.input_counts[..target].iter().sum();
    let Some(Some(other)) = inputs.get(start as usize) else {
        return Ok(());
    };
    let name = &schema.inputs[port].name;
    if follow.kind.covers(crate::op::FollowType::Dtype) && desc.dtype != other.dtype {
        crate::bail!(
            "input '{name}' is {} but must have the dtype of '{}' ({})",
            desc.dtype,
            follow.port,
            other.dtype
        );
    }
    if follow.kind.covers(crate::op::FollowType::Shape) && desc.shape() != other.shape() {
        crate::bail!(
            "input '{name}' is {} but must have the shape of '{}' ({})",
            desc.shape(),
            follow.port,
            other.shape()
        );
    }
    Ok(())
}

fn check_attrs(node: &Node, schema: &OpSchema) -> Result<(), OpError> {
    for def in &schema.attrs {
        match node.attrs.get(&def.name) {
            Some(value) if value.attr_type() != def.ty => crate::bail!(
                "attribute '{}' is a {}, expected {}",
                def.name,
                value.attr_type(),
                def.ty
            ),
            None if def.default.is_none() => {
                crate::bail!("required attribute '{}' ({}) is missing", def.name, def.ty)
            }
            _ => {}
        }
    }
    Ok(())
}

pub(crate) fn dtype_names(dtypes: &[DataType]) -> String {
    let names: Vec<&str> = dtypes.iter().map(|d| d.name()).collect();
    format!("one of {{{}}}", names.join(", "))
}

/// `(FLOAT, FLOAT), (FLOAT16, FLOAT16)` over the combination inputs.
fn combinations(schema: &OpSchema) -> String {
    let ports: Vec<&PortDef> = schema
        .inputs
        .iter()
        .filter(|p| p.in_combinations())
        .collect();
    let combos: Vec<String> = (0..schema.combination_count())
        .map(|k| {
            let dts: Vec<&str> = ports.iter().map(|p| p.dtypes[k].name()).collect();
            format!("({})", dts.join(", "))
        })
        .collect();
    combos.join(", ")
}
