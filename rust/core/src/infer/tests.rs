//! Engine tests on small graphs of built-in ops.

use crate::prelude::*;
use crate::test_graphs::{input, op, register_shape_of};
use std::sync::Arc;

fn f32_input(g: &mut Graph, name: &str, dims: &[i64], format: Format) -> OutputRef {
    input(g, name, DataType::Float, dims, format)
}

fn ints(v: &[i64]) -> AttrValue {
    AttrValue::ListInt(v.to_vec())
}

fn shape_const(g: &mut Graph, name: &str, dims: &[i64]) -> OutputRef {
    let t = HostTensor::from_ints(DataType::Int64, Shape::from_dims([dims.len() as i64]), dims)
        .unwrap();
    g.add_const_node(name, t).unwrap()
}

fn only_node_error(r: Result<(), Vec<InferFailure>>) -> NodeError {
    let mut errors = r.unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    match errors.remove(0) {
        InferFailure::Node(e) => e,
        other => panic!("expected a node error, got {other}"),
    }
}

#[test]
fn add_broadcasts_and_follows_format() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let a = f32_input(&mut g, "a", &[2, 1, 3], Format::Nchw);
    let b = f32_input(&mut g, "b", &[4, 1], Format::Nd);
    let y = op(&mut g, &r, "Add", "y", &[a, b], Attrs::new());
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    let out = g.tensor(y);
    assert_eq!(out.shape().dims(), &[2, 4, 3]);
    assert_eq!(out.dtype, DataType::Float);
    assert_eq!(out.origin_format, Format::Nchw);
}

#[test]
fn dtype_combination_mismatch_is_a_prototype_error() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let a = f32_input(&mut g, "a", &[2], Format::Nd);
    let b = g
        .add_input_node(
            "b",
            TensorDesc::new(DataType::Float16, Shape::from_dims([2]), Format::Nd),
        )
        .unwrap();
    op(&mut g, &r, "Add", "sum", &[a, b], Attrs::new());
    let e = only_node_error(infer_graph(&mut g, &r, InferOptions::default()));
    assert_eq!(e.stage, Stage::Prototype);
    assert_eq!(e.node, "sum");
    assert!(e.message.contains("x1=FLOAT, x2=FLOAT16"), "{}", e.message);
    assert_eq!(e.inputs, ["x1=float[2]", "x2=float16[2]"]);
}

#[test]
fn reshape_uses_the_constant_shape_and_infers_minus_one() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[2, 3, 4], Format::Nd);
    let s = shape_const(&mut g, "s", &[4, -1]);
    let y = op(&mut g, &r, "Reshape", "y", &[x, s], Attrs::new());
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(g.tensor(y).shape().dims(), &[4, 6]);

    let bad = shape_const(&mut g, "bad", &[5, -1]);
    op(&mut g, &r, "Reshape", "z", &[x, bad], Attrs::new());
    let e = only_node_error(infer_graph(&mut g, &r, InferOptions::default()));
    assert_eq!((e.node.as_str(), e.stage), ("z", Stage::InferShape));
    assert!(e.message.contains("24 elements"), "{}", e.message);
}

#[test]
fn reshape_without_a_value_keeps_the_rank() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[2, 3], Format::Nd);
    let s = g
        .add_input_node(
            "s",
            TensorDesc::new(DataType::Int32, Shape::from_dims([3]), Format::Nd),
        )
        .unwrap();
    let y = op(&mut g, &r, "Reshape", "y", &[x, s], Attrs::new());
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(g.tensor(y).shape().dims(), &[-1, -1, -1]);
}

#[test]
fn conv2d_nchw_and_nhwc() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[1, 3, 224, 224], Format::Nchw);
    let w = f32_input(&mut g, "w", &[64, 3, 7, 7], Format::Nchw);
    let attrs: Attrs = [
        ("strides", ints(&[1, 1, 2, 2])),
        ("pads", ints(&[3, 3, 3, 3])),
        ("data_format", AttrValue::Str("NCHW".into())),
    ]
    .into_iter()
    .collect();
    let y = op(&mut g, &r, "Conv2D", "conv", &[x, w], attrs);

    let xh = f32_input(&mut g, "xh", &[1, 224, 224, 3], Format::Nhwc);
    let wh = f32_input(&mut g, "wh", &[3, 3, 1, 48], Format::Hwcn);
    let attrs: Attrs = [
        ("strides", ints(&[1, 2, 2, 1])),
        ("pads", ints(&[0, 0, 0, 0])),
        ("dilations", ints(&[1, 2, 2, 1])),
        ("groups", AttrValue::Int(3)),
        ("padding", AttrValue::Str("SAME".into())),
    ]
    .into_iter()
    .collect();
    let yh = op(&mut g, &r, "Conv2D", "conv_nhwc", &[xh, wh], attrs);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(g.tensor(y).shape().dims(), &[1, 64, 112, 112]);
    assert_eq!(g.tensor(y).origin_format, Format::Nchw);
    assert_eq!(g.tensor(yh).shape().dims(), &[1, 112, 112, 48]);
}

#[test]
fn missing_required_attribute_is_reported() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[1, 3, 8, 8], Format::Nchw);
    let w = f32_input(&mut g, "w", &[4, 3, 3, 3], Format::Nchw);
    op(&mut g, &r, "Conv2D", "conv", &[x, w], Attrs::new());
    let e = only_node_error(infer_graph(&mut g, &r, InferOptions::default()));
    assert!(
        e.message.contains("required attribute 'strides'"),
        "{}",
        e.message
    );
}

#[test]
fn collect_errors_reports_each_root_failure_once() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let a = f32_input(&mut g, "a", &[2], Format::Nd);
    let b = f32_input(&mut g, "b", &[3], Format::Nd);
    let bad1 = op(&mut g, &r, "Add", "bad1", &[a, b], Attrs::new());
    op(&mut g, &r, "Identity", "downstream", &[bad1], Attrs::new());
    op(&mut g, &r, "Add", "bad2", &[b, a], Attrs::new());
    let ok = op(&mut g, &r, "Add", "ok", &[a, a], Attrs::new());

    let errors = infer_graph(
        &mut g,
        &r,
        InferOptions {
            collect_errors: true,
            ..InferOptions::default()
        },
    )
    .unwrap_err();
    let names: Vec<String> = errors
        .iter()
        .map(|e| match e {
            InferFailure::Node(n) => n.node.clone(),
            other => other.to_string(),
        })
        .collect();
    assert_eq!(names, ["bad1", "bad2"]);
    assert_eq!(g.tensor(ok).shape().dims(), &[2]);

    let first_only = infer_graph(&mut g, &r, InferOptions::default()).unwrap_err();
    assert_eq!(first_only.len(), 1);
}

#[test]
fn cycles_are_reported_with_their_nodes() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let a = f32_input(&mut g, "a", &[2], Format::Nd);
    let p = op(&mut g, &r, "Add", "p", &[a, a], Attrs::new());
    let q = op(&mut g, &r, "Identity", "q", &[p], Attrs::new());
    g.set_input(p.node, 1, Some(q)).unwrap();
    let errors = infer_graph(&mut g, &r, InferOptions::default()).unwrap_err();
    match &errors[0] {
        InferFailure::Cycle { error, .. } => assert_eq!(error.nodes, ["p", "q", "p"]),
        other => panic!("expected a cycle, got {other}"),
    }
}

#[test]
fn unknown_op_types_fail_in_the_engine() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let a = f32_input(&mut g, "a", &[2], Format::Nd);
    g.add_node(Node::new("mystery", "NoSuchOp", vec![Some(a)], 1))
        .unwrap();
    let e = only_node_error(infer_graph(&mut g, &r, InferOptions::default()));
    assert_eq!(e.stage, Stage::UnknownOp);
}

#[test]
fn panicking_functions_become_errors() {
    let mut r = OpRegistry::with_builtins();
    let schema = OpSchema::new("Boom")
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::All))
        .verify(Arc::new(|_| panic!("kaboom")));
    r.register(schema, false).unwrap();
    let mut g = Graph::new("g");
    let a = f32_input(&mut g, "a", &[2], Format::Nd);
    op(&mut g, &r, "Boom", "boom", &[a], Attrs::new());
    crate::internal::install_panic_hook();
    let e = only_node_error(infer_graph(&mut g, &r, InferOptions::default()));
    // Its own stage, whichever function panicked: opgraph's bug, not the node's.
    assert_eq!(e.stage, Stage::Internal);
    assert!(e.message.contains("kaboom"), "{}", e.message);
    assert!(
        e.message.contains("infer/tests.rs:"),
        "the panic's location: {}",
        e.message
    );
}

#[test]
fn partitioned_call_infers_its_body_with_the_callers_inputs() {
    let r = OpRegistry::with_builtins();
    let mut body = Graph::new("f");
    let bx = body
        .add_input_node(
            "arg0",
            TensorDesc::new(DataType::Undefined, Shape::unknown_rank(), Format::Nd),
        )
        .unwrap();
    let by = op(&mut body, &r, "Add", "double", &[bx, bx], Attrs::new());
    body.set_outputs(vec![by]).unwrap();

    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[5, 7], Format::Nd);
    let call = crate::test_graphs::call(&mut g, &r, &[x], body);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(g.node(call).outputs[0].shape().dims(), &[5, 7]);
    assert_eq!(g.node(call).outputs[0].dtype, DataType::Float);
}

#[test]
fn op_types_sharing_a_length_and_long_op_types_resolve() {
    // The engine remembers the last schema per op-type length; "Ngx" shares
    // "Add"'s length and the long name is past what it remembers.
    let long = "AnOperatorTypeWithAVeryLongNameIndeed";
    let mut r = OpRegistry::with_builtins();
    for name in ["Ngx", long] {
        let schema = OpSchema::new(name)
            .input(PortDef::new("x", ParamType::Required))
            .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Shape))
            .infer_dtype(crate::op::op_fn(|ctx| {
                ctx.set_output_dtype(0, DataType::Int32)
            }));
        r.register(schema, false).unwrap();
    }
    let mut g = Graph::new("g");
    let a = f32_input(&mut g, "a", &[2], Format::Nd);
    let add1 = op(&mut g, &r, "Add", "add1", &[a, a], Attrs::new());
    let neg1 = op(&mut g, &r, "Ngx", "neg1", &[add1], Attrs::new());
    let add2 = op(&mut g, &r, "Add", "add2", &[a, a], Attrs::new());
    let neg2 = op(&mut g, &r, "Ngx", "neg2", &[add2], Attrs::new());
    let tail = op(&mut g, &r, long, "tail", &[neg2], Attrs::new());
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    for (edge, dtype) in [
        (add1, DataType::Float),
        (neg1, DataType::Int32),
        (add2, DataType::Float),
        (tail, DataType::Int32),
    ] {
        assert_eq!(g.tensor(edge).dtype, dtype);
        assert_eq!(g.tensor(edge).shape().dims(), &[2]);
    }

    // An unregistered type of a remembered length is still unknown.
    g.add_node(Node::new("mul", "Mlx", vec![Some(a), Some(a)], 1))
        .unwrap();
    let e = only_node_error(infer_graph(&mut g, &r, InferOptions::default()));
    assert_eq!((e.node.as_str(), e.stage), ("mul", Stage::UnknownOp));
}

#[test]
fn reshape_can_replace_a_range_of_dims() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[2, 3, 4], Format::Nd);
    let s = shape_const(&mut g, "s", &[-1, 1]);
    let attrs: Attrs = [("axis", AttrValue::Int(1)), ("num_axes", AttrValue::Int(1))]
        .into_iter()
        .collect();
    let y = op(&mut g, &r, "Reshape", "y", &[x, s], attrs);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(g.tensor(y).shape().dims(), &[2, 3, 1, 4]);
}

#[test]
fn reshape_to_an_empty_shape_vector_checks_the_element_count() {
    // Found by the fuzzer: a value-less shape input of length 0 means a
    // scalar target, which must still match the input's element count.
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[2, 3], Format::Nd);
    let s = g
        .add_input_node(
            "s",
            TensorDesc::new(DataType::Int32, Shape::from_dims([0]), Format::Nd),
        )
        .unwrap();
    op(&mut g, &r, "Reshape", "y", &[x, s], Attrs::new());
    let e = only_node_error(infer_graph(&mut g, &r, InferOptions::default()));
    assert!(
        e.message.contains("cannot reshape 6 elements"),
        "{}",
        e.message
    );
}

#[test]
fn reshape_rejects_shape_vectors_longer_than_the_maximum_rank() {
    // Found by the fuzzer: a value-less shape vector of length near i64::MAX
    // used to allocate an unknown-dims shape of that rank.
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[2, 3], Format::Nd);
    let s = g
        .add_input_node(
            "s",
            TensorDesc::new(DataType::Int32, Shape::from_dims([i64::MAX]), Format::Nd),
        )
        .unwrap();
    op(&mut g, &r, "Reshape", "y", &[x, s], Attrs::new());
    let e = only_node_error(infer_graph(&mut g, &r, InferOptions::default()));
    assert!(e.message.contains("maximum rank"), "{}", e.message);
}

#[test]
fn values_fold_through_identity_into_value_depend_inputs() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[2, 3, 4], Format::Nd);
    let s = shape_const(&mut g, "s", &[-1, 4]);
    let s2 = op(&mut g, &r, "Identity", "s2", &[s], Attrs::new());
    let y = op(&mut g, &r, "Reshape", "y", &[x, s2], Attrs::new());
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(g.tensor(y).shape().dims(), &[6, 4]);

    // With folding limited to nothing, Reshape only knows the target's rank.
    let no_fold = InferOptions {
        fold_limit: 0,
        ..InferOptions::default()
    };
    infer_graph(&mut g, &r, no_fold).unwrap();
    assert_eq!(g.tensor(y).shape().dims(), &[-1, -1]);
}

#[test]
fn partially_known_shape_vectors_keep_their_known_dims() {
    let mut r = OpRegistry::with_builtins();
    register_shape_of(&mut r);
    let mut g = Graph::new("g");
    let x = f32_input(&mut g, "x", &[-1, 224, 224, 3], Format::Nhwc);
    let shape = op(&mut g, &r, "TestShapeOf", "shape", &[x], Attrs::new());
    let y = op(&mut g, &r, "Reshape", "y", &[x, shape], Attrs::new());
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(
        g.tensor(shape).shape_value.as_ref().unwrap().dims(),
        &[-1, 224, 224, 3]
    );
    assert_eq!(g.tensor(y).shape().dims(), &[-1, 224, 224, 3]);

    // One unknown entry and a static input: the element count fixes it.
    let z = f32_input(&mut g, "z", &[8, 224, 224, 3], Format::Nhwc);
    let w = op(&mut g, &r, "Reshape", "w", &[z, shape], Attrs::new());
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(g.tensor(w).shape().dims(), &[8, 224, 224, 3]);
}
