//! Function libraries at scale: bodies converted once and shared, inferred
//! once per input signature, the expansion budget, and deep call chains
//! refused after the depth limit's worth of work.

use super::*;
use crate::device::formats::{prepare, PrepareOptions};
use crate::device::soc::Soc;
use crate::graph::{expanded_nodes, MAX_EXPANDED_NODES};
use crate::types::DataType;
use std::sync::Arc;

fn if_call(name: &str, x: &str, function: &str) -> FrameworkOp {
    op(
        name,
        "If",
        &["c", "c", x],
        &[
            ("Tcond", AttrValue::DataType(DataType::Bool)),
            ("Tin", types(&[DataType::Bool, DataType::Float])),
            ("Tout", types(&[DataType::Float])),
            ("then_branch", func(function)),
            ("else_branch", func(function)),
        ],
    )
}

fn call(name: &str, x: &str, function: &str) -> FrameworkOp {
    op(
        name,
        "PartitionedCall",
        &["c", x],
        &[
            ("Tin", types(&[DataType::Bool, DataType::Float])),
            ("Tout", types(&[DataType::Float])),
            ("f", func(function)),
        ],
    )
}

const ARGS: &[(&str, DataType)] = &[("c", DataType::Bool), ("x", DataType::Float)];

/// `f0 … f{depth-1}`, each calling the next through both branches of an If;
/// the last reduces `x` over axis 0. The graph calls `f0` once per shape.
fn doubling_library(depth: usize, shapes: &[&[i64]]) -> FrameworkGraph {
    let mut ops = vec![placeholder("c", DataType::Bool, &[])];
    for (k, dims) in shapes.iter().enumerate() {
        ops.push(placeholder(&format!("x{k}"), DataType::Float, dims));
        ops.push(if_call(&format!("y{k}"), &format!("x{k}"), "f0"));
    }
    let mut framework = graph(ops);
    for i in 0..depth - 1 {
        framework.functions.push(function(
            &format!("f{i}"),
            ARGS,
            vec![if_call("call", "x", &format!("f{}", i + 1))],
            &["call:output:0"],
        ));
    }
    framework.functions.push(function(
        &format!("f{}", depth - 1),
        ARGS,
        vec![
            ints("axis", &[], &[0]),
            op(
                "mean",
                "Mean",
                &["x", "axis:output:0"],
                &[f32(), ("Tidx", AttrValue::DataType(DataType::Int32))],
            ),
        ],
        &["mean:output:0"],
    ));
    framework
}

fn branch(g: &Graph, node: &str, body: &str) -> Arc<Graph> {
    let id = g.find(node).unwrap();
    let sub = g.node(id).subgraphs.iter().find(|s| s.name == body);
    Arc::clone(&sub.unwrap().graph)
}

#[test]
fn a_function_called_twice_per_level_is_converted_once() {
    let framework = doubling_library(12, &[&[2, 3, 4]]);
    let g = convert_with(
        &framework,
        &PluginRegistry::with_builtins(),
        &ConvertOptions::default(),
    )
    .unwrap();
    // Both branches are one body; so is every level below.
    let (then, other) = (
        branch(&g, "y0", "then_branch"),
        branch(&g, "y0", "else_branch"),
    );
    assert!(Arc::ptr_eq(&then, &other));
    let (inner_then, inner_else) = (
        branch(&then, "call", "then_branch"),
        branch(&then, "call", "else_branch"),
    );
    assert!(Arc::ptr_eq(&inner_then, &inner_else));
    // 3 nodes per level (c, x, the If) and 4 in the last function, each
    // level twice: what the graph would be inlined.
    let per_body = (0..11).fold(4u64, |below, _| 3 + 2 * below);
    assert_eq!(expanded_nodes(&g), 3 + 2 * per_body);
}

#[test]
fn a_shared_body_is_inferred_once_per_input_signature() {
    let framework = doubling_library(8, &[&[2, 3, 4], &[5, 6], &[2, 3, 4]]);
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    // numpy: np.mean(x, axis=0).shape.
    assert_eq!(shape(&g, "y0", 0), [3, 4]);
    assert_eq!(shape(&g, "y1", 0), [6]);
    assert_eq!(shape(&g, "y2", 0), [3, 4]);
    // The same signature shares the inferred body; another has its own.
    let (a, b, c) = (
        branch(&g, "y0", "then_branch"),
        branch(&g, "y1", "then_branch"),
        branch(&g, "y2", "else_branch"),
    );
    assert!(Arc::ptr_eq(&a, &c));
    assert!(!Arc::ptr_eq(&a, &b));
    assert_eq!(shape(&a, "call", 0), [3, 4]);
    assert_eq!(shape(&b, "call", 0), [6]);
}

#[test]
fn prepare_keeps_shared_bodies_shared_and_counts_every_call_site() {
    let framework = doubling_library(14, &[&[2, 3, 4]]);
    let mut g = convert_and_infer(&framework, &ConvertOptions::default());
    let report = prepare(
        &mut g,
        &OpRegistry::with_builtins(),
        &PrepareOptions::new(Soc::from_name("Ascend910B1").unwrap()),
    )
    .unwrap();
    let (then, other) = (
        branch(&g, "y0", "then_branch"),
        branch(&g, "y0", "else_branch"),
    );
    assert!(Arc::ptr_eq(&then, &other));
    // The graph and 2 + 4 + … + 2^14 bodies.
    assert_eq!(report.graphs, (1 << 15) - 1);
    let tensors: usize = report.tensors_by_format.iter().map(|(_, n)| n).sum();
    assert_eq!(tensors as u64, expanded_nodes(&g));
}

#[test]
fn a_library_past_the_expansion_budget_names_the_function() {
    // Doubling per level (the graph's If calls f0 twice too): 2^40 call
    // paths from a graph of a few dozen nodes.
    let message = error(&doubling_library(40, &[&[2]]), &ConvertOptions::default());
    let expected = format!(
        "function 'f39' is called at {} call sites once calls are inlined",
        1u64 << 40
    );
    assert!(message.starts_with(&expected), "{message}");
    assert!(
        message.contains(&format!(
            "at most {MAX_EXPANDED_NODES} more (MAX_EXPANDED_NODES)"
        )),
        "{message}"
    );
    // Inlined: 3 graph nodes plus 2·(3 + 2·(… 4)) over 40 levels.
    let expanded = 3 + 2 * (1..40).fold(4u64, |below, _| 3 + 2 * below);
    assert!(
        message.contains(&format!("would expand to {expanded} nodes")),
        "{message}"
    );
}

#[test]
fn a_long_call_chain_is_refused_at_the_depth_limit() {
    // f0 → f1 → … → f99999: the depth error after 65 levels, not after
    // walking (and looking up) a hundred thousand functions.
    let n = 100_000;
    let mut framework = graph(vec![
        placeholder("c", DataType::Bool, &[]),
        placeholder("x", DataType::Float, &[2]),
        call("y", "x", "f0"),
    ]);
    framework.functions = (0..n)
        .map(|i| {
            function(
                &format!("f{i}"),
                ARGS,
                vec![call("call", "x", &format!("f{}", (i + 1) % n))],
                &["call:output:0"],
            )
        })
        .collect();
    let start = std::time::Instant::now();
    let message = error(&framework, &ConvertOptions::default());
    assert_eq!(
        message,
        "node 'call' attribute 'f' calls function 'f64' nested 65 deep; opgraph converts at most 64 levels"
    );
    // Generous: linear lookups made this minutes.
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
}

#[test]
fn a_shallow_function_reached_deep_through_a_shared_body_is_still_refused() {
    // g0 → … → g39 converted first; then h0 → … → h29 → g0 reaches the
    // cached g-chain 30 levels deeper: 70 levels in all.
    let mut framework = graph(vec![
        placeholder("c", DataType::Bool, &[]),
        placeholder("x", DataType::Float, &[2]),
        call("a", "x", "g0"),
        call("b", "x", "h0"),
    ]);
    let chain = |prefix: &str, n: usize, last: &str| -> Vec<_> {
        (0..n)
            .map(|i| {
                let next = if i + 1 < n {
                    format!("{prefix}{}", i + 1)
                } else {
                    last.to_owned()
                };
                function(
                    &format!("{prefix}{i}"),
                    ARGS,
                    vec![call("call", "x", &next)],
                    &["call:output:0"],
                )
            })
            .collect()
    };
    framework.functions = chain("g", 40, "leaf");
    framework.functions.extend(chain("h", 30, "g0"));
    framework.functions.push(function(
        "leaf",
        ARGS,
        vec![op("r", "Relu", &["x"], &[f32()])],
        &["r:activations:0"],
    ));
    let message = error(&framework, &ConvertOptions::default());
    assert!(message.contains("nested 65 deep"), "{message}");
}

#[test]
fn the_memory_plan_refuses_a_built_graph_past_the_expansion_budget() {
    use crate::device::memory::{plan_memory, MemoryError, PlanOptions};
    use crate::graph::{Node, Subgraph};
    // Built directly (the loader refuses such a model): 40 levels, each
    // body called twice, all shared.
    let mut body = Arc::new(Graph::new("leaf"));
    for level in (0..40).rev() {
        let mut g = Graph::new(format!("f{level}"));
        for name in ["a", "b"] {
            let mut node = Node::new(name, "PartitionedCall", vec![], 0);
            node.subgraphs.push(Subgraph {
                name: "f".into(),
                graph: Arc::clone(&body),
            });
            g.add_node(node).unwrap();
        }
        body = Arc::new(g);
    }
    let result = plan_memory(&body, &OpRegistry::with_builtins(), &PlanOptions::default());
    assert!(
        matches!(&result, Err(MemoryError::Expanded(e)) if e.size.stored == 80),
        "{:?}",
        result.map(|_| ())
    );
}
