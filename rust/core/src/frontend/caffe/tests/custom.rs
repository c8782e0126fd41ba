//! custom.proto merging (GE's rules, documented in `caffe::custom`) and the
//! attributes of custom layers: nested and repeated messages, JSON, double,
//! uint64, bytes, enum lists.

use super::*;

const A: &str = "decode_custom_a.proto";
const B: &str = "decode_custom_b.proto";

fn schema(protos: &[&str]) -> Result<CaffeSchema, FrontendError> {
    let paths: Vec<PathBuf> = protos.iter().map(|p| fixture(p)).collect();
    CaffeSchema::with_custom_proto_files(&paths)
}

/// A proto given as text, named `name` in errors.
fn schema_from(name: &str, source: &str) -> Result<CaffeSchema, FrontendError> {
    CaffeSchema::with_custom_protos(&[(name.to_owned(), source.to_owned())])
}

fn schema_error(name: &str, source: &str) -> String {
    match schema_from(name, source) {
        Err(FrontendError::Decode(message)) => message,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

fn custom_graph() -> FrameworkGraph {
    decode(&CaffeFiles {
        prototxt: fixture("decode_custom.prototxt"),
        weights: Some(fixture("decode_custom.caffemodel")),
        custom_protos: vec![fixture(A), fixture(B)],
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_custom_layer_s_nested_and_repeated_messages() {
    let graph = custom_graph();
    let mine = op(&graph, "mine");
    assert_eq!(mine.op_type, "MyLayer");
    let boxes = r#"{
  "boxes": [
    {
      "mode": 0,
      "x": 1.0,
      "y": 2.0
    },
    {
      "x": 3.5,
      "y": -1.0
    }
  ]
}"#;
    let expect = [
        ("boxes", AttrValue::Str(boxes.into())),
        // double: exactly 0.1, not 0.1f32 widened.
        ("ratio", AttrValue::Float(0.1)),
        ("big", AttrValue::Int(i64::MAX)),
        ("bigs", AttrValue::ListInt(vec![1, 18])),
        ("tags", AttrValue::ListStr(vec!["a".into(), "b".into()])),
        // bytes: invalid UTF-8 replaced.
        ("payload", AttrValue::Str("\u{FFFD}ok".into())),
        ("modes", AttrValue::ListInt(vec![0, 1])),
        (
            "modes_name",
            AttrValue::ListStr(vec!["FAST".into(), "EXACT".into()]),
        ),
        // Unset, with declared defaults (custom enums and int64 too).
        ("mode", AttrValue::Int(1)),
        ("mode_name", AttrValue::Str("EXACT".into())),
        ("offset", AttrValue::Int(-7)),
        // window { corner { x: 9 } }: depth 3 and 4, flattened.
        ("size", AttrValue::Int(3)),
        ("x", AttrValue::Float(9.0)),
        // filler (a caffe.proto type) flattened with its defaults.
        ("type", AttrValue::Str("gaussian".into())),
        ("std", AttrValue::Float(0.5)),
        ("sparse", AttrValue::Int(-1)),
    ];
    for (name, value) in expect {
        assert_eq!(attr(mine, name), &value, "{name}");
    }
}

#[test]
fn custom_layers_take_their_weights_from_the_caffemodel() {
    let graph = custom_graph();
    let mine = op(&graph, "mine");
    assert_eq!(
        mine.inputs,
        [
            input("data", 0),
            input("mine/blobs/0", 0),
            input("mine/blobs/1", 0)
        ]
    );
    assert_eq!(tensor(op(&graph, "mine/blobs/1")).shape().dims(), [2, 2, 2]);
}

#[test]
fn custom_fields_win_by_name_and_keep_their_own_numbers() {
    let graph = custom_graph();
    assert_eq!(attr(op(&graph, "clash"), "level"), &AttrValue::Int(7));
    // pooling_param is now the custom message (by name).
    let pool = op(&graph, "pool");
    assert_eq!(attr(pool, "window"), &AttrValue::Int(2));
    assert_eq!(attr(pool, "method"), &AttrValue::Str("max".into()));
    assert!(pool.attrs.get("pool").is_none());

    let merged = schema(&[A, B]).unwrap();
    let layer = merged.message("LayerParameter").unwrap();
    assert_eq!(
        layer.get_field(1003).map(|f| f.name().to_owned()),
        Some("clash_param".into())
    );
    assert!(
        layer.get_field(121).is_none(),
        "built-in pooling_param is gone"
    );
    // Untouched built-in fields stay.
    assert!(layer.get_field_by_name("relu_param").is_some());
    assert!(layer.get_field_by_name("convolution_param").is_some());
}

#[test]
fn a_custom_field_taking_a_stock_number_is_an_error_naming_both() {
    let source = "syntax = \"proto2\";\npackage caffe;\nmessage LayerParameter {\n  optional string my_name = 1;\n}\n";
    let message = schema_error("mine.proto", source);
    assert!(message.starts_with("mine.proto:4:"), "{message}");
    assert!(
        message.contains(
            "field 'my_name' = 1 takes the number of LayerParameter's existing field 'name'"
        ),
        "{message}"
    );
    // The same name and number is a redefinition, which GE allows.
    let twin = "syntax = \"proto2\";\nmessage LayerParameter {\n  optional string name = 1;\n}\n";
    assert!(schema_from("twin.proto", twin).is_ok());
}

#[test]
fn a_custom_proto_defining_a_message_or_field_twice_is_an_error() {
    let cases = [
        (
            "message MyParam { optional int32 a = 1; }\nmessage MyParam { optional int32 b = 1; }\n",
            "dup.proto:3:9: message 'MyParam' is defined twice",
        ),
        (
            "enum Mode { A = 0; }\nenum Mode { B = 0; }\n",
            "dup.proto:3:6: enum 'Mode' is defined twice",
        ),
        (
            "message LayerParameter {\n  optional int32 x = 1000;\n  optional int32 x = 1001;\n}\n",
            "dup.proto:4:18: LayerParameter has two fields with name 'x'",
        ),
        (
            "message LayerParameter {\n  optional int32 x = 1000;\n  optional int32 y = 1000;\n}\n",
            "dup.proto:4:22: LayerParameter has two fields with number 1000",
        ),
    ];
    for (body, want) in cases {
        let message = schema_error("dup.proto", &format!("syntax = \"proto2\";\n{body}"));
        assert!(message.starts_with(want), "{want}\n{message}");
    }
}

#[test]
fn custom_messages_replace_built_in_ones_and_later_protos_win() {
    let graph = custom_graph();
    // DropoutParameter replaced: new default ratio and a new field.
    let drop = op(&graph, "drop");
    assert_eq!(attr(drop, "dropout_ratio"), &AttrValue::Float(0.25));
    assert_eq!(attr(drop, "scale_train"), &AttrValue::Bool(true));
    // B (package domi.caffe, read as caffe) replaced A's ClashParameter:
    // default 5 and the field `note`.
    let second = op(&graph, "second");
    assert_eq!(attr(second, "level"), &AttrValue::Int(5));
    assert_eq!(attr(second, "note"), &AttrValue::Str("hi".into()));
    assert_eq!(attr(second, "gain"), &AttrValue::Float(1.5));

    // In the other order A's ClashParameter wins, which has no `note`.
    let reversed = schema(&[B, A]).unwrap();
    let text = std::fs::read_to_string(fixture("decode_custom.prototxt")).unwrap();
    let Err(FrontendError::Decode(message)) = decode_net(&reversed, &text, None, "net") else {
        panic!("`note` must be unknown with A merged last");
    };
    assert!(message.contains("note"), "{message}");
}

#[test]
fn without_the_custom_proto_its_fields_are_unknown() {
    let text = std::fs::read_to_string(fixture("decode_custom.prototxt")).unwrap();
    let Err(FrontendError::Decode(message)) = decode_text(&text) else {
        panic!("my_layer_param must be unknown");
    };
    assert!(message.contains("line 10, column 3"), "{message}");
}

#[test]
fn uint64_above_the_int_range_names_the_field() {
    let merged = schema(&[A]).unwrap();
    let text = r#"
        input: "x"
        layer { name: "m" type: "MyLayer" bottom: "x" top: "y"
                my_layer_param { big: 18446744073709551615 } }
    "#;
    let Err(FrontendError::Decode(message)) = decode_net(&merged, text, None, "net") else {
        panic!("expected an error");
    };
    assert!(
        message
            .contains("layer 'm': field 'my_layer_param.big' is the uint64 18446744073709551615"),
        "{message}"
    );
}

#[test]
fn messages_nested_deeper_than_ge_flattens_are_an_error() {
    let merged = schema_from(
        "deep.proto",
        r#"
        syntax = "proto2";
        message LayerParameter { optional L2 deep_param = 1000; }
        message L2 { optional L3 a = 1; }
        message L3 { optional L4 b = 1; }
        message L4 { optional L5 c = 1; }
        message L5 { optional L6 d = 1; }
        message L6 { optional int32 e = 1; }
        "#,
    )
    .unwrap();
    let net = |body: &str| {
        format!("input: 'x' layer {{ name: 'd' type: 'Deep' bottom: 'x' top: 'y' deep_param {{ {body} }} }}")
    };
    // Layer, deep_param, a, b, c: five levels, fine.
    let graph = decode_net(&merged, &net("a { b { c { } } }"), None, "net").unwrap();
    assert!(op(&graph, "d").attrs.get("e").is_none());
    let Err(FrontendError::Decode(message)) =
        decode_net(&merged, &net("a { b { c { d { e: 1 } } } }"), None, "net")
    else {
        panic!("six levels must fail");
    };
    assert!(
        message.contains("field 'deep_param.a.b.c.d' nests messages more than 5 levels"),
        "{message}"
    );
}

#[test]
fn custom_proto_syntax_errors_have_file_line_and_column() {
    let message = schema_error(
        "my.proto",
        "syntax = \"proto2\";\nmessage LayerParameter {\n  optional int32 x = ;\n}\n",
    );
    assert!(message.starts_with("my.proto:3:22: "), "{message}");
}

#[test]
fn unresolved_types_in_a_custom_proto_are_located() {
    let message = schema_error(
        "my.proto",
        "syntax = \"proto2\";\nmessage LayerParameter {\n  optional Missing m = 1000;\n}\n",
    );
    assert!(
        message
            .starts_with("my.proto:3:12: field 'm' of message 'LayerParameter' has type 'Missing'"),
        "{message}"
    );
    // Nested messages are checked too.
    let message = schema_error(
        "my.proto",
        "message Outer {\n  message Inner {\n    optional Nope n = 1;\n  }\n}\n",
    );
    assert!(
        message.starts_with("my.proto:3:14: field 'n' of message 'Inner'"),
        "{message}"
    );
}

#[test]
fn what_a_custom_proto_may_not_contain() {
    let cases = [
        (
            "syntax = \"proto3\";\nmessage A { int32 x = 1; }",
            "is proto3",
        ),
        (
            "import \"other.proto\";\nmessage A {}",
            "imports 'other.proto'",
        ),
        (
            "message LayerParameter { oneof k { int32 a = 1000; } }",
            "oneof",
        ),
        (
            "message A { optional int32 x = 1; optional int32 y = 1; }",
            "custom proto 'my.proto' does not merge into caffe.proto",
        ),
    ];
    for (source, expected) in cases {
        let message = schema_error("my.proto", source);
        assert!(message.contains(expected), "{source}: {message}");
    }
}

#[test]
fn importing_caffe_proto_and_declaring_net_parameter_are_harmless() {
    let merged = schema_from(
        "my.proto",
        r#"
        syntax = "proto2";
        package caffe;
        import "caffe/proto/caffe.proto";
        message NetParameter { optional int32 ignored = 1; }
        message LayerParameter {
          optional ReLUParameter relu_param = 123;  // the built-in field's twin
          optional .caffe.FillerParameter my_filler = 1000;
        }
        "#,
    )
    .unwrap();
    let net = merged.message("NetParameter").unwrap();
    assert!(net.get_field_by_name("layer").is_some());
    assert!(net.get_field_by_name("ignored").is_none());
    let graph = decode_net(
        &merged,
        "input: 'x' layer { name: 'r' type: 'ReLU' bottom: 'x' top: 'y' \
         relu_param { negative_slope: 0.5 } my_filler { type: 'xavier' } }",
        None,
        "net",
    )
    .unwrap();
    let relu = op(&graph, "r");
    assert_eq!(attr(relu, "negative_slope"), &AttrValue::Float(0.5));
    assert_eq!(attr(relu, "type"), &AttrValue::Str("xavier".into()));
}

#[test]
fn missing_custom_proto_files_are_named() {
    let Err(FrontendError::Decode(message)) =
        CaffeSchema::with_custom_proto_files(&[fixture("no_such.proto")])
    else {
        panic!("expected an error");
    };
    assert!(message.contains("cannot read custom proto") && message.contains("no_such.proto"));
}
