//! Text-format GraphDefs (`.pbtxt`).

use super::*;
use crate::frontend::tensorflow::decode_text;
use crate::types::{AttrValue, DataType};

/// Written by hand in the layout TensorFlow's `write_graph(as_text=True)`
/// uses, with a comment, `<>` delimiters, escapes and a function body.
const SMALL_PBTXT: &str = r#"
# A Placeholder, a weight and a call.
node {
  name: "x"
  op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
}
node {
  name: "w"
  op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr {
    key: "value"
    value {
      tensor {
        dtype: DT_FLOAT
        tensor_shape { dim { size: 2 } }
        tensor_content: "\000\000\200?\000\000\000@"
      }
    }
  }
}
node <
  name: "call"
  op: "StatefulPartitionedCall"
  input: "x"
  input: "w:0"
  input: "^w"
  device: "/CPU:0"
  attr { key: "f" value { func { name: "scale" } } }
  attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "_note" value { s: "caf\303\251" } }
>
library {
  function {
    signature {
      name: "scale"
      input_arg { name: "a" type: DT_FLOAT }
      input_arg { name: "b" type: DT_FLOAT }
      output_arg { name: "out" type: DT_FLOAT }
    }
    node_def { name: "mul" op: "Mul" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "mul:z:0" }
  }
}
versions { producer: 1882 }
"#;

/// The same graph built with the prost types.
fn small_graph_def() -> pb::GraphDef {
    let float = || dtype_attr(pb::DataType::DtFloat);
    let weight = pb::TensorProto {
        dtype: pb::DataType::DtFloat as i32,
        tensor_shape: Some(shape(&[2])),
        tensor_content: Bytes::from_static(&[0, 0, 0x80, 0x3F, 0, 0, 0, 0x40]),
        ..pb::TensorProto::default()
    };
    let func = pb::NameAttrList {
        name: "scale".into(),
        attr: Default::default(),
    };
    let tin = list(ListValue {
        r#type: vec![pb::DataType::DtFloat as i32; 2],
        ..ListValue::default()
    });
    let mut call = node(
        "call",
        "StatefulPartitionedCall",
        &["x", "w:0", "^w"],
        vec![
            ("f", attr(Value::Func(Box::new(func)))),
            ("Tin", tin),
            ("_note", attr(Value::S(Bytes::from("café")))),
        ],
    );
    call.device = "/CPU:0".into();
    let arg = |name: &str| pb::op_def::ArgDef {
        name: name.into(),
        r#type: pb::DataType::DtFloat as i32,
        ..pb::op_def::ArgDef::default()
    };
    let scale = pb::FunctionDef {
        signature: Some(pb::OpDef {
            name: "scale".into(),
            input_arg: vec![arg("a"), arg("b")],
            output_arg: vec![arg("out")],
            ..pb::OpDef::default()
        }),
        node_def: vec![node("mul", "Mul", &["a", "b"], vec![("T", float())])],
        ret: [("out".to_string(), "mul:z:0".to_string())].into(),
        ..pb::FunctionDef::default()
    };
    pb::GraphDef {
        library: Some(pb::FunctionDefLibrary {
            function: vec![scale],
            ..pb::FunctionDefLibrary::default()
        }),
        versions: Some(pb::VersionDef {
            producer: 1882,
            ..pb::VersionDef::default()
        }),
        ..graph(vec![
            node(
                "x",
                "Placeholder",
                &[],
                vec![
                    ("dtype", float()),
                    ("shape", attr(Value::Shape(Box::new(shape(&[-1, 2]))))),
                ],
            ),
            node(
                "w",
                "Const",
                &[],
                vec![
                    ("dtype", float()),
                    ("value", attr(Value::Tensor(Box::new(weight)))),
                ],
            ),
            call,
        ])
    }
}

#[test]
fn text_and_binary_give_the_same_graph() {
    let from_text = decode_text(SMALL_PBTXT).unwrap();
    let from_binary = round_trip(&small_graph_def()).unwrap();
    assert_eq!(from_text, from_binary);
    // And the content is what the text says, not just equal.
    let AttrValue::Tensor(w) = from_text.ops[1].attrs.get("value").unwrap() else {
        panic!("w has no tensor value");
    };
    assert_eq!(w.bytes().as_ref(), [0, 0, 0x80, 0x3F, 0, 0, 0, 0x40]);
    assert_eq!(
        from_text.ops[2].attrs.get("_note"),
        Some(&AttrValue::Str("café".into()))
    );
    assert_eq!(
        from_text.ops[0].attrs.get("shape"),
        Some(&AttrValue::ListInt(vec![-1, 2]))
    );
    assert_eq!(
        from_text.function("scale").unwrap().ops[0].attrs.get("T"),
        Some(&AttrValue::DataType(DataType::Float))
    );
}

#[test]
fn syntax_errors_give_line_and_column() {
    let text = "node {\n  name: \"x\"\n  op: 12 \n}\n";
    let message = decode_error(decode_text(text));
    assert!(message.contains("line 3, column 7"), "{message}");
}

#[test]
fn unknown_fields_and_enum_names_are_errors() {
    let message = decode_error(decode_text("node { name: \"x\" colour: \"red\" }"));
    assert!(message.contains("colour"), "{message}");
    assert!(message.contains("line 1, column 18"), "{message}");
    let text = "node { name: \"x\" attr { key: \"T\" value { type: DT_FLOAT99 } } }";
    let message = decode_error(decode_text(text));
    assert!(message.contains("DT_FLOAT99"), "{message}");
}

#[test]
fn unterminated_text_is_an_error() {
    let message = decode_error(decode_text("node { name: \"x\""));
    assert!(message.contains("not a TensorFlow GraphDef"), "{message}");
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    // func → attr → value → func … far deeper than any real graph.
    let depth = 5000;
    let mut text = String::from("node { name: \"n\" op: \"Op\" attr { key: \"f\" value ");
    for _ in 0..depth {
        text.push_str("{ func { name: \"g\" attr { key: \"h\" value ");
    }
    text.push_str("{ i: 1 }");
    for _ in 0..depth {
        text.push_str(" } } }");
    }
    text.push_str(" } }");
    let message = decode_error(decode_text(&text));
    assert!(message.contains("nest more than 100 deep"), "{message}");
    // Braces inside strings and comments do not count.
    let quoted = format!(
        "node {{ name: \"{}\" op: \"Op\" }} # {}\n",
        "{".repeat(500),
        "<".repeat(500)
    );
    assert_eq!(decode_text(&quoted).unwrap().ops[0].name, "{".repeat(500));
}
