//! Decoder tests on models built here with prost (the Python tests build
//! theirs with the onnx package, an independent encoder).

use super::*;
use crate::types::{AttrValue, DataType};
use prost::Message;

fn value_info(name: &str, elem: i32, dims: &[Result<i64, &str>]) -> pb::ValueInfoProto {
    use pb::tensor_shape_proto::{dimension::Value, Dimension};
    pb::ValueInfoProto {
        name: name.into(),
        r#type: Some(pb::TypeProto {
            value: Some(pb::type_proto::Value::TensorType(pb::type_proto::Tensor {
                elem_type: elem,
                shape: Some(pb::TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| Dimension {
                            value: Some(match d {
                                Ok(v) => Value::DimValue(*v),
                                Err(p) => Value::DimParam((*p).into()),
                            }),
                            denotation: String::new(),
                        })
                        .collect(),
                }),
            })),
            denotation: String::new(),
        }),
    }
}

fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> pb::NodeProto {
    pb::NodeProto {
        op_type: op.into(),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        ..Default::default()
    }
}

fn model(graph: pb::GraphProto, opset: i64) -> bytes::Bytes {
    pb::ModelProto {
        ir_version: 8,
        opset_import: vec![pb::OperatorSetIdProto {
            domain: String::new(),
            version: opset,
        }],
        graph: Some(graph),
        ..Default::default()
    }
    .encode_to_vec()
    .into()
}

fn relu_graph() -> pb::GraphProto {
    pb::GraphProto {
        name: "g".into(),
        node: vec![node("Relu", &["x"], &["y"])],
        input: vec![value_info("x", 1, &[Err("batch"), Ok(3)])],
        output: vec![value_info("y", 1, &[])],
        initializer: vec![pb::TensorProto {
            name: "w".into(),
            dims: vec![2],
            data_type: 7,
            raw_data: bytes::Bytes::from_static(&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]),
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn inputs_initializers_and_nodes_become_framework_ops() {
    let decoded = decode_model(model(relu_graph(), 13), None, "m").unwrap();
    let ops = &decoded.graph.ops;
    let types: Vec<(&str, &str)> = ops
        .iter()
        .map(|o| (o.name.as_str(), o.op_type.as_str()))
        .collect();
    assert_eq!(
        types,
        [
            ("w", "Const"),
            ("x", "Placeholder"),
            ("y", "ai.onnx::13::Relu")
        ]
    );
    assert_eq!(
        ops[1].attrs.get("shape"),
        Some(&AttrValue::ListInt(vec![-1, 3]))
    );
    assert_eq!(
        ops[1].attrs.get(DIM_PARAMS_ATTR),
        Some(&AttrValue::ListStr(vec!["batch".into(), String::new()]))
    );
    assert_eq!(
        ops[1].attrs.get("dtype"),
        Some(&AttrValue::DataType(DataType::Float))
    );
    match ops[0].attrs.get("value") {
        Some(AttrValue::Tensor(t)) => assert_eq!(t.to_ints(), Some(vec![1, 2])),
        other => panic!("{other:?}"),
    }
    assert_eq!(decoded.outputs, ["y:0"]);
    assert_eq!(decoded.graph.name, "g");
}

/// ModelProto bytes (IR 8, opset 13) around an already encoded GraphProto,
/// for graphs holding fields the schema cannot write.
pub(super) fn model_around_graph(graph: &[u8]) -> Vec<u8> {
    use prost::encoding::{encode_key, encode_varint, WireType};
    let mut out = pb::ModelProto {
        ir_version: 8,
        opset_import: vec![pb::OperatorSetIdProto {
            domain: String::new(),
            version: 13,
        }],
        ..Default::default()
    }
    .encode_to_vec();
    encode_key(7, WireType::LengthDelimited, &mut out);
    encode_varint(graph.len() as u64, &mut out);
    out.extend_from_slice(graph);
    out
}

/// `model(graph, 13)` with `extra` appended to the graph's message: a field
/// the schema leaves out, as a producer's encoder would write it.
fn model_with_graph_field(graph: pb::GraphProto, extra: &[u8]) -> bytes::Bytes {
    let mut graph_bytes = graph.encode_to_vec();
    graph_bytes.extend_from_slice(extra);
    model_around_graph(&graph_bytes).into()
}

#[test]
fn value_info_is_skipped_unread() {
    // GraphProto field 13 holding a ValueInfoProto whose type is not a
    // TypeProto (its field 1 is a varint, not a message): decoding the
    // entry would fail, skipping it cannot. The types of intermediate values
    // are inferred, so the entries are never decoded (a dynamo export's
    // value_info is about as large as its nodes).
    let bad_value_info = [0x6a, 0x07, 0x0a, 0x01, b'v', 0x12, 0x02, 0x08, 0x01];
    let with = decode_model(
        model_with_graph_field(relu_graph(), &bad_value_info),
        None,
        "m",
    )
    .unwrap();
    let without = decode_model(model(relu_graph(), 13), None, "m").unwrap();
    let ops = |d: &DecodedModel| {
        d.graph
            .ops
            .iter()
            .map(|o| format!("{} {} {:?}", o.name, o.op_type, o.inputs))
            .collect::<Vec<_>>()
    };
    assert_eq!(ops(&with), ops(&without));
    assert_eq!(with.outputs, without.outputs);
}

#[test]
fn bad_models_are_decode_errors_naming_the_problem() {
    let err = |graph: pb::GraphProto, opset: i64| {
        decode_model(model(graph, opset), None, "m")
            .unwrap_err()
            .to_string()
    };
    let mut dangling = relu_graph();
    dangling.node[0].input[0] = "nowhere".into();
    assert!(err(dangling, 13).contains("reads value 'nowhere'"));
    let mut twice = relu_graph();
    twice.node.push(node("Relu", &["x"], &["y"]));
    assert!(err(twice, 13).contains("defines value 'y' twice"));
    let mut custom = relu_graph();
    custom.node[0].domain = "com.example".into();
    assert!(err(custom, 13).contains("does not import"));
    assert!(err(relu_graph(), 0).contains("versions start at 1"));
    let garbage = decode_model(bytes::Bytes::from_static(&[0xff, 0xff, 0xff]), None, "m");
    assert!(garbage
        .unwrap_err()
        .to_string()
        .contains("not an ONNX model"));
}

/// An opset-16 model of `z = If(c, ...)` over inputs `x: [2]` and `c`,
/// with the given branches (attribute name, graph).
fn if_model(branches: Vec<(&str, pb::GraphProto)>) -> bytes::Bytes {
    let mut if_node = node("If", &["c"], &["z"]);
    if_node.attribute = branches
        .into_iter()
        .map(|(name, g)| pb::AttributeProto {
            name: name.into(),
            r#type: 5,
            g: Some(g),
            ..Default::default()
        })
        .collect();
    let graph = pb::GraphProto {
        node: vec![if_node],
        input: vec![value_info("x", 1, &[Ok(2)]), value_info("c", 9, &[])],
        output: vec![value_info("z", 1, &[])],
        ..Default::default()
    };
    model(graph, 16)
}

#[test]
fn subgraph_outer_values_become_extra_inputs_and_arguments() {
    let branch = |out: &str| pb::GraphProto {
        name: out.into(),
        node: vec![node("Relu", &["x"], &[out])],
        output: vec![value_info(out, 1, &[])],
        ..Default::default()
    };
    let decoded = decode_model(
        if_model(vec![
            ("then_branch", branch("a")),
            ("else_branch", branch("b")),
        ]),
        None,
        "m",
    )
    .unwrap();
    let op = decoded.graph.ops.iter().find(|o| o.name == "z").unwrap();
    let inputs: Vec<&str> = op.inputs.iter().map(|i| i.node.as_str()).collect();
    assert_eq!(inputs, ["c", "x"]);
    assert_eq!(op.attrs.get(CAPTURE_COUNT_ATTR), Some(&AttrValue::Int(1)));
    let then = decoded.graph.function("z/then_branch").unwrap();
    assert_eq!(then.inputs, ["x"]);
    let arg = then.ops.iter().find(|o| o.op_type == "_Arg").unwrap();
    assert_eq!(arg.attrs.get("index"), Some(&AttrValue::Int(0)));
    assert_eq!(then.outputs[0].node, "a");
    assert_eq!(
        then.ops.iter().find(|o| o.name == "a").unwrap().inputs[0].node,
        "x"
    );
}

#[test]
fn a_branch_node_named_like_the_capture_mark_is_not_a_capture() {
    // The branch reads the outer x and a node named "\0capture:x"; that
    // node's output must stay its own, not become the capture of x.
    let marked = pb::NodeProto {
        name: "\u{0}capture:x".into(),
        ..node("Neg", &["x"], &["n"])
    };
    let branch = pb::GraphProto {
        name: "then".into(),
        node: vec![marked, node("Add", &["n", "x"], &["a"])],
        output: vec![value_info("a", 1, &[])],
        ..Default::default()
    };
    let decoded = decode_model(if_model(vec![("then_branch", branch)]), None, "m").unwrap();
    let then = decoded.graph.function("z/then_branch").unwrap();
    let add = then.ops.iter().find(|o| o.name == "a").unwrap();
    let neg = then
        .ops
        .iter()
        .find(|o| o.op_type.ends_with("::Neg"))
        .unwrap();
    assert_eq!(neg.name, "\u{FFFD}capture:x");
    assert_eq!(add.inputs[0].node, neg.name);
    assert_eq!(add.inputs[1].node, "x");
}

#[test]
fn only_names_starting_with_the_capture_mark_change() {
    // Another NUL-led name is not a mark: it names its op as given.
    let graph = pb::GraphProto {
        node: vec![pb::NodeProto {
            name: "\u{0}capture".into(),
            ..node("Neg", &["x"], &["y"])
        }],
        input: vec![value_info("x", 1, &[Ok(2)])],
        output: vec![value_info("y", 1, &[])],
        ..Default::default()
    };
    let decoded = decode_model(model(graph, 16), None, "m").unwrap();
    assert!(decoded.graph.ops.iter().any(|o| o.name == "\u{0}capture"));
}

#[test]
fn subgraphs_nested_past_the_decoders_bound_are_a_decode_error() {
    // If within If, 200 levels: the message nesting is past prost's
    // recursion limit, so decoding stops with an error, not a stack overflow.
    let leaf = |out: &str| pb::GraphProto {
        node: vec![node("Relu", &["x"], &[out])],
        output: vec![value_info(out, 1, &[])],
        ..Default::default()
    };
    let mut body = leaf("r0");
    for depth in 1..=200 {
        let out = format!("r{depth}");
        let mut if_node = node("If", &["c"], &[&out]);
        if_node.attribute = vec![
            pb::AttributeProto {
                name: "then_branch".into(),
                r#type: 5,
                g: Some(body),
                ..Default::default()
            },
            pb::AttributeProto {
                name: "else_branch".into(),
                r#type: 5,
                g: Some(leaf(&format!("e{depth}"))),
                ..Default::default()
            },
        ];
        body = pb::GraphProto {
            node: vec![if_node],
            output: vec![value_info(&out, 1, &[])],
            ..Default::default()
        };
    }
    body.input = vec![value_info("x", 1, &[Ok(2)]), value_info("c", 9, &[])];
    let err = decode_model(model(body, 16), None, "m")
        .unwrap_err()
        .to_string();
    assert!(err.contains("not an ONNX model"), "{err}");
}

#[test]
fn branches_reading_different_outer_values_take_them_in_the_nodes_order() {
    let branch = |input: &str, out: &str| pb::GraphProto {
        node: vec![node("Relu", &[input], &[out])],
        output: vec![value_info(out, 1, &[])],
        ..Default::default()
    };
    let graph_attr = |name: &str, g: pb::GraphProto| pb::AttributeProto {
        name: name.into(),
        r#type: 5,
        g: Some(g),
        ..Default::default()
    };
    let mut if_node = node("If", &["c"], &["z"]);
    if_node.attribute = vec![
        graph_attr("then_branch", branch("x", "a")),
        graph_attr("else_branch", branch("y", "b")),
    ];
    let graph = pb::GraphProto {
        node: vec![if_node],
        input: vec![
            value_info("x", 1, &[Ok(2)]),
            value_info("y", 1, &[Ok(2)]),
            value_info("c", 9, &[]),
        ],
        output: vec![value_info("z", 1, &[])],
        ..Default::default()
    };
    let decoded = decode_model(model(graph, 16), None, "m").unwrap();
    let op = decoded.graph.ops.iter().find(|o| o.name == "z").unwrap();
    let inputs: Vec<&str> = op.inputs.iter().map(|i| i.node.as_str()).collect();
    assert_eq!(inputs, ["c", "x", "y"]);
    // The else branch reads y, the node's second outer value: argument 1.
    let other = decoded.graph.function("z/else_branch").unwrap();
    let arg = other.ops.iter().find(|o| o.op_type == "_Arg").unwrap();
    assert_eq!(arg.attrs.get("index"), Some(&AttrValue::Int(1)));
    assert_eq!(other.inputs, ["x", "y"]);
}

#[test]
fn many_nodes_sharing_one_name_get_distinct_names_in_linear_time() {
    // 50,000 Relu nodes all named "n" (a hostile or careless exporter), one
    // of them already "n_2": each later claim must not rescan the suffixes.
    let count = 50_000;
    let mut nodes = Vec::with_capacity(count);
    let mut previous = "x".to_owned();
    for i in 0..count {
        let out = format!("v{i}");
        let mut n = node("Relu", &[&previous], &[&out]);
        n.name = if i == 1 { "n_2".into() } else { "n".into() };
        nodes.push(n);
        previous = out;
    }
    let graph = pb::GraphProto {
        name: "g".into(),
        node: nodes,
        input: vec![value_info("x", 1, &[Ok(2)])],
        output: vec![value_info(&previous, 1, &[Ok(2)])],
        ..Default::default()
    };
    let decoded = decode_model(model(graph, 17), None, "m").unwrap();
    let names: Vec<&str> = decoded
        .graph
        .ops
        .iter()
        .map(|op| op.name.as_str())
        .collect();
    let distinct: std::collections::HashSet<&str> = names.iter().copied().collect();
    assert_eq!(distinct.len(), names.len());
    assert!(names.contains(&"n") && names.contains(&"n_2") && names.contains(&"n_3"));
    assert!(names.contains(&format!("n_{count}").as_str()));
}

// ---- model-local functions ---------------------------------------------

fn function(
    name: &str,
    inputs: &[&str],
    outputs: &[&str],
    nodes: Vec<pb::NodeProto>,
) -> pb::FunctionProto {
    pb::FunctionProto {
        name: name.into(),
        domain: "local".into(),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        node: nodes,
        opset_import: vec![pb::OperatorSetIdProto {
            domain: String::new(),
            version: 17,
        }],
        ..Default::default()
    }
}

fn call(f: &str, inputs: &[&str], outputs: &[&str]) -> pb::NodeProto {
    pb::NodeProto {
        domain: "local".into(),
        ..node(f, inputs, outputs)
    }
}

fn model_with_functions(
    nodes: Vec<pb::NodeProto>,
    functions: Vec<pb::FunctionProto>,
) -> bytes::Bytes {
    pb::ModelProto {
        ir_version: 8,
        opset_import: vec![
            pb::OperatorSetIdProto {
                domain: String::new(),
                version: 13,
            },
            pb::OperatorSetIdProto {
                domain: "local".into(),
                version: 1,
            },
        ],
        graph: Some(pb::GraphProto {
            name: "g".into(),
            node: nodes,
            input: vec![value_info("x", 1, &[Ok(2), Ok(3)])],
            output: vec![value_info("y", 1, &[])],
            ..Default::default()
        }),
        functions,
        ..Default::default()
    }
    .encode_to_vec()
    .into()
}

/// twice_relu(a) = Relu(Relu(a)), its middle value named "t".
fn twice_relu() -> pb::FunctionProto {
    function(
        "twice_relu",
        &["a"],
        &["b"],
        vec![node("Relu", &["a"], &["t"]), node("Relu", &["t"], &["b"])],
    )
}

#[test]
fn a_function_call_is_expanded_with_the_functions_opsets() {
    let f = twice_relu();
    let data = model_with_functions(vec![call("twice_relu", &["x"], &["y"])], vec![f]);
    let decoded = decode_model(data, None, "m").unwrap();
    let relus: Vec<&crate::frontend::FrameworkOp> = decoded
        .graph
        .ops
        .iter()
        .filter(|op| op.op_type.ends_with("::Relu"))
        .collect();
    assert_eq!(relus.len(), 2);
    // The function imports opset 17; the model 13.
    assert!(relus.iter().all(|op| op.op_type == "ai.onnx::17::Relu"));
    let values = decoded.value_tensors();
    let y = values.iter().find(|(v, _)| v == "y").unwrap();
    assert!(y.1.starts_with(&relus[1].name), "{y:?}");
}

#[test]
fn inlined_values_avoid_names_the_model_already_uses() {
    // The call has no name, so its label is its output "y", and its copy of
    // the function would name Relu's output "y/twice_relu#1/t": a name the
    // graph already gives Neg's output (legal ONNX), twice over for the
    // second count.
    let f = twice_relu();
    let data = model_with_functions(
        vec![
            node("Neg", &["x"], &["y/twice_relu#1/t"]),
            node("Abs", &["x"], &["y/twice_relu#2/t"]),
            call("twice_relu", &["x"], &["y"]),
        ],
        vec![f],
    );
    let decoded = decode_model(data, None, "m").unwrap();
    let op = |value: &str| {
        let (_, tensor) = decoded
            .value_tensors()
            .into_iter()
            .find(|(v, _)| v == value)
            .unwrap();
        let name = tensor.split(':').next().unwrap().to_owned();
        decoded
            .graph
            .ops
            .iter()
            .find(|op| op.name == name)
            .unwrap()
            .clone()
    };
    assert!(op("y/twice_relu#1/t").op_type.ends_with("::Neg"));
    assert!(op("y/twice_relu#2/t").op_type.ends_with("::Abs"));
    let second_relu = op("y");
    assert!(second_relu.op_type.ends_with("::Relu"));
    let first_relu = decoded
        .graph
        .ops
        .iter()
        .find(|o| o.name == second_relu.inputs[0].node)
        .unwrap();
    assert!(first_relu.op_type.ends_with("::Relu"), "{first_relu:?}");
    assert_eq!(first_relu.inputs[0].node, "x");
}

#[test]
fn exponential_nesting_stops_at_the_expansion_budget() {
    // f_k calls f_{k+1} twice; f_25 is one Relu: 2^25 nodes if expanded.
    let depth = 25;
    let mut functions = Vec::new();
    for k in 0..depth {
        let next = format!("f{}", k + 1);
        functions.push(function(
            &format!("f{k}"),
            &["a"],
            &["b"],
            vec![call(&next, &["a"], &["t"]), call(&next, &["t"], &["b"])],
        ));
    }
    functions.push(function(
        &format!("f{depth}"),
        &["a"],
        &["b"],
        vec![node("Relu", &["a"], &["b"])],
    ));
    let data = model_with_functions(vec![call("f0", &["x"], &["y"])], functions);
    let started = std::time::Instant::now();
    let err = decode_model(data, None, "m").unwrap_err().to_string();
    assert!(started.elapsed().as_secs() < 10);
    assert!(
        err.contains("MAX_INLINED_NODES") && err.contains(&MAX_INLINED_NODES.to_string()),
        "{err}"
    );
    assert!(err.contains("local::f"), "{err}");
}

#[test]
fn deep_chains_stop_at_the_depth_limit_and_recursion_is_named() {
    let depth = MAX_FUNCTION_DEPTH + 5;
    let mut functions = Vec::new();
    for k in 0..depth {
        functions.push(function(
            &format!("g{k}"),
            &["a"],
            &["b"],
            vec![call(&format!("g{}", k + 1), &["a"], &["b"])],
        ));
    }
    functions.push(function(
        &format!("g{depth}"),
        &["a"],
        &["b"],
        vec![node("Relu", &["a"], &["b"])],
    ));
    let data = model_with_functions(vec![call("g0", &["x"], &["y"])], functions);
    let err = decode_model(data, None, "m").unwrap_err().to_string();
    assert!(
        err.contains("MAX_FUNCTION_DEPTH") && err.contains(&MAX_FUNCTION_DEPTH.to_string()),
        "{err}"
    );

    let functions = vec![
        function("p", &["a"], &["b"], vec![call("q", &["a"], &["b"])]),
        function("q", &["a"], &["b"], vec![call("p", &["a"], &["b"])]),
    ];
    let data = model_with_functions(vec![call("p", &["x"], &["y"])], functions);
    let err = decode_model(data, None, "m").unwrap_err().to_string();
    assert!(err.contains("local::p -> local::q -> local::p"), "{err}");
}

#[test]
fn a_conv_without_kernel_shape_takes_it_from_w_when_decoding_knows_it() {
    // ONNX infers kernel_shape from W when it is absent; the plugin needs it
    // to tell a 1-D or 3-D Conv from a 2-D one.
    let weight = |name: &str, dims: Vec<i64>| pb::TensorProto {
        name: name.into(),
        dims,
        data_type: 1,
        raw_data: bytes::Bytes::from(vec![0u8; 4 * 3]),
        ..Default::default()
    };
    let graph = pb::GraphProto {
        node: vec![
            node("Conv", &["x", "w"], &["y"]),
            node("Conv", &["x", "runtime_w"], &["z"]),
        ],
        input: vec![
            value_info("x", 1, &[Ok(1), Ok(1), Ok(8)]),
            value_info("runtime_w", 1, &[Ok(1), Ok(1), Ok(3)]),
        ],
        output: vec![value_info("y", 1, &[]), value_info("z", 1, &[])],
        initializer: vec![weight("w", vec![1, 1, 3])],
        ..Default::default()
    };
    let decoded = decode_model(model(graph, 13), None, "m").unwrap();
    let conv = |name: &str| decoded.graph.ops.iter().find(|o| o.name == name).unwrap();
    assert_eq!(
        conv("y").attrs.get("kernel_shape"),
        Some(&AttrValue::ListInt(vec![3]))
    );
    // W a graph input declaring its dims: those.
    assert_eq!(
        conv("z").attrs.get("kernel_shape"),
        Some(&AttrValue::ListInt(vec![3]))
    );
}
