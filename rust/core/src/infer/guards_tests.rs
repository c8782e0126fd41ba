//! A value that cannot be folded (`FloorDiv` by a known zero) fails the
//! graph only where the node surely runs: behind a Switch on an unknown
//! predicate, in a branch its If may not pick, or in a loop's body, it is
//! left for run time, as TensorFlow runs and GE folds.

use crate::prelude::*;
use crate::test_graphs::{bool_const, infer_all, input, int_const, op};
use crate::types::NamedAttrs;
use std::sync::Arc;

fn int(g: &mut Graph, name: &str, value: i64) -> OutputRef {
    int_const(g, name, DataType::Int32, &[], &[value])
}

/// `7 // 0`, named `name`, its 7 waiting on `after` when given (as
/// `tf.cond` makes a branch's constants wait on its pivot, and a loop's
/// body on its own): an error wherever it runs.
fn divide_by_zero(
    g: &mut Graph,
    r: &OpRegistry,
    name: &str,
    after: Option<OutputRef>,
) -> OutputRef {
    let seven = int(g, &format!("{name}_seven"), 7);
    if let Some(after) = after {
        let pivot = op(
            g,
            r,
            "Identity",
            &format!("{name}_pivot"),
            &[after],
            Attrs::new(),
        );
        g.node_mut(seven.node).control_inputs.push(pivot.node);
    }
    let zero = int(g, &format!("{name}_zero"), 0);
    op(g, r, "FloorDiv", name, &[seven, zero], Attrs::new())
}

fn merge(g: &mut Graph, r: &OpRegistry, name: &str, inputs: Vec<OutputRef>) -> OutputRef {
    let spec = OpSpec {
        op_type: "Merge".into(),
        name: name.into(),
        inputs: vec![PortInput::Many(inputs)],
        ..OpSpec::default()
    };
    OutputRef::new(add_op(g, r, spec).unwrap(), 0)
}

fn predicate(g: &mut Graph, known: Option<bool>) -> OutputRef {
    match known {
        Some(value) => bool_const(g, "p", value),
        None => input(g, "p", DataType::Bool, &[], Format::Nd),
    }
}

/// Inference fails at `node` (a body's nodes are named by their path).
fn fails_at(g: &mut Graph, r: &OpRegistry, node: &str) {
    let error = infer_all(g, r).unwrap_err();
    assert!(
        error.contains(&format!(
            "'{node}' (FloorDiv) failed shape inference: integer division by zero"
        )),
        "{error}"
    );
}

/// A TensorFlow 1 cond on `p` over `x`: `7 // 0` on its true side
/// (`then`); a Merge joins the sides.
fn v1_cond(r: &OpRegistry, known: Option<bool>) -> (Graph, OutputRef) {
    let mut g = Graph::new("cond");
    let p = predicate(&mut g, known);
    let x = input(&mut g, "x", DataType::Int32, &[], Format::Nd);
    let switch = op(&mut g, r, "Switch", "switch", &[x, p], Attrs::new());
    let taken = OutputRef::new(switch.node, 1);
    let then = divide_by_zero(&mut g, r, "then", Some(taken));
    let joined = merge(&mut g, r, "joined", vec![then, switch]);
    (g, joined)
}

#[test]
fn behind_a_switch_on_an_unknown_predicate_a_failed_fold_is_left_unknown() {
    let r = OpRegistry::with_builtins();
    let (mut g, _) = v1_cond(&r, None);
    infer_all(&mut g, &r).unwrap();
    let then = OutputRef::new(g.find("then").unwrap(), 0);
    assert!(g.tensor(then).value.is_none());
    assert_eq!(g.tensor(then).dtype, DataType::Int32);

    // The Merge of both sides runs whichever the predicate picks.
    let (mut g, joined) = v1_cond(&r, None);
    divide_by_zero(&mut g, &r, "after", Some(joined));
    fails_at(&mut g, &r, "after");

    // A known predicate: the side it takes surely runs.
    let (mut g, _) = v1_cond(&r, Some(true));
    fails_at(&mut g, &r, "then");
}

#[test]
fn a_nested_cond_stays_behind_the_outer_one() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("nested");
    let p = predicate(&mut g, None);
    let q = input(&mut g, "q", DataType::Bool, &[], Format::Nd);
    let x = input(&mut g, "x", DataType::Int32, &[], Format::Nd);
    let outer = op(&mut g, &r, "Switch", "outer", &[x, p], Attrs::new());
    let inner = op(&mut g, &r, "Switch", "inner", &[outer, q], Attrs::new());
    let side = op(
        &mut g,
        &r,
        "Neg",
        "side",
        &[OutputRef::new(inner.node, 1)],
        Attrs::new(),
    );
    let inner_merge = merge(&mut g, &r, "inner_merge", vec![side, inner]);
    // Still on the outer cond's false side: it may not run.
    divide_by_zero(&mut g, &r, "in_outer_side", Some(inner_merge));
    infer_all(&mut g, &r).unwrap();
    let outer_merge = merge(
        &mut g,
        &r,
        "outer_merge",
        vec![inner_merge, OutputRef::new(outer.node, 1)],
    );
    divide_by_zero(&mut g, &r, "after_both", Some(outer_merge));
    fails_at(&mut g, &r, "after_both");
}

/// A TensorFlow 1 loop on `x` whose condition is fed: `7 // 0` in its
/// body, and after its Exit when `after_exit`.
fn v1_loop(r: &OpRegistry, after_exit: bool) -> Graph {
    let mut g = Graph::new("loop");
    let seven = input(&mut g, "x", DataType::Int32, &[], Format::Nd);
    let frame: Attrs = [("frame_name", AttrValue::Str("loop".into()))]
        .into_iter()
        .collect();
    let enter = op(&mut g, r, "Enter", "enter", &[seven], frame);
    let merged = merge(&mut g, r, "merge", vec![enter, enter]);
    let go = input(&mut g, "go", DataType::Bool, &[], Format::Nd);
    let cond = op(&mut g, r, "LoopCond", "cond", &[go], Attrs::new());
    let switch = op(&mut g, r, "Switch", "switch", &[merged, cond], Attrs::new());
    let body = divide_by_zero(&mut g, r, "body", Some(OutputRef::new(switch.node, 1)));
    let next = op(&mut g, r, "NextIteration", "next", &[body], Attrs::new());
    g.node_mut(merged.node).inputs[1] = Some(next);
    let exit = op(&mut g, r, "Exit", "exit", &[switch], Attrs::new());
    if after_exit {
        divide_by_zero(&mut g, r, "after_exit", Some(exit));
    }
    g
}

#[test]
fn a_v1_loops_body_may_not_run_and_its_exit_does() {
    let r = OpRegistry::with_builtins();
    let mut g = v1_loop(&r, false);
    infer_all(&mut g, &r).unwrap();
    let mut g = v1_loop(&r, true);
    fails_at(&mut g, &r, "after_exit");
}

/// A body that takes caller input `index` and returns `7 // 0`.
fn dividing_body(r: &OpRegistry, name: &str, index: i64) -> Subgraph {
    let mut b = Graph::new(name);
    let mut arg = crate::graph::Node::new("arg", "Data", Vec::new(), 1);
    arg.attrs.set("index", AttrValue::Int(index));
    b.add_node(arg).unwrap();
    let out = divide_by_zero(&mut b, r, "div", None);
    b.set_outputs(vec![out]).unwrap();
    Subgraph::new(name, b)
}

/// A body that passes its argument (caller input `index`) on.
fn passing_body(r: &OpRegistry, name: &str, index: i64) -> Subgraph {
    let mut b = Graph::new(name);
    let mut arg = crate::graph::Node::new("arg", "Data", Vec::new(), 1);
    arg.attrs.set("index", AttrValue::Int(index));
    let arg = OutputRef::new(b.add_node(arg).unwrap(), 0);
    let out = op(&mut b, r, "Identity", "same", &[arg], Attrs::new());
    b.set_outputs(vec![out]).unwrap();
    Subgraph::new(name, b)
}

/// `If(p, x)` whose then branch divides by zero.
fn if_graph(r: &OpRegistry, known: Option<bool>) -> Graph {
    let mut g = Graph::new("if");
    let p = predicate(&mut g, known);
    let x = input(&mut g, "x", DataType::Int32, &[], Format::Nd);
    let spec = OpSpec {
        op_type: "If".into(),
        name: "if".into(),
        inputs: vec![PortInput::Single(Some(p)), PortInput::Many(vec![x])],
        subgraphs: vec![
            dividing_body(r, "then_branch", 1),
            passing_body(r, "else_branch", 1),
        ],
        ..OpSpec::default()
    };
    add_op(&mut g, r, spec).unwrap();
    g
}

#[test]
fn an_if_branch_may_not_run_unless_its_selector_picks_it() {
    let r = OpRegistry::with_builtins();
    for known in [None, Some(false)] {
        let mut g = if_graph(&r, known);
        infer_all(&mut g, &r).unwrap_or_else(|e| panic!("{known:?}: {e}"));
    }
    let mut g = if_graph(&r, Some(true));
    fails_at(&mut g, &r, "if/then_branch/div");
}

/// `While(go)` on a fed flag whose cond and body pass it on; the body (or
/// the cond, when `in_cond`) also computes `7 // 0`.
fn while_graph(r: &OpRegistry, in_cond: bool) -> Graph {
    let passing = |name: &str, divides: bool| {
        let mut sub = passing_body(r, name, 0);
        if divides {
            divide_by_zero(sub.graph_mut(), r, "div", None);
        }
        sub
    };
    let mut g = Graph::new("while");
    let go = input(&mut g, "go", DataType::Bool, &[], Format::Nd);
    let spec = OpSpec {
        op_type: "While".into(),
        name: "while".into(),
        inputs: vec![PortInput::Many(vec![go])],
        subgraphs: vec![passing("cond", in_cond), passing("body", !in_cond)],
        ..OpSpec::default()
    };
    add_op(&mut g, r, spec).unwrap();
    g
}

#[test]
fn a_while_body_may_run_no_iteration_and_its_cond_runs() {
    let r = OpRegistry::with_builtins();
    let mut g = while_graph(&r, false);
    infer_all(&mut g, &r).unwrap();
    let mut g = while_graph(&r, true);
    fails_at(&mut g, &r, "while/cond/div");
}

/// A `PartitionedCall` named `name` of `body` (as function `f`) on `x`.
fn call_of(g: &mut Graph, r: &OpRegistry, name: &str, x: OutputRef, body: &Arc<Graph>) {
    let function = AttrValue::NamedAttrs(Box::new(NamedAttrs {
        name: "f".into(),
        attrs: Attrs::new(),
    }));
    let spec = OpSpec {
        op_type: "PartitionedCall".into(),
        name: name.into(),
        inputs: vec![PortInput::Many(vec![x])],
        attrs: [("f", function)].into_iter().collect(),
        subgraphs: vec![Subgraph {
            name: "f".into(),
            graph: Arc::clone(body),
        }],
        ..OpSpec::default()
    };
    add_op(g, r, spec).unwrap();
}

/// A node behind a Switch runs its bodies only if it runs: a function it
/// calls may divide by zero. The same function called where it surely runs
/// (sharing the body, inferred once per caller signature) still fails.
#[test]
fn a_call_behind_a_switch_may_not_run_its_body() {
    let r = OpRegistry::with_builtins();
    let mut body = passing_body(&r, "f", 0);
    divide_by_zero(body.graph_mut(), &r, "div", None);
    let body = Arc::clone(&body.graph);

    let (mut g, _) = v1_cond(&r, None);
    let side = OutputRef::new(g.find("switch").unwrap(), 1);
    call_of(&mut g, &r, "guarded_call", side, &body);
    infer_all(&mut g, &r).unwrap();

    // In one run, the guarded call first: the unguarded call, with the
    // same signature, must not reuse the body inferred as possibly not
    // running.
    let (mut g, _) = v1_cond(&r, None);
    let side = OutputRef::new(g.find("switch").unwrap(), 1);
    call_of(&mut g, &r, "guarded_call", side, &body);
    let x = OutputRef::new(g.find("x").unwrap(), 0);
    call_of(&mut g, &r, "call", x, &body);
    let error = infer_all(&mut g, &r).unwrap_err();
    assert!(error.contains("'call/f/div' (FloorDiv)"), "{error}");
    assert!(!error.contains("'guarded_call/f/div'"), "{error}");
}

/// A While whose loop variable grows (`Concat(v, v)`): GE's fixpoint
/// infers its body again with the widened variable, as code that may run
/// no iteration too.
#[test]
fn a_widened_while_body_is_inferred_again_as_code_that_may_not_run() {
    let r = OpRegistry::with_builtins();
    let mut body = Graph::new("body");
    let mut arg = crate::graph::Node::new("arg", "Data", Vec::new(), 1);
    arg.attrs.set("index", AttrValue::Int(0));
    let v = OutputRef::new(body.add_node(arg).unwrap(), 0);
    let axis = int(&mut body, "axis", 0);
    let spec = OpSpec {
        op_type: "ConcatV2".into(),
        name: "grown".into(),
        inputs: vec![PortInput::Many(vec![v, v]), PortInput::Single(Some(axis))],
        ..OpSpec::default()
    };
    let grown = OutputRef::new(add_op(&mut body, &r, spec).unwrap(), 0);
    divide_by_zero(&mut body, &r, "div", None);
    body.set_outputs(vec![grown]).unwrap();

    let mut g = Graph::new("while");
    let x = input(&mut g, "x", DataType::Int32, &[2], Format::Nd);
    let spec = OpSpec {
        op_type: "While".into(),
        name: "while".into(),
        inputs: vec![PortInput::Many(vec![x])],
        subgraphs: vec![passing_body(&r, "cond", 0), Subgraph::new("body", body)],
        ..OpSpec::default()
    };
    let out = OutputRef::new(add_op(&mut g, &r, spec).unwrap(), 0);
    infer_all(&mut g, &r).unwrap();
    // The variable's length is widened to unknown: the body was inferred
    // again with it.
    assert_eq!(g.tensor(out).shape().dims(), &[-1]);
}

/// How an ONNX Loop's trip count is given.
#[derive(Clone, Copy, Debug)]
enum Trips {
    Known(i64),
    Fed,
}

/// An ONNX `Loop(M, cond = true, v)` whose body passes `cond` and `v` on
/// and computes `7 // 0`.
fn onnx_loop(r: &OpRegistry, trips: Trips) -> Graph {
    let mut body = Graph::new("body");
    let mut args = Vec::new();
    for (index, name) in ["iteration", "cond", "v"].into_iter().enumerate() {
        let mut arg = crate::graph::Node::new(name, "Data", Vec::new(), 1);
        arg.attrs.set("index", AttrValue::Int(index as i64));
        args.push(OutputRef::new(body.add_node(arg).unwrap(), 0));
    }
    divide_by_zero(&mut body, r, "div", None);
    body.set_outputs(vec![args[1], args[2]]).unwrap();

    let mut g = Graph::new("loop");
    let m = match trips {
        Trips::Known(n) => int_const(&mut g, "m", DataType::Int64, &[], &[n]),
        Trips::Fed => input(&mut g, "m", DataType::Int64, &[], Format::Nd),
    };
    let go = bool_const(&mut g, "go", true);
    let v = input(&mut g, "v", DataType::Int32, &[], Format::Nd);
    let spec = OpSpec {
        op_type: "Loop".into(),
        name: "loop".into(),
        inputs: vec![PortInput::Many(vec![m, go, v])],
        attrs: [("num_loop_vars", AttrValue::Int(1))].into_iter().collect(),
        subgraphs: vec![Subgraph::new("body", body)],
        ..OpSpec::default()
    };
    add_op(&mut g, r, spec).unwrap();
    g
}

/// An ONNX Loop's body surely runs when its trip count is known to be at
/// least 1 and its first condition true; otherwise it may run none.
#[test]
fn an_onnx_loop_body_surely_runs_only_with_a_known_positive_trip_count() {
    let r = OpRegistry::with_builtins();
    for trips in [Trips::Fed, Trips::Known(0)] {
        let mut g = onnx_loop(&r, trips);
        infer_all(&mut g, &r).unwrap_or_else(|e| panic!("{trips:?}: {e}"));
    }
    let mut g = onnx_loop(&r, Trips::Known(2));
    fails_at(&mut g, &r, "loop/body/div");
}
