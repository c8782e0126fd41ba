//! Malformed input: always a decode error naming what is wrong, never a panic.

use super::*;
use crate::frontend::tensorflow::decode_text;

fn conv_graph() -> pb::GraphDef {
    let weight = pb::TensorProto {
        dtype: pb::DataType::DtFloat as i32,
        tensor_shape: Some(shape(&[1, 1, 2, 2])),
        tensor_content: Bytes::from(vec![7u8; 16]),
        ..pb::TensorProto::default()
    };
    graph(vec![
        node(
            "x",
            "Placeholder",
            &[],
            vec![("dtype", dtype_attr(pb::DataType::DtFloat))],
        ),
        node(
            "w",
            "Const",
            &[],
            vec![("value", attr(Value::Tensor(Box::new(weight))))],
        ),
        node(
            "conv",
            "Conv2D",
            &["x", "w"],
            vec![(
                "strides",
                list(ListValue {
                    i: vec![1, 1, 1, 1],
                    ..ListValue::default()
                }),
            )],
        ),
    ])
}

#[test]
fn every_truncation_is_an_error_or_a_shorter_graph() {
    let full = encode(&conv_graph());
    for len in 0..full.len() {
        // A cut at a message boundary is a valid (smaller) GraphDef; any
        // other cut must be reported, and nothing may panic.
        match decode_binary(full.slice(..len)) {
            Ok(graph) => assert!(graph.ops.len() < 3, "cut at {len}"),
            Err(FrontendError::Decode(message)) => {
                assert!(!message.is_empty(), "cut at {len}")
            }
            Err(other) => panic!("cut at {len}: unexpected {other:?}"),
        }
    }
    let message = decode_error(decode_binary(full.slice(..full.len() - 1)));
    assert!(
        message.contains("not a binary TensorFlow GraphDef"),
        "{message}"
    );
}

#[test]
fn garbage_bytes_are_an_error() {
    let message = decode_error(decode_binary(Bytes::from_static(b"\xff\xff\xff\xff\x0f")));
    assert!(
        message.contains("not a binary TensorFlow GraphDef"),
        "{message}"
    );
}

#[test]
fn unsupported_types_name_the_node_and_attr() {
    let g = graph(vec![node(
        "cast",
        "Cast",
        &[],
        vec![("DstT", attr(Value::Type(24)))],
    )]);
    let message = decode_error(round_trip(&g));
    assert_eq!(
        message,
        "node 'cast': attr 'DstT' is TensorFlow type DT_FLOAT8_E5M2, which opgraph does not support"
    );
    let g = graph(vec![node(
        "cast",
        "Cast",
        &[],
        vec![("DstT", attr(Value::Type(77)))],
    )]);
    let message = decode_error(round_trip(&g));
    assert!(message.contains("number 77"), "{message}");
    let types = list(ListValue {
        r#type: vec![1, 0],
        ..ListValue::default()
    });
    let g = graph(vec![node("n", "IdentityN", &[], vec![("T", types)])]);
    let message = decode_error(round_trip(&g));
    assert!(
        message.contains("'T'") && message.contains("DT_INVALID"),
        "{message}"
    );
}

#[test]
fn bad_attr_values_are_errors() {
    let mixed = list(ListValue {
        i: vec![1],
        f: vec![1.0],
        ..ListValue::default()
    });
    let cases = [
        (mixed, "mixing several kinds"),
        (pb::AttrValue { value: None }, "has no value"),
        (attr(Value::Shape(Box::new(shape(&[2, -3])))), "dim -3"),
    ];
    for (value, expected) in cases {
        let g = graph(vec![node("n", "Op", &[], vec![("a", value)])]);
        let message = decode_error(round_trip(&g));
        assert!(
            message.starts_with("node 'n': attr 'a' ") && message.contains(expected),
            "{message}"
        );
    }
    let nested = pb::NameAttrList {
        name: "f".into(),
        attr: [("T".to_string(), attr(Value::Type(25)))].into(),
    };
    let g = graph(vec![node(
        "call",
        "PartitionedCall",
        &[],
        vec![("f", attr(Value::Func(Box::new(nested))))],
    )]);
    let message = decode_error(round_trip(&g));
    assert_eq!(
        message,
        "node 'call': attr 'f' is function 'f' whose attr 'T' is TensorFlow type \
         DT_FLOAT8_E4M3FN, which opgraph does not support"
    );
}

#[test]
fn bad_input_names_are_errors() {
    for bad in ["a:x", "a:", "", "^", "a:1:2"] {
        let g = graph(vec![node("n", "Identity", &[bad], vec![])]);
        let message = decode_error(round_trip(&g));
        assert_eq!(
            message,
            format!(
                "node 'n' has input '{bad}', but an input must be 'node', 'node:port' or '^node'"
            )
        );
    }
}

#[test]
fn nameless_nodes_and_functions_are_errors() {
    let message = decode_error(round_trip(&graph(vec![node("", "Relu", &[], vec![])])));
    assert!(message.contains("a 'Relu' node has no name"), "{message}");
    let message = decode_error(round_trip(&graph(vec![node("r", "", &[], vec![])])));
    assert!(message.contains("node 'r' has no op type"), "{message}");
    let g = pb::GraphDef {
        library: Some(pb::FunctionDefLibrary {
            function: vec![pb::FunctionDef::default()],
            ..pb::FunctionDefLibrary::default()
        }),
        ..graph(vec![])
    };
    let message = decode_error(round_trip(&g));
    assert!(message.contains("no signature name"), "{message}");
}

#[test]
fn text_that_is_not_a_graph_is_an_error() {
    for text in [
        "}",
        "node {",
        "node { name: }",
        "\u{0}\u{1}",
        "node { name: \"a\\\" }",
    ] {
        let message = decode_error(decode_text(text));
        assert!(
            message.contains("not a TensorFlow GraphDef"),
            "{text:?}: {message}"
        );
    }
}

#[test]
fn a_graph_def_field_of_the_wrong_wire_type_is_an_error_as_in_graph_def() {
    // Nodes are decoded one by one through a message of GraphDef's wire
    // format; its other fields must be checked exactly as GraphDef checks
    // them. Field 3 (`version`, an int32) given as length-delimited bytes
    // (tag 0x1a, length 0), and field 5 (`debug_info`) as a varint (tag
    // 0x28, value 1), after a valid graph (found by the graphdef fuzz target).
    let valid = conv_graph().encode_to_vec();
    for suffix in [[0x1a_u8, 0x00], [0x28, 0x01]] {
        let mut data = valid.clone();
        data.extend_from_slice(&suffix);
        assert!(pb::GraphDef::decode(data.as_slice()).is_err());
        let Err(FrontendError::Decode(message)) = decode_binary(Bytes::from(data)) else {
            panic!("accepted a GraphDef whose field has the wrong wire type ({suffix:?})");
        };
        assert!(
            message.contains("not a binary TensorFlow GraphDef"),
            "{message}"
        );
    }
}

/// The bytes of a one-node GraphDef whose node is `node_bytes` as encoded.
fn graph_of_encoded_node(node_bytes: &[u8]) -> Vec<u8> {
    let mut data = Vec::new();
    prost::encoding::bytes::encode(1, &node_bytes.to_vec(), &mut data);
    data
}

#[test]
fn nodes_decode_exactly_as_node_def_decodes_them() {
    // Nodes are decoded through NodeDefSlices (strings borrowed, the attr
    // map as its list of entries); each case is checked against NodeDef.
    let relu = node(
        "r",
        "Relu",
        &[],
        vec![("T", dtype_attr(pb::DataType::DtFloat))],
    );
    let valid = relu.encode_to_vec();
    let entry = |value: pb::DataType| {
        let mut entry = Vec::new();
        prost::encoding::string::encode(1, &"T".to_string(), &mut entry);
        prost::encoding::message::encode(2, &dtype_attr(value), &mut entry);
        let mut field = Vec::new();
        prost::encoding::bytes::encode(5, &entry, &mut field);
        field
    };
    // A repeated map key: the last entry wins, in NodeDef and here.
    let mut repeated = valid.clone();
    repeated.extend(entry(pb::DataType::DtInt32));
    let data = graph_of_encoded_node(&repeated);
    let expected = pb::GraphDef::decode(data.as_slice()).unwrap();
    assert_eq!(
        expected.node[0].attr["T"],
        dtype_attr(pb::DataType::DtInt32)
    );
    let graph = decode_binary(Bytes::from(data)).unwrap();
    assert_eq!(
        graph.ops[0].attrs.get("T"),
        Some(&crate::types::AttrValue::DataType(
            crate::types::DataType::Int32
        ))
    );
    // Rejected by NodeDef, so rejected here: a name that is not UTF-8
    // (tag 0x0a, length 1, 0xff) and experimental fields 6 and 7 of the
    // wrong wire type (varints).
    for suffix in [&[0x0a_u8, 0x01, 0xff][..], &[0x30, 0x01], &[0x38, 0x01]] {
        let mut bad = valid.clone();
        bad.extend_from_slice(suffix);
        let data = graph_of_encoded_node(&bad);
        assert!(pb::GraphDef::decode(data.as_slice()).is_err(), "{suffix:?}");
        let message = decode_error(decode_binary(Bytes::from(data)));
        assert!(message.contains("node 0 is not a NodeDef"), "{message}");
    }
    // A string field whose earlier occurrence is not UTF-8 and whose last one
    // is: NodeDef checks every occurrence (found by the fuzz oracle), so each
    // is rejected here too — name, op, device, and a map entry's key.
    let bad_key_entry = {
        let mut entry = vec![0x0a, 0x01, 0xff];
        prost::encoding::string::encode(1, &"T".to_string(), &mut entry);
        let mut field = Vec::new();
        prost::encoding::bytes::encode(5, &entry, &mut field);
        field
    };
    for prefix in [
        &[0x0a_u8, 0x01, 0xff][..],
        &[0x12, 0x01, 0xff],
        &[0x22, 0x01, 0xff],
        &bad_key_entry,
    ] {
        let mut bad = prefix.to_vec();
        bad.extend_from_slice(&valid);
        let data = graph_of_encoded_node(&bad);
        assert!(pb::GraphDef::decode(data.as_slice()).is_err(), "{prefix:?}");
        let message = decode_error(decode_binary(Bytes::from(data)));
        assert!(message.contains("node 0 is not a NodeDef"), "{message}");
    }
}

#[test]
fn a_function_body_node_that_is_not_a_node_def_names_its_function() {
    // Body nodes of a binary GraphDef decode one at a time, borrowed (as the
    // graph's own nodes do): a bad one is an error naming the function and
    // the node's position, as NodeDef would reject it.
    let signature = pb::OpDef {
        name: "f".into(),
        ..pb::OpDef::default()
    };
    let relu = node("r", "Relu", &[], vec![]).encode_to_vec();
    let mut bad = relu.clone();
    bad.extend_from_slice(&[0x0a, 0x01, 0xff]); // a name that is not UTF-8
    let encoded = |body: Vec<Vec<u8>>| {
        let function = pb::FunctionDefWithEncodedNodes {
            signature: Some(signature.clone()),
            node_def: body.into_iter().map(Bytes::from).collect(),
            ..pb::FunctionDefWithEncodedNodes::default()
        };
        let graph = pb::GraphDefWithEncodedNodes {
            library: Some(pb::FunctionDefLibraryWithEncodedNodes {
                function: vec![function],
                ..pb::FunctionDefLibraryWithEncodedNodes::default()
            }),
            ..pb::GraphDefWithEncodedNodes::default()
        };
        graph.encode_to_vec()
    };
    let good = decode_binary(Bytes::from(encoded(vec![relu.clone()]))).unwrap();
    let body: Vec<&str> = good.functions[0]
        .ops
        .iter()
        .map(|op| op.name.as_str())
        .collect();
    assert_eq!(body, ["r"]);
    let data = encoded(vec![relu, bad]);
    assert!(pb::GraphDef::decode(data.as_slice()).is_err());
    let message = decode_error(decode_binary(Bytes::from(data)));
    assert!(
        message.contains("function 'f' node 1 is not a NodeDef"),
        "{message}"
    );
}
