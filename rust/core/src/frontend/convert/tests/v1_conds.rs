//! TensorFlow v1 conds (Switch / Merge): a predicate that folds leaves one
//! branch live, and the Merge takes it alone, as GE's dead-branch
//! elimination does; an unknown predicate joins both branches.

use super::*;
use crate::types::HostTensor;
use bytes::Bytes;

/// How the cond's predicate is given.
#[derive(Clone, Copy)]
enum Predicate {
    Constant(bool),
    Fed,
}

fn predicate(name: &str, how: Predicate) -> FrameworkOp {
    match how {
        Predicate::Constant(b) => {
            let value = HostTensor::new(
                DataType::Bool,
                Shape::scalar(),
                Bytes::from(vec![u8::from(b)]),
            );
            constant(name, value.expect("one byte holds a bool scalar"))
        }
        Predicate::Fed => placeholder(name, DataType::Bool, &[]),
    }
}

fn bool_t() -> (&'static str, AttrValue) {
    t(DataType::Bool)
}

/// `tf.compat.v1.cond(p, lambda: (reshape(x, [-1]), shape(x)), lambda:
/// (transpose(x), shape(x) + 1))` on `x[2, 3]` as TensorFlow 1 writes it:
/// each branch reads `x` through its own Switch, its constants wait on the
/// branch's pivot (`switch_t` / `switch_f`), and one Merge per output.
fn cond(how: Predicate) -> FrameworkGraph {
    let n2 = ("N", AttrValue::Int(2));
    let mut perm = ints("cond/perm", &[2], &[1, 0]);
    perm.control_inputs.push("cond/switch_f".into());
    let mut target = ints("cond/target", &[1], &[-1]);
    target.control_inputs.push("cond/switch_t".into());
    let mut one = ints("cond/one", &[], &[1]);
    one.control_inputs.push("cond/switch_f".into());
    graph(vec![
        placeholder("x", DataType::Float, &[2, 3]),
        predicate("p", how),
        op("cond/Switch", "Switch", &["p", "p"], &[bool_t()]),
        op("cond/switch_t", "Identity", &["cond/Switch:1"], &[bool_t()]),
        op("cond/switch_f", "Identity", &["cond/Switch"], &[bool_t()]),
        op("cond/x_t", "Switch", &["x", "p"], &[f32()]),
        op("cond/x_f", "Switch", &["x", "p"], &[f32()]),
        target,
        op(
            "cond/Reshape",
            "Reshape",
            &["cond/x_t:1", "cond/target"],
            &[f32()],
        ),
        perm,
        op(
            "cond/transpose",
            "Transpose",
            &["cond/x_f", "cond/perm"],
            &[f32()],
        ),
        op("cond/shape_t", "Shape", &["cond/x_t:1"], &[f32()]),
        op("cond/shape_f", "Shape", &["cond/x_f"], &[f32()]),
        one,
        op(
            "cond/plus_one",
            "AddV2",
            &["cond/shape_f", "cond/one"],
            &[i32()],
        ),
        op(
            "cond/Merge",
            "Merge",
            &["cond/transpose", "cond/Reshape"],
            &[f32(), n2.clone()],
        ),
        op(
            "cond/Merge_1",
            "Merge",
            &["cond/plus_one", "cond/shape_t"],
            &[i32(), n2],
        ),
        op("y", "Identity", &["cond/Merge"], &[f32()]),
        op("dims", "Identity", &["cond/Merge_1"], &[i32()]),
    ])
}

fn value(g: &Graph, name: &str) -> Option<Vec<i64>> {
    let id = g.find(name).unwrap_or_else(|| panic!("no node '{name}'"));
    g.tensor(OutputRef::new(id, 0)).value.as_ref()?.to_ints()
}

#[test]
fn a_constant_predicate_leaves_the_branch_it_picks() {
    let g = convert_and_infer(&cond(Predicate::Constant(true)), &ConvertOptions::default());
    assert_eq!(shape(&g, "y", 0), [6]);
    assert_eq!(value(&g, "dims"), Some(vec![2, 3]));

    let g = convert_and_infer(
        &cond(Predicate::Constant(false)),
        &ConvertOptions::default(),
    );
    assert_eq!(shape(&g, "y", 0), [3, 2]);
    assert_eq!(value(&g, "dims"), Some(vec![3, 4]));
    // The dead branch is still inferred, as TensorFlow's shape functions do.
    assert_eq!(shape(&g, "cond/Reshape", 0), [6]);
}

#[test]
fn a_fed_predicate_joins_both_branches() {
    let g = convert_and_infer(&cond(Predicate::Fed), &ConvertOptions::default());
    // [6] and [3, 2] differ in rank.
    assert_eq!(shape(&g, "y", 0), [-2]);
    assert_eq!(shape(&g, "dims", 0), [2]);
    assert_eq!(value(&g, "dims"), None);
}

#[test]
fn a_loop_whose_condition_is_the_constant_false_runs_no_iteration() {
    // The doubling loop of v1_loops with `lambda i, x: False`: its body is
    // dead, so x leaves the loop as it came in.
    let mut framework = super::v1_loops::doubling_loop();
    for o in &mut framework.ops {
        if o.name == "while/Less" {
            *o = predicate("while/Less", Predicate::Constant(false));
        }
    }
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    assert_eq!(shape(&g, "while/Exit_1", 0), [2, 4]);
    assert_eq!(shape(&g, "y", 0), [2, 4]);
}

#[test]
fn a_loop_condition_is_not_decided_by_the_first_iteration_alone() {
    // `i < 0` with i from 0 is false on entry, but no value goes through a
    // loop's Merge (the back edge is unknown on the first pass), so the
    // loop is not taken to run no iteration: x may have doubled.
    let mut framework = super::v1_loops::doubling_loop();
    for o in &mut framework.ops {
        if o.name == "while/Less/y" {
            o.attrs = ints("while/Less/y", &[], &[0]).attrs;
        }
    }
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    assert_eq!(shape(&g, "while/Exit_1", 0), [-1, 4]);
}
