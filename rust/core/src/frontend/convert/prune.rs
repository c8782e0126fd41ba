//! Which framework ops the requested outputs need (ATC's `out_nodes`). The
//! default outputs when none are requested (the sinks) come with the
//! conversion order (`order::producers_first`).

use super::order::{lookup, OpNames};
use super::Place;
use crate::frontend::{FrameworkInput, FrameworkOp, FrontendError};

/// A requested output, `node` or `node:i` (TensorFlow tensor names; `node`
/// is output 0).
pub(super) fn parse_output(text: &str) -> FrameworkInput {
    match text.rsplit_once(':') {
        Some((node, index)) if !node.is_empty() => match index.parse::<u32>() {
            Ok(index) => FrameworkInput::new(node, index),
            Err(_) => FrameworkInput::new(text, 0),
        },
        _ => FrameworkInput::new(text, 0),
    }
}

/// Framework indices of the ops `outputs` need, in framework order: the
/// closure over data and control inputs (which takes in a v1 loop's whole
/// frame, since its Merge consumes the NextIteration). Every op when
/// `outputs` is empty.
pub(super) fn needed_ops(
    ops: &[FrameworkOp],
    names: &OpNames<'_>,
    outputs: &[FrameworkInput],
) -> Result<Vec<usize>, FrontendError> {
    if outputs.is_empty() {
        return Ok((0..ops.len()).collect());
    }
    let top = Place::Top;
    let mut keep = vec![false; ops.len()];
    let mut stack = Vec::new();
    for output in outputs {
        let i = lookup(names, &output.node, &top, || {
            format!("requested output '{}:{}'", output.node, output.index)
        })?;
        stack.push(i);
    }
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut keep[i], true) {
            continue;
        }
        let op = &ops[i];
        let inputs = op.inputs.iter().map(|input| input.node.as_str());
        for name in inputs.chain(op.control_inputs.iter().map(String::as_str)) {
            // Dangling names are reported with their node when it is converted.
            if let Some(p) = names.get(name) {
                if !keep[p] {
                    stack.push(p);
                }
            }
        }
    }
    Ok((0..ops.len()).filter(|&i| keep[i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names() {
        assert_eq!(parse_output("a/b:2"), FrameworkInput::new("a/b", 2));
        assert_eq!(parse_output("a/b"), FrameworkInput::new("a/b", 0));
        assert_eq!(parse_output("a:x"), FrameworkInput::new("a:x", 0));
        assert_eq!(parse_output(":1"), FrameworkInput::new(":1", 0));
    }
}
