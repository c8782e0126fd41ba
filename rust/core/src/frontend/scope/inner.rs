//! Many-to-many results (GE's `ScopeToMultiNodes` with `InnerNodeInfo`s):
//! each inner node becomes a framework op named `<result name>/<name>`,
//! taking fused inputs (`InputFromFusionScope`, i) or other inner nodes'
//! outputs, and providing fused outputs (`OutputToFusionScope`, j).
//!
//! GE declares inner edges on both ends; here the consumer's
//! `insert_input` makes the edge, and a producer's `insert_output` towards
//! an inner node must agree with it (its k-th declared output is its
//! output k). Inner node types are framework op types: parser plugins map
//! them like any other op.

use super::result::{
    FusionScopesResult, InnerNode, INPUT_FROM_FUSION_SCOPE, OUTPUT_TO_FUSION_SCOPE,
};
use crate::frontend::{FrameworkInput, FrameworkOp, PluginError};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// How a many-to-many region looks from outside.
#[derive(Clone, Debug, Default)]
pub struct InnerOutputs {
    /// Fused output j → (inner op, its output k).
    pub providers: FxHashMap<u32, FrameworkInput>,
    /// What depended on the region depends on these inner ops.
    pub control_sources: Vec<String>,
}

fn error(result: &FusionScopesResult, message: String) -> PluginError {
    PluginError::new(format!("many-to-many fusion '{}': {message}", result.name))
}

fn find<'a>(result: &'a FusionScopesResult, name: &str) -> Option<&'a InnerNode> {
    result.inner_nodes.iter().find(|n| n.name == name)
}

/// Checks the inner nodes' names and outputs; returns which inner node
/// provides each fused output.
pub fn inner_outputs(result: &FusionScopesResult) -> Result<InnerOutputs, PluginError> {
    if result.inner_nodes.is_empty() {
        return Err(error(
            result,
            "the result has type ScopeToMultiNodes but no inner node (add_inner_node)".into(),
        ));
    }
    let mut names = FxHashSet::default();
    for node in &result.inner_nodes {
        if node.name.is_empty() || node.op_type.is_empty() {
            return Err(error(
                result,
                format!(
                    "inner node '{}' of type '{}' needs a name and a type",
                    node.name, node.op_type
                ),
            ));
        }
        if !names.insert(node.name.as_str()) {
            return Err(error(
                result,
                format!("two inner nodes are named '{}'", node.name),
            ));
        }
    }
    let mut outputs = InnerOutputs::default();
    for node in &result.inner_nodes {
        let full = result.inner_node_name(&node.name);
        let data_outputs = node.outputs.iter().filter(|(_, i)| *i != -1);
        for (k, (target, index)) in (0u32..).zip(data_outputs) {
            if target == OUTPUT_TO_FUSION_SCOPE {
                let j = u32::try_from(*index).map_err(|_| {
                    error(
                        result,
                        format!(
                            "inner node '{}' sends output {k} to fused output {index}",
                            node.name
                        ),
                    )
                })?;
                if outputs
                    .providers
                    .insert(j, FrameworkInput::new(full.clone(), k))
                    .is_some()
                {
                    return Err(error(
                        result,
                        format!("fused output {j} is declared by more than one inner node output"),
                    ));
                }
                if !outputs.control_sources.contains(&full) {
                    outputs.control_sources.push(full.clone());
                }
                continue;
            }
            let consumer = find(result, target).ok_or_else(|| {
                error(result, format!("inner node '{}' sends output {k} to '{target}', which is not an inner node", node.name))
            })?;
            let agrees = usize::try_from(*index)
                .ok()
                .and_then(|i| consumer.inputs.get(i))
                .is_some_and(|(src, port)| *src == node.name && i64::from(*port) == i64::from(k));
            if !agrees {
                return Err(error(
                    result,
                    format!(
                        "inner node '{}' declares its output {k} feeds input {index} of '{target}', but '{target}' does not take ('{}', {k}) there",
                        node.name, node.name
                    ),
                ));
            }
        }
    }
    if outputs.control_sources.is_empty() {
        outputs.control_sources = result
            .inner_nodes
            .iter()
            .map(|n| result.inner_node_name(&n.name))
            .collect();
    }
    Ok(outputs)
}

/// The inner nodes as framework ops, wired to the region's fused `inputs`
/// (index → source) and `controls`.
pub fn build_inner_nodes(
    result: &FusionScopesResult,
    inputs: &BTreeMap<u32, FrameworkInput>,
    controls: &[String],
) -> Result<Vec<FrameworkOp>, PluginError> {
    // Control edges into the region reach the nodes taking fused inputs
    // (every node when none does).
    let takes_fused = |node: &InnerNode| {
        node.inputs
            .iter()
            .any(|(s, _)| s == INPUT_FROM_FUSION_SCOPE)
    };
    let any_takes_fused = result.inner_nodes.iter().any(takes_fused);
    let mut ops = Vec::with_capacity(result.inner_nodes.len());
    for node in &result.inner_nodes {
        let mut op = FrameworkOp {
            name: result.inner_node_name(&node.name),
            op_type: node.op_type.as_str().into(),
            attrs: node.attrs.clone(),
            ..FrameworkOp::default()
        };
        for (source, index) in &node.inputs {
            if source == INPUT_FROM_FUSION_SCOPE {
                if *index == -1 {
                    continue;
                }
                let input = u32::try_from(*index)
                    .ok()
                    .and_then(|i| inputs.get(&i))
                    .ok_or_else(|| {
                        error(
                            result,
                            format!(
                                "inner node '{}' takes fused input {index}, but the index maps give the region {} input(s)",
                                node.name,
                                inputs.len()
                            ),
                        )
                    })?;
                op.inputs.push(input.clone());
                continue;
            }
            if find(result, source).is_none() {
                return Err(error(
                    result,
                    format!("inner node '{}' takes an input from '{source}', which is not an inner node", node.name),
                ));
            }
            let producer = result.inner_node_name(source);
            match u32::try_from(*index) {
                Ok(port) => op.inputs.push(FrameworkInput::new(producer, port)),
                Err(_) if *index == -1 => op.control_inputs.push(producer),
                Err(_) => {
                    return Err(error(
                        result,
                        format!(
                            "inner node '{}' takes output {index} of '{source}'",
                            node.name
                        ),
                    ))
                }
            }
        }
        if takes_fused(node) || !any_takes_fused {
            for control in controls {
                if !op.control_inputs.contains(control) {
                    op.control_inputs.push(control.clone());
                }
            }
        }
        ops.push(op);
    }
    Ok(ops)
}
