//! Bad models: every error names the node and what was expected.

use super::*;
use crate::frontend::error::UnsupportedOp;

#[test]
fn every_unsupported_op_type_is_reported_at_once() {
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[2]),
        op("a", "FancyOp", &["x"], &[]),
        op("b", "FancyOp", &["a"], &[]),
        op("r", "Relu", &["b"], &[f32()]),
        placeholder("p", DataType::Bool, &[]),
        op(
            "if",
            "If",
            &["p", "r"],
            &[
                ("Tin", types(&[DataType::Float])),
                ("Tout", types(&[DataType::Float])),
                ("then_branch", func("then")),
                ("else_branch", func("then")),
            ],
        ),
        // Only reachable from the pruned-away branch below.
        op("pruned", "PrunedOp", &["x"], &[]),
    ]);
    framework.functions = vec![function(
        "then",
        &[("v", DataType::Float)],
        vec![
            op("inner", "MadeUpListOp", &["v"], &[]),
            op("inner2", "NoOp", &["^inner"], &[]),
        ],
        &["v"],
    )];
    let options = ConvertOptions {
        outputs: vec!["if".into()],
        ..ConvertOptions::default()
    };
    let Err(FrontendError::Unsupported(ops)) =
        convert_with(&framework, &PluginRegistry::with_builtins(), &options)
    else {
        panic!("expected the unsupported ops");
    };
    let expected = |op_type: &str, count: usize, node: &str| UnsupportedOp {
        op_type: op_type.into(),
        count,
        example_node: node.into(),
    };
    assert_eq!(
        ops,
        [
            expected("FancyOp", 2, "a"),
            expected("MadeUpListOp", 1, "inner")
        ]
    );
    let message = FrontendError::Unsupported(ops).to_string();
    assert_eq!(
        message,
        "no parser plugin for 2 op types: FancyOp (2 nodes, e.g. 'a'), MadeUpListOp (1 node, e.g. 'inner')"
    );
    // Without pruning, the third type shows up too.
    let message = error(&framework, &ConvertOptions::default());
    assert!(
        message.contains("PrunedOp (1 node, e.g. 'pruned')"),
        "{message}"
    );
}

#[test]
fn dangling_inputs_and_bad_ports_name_the_node() {
    let cases = [
        (vec![op("r", "Relu", &["nope"], &[f32()])], "node 'r' input 0 refers to 'nope', which is not a node in the graph"),
        (vec![op("r", "Relu", &["x", "^ghost"], &[f32()])], "node 'r' control input refers to 'ghost', which is not a node in the graph"),
        (vec![op("r", "Relu", &["x:3"], &[f32()])], "node 'r' input 0 refers to output 3 of 'x', which has 1 output as Data"),
        (vec![op("r", "Relu", &["x", "x"], &[f32()])], "node 'r' (Relu → Relu): it has 2 inputs, but Relu takes 1 (x)"),
        (vec![op("m", "MatMul", &["x"], &[f32()])], "node 'm' (MatMul → MatMul): it has 1 input, but MatMul needs one for required input 'x2' (x1, x2, bias?)"),
        (vec![op("c", "ConcatV2", &["x", "x"], &[f32(), ("N", AttrValue::Int(2))])], "node 'c' (ConcatV2 → ConcatV2): it has 2 inputs, but ConcatV2 needs one for required input 'concat_dim' (x*2, concat_dim)"),
        (vec![op("c", "ConcatV2", &["x", "x"], &[f32(), ("N", AttrValue::Int(3))])], "node 'c' (ConcatV2 → ConcatV2): dynamic input 'x' of ConcatV2 takes 3 inputs, but only 2 of its 2 inputs remain (x*3, concat_dim)"),
        (vec![op("r", "Relu", &["x"], &[]), op("r", "Relu", &["x"], &[])], "two nodes in the graph are named 'r'; node names must be unique"),
        (vec![op("n", "NoOp", &[], &[]), op("r", "Relu", &["n"], &[])], "node 'r' input 0 refers to output 0 of 'n', a NoOp with no outputs"),
        (vec![op("q", "Placeholder", &[], &[])], "placeholder 'q' has no DataType attribute 'dtype'"),
        (vec![op("a", "Relu", &["b"], &[]), op("b", "Relu", &["a"], &[])], "the graph has a cycle through a -> b -> a"),
        (vec![op("m", "Merge", &["ni", "ni"], &[("N", AttrValue::Int(2))]), op("ni", "NextIteration", &["m"], &[])], "Merge 'm' has only loop back edges"),
    ];
    for (ops, expected) in cases {
        let mut all = vec![placeholder("x", DataType::Float, &[2, 3])];
        all.extend(ops);
        let message = error(&graph(all), &ConvertOptions::default());
        assert!(
            message.starts_with(expected),
            "got: {message}\nexpected: {expected}"
        );
    }
}

#[test]
fn errors_inside_functions_say_which_function() {
    let call = |target: &str| {
        op(
            "call",
            "PartitionedCall",
            &["x"],
            &[
                ("Tin", types(&[DataType::Float])),
                ("Tout", types(&[DataType::Float])),
                ("f", func(target)),
            ],
        )
    };
    let body = |ops: Vec<FrameworkOp>, outputs: &[&str]| {
        let mut framework = graph(vec![placeholder("x", DataType::Float, &[2]), call("f")]);
        framework.functions = vec![function("f", &[("v", DataType::Float)], ops, outputs)];
        error(&framework, &ConvertOptions::default())
    };
    let norm = op(
        "norm",
        "FusedBatchNormV3",
        &["v", "v", "v", "v", "v"],
        &[f32(), ("data_format", AttrValue::Str("NHWC".into()))],
    );
    let cases = [
        (body(vec![op("r", "Relu", &["w"], &[f32()])], &["r:y:0"]), "node 'r' input 0 refers to 'w', which is not a node in function 'f'"),
        (body(vec![norm.clone()], &["norm:nope:0"]), "function output 0 refers to output 'nope:0' of 'norm', but its IR op FusedBatchNormV3 has no output named 'nope' (it has y, batch_mean, batch_variance, reserve_space_1, reserve_space_2, reserve_space_3)"),
        (body(vec![norm], &["norm:y:1"]), "function output 0 refers to output 'y:1' of 'norm', but its output 'y' has 1 instance"),
        (body(vec![op("a", "Relu", &["b:y:0"], &[]), op("b", "Relu", &["a:y:0"], &[])], &["a:y:0"]), "function 'f' has a cycle through a -> b -> a"),
    ];
    for (message, expected) in cases {
        assert!(
            message.starts_with(expected),
            "got: {message}\nexpected: {expected}"
        );
    }
}

#[test]
fn untrusted_counts_and_nesting_are_bounded() {
    let framework = graph(vec![
        placeholder("x", DataType::Float, &[4]),
        ints("axis", &[], &[0]),
        op(
            "parts",
            "Split",
            &["axis", "x"],
            &[f32(), ("num_split", AttrValue::Int(4_000_000_000))],
        ),
    ]);
    let message = error(&framework, &ConvertOptions::default());
    assert!(
        message.contains("node 'parts' (Split → Split): it would have 4000000000 outputs; a node may have at most 65536"),
        "{message}"
    );

    // f0 calls f1 calls ... f99: deeper than conversion follows.
    let call = |name: &str, target: String, input: &str| {
        op(
            name,
            "PartitionedCall",
            &[input],
            &[
                ("Tin", types(&[DataType::Float])),
                ("Tout", types(&[DataType::Float])),
                ("f", func(&target)),
            ],
        )
    };
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[2]),
        call("c", "f0".into(), "x"),
    ]);
    framework.functions = (0..100)
        .map(|i| {
            let body = vec![call("inner", format!("f{}", i + 1), "a")];
            function(
                &format!("f{i}"),
                &[("a", DataType::Float)],
                body,
                &["inner:output:0"],
            )
        })
        .collect();
    let message = error(&framework, &ConvertOptions::default());
    assert!(
        message.contains("calls function 'f64' nested 65 deep; opgraph converts at most 64 levels"),
        "{message}"
    );

    let mut body = function("huge", &[("a", DataType::Float)], vec![], &["a"]);
    body.ops[0].attrs.set("index", AttrValue::Int(i64::MAX));
    let mut framework = graph(vec![
        placeholder("p", DataType::Bool, &[]),
        placeholder("x", DataType::Float, &[2]),
    ]);
    framework.ops.push(op(
        "if",
        "If",
        &["p", "x"],
        &[
            ("Tin", types(&[DataType::Float])),
            ("Tout", types(&[DataType::Float])),
            ("then_branch", func("huge")),
            ("else_branch", func("huge")),
        ],
    ));
    framework.functions = vec![body];
    let message = error(&framework, &ConvertOptions::default());
    assert!(
        message.contains("argument 'a' of function 'huge' has index"),
        "{message}"
    );
}
