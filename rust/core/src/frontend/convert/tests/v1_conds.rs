//! TensorFlow v1 conds (Switch / Merge): a predicate that folds leaves one
//! branch live, and the Merge takes it alone, as GE's dead-branch
//! elimination does; an unknown predicate joins both branches.

use super::*;
use crate::device::cost::{estimate_cost, CostOptions, NodeCost};
use crate::device::memory::{plan_memory, PlanOptions, Region};
use crate::device::spec::DeviceSpec;
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
fn a_loop_merge_forwards_no_value_so_its_condition_stays_open() {
    // `i < 0` with i from 0 is false on entry, so the loop runs no
    // iteration; but no value goes through a loop's Merge (on the first
    // pass its back edge is not known yet), so opgraph does not decide the
    // condition and leaves the doubled dim open: less precise, not wrong.
    let mut framework = super::v1_loops::doubling_loop();
    for o in &mut framework.ops {
        if o.name == "while/Less/y" {
            o.attrs = ints("while/Less/y", &[], &[0]).attrs;
        }
    }
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    assert_eq!(shape(&g, "while/Exit_1", 0), [-1, 4]);
}

/// `tf.compat.v1.cond(p, lambda: tf.constant([1, 2]), lambda: tf.shape(x)
/// // n)` on `x[2, 3]`, `n` a constant outside the cond: the true branch is
/// a Const that waits on the branch's pivot alone (a control edge), the
/// false branch divides by `n` read through a Switch.
fn guarded(how: Predicate, n: i64) -> FrameworkGraph {
    let n2 = ("N", AttrValue::Int(2));
    let mut pair = ints("cond/pair", &[2], &[1, 2]);
    pair.control_inputs.push("cond/switch_t".into());
    graph(vec![
        placeholder("x", DataType::Float, &[2, 3]),
        ints("n", &[], &[n]),
        predicate("p", how),
        op("cond/Switch", "Switch", &["p", "p"], &[bool_t()]),
        op("cond/switch_t", "Identity", &["cond/Switch:1"], &[bool_t()]),
        op("cond/x_f", "Switch", &["x", "p"], &[f32()]),
        op("cond/n_f", "Switch", &["n", "p"], &[i32()]),
        pair,
        op("cond/shape", "Shape", &["cond/x_f"], &[f32()]),
        op(
            "cond/div",
            "FloorDiv",
            &["cond/shape", "cond/n_f"],
            &[i32()],
        ),
        op(
            "cond/Merge",
            "Merge",
            &["cond/div", "cond/pair"],
            &[i32(), n2],
        ),
        op("dims", "Identity", &["cond/Merge"], &[i32()]),
    ])
}

fn guarded_graph(how: Predicate, n: i64) -> Graph {
    convert_and_infer(&guarded(how, n), &ConvertOptions::default())
}

#[test]
fn a_branch_of_constants_is_dead_through_its_pivot() {
    // Without the control edge the Const would be live, and the Merge of
    // [1, 2] and [1, 1] would know no value.
    let g = guarded_graph(Predicate::Constant(true), 2);
    assert_eq!(value(&g, "dims"), Some(vec![1, 2]));
    let g = guarded_graph(Predicate::Constant(false), 2);
    assert_eq!(value(&g, "dims"), Some(vec![1, 1]));
}

#[test]
fn a_branch_that_does_not_run_is_not_folded() {
    // `n` is 0 and the branch that divides by it is dead: nothing divides.
    let g = guarded_graph(Predicate::Constant(true), 0);
    assert_eq!(value(&g, "dims"), Some(vec![1, 2]));
    // A fed predicate may take either branch: the division is not folded.
    let g = guarded_graph(Predicate::Fed, 0);
    assert_eq!(shape(&g, "dims", 0), [2]);
    assert_eq!(value(&g, "dims"), None);
}

#[test]
fn a_loop_body_that_may_not_run_is_not_folded() {
    // `total // n` inside the doubling loop, both read through constant
    // Enters and n = 0: TensorFlow divides only if the body runs, so
    // opgraph does not fold it.
    let mut framework = super::v1_loops::doubling_loop();
    let enter = |name: &str, input: &str| {
        op(
            name,
            "Enter",
            &[input],
            &[
                i32(),
                ("frame_name", AttrValue::Str("while/while_context".into())),
                ("is_constant", AttrValue::Bool(true)),
                ("parallel_iterations", AttrValue::Int(10)),
            ],
        )
    };
    framework.ops.extend([
        ints("total", &[], &[7]),
        ints("zero", &[], &[0]),
        enter("while/Enter_total", "total"),
        enter("while/Enter_zero", "zero"),
        op(
            "while/div",
            "FloorDiv",
            &["while/Enter_total", "while/Enter_zero"],
            &[i32()],
        ),
    ]);
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    assert_eq!(shape(&g, "while/div", 0), Vec::<i64>::new());
    assert_eq!(value(&g, "while/div"), None);
}

#[test]
fn a_cond_inside_a_dead_branch_is_dead_too() {
    // An inner cond on a fed predicate in the false branch of an outer cond
    // on the constant true: its Switches read the outer branch's dead x,
    // so its Merge is dead and the outer Merge takes the true branch.
    let n2 = ("N", AttrValue::Int(2));
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[2, 3]),
        predicate("p", Predicate::Constant(true)),
        predicate("q", Predicate::Fed),
        op("outer/x_t", "Switch", &["x", "p"], &[f32()]),
        op("outer/x_f", "Switch", &["x", "p"], &[f32()]),
        op("inner/x_t", "Switch", &["outer/x_f", "q"], &[f32()]),
        op("inner/x_f", "Switch", &["outer/x_f", "q"], &[f32()]),
        op("inner/t", "Identity", &["inner/x_t:1"], &[f32()]),
        op(
            "inner/Merge",
            "Merge",
            &["inner/x_f", "inner/t"],
            &[f32(), n2.clone()],
        ),
        op(
            "outer/flat",
            "Reshape",
            &["outer/x_t:1", "outer/target"],
            &[f32()],
        ),
        op("outer/target", "Const", &[], &[]),
        op(
            "outer/Merge",
            "Merge",
            &["inner/Merge", "outer/flat"],
            &[f32(), n2],
        ),
        op("y", "Identity", &["outer/Merge"], &[f32()]),
    ]);
    for o in &mut framework.ops {
        let c = match o.name.as_str() {
            "outer/target" => ints("outer/target", &[1], &[-1]),
            _ => continue,
        };
        o.op_type = c.op_type;
        o.attrs = c.attrs;
    }
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    // The inner Merge alone would give [2, 3]; the outer one joins nothing.
    assert_eq!(shape(&g, "inner/Merge", 0), [2, 3]);
    assert_eq!(shape(&g, "y", 0), [6]);
}

#[test]
fn a_dead_branch_computes_nothing() {
    // `tf.cond(p, lambda: tf.shape(x), lambda: tf.shape(x) // 0)`, the zero
    // a Const of the false branch: on the constant true that branch is
    // dead, and its division is not folded (it would fail).
    let n2 = ("N", AttrValue::Int(2));
    let mut zero = ints("cond/zero", &[], &[0]);
    zero.control_inputs.push("cond/switch_f".into());
    let framework = graph(vec![
        placeholder("x", DataType::Float, &[2, 3]),
        predicate("p", Predicate::Constant(true)),
        op("cond/Switch", "Switch", &["p", "p"], &[bool_t()]),
        op("cond/switch_f", "Identity", &["cond/Switch"], &[bool_t()]),
        op("cond/x_t", "Switch", &["x", "p"], &[f32()]),
        op("cond/x_f", "Switch", &["x", "p"], &[f32()]),
        zero,
        op("cond/shape_t", "Shape", &["cond/x_t:1"], &[f32()]),
        op("cond/shape_f", "Shape", &["cond/x_f"], &[f32()]),
        op(
            "cond/div",
            "FloorDiv",
            &["cond/shape_f", "cond/zero"],
            &[i32()],
        ),
        op(
            "cond/Merge",
            "Merge",
            &["cond/div", "cond/shape_t"],
            &[i32(), n2],
        ),
        op("dims", "Identity", &["cond/Merge"], &[i32()]),
    ]);
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    assert_eq!(value(&g, "dims"), Some(vec![2, 3]));
    assert_eq!(value(&g, "cond/shape_f"), None);
    assert_eq!(value(&g, "cond/div"), None);
}

/// The plan's region of tensor `name` and the cost row of node `node`.
fn planned_and_costed(g: &Graph, tensor: &str, node: &str) -> (Region, NodeCost) {
    // A fed predicate joins [6] and [3, 2] into an unknown rank.
    let options = PlanOptions {
        allow_dynamic: true,
        ..PlanOptions::default()
    };
    let plan = plan_memory(g, &OpRegistry::with_builtins(), &options)
        .unwrap_or_else(|e| panic!("plan failed: {e}"));
    assert_eq!(plan.problems(), Vec::<String>::new());
    let region = plan
        .tensors
        .iter()
        .find(|t| t.name == tensor)
        .unwrap_or_else(|| panic!("no tensor '{tensor}'"))
        .region;
    let spec = DeviceSpec::preset("Ascend310").expect("a preset");
    let report = estimate_cost(g, &spec, &CostOptions::default())
        .unwrap_or_else(|e| panic!("cost failed: {e}"));
    let row = report
        .nodes
        .into_iter()
        .find(|r| r.name == node)
        .unwrap_or_else(|| panic!("no cost row '{node}'"));
    (region, row)
}

#[test]
fn the_memory_plan_and_the_cost_leave_the_dead_branch_out() {
    // GE deletes the dead branch before it assigns memory: the transpose
    // of the false branch takes none and costs nothing, and so does the
    // Switch output that would have fed it.
    let g = convert_and_infer(&cond(Predicate::Constant(true)), &ConvertOptions::default());
    let (region, row) = planned_and_costed(&g, "cond/transpose:0", "cond/transpose");
    assert_eq!(region, Region::Dead);
    assert_eq!(row.time_us, 0.0);
    assert!(row
        .note
        .as_deref()
        .is_some_and(|n| n.contains("dead branch")));
    let (region, _) = planned_and_costed(&g, "cond/x_f:0", "cond/x_f");
    assert_eq!(region, Region::Dead);
    let (region, row) = planned_and_costed(&g, "cond/Reshape:0", "cond/Reshape");
    assert_ne!(region, Region::Dead);
    assert_eq!(row.note, None);

    // A fed predicate may take either branch: both are planned and costed.
    let g = convert_and_infer(&cond(Predicate::Fed), &ConvertOptions::default());
    let (region, row) = planned_and_costed(&g, "cond/transpose:0", "cond/transpose");
    assert_eq!(region, Region::Activation);
    assert!(row.time_us > 0.0);
}
