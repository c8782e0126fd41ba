//! Parser plugins in conversion: input edits, one-to-many
//! (parse_op_to_graph), many-to-one (fusion_parse_params), overriding a
//! built-in, and failures.

use super::*;
use crate::builder::{add_op, OpSpec, PortInput};
use crate::frontend::auto_mapping::auto_mapping;
use crate::frontend::plugin::InputEdit;
use crate::frontend::{Framework, OpDraft, ParserPlugin, PluginError};
use crate::types::{Format, TensorDesc};
use std::sync::Arc;
use thin_vec::thin_vec;

fn user_plugin(op_type: &str, origin: &str) -> ParserPlugin {
    let mut plugin = ParserPlugin::new(Framework::TensorFlow, op_type, &[origin]);
    plugin.parse_params = Some(Arc::new(auto_mapping));
    plugin
}

fn registry_with(plugins: Vec<ParserPlugin>) -> PluginRegistry {
    let mut registry = PluginRegistry::with_builtins();
    for plugin in plugins {
        registry.register(plugin, false).unwrap();
    }
    registry
}

fn producer_names(g: &Graph, node: &str) -> Vec<String> {
    g.node(g.find(node).unwrap())
        .inputs
        .iter()
        .map(|e| g.node(e.unwrap().node).name.clone())
        .collect()
}

#[test]
fn input_edits_delete_and_reorder_before_wiring() {
    let mut add = user_plugin("AddV2", "MyAdd");
    add.input_edits = vec![InputEdit::DelWithCond {
        index: 1,
        attr: "skip_middle".into(),
        value: true,
    }];
    let mut strip = user_plugin("Identity", "StripConst");
    strip.input_edits = vec![InputEdit::DelWithOriginalType {
        index: 0,
        op_type: "Const".into(),
    }];
    let mut sub = user_plugin("Sub", "RevSub");
    sub.input_edits = vec![InputEdit::Reorder(vec![1, 0])];
    let registry = registry_with(vec![add, strip, sub]);

    let yes = ("skip_middle", AttrValue::Bool(true));
    let framework = graph(vec![
        placeholder("x", DataType::Float, &[2, 3]),
        placeholder("y", DataType::Float, &[3]),
        weights("c", &[7]),
        op("add", "MyAdd", &["x", "c", "y"], &[yes]),
        op("strip", "StripConst", &["c", "x"], &[]),
        op("keep", "StripConst", &["y", "x"], &[]),
        op("sub", "RevSub", &["x", "y"], &[]),
    ]);
    let options = ConvertOptions {
        outputs: vec!["add".into(), "strip".into(), "sub".into()],
        ..ConvertOptions::default()
    };
    let mut g = convert_with(&framework, &registry, &options).unwrap();
    infer(&mut g);
    assert_eq!(producer_names(&g, "add"), ["x", "y"]);
    assert_eq!(shape(&g, "add", 0), [2, 3]);
    assert_eq!(producer_names(&g, "strip"), ["x"]);
    assert_eq!(producer_names(&g, "sub"), ["y", "x"]);

    // `keep`'s first input is a Placeholder, so nothing is deleted and the
    // leftover input does not fit Identity.
    let options = ConvertOptions {
        outputs: vec!["keep".into()],
        ..ConvertOptions::default()
    };
    let message = convert_with(&framework, &registry, &options)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains(
            "node 'keep' (StripConst → Identity): it has 2 inputs, but Identity takes 1 (x)"
        ),
        "{message}"
    );
}

/// A body graph: Sigmoid(x) * x, x being the caller's input 0.
fn swish_body(draft: &OpDraft) -> Result<Graph, PluginError> {
    let ops = OpRegistry::with_builtins();
    let mut body = Graph::new(format!("{}_body", draft.name));
    let desc = TensorDesc::new(DataType::Float, Shape::unknown_rank(), Format::Nd);
    let x = body.add_input_node("x", desc).unwrap();
    let single = |e| PortInput::Single(Some(e));
    let spec = |op_type: &str, name: &str, inputs: Vec<PortInput>| OpSpec {
        op_type: op_type.into(),
        name: name.into(),
        inputs,
        ..OpSpec::default()
    };
    let sig = add_op(&mut body, &ops, spec("Sigmoid", "sig", vec![single(x)])).unwrap();
    let sig = OutputRef::new(sig, 0);
    let y = add_op(
        &mut body,
        &ops,
        spec("Mul", "y", vec![single(x), single(sig)]),
    )
    .unwrap();
    body.set_outputs(vec![OutputRef::new(y, 0)]).unwrap();
    Ok(body)
}

#[test]
fn parse_op_to_graph_makes_a_partitioned_call_of_the_body() {
    let mut plugin = user_plugin("MySwish", "SwishTF");
    plugin.parse_op_to_graph = Some(Arc::new(swish_body));
    let registry = registry_with(vec![plugin]);
    let framework = graph(vec![
        placeholder("x", DataType::Float, &[5, 2]),
        op("act", "SwishTF", &["x"], &[("beta", AttrValue::Float(1.0))]),
        op("out", "Neg", &["act"], &[t(DataType::Float)]),
    ]);
    let mut g = convert_with(&framework, &registry, &ConvertOptions::default()).unwrap();
    infer(&mut g);
    let call = g.node(g.find("act").unwrap());
    assert_eq!(call.op_type, "PartitionedCall");
    let body = call.subgraph("f").expect("the body is subgraph f");
    assert_eq!(body.name, "act_body");
    let Some(AttrValue::NamedAttrs(f)) = call.attrs.get("f") else {
        panic!()
    };
    assert_eq!(f.name, "act_body");
    assert_eq!(
        f.attrs.get("beta"),
        Some(&AttrValue::Float(1.0)),
        "the parsed attrs travel with f"
    );
    assert_eq!(shape(&g, "act", 0), [5, 2]);
    assert_eq!(shape(&g, "out", 0), [5, 2]);
}

/// TopKV2 as a body graph, so the call's outputs are TopKV2's (values, indices).
fn topk_body(draft: &OpDraft) -> Result<Graph, PluginError> {
    let ops = OpRegistry::with_builtins();
    let mut body = Graph::new(format!("{}_body", draft.name));
    let x = body.add_input_node("x", TensorDesc::default()).unwrap();
    let k = body.add_input_node("k", TensorDesc::default()).unwrap();
    let spec = OpSpec {
        op_type: "TopKV2".into(),
        name: "topk".into(),
        inputs: vec![PortInput::Single(Some(x)), PortInput::Single(Some(k))],
        ..OpSpec::default()
    };
    let topk = add_op(&mut body, &ops, spec).unwrap();
    body.set_outputs(vec![OutputRef::new(topk, 0), OutputRef::new(topk, 1)])
        .unwrap();
    Ok(body)
}

#[test]
fn one_to_many_outputs_resolve_by_the_drafted_op_type() {
    let mut plugin = user_plugin("TopKV2", "MyTopK");
    plugin.parse_op_to_graph = Some(Arc::new(topk_body));
    let registry = registry_with(vec![plugin]);
    let body = function(
        "pick",
        &[("v", DataType::Float)],
        vec![
            ints("k", &[], &[2]),
            op("t", "MyTopK", &["v", "k:output:0"], &[]),
            op("ids", "Identity", &["t:indices:0"], &[t(DataType::Int32)]),
        ],
        &["ids:output:0", "t:values:0"],
    );
    let mut framework = graph(vec![
        placeholder("x", DataType::Float, &[3, 7]),
        op(
            "call",
            "PartitionedCall",
            &["x"],
            &[
                ("Tin", types(&[DataType::Float])),
                ("Tout", types(&[DataType::Int32, DataType::Float])),
                ("f", func("pick")),
            ],
        ),
    ]);
    framework.functions.push(body);
    let mut g = convert_with(&framework, &registry, &ConvertOptions::default()).unwrap();
    infer(&mut g);
    let call = g.node(g.find("call").unwrap());
    assert_eq!(call.outputs[0].dtype, DataType::Int32);
    assert_eq!(call.outputs[0].shape().dims(), [3, 2]);
    assert_eq!(call.outputs[1].dtype, DataType::Float);
    let f = call.subgraph("f").unwrap();
    let ids = f.node(f.find("ids").unwrap());
    assert_eq!(ids.inputs, [Some(OutputRef::new(f.find("t").unwrap(), 1))]);
}

#[test]
fn fused_ops_go_to_fusion_parse_params() {
    let mut plugin = ParserPlugin::new(Framework::TensorFlow, "LeakyRelu", &["FusedLeaky"]);
    plugin.fusion_parse_params = Some(Arc::new(|fused: &[FrameworkOp], dst: &mut OpDraft| {
        let alpha = fused
            .iter()
            .find(|op| op.op_type == "Mul")
            .and_then(|op| op.attrs.get("alpha"))
            .cloned()
            .ok_or_else(|| PluginError::new("no Mul with alpha among the fused ops"))?;
        dst.set_attr("alpha", alpha);
        dst.set_attr("_fused", AttrValue::Int(fused.len() as i64));
        Ok(())
    }));
    let registry = registry_with(vec![plugin]);
    let mut fused = op("leaky", "FusedLeaky", &["x"], &[]);
    fused.fused_ops = thin_vec![
        op(
            "leaky/mul",
            "Mul",
            &["x", "leaky/alpha"],
            &[("alpha", AttrValue::Float(0.25))],
        ),
        op("leaky/max", "Maximum", &["x", "leaky/mul"], &[]),
    ];
    let framework = graph(vec![placeholder("x", DataType::Float, &[4]), fused]);
    let mut g = convert_with(&framework, &registry, &ConvertOptions::default()).unwrap();
    infer(&mut g);
    let node = g.node(g.find("leaky").unwrap());
    assert_eq!(node.op_type, "LeakyRelu");
    assert_eq!(node.attrs.get("alpha"), Some(&AttrValue::Float(0.25)));
    assert_eq!(node.attrs.get("_fused"), Some(&AttrValue::Int(2)));
    assert_eq!(shape(&g, "leaky", 0), [4]);

    // A fused op whose plugin only has parse_params cannot be parsed.
    let mut fused = op("r", "Relu", &["x"], &[]);
    fused.fused_ops = thin_vec![op("r/inner", "Relu", &["x"], &[])];
    let framework = graph(vec![placeholder("x", DataType::Float, &[4]), fused]);
    let message = error(&framework, &ConvertOptions::default());
    assert!(
        message.contains("node 'r'") && message.contains("no fusion_parse_params"),
        "{message}"
    );
}

#[test]
fn a_user_plugin_overrides_the_built_in_one() {
    let framework = graph(vec![
        placeholder("x", DataType::Float, &[4]),
        op("act", "Relu", &["x"], &[t(DataType::Float)]),
    ]);
    let builtin = convert_with(
        &framework,
        &PluginRegistry::with_builtins(),
        &ConvertOptions::default(),
    )
    .unwrap();
    assert_eq!(builtin.node(builtin.find("act").unwrap()).op_type, "Relu");
    let registry = registry_with(vec![user_plugin("Relu6", "Relu")]);
    let g = convert_with(&framework, &registry, &ConvertOptions::default()).unwrap();
    assert_eq!(g.node(g.find("act").unwrap()).op_type, "Relu6");
}

#[derive(Debug)]
struct Foreign;

impl std::fmt::Display for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("raised in user code")
    }
}

impl std::error::Error for Foreign {}

#[test]
fn plugin_failures_name_the_node_and_keep_the_source() {
    let mut failing = ParserPlugin::new(Framework::TensorFlow, "Relu", &["Relu"]);
    failing.parse_params = Some(Arc::new(|_: &FrameworkOp, _: &mut OpDraft| {
        Err(PluginError::with_source(
            "cannot map this",
            Box::new(Foreign),
        ))
    }));
    let unregistered = user_plugin("NotAnIrOp", "Exp");
    let registry = registry_with(vec![failing, unregistered]);
    let framework = graph(vec![
        placeholder("x", DataType::Float, &[4]),
        op("act", "Relu", &["x"], &[]),
        op("e", "Exp", &["x"], &[]),
    ]);
    let only = |output: &str| ConvertOptions {
        outputs: vec![output.into()],
        ..ConvertOptions::default()
    };
    match convert_with(&framework, &registry, &only("act")) {
        Err(FrontendError::Plugin {
            node,
            origin_op_type,
            error,
        }) => {
            assert_eq!((node.as_str(), origin_op_type.as_str()), ("act", "Relu"));
            assert_eq!(error.source.unwrap().to_string(), "raised in user code");
        }
        other => panic!("expected a plugin error, got {other:?}"),
    }
    let message = convert_with(&framework, &registry, &only("e"))
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("failed on node 'e': the plugin maps it to IR op type 'NotAnIrOp', which is not registered"),
        "{message}"
    );
}
