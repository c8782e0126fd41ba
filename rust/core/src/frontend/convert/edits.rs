//! A plugin's input edits (GE's `DelInputWithCond`,
//! `DelInputWithOriginalType`, `InputReorderVector`), applied in
//! registration order to the framework op's data inputs before wiring.

use crate::frontend::plugin::InputEdit;
use crate::frontend::{FrameworkInput, FrameworkOp};
use crate::types::AttrValue;
use smallvec::SmallVec;

/// An op's data inputs, by reference; most ops have a few, held inline.
pub(super) type InputRefs<'f> = SmallVec<[&'f FrameworkInput; 4]>;

/// The data inputs of `op` after `edits`. `origin_type` gives the origin op
/// type of the node an input comes from (None when it is not in the graph,
/// which wiring reports later). Errors describe the edit that does not fit.
pub(super) fn apply_edits<'f>(
    op: &'f FrameworkOp,
    edits: &[InputEdit],
    origin_type: impl Fn(&str) -> Option<&'f str>,
) -> Result<InputRefs<'f>, String> {
    let mut inputs: InputRefs<'f> = op.inputs.iter().collect();
    for edit in edits {
        match edit {
            InputEdit::DelWithCond { index, attr, value } => {
                let at = position(*index, inputs.len(), "delete")?;
                match op.attrs.get(attr) {
                    Some(AttrValue::Bool(b)) if b == value => {
                        inputs.remove(at);
                    }
                    Some(AttrValue::Bool(_)) => {}
                    Some(other) => {
                        return Err(format!(
                            "the input edit deleting input {index} tests attribute '{attr}', which is a {}, not a bool",
                            other.attr_type()
                        ))
                    }
                    None => {
                        return Err(format!(
                            "the input edit deleting input {index} tests attribute '{attr}', which the node does not have"
                        ))
                    }
                }
            }
            InputEdit::DelWithOriginalType { index, op_type } => {
                let at = position(*index, inputs.len(), "delete")?;
                if origin_type(&inputs[at].node) == Some(op_type.as_str()) {
                    inputs.remove(at);
                }
            }
            InputEdit::Reorder(order) => {
                let mut used = vec![false; inputs.len()];
                let ok = order.len() == inputs.len()
                    && order.iter().all(|&i| {
                        usize::try_from(i)
                            .ok()
                            .and_then(|i| used.get_mut(i))
                            .is_some_and(|u| !std::mem::replace(u, true))
                    });
                if !ok {
                    return Err(format!(
                        "the input reorder {order:?} is not a permutation of its {} inputs",
                        inputs.len()
                    ));
                }
                // `ok` checked every index.
                inputs = order.iter().map(|&i| inputs[i as usize]).collect();
            }
        }
    }
    Ok(inputs)
}

fn position(index: u32, len: usize, what: &str) -> Result<usize, String> {
    usize::try_from(index)
        .ok()
        .filter(|&i| i < len)
        .ok_or_else(|| {
            format!("an input edit would {what} input {index}, but the node has {len} inputs at that point")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Attrs;

    fn op(n: usize, attrs: Attrs) -> FrameworkOp {
        FrameworkOp {
            name: "n".into(),
            op_type: "T".into(),
            inputs: (0..n)
                .map(|i| FrameworkInput::new(format!("p{i}"), 0))
                .collect(),
            attrs,
            ..FrameworkOp::default()
        }
    }

    fn names(inputs: &[&FrameworkInput]) -> Vec<String> {
        inputs.iter().map(|i| i.node.clone()).collect()
    }

    #[test]
    fn delete_with_cond_tests_a_bool_attr() {
        let attrs: Attrs = [("flag", AttrValue::Bool(true)), ("k", AttrValue::Int(1))]
            .into_iter()
            .collect();
        let src = op(3, attrs);
        let del = |attr: &str, value: bool| InputEdit::DelWithCond {
            index: 1,
            attr: attr.into(),
            value,
        };
        let got = apply_edits(&src, &[del("flag", true)], |_| None).unwrap();
        assert_eq!(names(&got), ["p0", "p2"]);
        let got = apply_edits(&src, &[del("flag", false)], |_| None).unwrap();
        assert_eq!(names(&got), ["p0", "p1", "p2"]);
        let err = apply_edits(&src, &[del("k", true)], |_| None).unwrap_err();
        assert!(err.contains("'k', which is a int"), "{err}");
        let err = apply_edits(&src, &[del("nope", true)], |_| None).unwrap_err();
        assert!(err.contains("does not have"), "{err}");
    }

    #[test]
    fn delete_with_original_type_looks_at_the_producer() {
        let src = op(3, Attrs::new());
        let edit = InputEdit::DelWithOriginalType {
            index: 2,
            op_type: "Const".into(),
        };
        let got = apply_edits(&src, std::slice::from_ref(&edit), |n| {
            (n == "p2").then_some("Const")
        })
        .unwrap();
        assert_eq!(names(&got), ["p0", "p1"]);
        let got = apply_edits(&src, std::slice::from_ref(&edit), |_| Some("Placeholder")).unwrap();
        assert_eq!(names(&got), ["p0", "p1", "p2"]);
        // Edits apply in order: after one deletion, index 2 is gone.
        let twice = [edit.clone(), edit];
        let err = apply_edits(&src, &twice, |_| Some("Const")).unwrap_err();
        assert!(err.contains("input 2, but the node has 2"), "{err}");
    }

    #[test]
    fn reorder_needs_a_permutation() {
        let src = op(3, Attrs::new());
        let got = apply_edits(&src, &[InputEdit::Reorder(vec![2, 0, 1])], |_| None).unwrap();
        assert_eq!(names(&got), ["p2", "p0", "p1"]);
        for bad in [vec![0, 0, 1], vec![0, 1], vec![0, 1, 3]] {
            let err = apply_edits(&src, &[InputEdit::Reorder(bad)], |_| None).unwrap_err();
            assert!(err.contains("not a permutation"), "{err}");
        }
    }
}
