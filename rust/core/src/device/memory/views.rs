//! Which outputs share an input's memory: output ports a prototype marks
//! with `reuses_input` (views such as Reshape, Squeeze, ExpandDims,
//! Flatten, Identity, and in-place / ref ops).

use crate::graph::Node;
use crate::op::{OpSchema, ParamType, PortDef};
use std::ops::Range;

/// Instance ranges of each prototype port of a node: its recorded counts,
/// or one instance per port with the rest going to a single DYNAMIC port
/// (as the engine lays them out). `None` when they cannot be matched.
fn instance_ranges(
    ports: &[PortDef],
    counts: &[u32],
    instances: usize,
) -> Option<Vec<Range<usize>>> {
    let counts: Vec<usize> = if counts.is_empty() {
        let dynamic: Vec<usize> = (0..ports.len())
            .filter(|&i| ports[i].param_type == ParamType::Dynamic)
            .collect();
        let fixed = ports.len() - dynamic.len();
        let mut counts = vec![1; ports.len()];
        match dynamic.as_slice() {
            [] if instances == ports.len() => {}
            [d] if instances >= fixed => counts[*d] = instances - fixed,
            _ => return None,
        }
        counts
    } else if counts.len() == ports.len() {
        counts.iter().map(|&c| c as usize).collect()
    } else {
        return None;
    };
    let mut start = 0;
    let ranges: Vec<Range<usize>> = counts
        .iter()
        .map(|&c| {
            start += c;
            start - c..start
        })
        .collect();
    (start == instances).then_some(ranges)
}

/// For each output, the input instance whose memory it reuses.
pub(crate) type Reused = smallvec::SmallVec<[Option<usize>; 2]>;

/// For each output instance of `node`, the input instance whose memory it
/// shares, if any. A DYNAMIC output pairs with its DYNAMIC input instance
/// by instance; instances without a partner (or a node whose ports do not
/// match its prototype) keep their own memory.
pub(crate) fn reused_inputs(node: &Node, schema: &OpSchema) -> Reused {
    // Inline for the usual one or two outputs: this runs for every node.
    let mut reused: Reused = smallvec::smallvec![None; node.outputs.len()];
    if schema.outputs.iter().all(|p| p.reuses_input.is_none()) {
        return reused;
    }
    let (Some(inputs), Some(outputs)) = (
        instance_ranges(&schema.inputs, &node.input_counts, node.inputs.len()),
        instance_ranges(&schema.outputs, &node.output_counts, node.outputs.len()),
    ) else {
        return reused;
    };
    for (port, out_range) in schema.outputs.iter().zip(outputs) {
        let Some(input) = port
            .reuses_input
            .as_deref()
            .and_then(|n| schema.input_index(n))
        else {
            continue;
        };
        let in_range = inputs[input].clone();
        for (k, out) in out_range.enumerate() {
            // A single input instance backs every instance of a REQUIRED
            // output; DYNAMIC pairs instance k with instance k.
            let instance = if port.param_type == ParamType::Dynamic {
                in_range.start + k
            } else {
                in_range.start
            };
            if instance < in_range.end && node.inputs[instance].is_some() {
                reused[out] = Some(instance);
            }
        }
    }
    reused
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{NodeId, OutputRef};
    use crate::op::OpRegistry;

    fn node(op_type: &str, inputs: usize, outputs: usize) -> Node {
        let edges = (0..inputs)
            .map(|i| Some(OutputRef::new(NodeId(i as u32), 0)))
            .collect();
        Node::new("n", op_type, edges, outputs)
    }

    #[test]
    fn built_in_views_share_their_input() {
        let r = OpRegistry::with_builtins();
        let shares = |op: &str, inputs: usize, outputs: usize| {
            reused_inputs(&node(op, inputs, outputs), r.get(op).unwrap()).to_vec()
        };
        for op in [
            "Reshape",
            "Squeeze",
            "ExpandDims",
            "Flatten",
            "FlattenV2",
            "Identity",
        ] {
            let inputs = if matches!(op, "Reshape" | "ExpandDims") {
                2
            } else {
                1
            };
            assert_eq!(shares(op, inputs, 1), [Some(0)], "{op}");
        }
        assert_eq!(shares("IdentityN", 3, 3), [Some(0), Some(1), Some(2)]);
        assert_eq!(shares("Switch", 2, 2), [Some(0), Some(0)]);
        assert_eq!(shares("Enter", 1, 1), [Some(0)]);
        assert_eq!(shares("Merge", 2, 2), [None, None]);
        assert_eq!(shares("Add", 2, 1), [None]);
    }

    #[test]
    fn mismatched_ports_keep_their_own_memory() {
        let r = OpRegistry::with_builtins();
        // IdentityN with fewer outputs than inputs: the pairs that exist share.
        let id_n = reused_inputs(&node("IdentityN", 3, 2), r.get("IdentityN").unwrap());
        assert_eq!(id_n[..], [Some(0), Some(1)]);
        // A Reshape with a missing input keeps its own memory.
        let mut reshape = node("Reshape", 2, 1);
        reshape.inputs[0] = None;
        assert_eq!(
            reused_inputs(&reshape, r.get("Reshape").unwrap())[..],
            [None]
        );
        // Instance counts that do not fit the prototype: no sharing.
        let mut wrong = node("Identity", 2, 1);
        wrong.input_counts = [1, 1].into_iter().collect();
        assert_eq!(
            reused_inputs(&wrong, r.get("Identity").unwrap())[..],
            [None]
        );
    }
}
