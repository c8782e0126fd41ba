//! An If / Case on a known selector is replaced by the body it takes
//! before formats are chosen (GE's CondRemovePass): the prepared graph is
//! the prepared taken body, spliced in.

use super::graphs::*;
use crate::device::formats::transdata::TRANS_DATA;
use crate::prelude::*;
use crate::test_graphs::bool_const;

/// A body taking argument 1 (the caller's input after the selector),
/// applying `ops` in turn (`None`: handing the argument on).
fn branch(r: &OpRegistry, name: &str, ops: &[&str]) -> Subgraph {
    let mut b = Graph::new(name);
    let mut arg = Node::new("arg", "Data", Vec::new(), 1);
    arg.attrs.set("index", AttrValue::Int(1));
    let mut at = OutputRef::new(b.add_node(arg).unwrap(), 0);
    for (i, op_type) in ops.iter().enumerate() {
        at = op(&mut b, r, op_type, &format!("n{i}"), &[at], Attrs::new());
    }
    b.set_outputs(vec![at]).unwrap();
    Subgraph {
        name: name.into(),
        graph: b.into(),
    }
}

fn if_node(
    g: &mut Graph,
    r: &OpRegistry,
    name: &str,
    condition: OutputRef,
    x: OutputRef,
    then: Subgraph,
    otherwise: Subgraph,
) -> OutputRef {
    let spec = OpSpec {
        op_type: "If".into(),
        name: name.into(),
        inputs: vec![PortInput::Single(Some(condition)), PortInput::Many(vec![x])],
        subgraphs: vec![then, otherwise],
        ..OpSpec::default()
    };
    OutputRef::new(add_op(g, r, spec).unwrap(), 0)
}

/// `conv(x)` then `then_ops` or `else_ops` as an If on `condition` (a
/// constant, or a graph input when `None`), or with `alone` the branch
/// `condition` takes in the graph itself.
fn conv_then_cond(
    r: &OpRegistry,
    condition: Option<bool>,
    then_ops: &[&str],
    else_ops: &[&str],
    alone: bool,
) -> Graph {
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float, &[1, 3, 8, 8], Format::Nchw);
    let w = weight(&mut g, "w", &[16, 3, 3, 3], Format::Nchw);
    let y = conv(&mut g, r, "conv", x, w, 1);
    let out = if alone {
        let ops = if condition == Some(false) {
            else_ops
        } else {
            then_ops
        };
        let mut at = y;
        for (i, op_type) in ops.iter().enumerate() {
            let name = format!(
                "if/{}/n{i}",
                if condition == Some(false) {
                    "else_branch"
                } else {
                    "then_branch"
                }
            );
            at = op(&mut g, r, op_type, &name, &[at], Attrs::new());
        }
        at
    } else {
        let p = match condition {
            Some(value) => bool_const(&mut g, "p", value),
            None => input(&mut g, "p", DataType::Bool, &[], Format::Nd),
        };
        let then = branch(r, "then_branch", then_ops);
        let otherwise = branch(r, "else_branch", else_ops);
        if_node(&mut g, r, "if", p, y, then, otherwise)
    };
    g.set_outputs(vec![out]).unwrap();
    g
}

/// A node's name, op type and the storage of each output.
type NodeLayout = (String, String, Vec<(Format, Vec<i64>)>);

/// Every node's layout, sorted: what `prepare` made.
fn layout(g: &Graph) -> Vec<NodeLayout> {
    let mut nodes: Vec<_> = g
        .nodes()
        .iter()
        .filter(|n| n.name != "p")
        .map(|n| {
            let storage = n
                .outputs
                .iter()
                .map(|d| (d.storage_format, d.storage_shape.dims().to_vec()))
                .collect();
            (n.name.clone(), n.op_type.to_string(), storage)
        })
        .collect();
    nodes.sort();
    nodes
}

#[test]
fn a_known_if_prepares_as_the_branch_it_takes_alone() {
    let r = OpRegistry::with_builtins();
    for condition in [true, false] {
        let mut cond = conv_then_cond(&r, Some(condition), &["Relu", "Abs"], &["Neg"], false);
        let mut alone = conv_then_cond(&r, Some(condition), &["Relu", "Abs"], &["Neg"], true);
        let cond_report = prepared(&mut cond, &r, false);
        let alone_report = prepared(&mut alone, &r, false);
        assert_eq!(count_op(&cond, "If"), 0);
        assert_eq!(cond_report.conds_replaced, 1);
        // x is converted into the convolution, whose NC1HWC0 output flows
        // through the branch's ops and is converted back at the graph
        // output: no conversion at the body's boundary.
        assert_eq!(cond_report.trans_data_inserted, 2);
        assert_eq!(
            cond_report.trans_data_inserted,
            alone_report.trans_data_inserted
        );
        assert_eq!(layout(&cond), layout(&alone), "condition {condition}");
        let last = if condition {
            "if/then_branch/n1"
        } else {
            "if/else_branch/n0"
        };
        let output = cond.outputs()[0];
        assert_eq!(cond.node(output.node).op_type, TRANS_DATA);
        assert_eq!(producer(&cond, &cond.node(output.node).name, 0).name, last);
    }
}

#[test]
fn an_if_on_an_unknown_condition_stays() {
    let r = OpRegistry::with_builtins();
    let mut g = conv_then_cond(&r, None, &["Relu"], &["Neg"], false);
    let report = prepared(&mut g, &r, false);
    assert_eq!((count_op(&g, "If"), report.conds_replaced), (1, 0));
    assert!(g.find("if/then_branch/n0").is_none());
}

#[test]
fn a_branch_handing_its_argument_on_leaves_an_edge() {
    // then: the argument itself. The graph output is the convolution's,
    // converted back to NCHW, and nothing else remains of the If.
    let r = OpRegistry::with_builtins();
    let mut g = conv_then_cond(&r, Some(true), &[], &["Neg"], false);
    prepared(&mut g, &r, false);
    assert_eq!(count_op(&g, "If"), 0);
    let output = g.outputs()[0];
    assert_eq!(producer(&g, &g.node(output.node).name, 0).name, "conv");
    assert_eq!(
        g.len(),
        6,
        "x, w, conv, p and two TransData: {:?}",
        layout(&g)
    );
}

#[test]
fn nested_known_ifs_are_all_spliced() {
    // The taken branch holds an If on its own constant: both go.
    let r = OpRegistry::with_builtins();
    let mut inner_body = Graph::new("then_branch");
    let mut arg = Node::new("arg", "Data", Vec::new(), 1);
    arg.attrs.set("index", AttrValue::Int(1));
    let a = OutputRef::new(inner_body.add_node(arg).unwrap(), 0);
    let q = bool_const(&mut inner_body, "q", false);
    let inner = if_node(
        &mut inner_body,
        &r,
        "inner",
        q,
        a,
        branch(&r, "then_branch", &["Relu"]),
        branch(&r, "else_branch", &["Abs", "Neg"]),
    );
    inner_body.set_outputs(vec![inner]).unwrap();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float, &[4, 4], Format::Nd);
    let p = bool_const(&mut g, "p", true);
    let then = Subgraph {
        name: "then_branch".into(),
        graph: inner_body.into(),
    };
    let out = if_node(
        &mut g,
        &r,
        "outer",
        p,
        x,
        then,
        branch(&r, "else_branch", &["Exp"]),
    );
    let waits = op(&mut g, &r, "Relu", "after", &[x], Attrs::new());
    g.node_mut(waits.node).control_inputs.push(out.node);
    g.set_outputs(vec![out, waits]).unwrap();
    let report = prepared(&mut g, &r, false);
    assert_eq!((count_op(&g, "If"), report.conds_replaced), (0, 2));
    let neg = "outer/then_branch/inner/else_branch/n1";
    let abs = "outer/then_branch/inner/else_branch/n0";
    assert_eq!(g.node(g.outputs()[0].node).name, neg);
    assert_eq!(producer(&g, neg, 0).name, abs);
    assert_eq!(producer(&g, abs, 0).name, "x");
    // What waited on the outer If waits on the nodes that replaced it.
    let after = g.node(g.find("after").unwrap());
    let waited: Vec<&str> = after
        .control_inputs
        .iter()
        .map(|&c| g.node(c).name.as_str())
        .collect();
    assert!(waited.contains(&neg), "{waited:?}");
}

#[test]
fn a_spliced_name_already_taken_gets_a_suffix() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float, &[4], Format::Nd);
    let taken = op(&mut g, &r, "Exp", "if/then_branch/n0", &[x], Attrs::new());
    let p = bool_const(&mut g, "p", true);
    let out = if_node(
        &mut g,
        &r,
        "if",
        p,
        taken,
        branch(&r, "then_branch", &["Relu"]),
        branch(&r, "else_branch", &["Neg"]),
    );
    g.set_outputs(vec![out]).unwrap();
    prepared(&mut g, &r, false);
    let relu = g.node(g.outputs()[0].node);
    assert_eq!(relu.name, "if/then_branch/n0_1");
    assert_eq!(producer(&g, &relu.name, 0).name, "if/then_branch/n0");
}

#[test]
fn a_case_on_a_known_index_is_replaced_by_its_branch() {
    // An index out of range runs the last branch (TensorFlow's rule).
    let r = OpRegistry::with_builtins();
    for (index, taken) in [
        (0, "case/branches0/n0"),
        (1, "case/branches1/n1"),
        (7, "case/branches1/n1"),
    ] {
        let mut g = Graph::new("g");
        let x = input(&mut g, "x", DataType::Float, &[4], Format::Nd);
        let i = int_const(&mut g, "i", DataType::Int32, &[], &[index]);
        let spec = OpSpec {
            op_type: "Case".into(),
            name: "case".into(),
            inputs: vec![PortInput::Single(Some(i)), PortInput::Many(vec![x])],
            subgraphs: vec![
                branch(&r, "branches0", &["Relu"]),
                branch(&r, "branches1", &["Abs", "Neg"]),
            ],
            ..OpSpec::default()
        };
        let case = OutputRef::new(add_op(&mut g, &r, spec).unwrap(), 0);
        g.set_outputs(vec![case]).unwrap();
        let report = prepared(&mut g, &r, false);
        assert_eq!((count_op(&g, "Case"), report.conds_replaced), (0, 1));
        assert_eq!(g.node(g.outputs()[0].node).name, taken, "index {index}");
    }
}

#[test]
fn edges_and_waits_pass_through_a_chain_of_replaced_ifs() {
    // first = If(p, x) handing x on; second = If(p, first) applying Relu;
    // `after` waits on `first`, which waited on `a`.
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float, &[4], Format::Nd);
    let a = op(&mut g, &r, "Exp", "a", &[x], Attrs::new());
    let p = bool_const(&mut g, "p", true);
    let first = if_node(
        &mut g,
        &r,
        "first",
        p,
        x,
        branch(&r, "then_branch", &[]),
        branch(&r, "else_branch", &["Neg"]),
    );
    g.node_mut(first.node).control_inputs.push(a.node);
    let second = if_node(
        &mut g,
        &r,
        "second",
        p,
        first,
        branch(&r, "then_branch", &["Relu"]),
        branch(&r, "else_branch", &["Neg"]),
    );
    let after = op(&mut g, &r, "Abs", "after", &[x], Attrs::new());
    g.node_mut(after.node).control_inputs.push(first.node);
    g.set_outputs(vec![second, first, after, a]).unwrap();
    let report = prepared(&mut g, &r, false);
    assert_eq!(report.conds_replaced, 2);
    let outputs: Vec<&str> = g
        .outputs()
        .iter()
        .map(|o| g.node(o.node).name.as_str())
        .collect();
    assert_eq!(outputs, ["second/then_branch/n0", "x", "after", "a"]);
    assert_eq!(producer(&g, "second/then_branch/n0", 0).name, "x");
    // Waiting on `first` (an empty body) is waiting on what it read and
    // on what it waited on.
    let after = g.node(g.find("after").unwrap());
    let mut waited: Vec<&str> = after
        .control_inputs
        .iter()
        .map(|&c| g.node(c).name.as_str())
        .collect();
    waited.sort_unstable();
    assert_eq!(waited, ["a", "p", "x"]);
}

#[test]
fn a_body_source_waits_on_what_the_if_waited_on() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float, &[4], Format::Nd);
    let a = op(&mut g, &r, "Exp", "a", &[x], Attrs::new());
    let p = bool_const(&mut g, "p", false);
    let out = if_node(
        &mut g,
        &r,
        "if",
        p,
        x,
        branch(&r, "then_branch", &["Relu"]),
        branch(&r, "else_branch", &["Abs", "Neg"]),
    );
    g.node_mut(out.node).control_inputs.push(a.node);
    g.set_outputs(vec![out, a]).unwrap();
    prepared(&mut g, &r, false);
    let waits = |name: &str| -> Vec<String> {
        let node = g.node(g.find(name).unwrap());
        node.control_inputs
            .iter()
            .map(|&c| g.node(c).name.clone())
            .collect()
    };
    // The first op of the branch waits on `a`; the second follows it by
    // its data edge alone.
    assert_eq!(waits("if/else_branch/n0"), ["a"]);
    assert!(waits("if/else_branch/n1").is_empty());
}
