//! Many-to-one splicing: index maps, dropped inputs, kept Consts, output
//! and control rewiring, and the errors a bad result gets.

use super::*;
use crate::frontend::scope::result::{FUSION_DISABLE_INDEX as D, SCOPE_INVALID_TYPE};
use crate::frontend::scope::{run_selected_passes, FusionCheck, PassSelection};
use crate::frontend::test_graphs::{describe, op, ops};

fn block() -> Vec<FrameworkOp> {
    ops(&[
        ("x", "Placeholder", &[]),
        ("w", "Const", &[]),
        ("ctrl", "NoOp", &[]),
        ("blk/a", "Mul", &["x", "w", "^ctrl"]),
        ("blk/c", "Const", &[]),
        ("blk/b", "AddV2", &["blk/a", "blk/c"]),
        ("blk/d", "Relu", &["blk/b"]),
        ("out", "Identity", &["blk/d"]),
        ("out2", "Neg", &["blk/a"]),
        ("after", "NoOp", &["^blk/d"]),
    ])
}

fn pass_with(generate: Generate) -> ScopePassRegistry {
    registry_of(vec![entry(
        "P",
        false,
        named("blk", "blk"),
        choose_sub_type("blk"),
        generate,
    )])
}

fn fuse(inputs: Vec<i32>, a_outputs: Option<Vec<i32>>) -> Generate {
    Arc::new(move |_, _, r| {
        r.set_name("fused");
        r.set_type("MyFused");
        r.set_description("test");
        r.insert_inputs("a", inputs.clone());
        r.insert_outputs("d", vec![0]);
        if let Some(map) = &a_outputs {
            r.insert_outputs("a", map.clone());
        }
        Ok(())
    })
}

#[test]
fn many_to_one_rewires_inputs_outputs_and_control_edges() {
    let registry = pass_with(fuse(vec![0, 1], Some(vec![1])));
    let (ops, records) = run(block(), &registry, &["P"]).expect("fuses");
    assert_eq!(
        describe(&ops),
        [
            "x(Placeholder) <- ",
            "w(Const) <- ",
            "ctrl(NoOp) <- ",
            "fused(MyFused) <- x:0, w:0, ^ctrl",
            "out(Identity) <- fused:0",
            "out2(Neg) <- fused:1",
            "after(NoOp) <- ^fused",
        ]
    );
    let fused: Vec<&str> = ops[3].fused_ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        fused,
        ["blk/a", "blk/c", "blk/b", "blk/d"],
        "graph order, Consts too"
    );
    assert_eq!(
        records,
        [FusionRecord {
            pass: "P".into(),
            name: "fused".into(),
            op_type: "MyFused".into(),
            replaced: vec![
                "blk/a".into(),
                "blk/c".into(),
                "blk/b".into(),
                "blk/d".into()
            ],
            description: "test".into(),
            inner_nodes: Vec::new(),
        }]
    );
}

#[test]
fn disabled_entries_drop_an_input_and_a_kept_const_can_feed_the_fused_op() {
    // w is no input (-1 and GE's 99999 both mean "not a fused input").
    for disabled in [-1, D] {
        let registry = pass_with(fuse(vec![0, disabled], Some(vec![1])));
        let (ops, _) = run(block(), &registry, &["P"]).unwrap();
        assert_eq!(describe(&ops)[3], "fused(MyFused) <- x:0, ^ctrl");
        assert!(ops.iter().any(|o| o.name == "w"), "an outside Const stays");
    }
    // The Const inside the scope feeds fused input 1 and so stays.
    let generate: Generate = Arc::new(|_, _, r| {
        r.set_name("fused");
        r.set_type("MyFused");
        r.insert_inputs("a", vec![0, D]);
        r.insert_inputs("b", vec![D, 1]);
        r.insert_outputs("d", vec![0]);
        r.insert_outputs("a", vec![1]);
        Ok(())
    });
    let (ops, _) = run(block(), &pass_with(generate), &["P"]).unwrap();
    let names: Vec<&str> = ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        ["x", "w", "ctrl", "fused", "blk/c", "out", "out2", "after"]
    );
    assert_eq!(describe(&ops)[3], "fused(MyFused) <- x:0, blk/c:0, ^ctrl");
}

#[test]
fn reading_an_unmapped_output_is_an_error_and_leaves_the_graph_alone() {
    let registry = pass_with(fuse(vec![0, 1], None));
    let (g, e) = run(block(), &registry, &["P"]).unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("'out2' reads output 0 of 'blk/a', which is fused into 'fused' without an output index map"),
        "{message}"
    );
    assert!(
        message.starts_with("scope fusion pass 'P' failed"),
        "{message}"
    );
    assert_eq!(g.ops, block());
}

#[test]
fn a_fused_input_without_source_or_with_two_sources_is_an_error() {
    let registry = pass_with(fuse(vec![0, 2], Some(vec![1])));
    let e = run(block(), &registry, &["P"]).unwrap_err().1.to_string();
    assert!(e.contains("fused input 1 of 'fused' has no source"), "{e}");
    let registry = pass_with(fuse(vec![0, 0], Some(vec![1])));
    let e = run(block(), &registry, &["P"]).unwrap_err().1.to_string();
    assert!(
        e.contains("fused input 0 of 'fused' is fed both by 'x:0' and by 'w:0'"),
        "{e}"
    );
}

#[test]
fn one_tensor_feeding_two_inner_ops_is_one_fused_input() {
    let mut graph = block();
    graph[5] = op("blk/b", "AddV2", &["blk/a", "x"], &[]);
    let generate: Generate = Arc::new(|_, _, r| {
        r.set_name("fused");
        r.set_type("MyFused");
        r.insert_inputs("a", vec![0, 1]);
        r.insert_inputs("b", vec![D, 0]);
        r.insert_outputs("d", vec![0]);
        r.insert_outputs("a", vec![1]);
        Ok(())
    });
    let (ops, _) = run(graph, &pass_with(generate), &["P"]).unwrap();
    assert_eq!(describe(&ops)[3], "fused(MyFused) <- x:0, w:0, ^ctrl");
}

#[test]
fn results_naming_nothing_or_clashing_are_errors() {
    let bad = |generate: Generate| {
        run(block(), &pass_with(generate), &["P"])
            .unwrap_err()
            .1
            .to_string()
    };
    let e = bad(Arc::new(|_, _, r| {
        r.set_type("T");
        Ok(())
    }));
    assert!(e.contains("has no name"), "{e}");
    let e = bad(Arc::new(|_, _, r| {
        r.set_name("n");
        Ok(())
    }));
    assert!(e.contains("fusion result 'n' has no type"), "{e}");
    let e = bad(Arc::new(|_, _, r| {
        r.set_name("out");
        r.set_type("T");
        r.insert_inputs("a", vec![0, 1]);
        r.insert_outputs("d", vec![0]);
        r.insert_outputs("a", vec![1]);
        Ok(())
    }));
    assert!(e.contains("two ops named 'out'"), "{e}");
}

#[test]
fn overlapping_choices_and_unknown_ops_or_scopes_are_errors() {
    let choose: Choose = Arc::new(|_, results| {
        results.push(ScopesResult {
            scopes: vec!["blk/".into()],
            nodes: vec![],
        });
        results.push(ScopesResult {
            scopes: vec![],
            nodes: vec!["blk/d".into()],
        });
        Ok(true)
    });
    let generate: Generate = Arc::new(|_, _, r| {
        let n = format!("f{}", r.nodes.len());
        r.set_name(n);
        r.set_type("T");
        Ok(())
    });
    let registry = registry_of(vec![entry(
        "P",
        false,
        named("blk", "blk"),
        choose,
        generate.clone(),
    )]);
    let e = run(block(), &registry, &["P"]).unwrap_err().1.to_string();
    assert!(
        e.contains("op 'blk/d' is claimed by two fusion results, 'f0' and 'f1'"),
        "{e}"
    );

    for (scopes, nodes, expected) in [
        (
            vec!["nope/"],
            vec![],
            "chose scope 'nope/', which is not a scope",
        ),
        (
            vec![],
            vec!["nope"],
            "lists op 'nope', which is not in the graph",
        ),
        (vec!["root"], vec![], "only named scopes"),
    ] {
        let scopes: Vec<String> = scopes.into_iter().map(String::from).collect();
        let nodes: Vec<String> = nodes.into_iter().map(String::from).collect();
        let choose: Choose = Arc::new(move |_, results| {
            results.push(ScopesResult {
                scopes: scopes.clone(),
                nodes: nodes.clone(),
            });
            Ok(true)
        });
        let registry = registry_of(vec![entry(
            "P",
            false,
            named("blk", "blk"),
            choose,
            generate.clone(),
        )]);
        let e = run(block(), &registry, &["P"]).unwrap_err().1.to_string();
        assert!(e.contains(expected), "{e}");
    }
}

#[test]
fn an_invalid_type_abandons_that_result_and_the_ones_after_it() {
    let graph = ops(&[
        ("x", "Placeholder", &[]),
        ("b1/r", "Relu", &["x"]),
        ("b2/r", "Relu", &["b1/r"]),
        ("b3/r", "Relu", &["b2/r"]),
    ]);
    let generate: Generate = Arc::new(|graph, scopes, r| {
        let name = graph
            .tree()
            .name(scopes[0])
            .trim_end_matches('/')
            .to_owned();
        r.set_type(if name == "b2" {
            SCOPE_INVALID_TYPE
        } else {
            "R"
        });
        r.set_name(format!("{name}_f"));
        r.insert_inputs("r", vec![0]);
        r.insert_outputs("r", vec![0]);
        Ok(())
    });
    let pattern = ScopePattern::new("relu").op_type("Relu", 1, 0);
    let registry = registry_of(vec![entry(
        "P",
        false,
        pattern,
        choose_sub_type("relu"),
        generate,
    )]);
    let (ops, records) = run(graph, &registry, &["P"]).unwrap();
    assert_eq!(
        describe(&ops),
        [
            "x(Placeholder) <- ",
            "b1_f(R) <- x:0",
            "b2/r(Relu) <- b1_f:0",
            "b3/r(Relu) <- b2/r:0"
        ]
    );
    assert_eq!(records.len(), 1);
}

#[test]
fn last_match_false_or_no_pattern_match_leaves_the_graph_unchanged() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let choose: Choose = Arc::new(move |_, results| {
        seen.fetch_add(1, Ordering::SeqCst);
        results.push(ScopesResult {
            scopes: vec!["blk/".into()],
            nodes: vec![],
        });
        Ok(false)
    });
    let unreachable: Generate = Arc::new(|_, _, _| Err(PluginError::new("not called")));
    let registry = registry_of(vec![
        entry(
            "Declines",
            false,
            named("blk", "blk"),
            choose.clone(),
            unreachable.clone(),
        ),
        entry(
            "NoMatch",
            false,
            named("x", "nothing_here"),
            choose,
            unreachable,
        ),
    ]);
    let (ops, records) = run(block(), &registry, &["Declines", "NoMatch"]).unwrap();
    assert_eq!(ops, block());
    assert!(records.is_empty());
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "last match only runs after a pattern match"
    );
}

#[test]
fn an_error_in_a_pass_is_a_scope_pass_error_naming_it() {
    let failing: Generate = Arc::new(|_, _, _| Err(PluginError::new("boom")));
    let registry = pass_with(failing);
    let (g, e) = run(block(), &registry, &["P"]).unwrap_err();
    assert!(
        matches!(&e, FrontendError::ScopePass { pass, error } if pass == "P" && error.message == "boom")
    );
    assert_eq!(e.to_string(), "scope fusion pass 'P' failed: boom");
    assert_eq!(g.ops, block());
}

#[test]
fn a_rejected_fusion_stays_unfused_and_the_fusion_reading_it_is_planned_again() {
    // Two chained regions; the check rejects the first. The second must
    // then read the first's own ops, not the fused op that was never made.
    let chained = ops(&[
        ("x", "Placeholder", &[]),
        ("one/a", "Neg", &["x"]),
        ("one/b", "Relu", &["one/a"]),
        ("two/a", "Neg", &["one/b"]),
        ("two/b", "Relu", &["two/a"]),
        ("out", "Identity", &["two/b", "^one/b"]),
    ]);
    let choose: Choose = Arc::new(|graph, results| {
        for scope in ["one/", "two/"] {
            assert!(graph.tree().find(scope).is_some());
            results.push(ScopesResult {
                scopes: vec![scope.to_owned()],
                nodes: Vec::new(),
            });
        }
        Ok(true)
    });
    let generate: Generate = Arc::new(|graph, scopes, r| {
        let scope = graph
            .tree()
            .name(scopes[0])
            .trim_end_matches('/')
            .to_owned();
        r.set_name(format!("{scope}_fused"));
        r.set_type("MyFused");
        r.insert_inputs(format!("{scope}/a"), vec![0]);
        r.insert_outputs(format!("{scope}/b"), vec![0]);
        Ok(())
    });
    let registry = registry_of(vec![entry("P", false, named("s", "one"), choose, generate)]);
    let reject_one = |fused: &FrameworkOp| {
        if fused.name == "one_fused" {
            Err("not this one".to_owned())
        } else {
            Ok(())
        }
    };
    for check in [None, Some(&reject_one as FusionCheck<'_>)] {
        let mut g = graph(chained.clone());
        let selection = PassSelection {
            enabled: vec!["P".to_owned()],
            disabled: Vec::new(),
        };
        let runs = run_selected_passes(&mut g, &registry, &selection, check).expect("runs");
        let fused: Vec<&str> = runs[0].fused.iter().map(|r| r.name.as_str()).collect();
        let declined: Vec<&str> = runs[0].declined.iter().map(|d| d.reason.as_str()).collect();
        if check.is_none() {
            assert_eq!(fused, ["one_fused", "two_fused"]);
            assert_eq!(
                describe(&g.ops),
                [
                    "x(Placeholder) <- ",
                    "one_fused(MyFused) <- x:0",
                    "two_fused(MyFused) <- one_fused:0",
                    "out(Identity) <- two_fused:0, ^one_fused",
                ]
            );
        } else {
            assert_eq!(fused, ["two_fused"]);
            assert_eq!(declined, ["not this one"]);
            assert_eq!(
                describe(&g.ops),
                [
                    "x(Placeholder) <- ",
                    "one/a(Neg) <- x:0",
                    "one/b(Relu) <- one/a:0",
                    "two_fused(MyFused) <- one/b:0",
                    "out(Identity) <- two_fused:0, ^one/b",
                ]
            );
        }
    }
}
