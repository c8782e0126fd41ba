//! Scan onto the IR's Scan (`ops::control::scan`): opset 9's form (states
//! then scan inputs, per-input axes and directions) and opset 8's batched
//! form (`sequence_lens` first, a batch axis everywhere). The body reads
//! outer values as extra inputs, as Loop's does.

use super::{int64_vector, plugin, Node};
use crate::frontend::{FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::AttrValue;

pub(super) fn plugins() -> Vec<ParserPlugin> {
    vec![
        plugin("Scan", "Scan", 8, |src, dst| parse_scan(src, dst, true)),
        plugin("Scan", "Scan", 9, |src, dst| parse_scan(src, dst, false)),
    ]
}

fn parse_scan(src: &FrameworkOp, dst: &mut OpDraft, batched: bool) -> Result<(), PluginError> {
    let node = Node::of(src);
    match src.attrs.get("body") {
        Some(AttrValue::NamedAttrs(f)) => dst.set_attr("body", AttrValue::NamedAttrs(f.clone())),
        _ => return Err(node.error("Scan has no graph attribute 'body'")),
    }
    let Some(m) = node.int("num_scan_inputs")? else {
        return Err(node.error("Scan needs the attribute 'num_scan_inputs'"));
    };
    let own = node.input_count();
    let captured = src.inputs.len().saturating_sub(own);
    // Opset 8: input 0 is the optional `sequence_lens`; an empty constant
    // stands for "every sequence is full length".
    let lead = usize::from(batched);
    if batched && !node.has_input(0) {
        dst.insert_const_input(0, "sequence_lens", int64_vector(&[]));
    }
    let given = own.max(lead);
    let states = usize::try_from(m)
        .ok()
        .filter(|&m| m >= 1)
        .and_then(|m| given.checked_sub(lead)?.checked_sub(m));
    let Some(states) = states else {
        return Err(node.error(format_args!(
            "num_scan_inputs is {m}, but the node has {} inputs{}",
            given.saturating_sub(lead),
            if batched { " after sequence_lens" } else { "" }
        )));
    };
    let m = usize::try_from(m).unwrap_or(0);
    let outputs = node.output_count();
    // Output-side lists may be longer: the node can leave trailing scan
    // outputs of the body out.
    for (name, expected, exact) in [
        ("scan_input_axes", m, true),
        ("scan_input_directions", m, true),
        ("directions", m, true),
        ("scan_output_axes", outputs.saturating_sub(states), false),
        (
            "scan_output_directions",
            outputs.saturating_sub(states),
            false,
        ),
    ] {
        if let Some(values) = node.ints(name)? {
            if values.len() < expected || (exact && values.len() != expected) {
                return Err(node.error(format_args!(
                    "attribute '{name}' has {} entries; it needs {expected}",
                    values.len()
                )));
            }
            let to = if name == "directions" {
                "scan_input_directions"
            } else {
                name
            };
            dst.set_attr(to, AttrValue::ListInt(values));
        }
    }
    dst.set_attr("num_states", AttrValue::Int(states as i64));
    dst.set_attr("num_scan_inputs", AttrValue::Int(m as i64));
    dst.set_attr("batched", AttrValue::Int(i64::from(batched)));
    dst.set_dynamic_input("input", (given + captured) as u32);
    dst.set_dynamic_output("output", outputs as u32);
    Ok(())
}
