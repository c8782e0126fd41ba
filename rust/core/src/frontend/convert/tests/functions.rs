//! Function attributes → subgraphs: If, While, Case, calls; argument
//! indices, output argument references, recursion.

use super::*;
use crate::device::cost::{estimate_cost, CostOptions};
use crate::device::memory::{plan_memory, PlanOptions, Region};
use crate::device::spec::DeviceSpec;

/// TensorFlow 2's frozen `while i < 3: x = concat([x, x], 0)` followed by
/// `cond(sum(x) > 0, x + 1, x - 1)`, laid out as `convert_variables_to_constants_v2`
/// writes it (functional control flow, FunctionDef bodies).
fn while_and_if() -> FrameworkGraph {
    let i32t = DataType::Int32;
    let loop_types = types(&[i32t, i32t, i32t, DataType::Float]);
    let body = function(
        "while_body_5",
        &[
            ("counter", i32t),
            ("max", i32t),
            ("i", i32t),
            ("x", DataType::Float),
        ],
        vec![
            ints("one", &[], &[1]),
            ints("axis", &[], &[0]),
            op("add", "AddV2", &["i", "one:output:0"], &[t(i32t)]),
            op("next", "AddV2", &["counter", "one:output:0"], &[t(i32t)]),
            op(
                "twice",
                "ConcatV2",
                &["x", "x", "axis:output:0"],
                &[f32(), ("N", AttrValue::Int(2))],
            ),
            op("id_max", "Identity", &["max"], &[t(i32t)]),
        ],
        &["next:z:0", "id_max:output:0", "add:z:0", "twice:output:0"],
    );
    let cond = function(
        "while_cond_4",
        &[
            ("counter", i32t),
            ("max", i32t),
            ("i", i32t),
            ("x", DataType::Float),
        ],
        vec![
            ints("three", &[], &[3]),
            op("less", "Less", &["i", "three:output:0"], &[t(i32t)]),
        ],
        &["less:z:0"],
    );
    let branch = |name: &str, op_type: &str| {
        function(
            name,
            &[("v", DataType::Float)],
            vec![
                weights("c", &[]),
                op("r", op_type, &["v", "c:output:0"], &[f32()]),
                op("out", "Identity", &["r:z:0"], &[f32()]),
            ],
            &["out:output:0"],
        )
    };
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[2, 4]),
        ints("counter", &[], &[0]),
        ints("max", &[], &[-1]),
        ints("start", &[], &[0]),
        op(
            "while",
            "StatelessWhile",
            &["counter", "max", "start", "x"],
            &[
                ("T", loop_types),
                ("cond", func("while_cond_4")),
                ("body", func("while_body_5")),
                ("parallel_iterations", AttrValue::Int(10)),
            ],
        ),
        ints("all", &[2], &[0, 1]),
        op(
            "sum",
            "Sum",
            &["while:3", "all"],
            &[f32(), ("keep_dims", AttrValue::Bool(false))],
        ),
        weights("zero", &[]),
        op("positive", "Greater", &["sum", "zero"], &[f32()]),
        op(
            "cond",
            "StatelessIf",
            &["positive", "while:3"],
            &[
                ("Tcond", AttrValue::DataType(DataType::Bool)),
                ("Tin", types(&[DataType::Float])),
                ("Tout", types(&[DataType::Float])),
                ("then_branch", func("cond_true_39")),
                ("else_branch", func("cond_false_40")),
            ],
        ),
        op("y", "Identity", &["cond"], &[f32()]),
    ]);
    framework.functions = vec![
        branch("cond_false_40", "Sub"),
        body,
        branch("cond_true_39", "AddV2"),
        cond,
    ];
    framework
}

fn data_indices(g: &Graph) -> Vec<(String, i64)> {
    g.inputs()
        .iter()
        .map(|&id| {
            let node = g.node(id);
            let Some(AttrValue::Int(index)) = node.attrs.get("index") else {
                panic!()
            };
            (node.name.clone(), *index)
        })
        .collect()
}

#[test]
fn while_and_if_bodies_become_subgraphs_and_infer() {
    let g = convert_and_infer(&while_and_if(), &ConvertOptions::default());
    let w = g.node(g.find("while").unwrap());
    assert_eq!(w.op_type, "StatelessWhile");
    assert_eq!(w.outputs.len(), 4);
    let body = w.subgraph("body").expect("body");
    assert_eq!(body.name, "while_body_5");
    assert_eq!(
        data_indices(body),
        [
            ("counter".into(), 0),
            ("max".into(), 1),
            ("i".into(), 2),
            ("x".into(), 3)
        ]
    );
    assert_eq!(
        body.outputs()[3],
        OutputRef::new(body.find("twice").unwrap(), 0)
    );
    assert_eq!(w.subgraph("cond").unwrap().outputs().len(), 1);
    // x doubles along axis 0 every iteration: the loop widens it to [-1, 4].
    assert_eq!(shape(&g, "while", 3), [-1, 4]);
    assert_eq!(shape(&g, "while", 0), Vec::<i64>::new());

    let c = g.node(g.find("cond").unwrap());
    let then = c.subgraph("then_branch").expect("then_branch");
    assert_eq!(then.name, "cond_true_39");
    // If's branches take the inputs after the condition: index 1.
    assert_eq!(data_indices(then), [("v".into(), 1)]);
    assert_eq!(
        data_indices(c.subgraph("else_branch").unwrap()),
        [("v".into(), 1)]
    );
    assert_eq!(shape(&g, "y", 0), [-1, 4]);
    assert_eq!(g.outputs(), [OutputRef::new(g.find("y").unwrap(), 0)]);
}

/// `case = Case(which, x)` on float `x`, its branches the functions named.
fn case_op(branches: &[&str]) -> FrameworkOp {
    let names = branches.iter().map(|&b| b.to_owned()).collect();
    op(
        "case",
        "Case",
        &["which", "x"],
        &[
            ("Tin", types(&[DataType::Float])),
            ("Tout", types(&[DataType::Float])),
            ("branches", AttrValue::ListStr(names)),
        ],
    )
}

#[test]
fn case_branches_and_calls() {
    let branch = |name: &str, op_type: &str| {
        function(
            name,
            &[("v", DataType::Float)],
            vec![op("r", op_type, &["v"], &[f32()])],
            &["r:y:0"],
        )
    };
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[3]),
        placeholder("which", DataType::Int32, &[]),
        case_op(&["neg", "exp"]),
        op(
            "call",
            "StatefulPartitionedCall",
            &["case"],
            &[
                ("Tin", types(&[DataType::Float])),
                ("Tout", types(&[DataType::Float])),
                ("f", func("neg")),
            ],
        ),
    ]);
    framework.functions = vec![branch("neg", "Neg"), branch("exp", "Exp")];
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    let case = g.node(g.find("case").unwrap());
    let names: Vec<&str> = case.subgraphs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["branches0", "branches1"]);
    assert_eq!(case.subgraph("branches1").unwrap().name, "exp");
    assert_eq!(
        data_indices(case.subgraph("branches0").unwrap()),
        [("v".into(), 1)]
    );
    let call = g.node(g.find("call").unwrap());
    // A call's arguments start at input 0; `neg` is converted again for it.
    assert_eq!(data_indices(call.subgraph("f").unwrap()), [("v".into(), 0)]);
    assert_eq!(shape(&g, "call", 0), [3]);
}

#[test]
fn multi_output_arguments_map_to_ir_ports() {
    let body = function(
        "bn",
        &[("x", DataType::Float), ("p", DataType::Float)],
        vec![
            op(
                "norm",
                "FusedBatchNormV3",
                &["x", "p", "p", "p", "p"],
                &[
                    f32(),
                    ("U", AttrValue::DataType(DataType::Float)),
                    ("epsilon", AttrValue::Float(0.001)),
                    ("data_format", AttrValue::Str("NHWC".into())),
                    ("is_training", AttrValue::Bool(false)),
                ],
            ),
            ints("pred", &[], &[1]),
            op(
                "to_bool",
                "Cast",
                &["pred:output:0"],
                &[
                    ("SrcT", AttrValue::DataType(DataType::Int32)),
                    ("DstT", AttrValue::DataType(DataType::Bool)),
                ],
            ),
            op(
                "sw",
                "Switch",
                &["norm:batch_variance:0", "to_bool:y:0"],
                &[f32()],
            ),
            op(
                "m",
                "Merge",
                &["sw:output_true:0", "norm:batch_mean:0"],
                &[f32(), ("N", AttrValue::Int(2))],
            ),
        ],
        &["norm:y:0", "m:output:0", "m:value_index:0"],
    );
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[1, 5, 5, 6]),
        weights("p", &[6]),
        op(
            "call",
            "PartitionedCall",
            &["x", "p"],
            &[
                ("Tin", types(&[DataType::Float; 2])),
                (
                    "Tout",
                    types(&[DataType::Float, DataType::Float, DataType::Int32]),
                ),
                ("f", func("bn")),
            ],
        ),
    ]);
    framework.functions = vec![body];
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    let f = g.node(g.find("call").unwrap()).subgraph("f").unwrap();
    let (norm, m) = (f.find("norm").unwrap(), f.find("m").unwrap());
    let sw = f.node(f.find("sw").unwrap());
    assert_eq!(sw.inputs[0], Some(OutputRef::new(norm, 2)));
    let merge = f.node(m);
    assert_eq!(
        merge.inputs,
        [
            Some(OutputRef::new(f.find("sw").unwrap(), 1)),
            Some(OutputRef::new(norm, 1))
        ]
    );
    // `m:output:0` is Merge's first port (y); value_index is its second.
    assert_eq!(
        f.outputs(),
        [
            OutputRef::new(norm, 0),
            OutputRef::new(m, 0),
            OutputRef::new(m, 1)
        ]
    );
    assert_eq!(shape(&g, "call", 0), [1, 5, 5, 6]);
    assert_eq!(shape(&g, "call", 1), [6]);
    assert_eq!(shape(&g, "call", 2), Vec::<i64>::new());
}

#[test]
fn function_errors_name_the_attribute_and_the_chain() {
    let call = |name: &str, target: &str, input: &str| {
        op(
            name,
            "PartitionedCall",
            &[input],
            &[
                ("Tin", types(&[DataType::Float])),
                ("Tout", types(&[DataType::Float])),
                ("f", func(target)),
            ],
        )
    };
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[2]),
        call("c", "ping", "x"),
    ]);
    framework.functions = vec![
        function(
            "ping",
            &[("a", DataType::Float)],
            vec![call("inner", "pong", "a")],
            &["inner:output:0"],
        ),
        function(
            "pong",
            &[("b", DataType::Float)],
            vec![call("back", "ping", "b")],
            &["back:output:0"],
        ),
    ];
    let message = error(&framework, &ConvertOptions::default());
    assert!(
        message.contains("function 'ping' calls itself (ping -> pong -> ping)"),
        "{message}"
    );

    let framework = graph(vec![
        placeholder("x", DataType::Float, &[2]),
        call("c", "gone", "x"),
    ]);
    let message = error(&framework, &ConvertOptions::default());
    assert_eq!(
        message,
        "node 'c' attribute 'f' names function 'gone', which is not in the function library"
    );
}

/// `tf.switch_case(which, [lambda: -x, lambda: tf.stack([x, x])])` on
/// `x[3]`; `which` fed, or a constant when given.
fn switch_case(which: Option<i64>) -> FrameworkGraph {
    let selector = match which {
        Some(k) => ints("which", &[], &[k]),
        None => placeholder("which", DataType::Int32, &[]),
    };
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[3]),
        selector,
        case_op(&["neg", "pair"]),
    ]);
    framework.functions = vec![
        function(
            "neg",
            &[("v", DataType::Float)],
            vec![op("r", "Neg", &["v"], &[f32()])],
            &["r:y:0"],
        ),
        function(
            "pair",
            &[("v", DataType::Float)],
            vec![op(
                "r",
                "Pack",
                &["v", "v"],
                &[f32(), ("N", AttrValue::Int(2)), ("axis", AttrValue::Int(0))],
            )],
            &["r:output:0"],
        ),
    ];
    framework
}

#[test]
fn a_case_on_a_known_index_takes_its_branch_alone() {
    let case = |which| convert_and_infer(&switch_case(which), &ConvertOptions::default());
    assert_eq!(shape(&case(Some(0)), "case", 0), [3]);
    assert_eq!(shape(&case(Some(1)), "case", 0), [2, 3]);
    // An index out of range runs the last branch (TensorFlow's rule).
    assert_eq!(shape(&case(Some(7)), "case", 0), [2, 3]);
    assert_eq!(shape(&case(Some(-1)), "case", 0), [2, 3]);
    // [3] and [2, 3] differ in rank.
    assert_eq!(shape(&case(None), "case", 0), [-2]);

    // The memory plan and the cost count the branch taken only.
    let g = case(Some(0));
    let plan = plan_memory(&g, &OpRegistry::with_builtins(), &PlanOptions::default()).unwrap();
    let region = |name: &str| plan.tensors.iter().find(|t| t.name == name).unwrap().region;
    assert_eq!(region("case/branches1/r:0"), Region::Dead);
    assert_ne!(region("case/branches0/r:0"), Region::Dead);
    let spec = DeviceSpec::preset("Ascend310").unwrap();
    let report = estimate_cost(&g, &spec, &CostOptions::default()).unwrap();
    let row = |name: &str| report.nodes.iter().find(|r| r.name == name);
    assert!(row("case/branches1/r").is_none());
    assert!(row("case/branches0/r").is_some_and(|r| r.time_us > 0.0));
    let note = row("case").and_then(|r| r.note.clone());
    assert_eq!(
        note.as_deref(),
        Some("branch branches0 counted (its selector is known)")
    );
}
