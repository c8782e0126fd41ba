//! Every TensorFlow attr kind and its IR value.

use super::*;
use crate::types::{AttrValue, DataType, NamedAttrs};

/// The attrs of a one-node graph holding `attrs`, after a round trip.
fn decoded_attrs(attrs: Vec<(&str, pb::AttrValue)>) -> crate::types::Attrs {
    let decoded = round_trip(&graph(vec![node("n", "Op", &[], attrs)])).unwrap();
    decoded.ops[0].attrs.clone()
}

fn decoded(value: pb::AttrValue) -> AttrValue {
    decoded_attrs(vec![("a", value)]).get("a").cloned().unwrap()
}

#[test]
fn scalars() {
    assert_eq!(
        decoded(attr(Value::S(Bytes::from_static(b"SAME")))),
        AttrValue::Str("SAME".into())
    );
    assert_eq!(decoded(attr(Value::I(-7))), AttrValue::Int(-7));
    assert_eq!(decoded(attr(Value::F(0.25))), AttrValue::Float(0.25));
    assert_eq!(decoded(attr(Value::B(true))), AttrValue::Bool(true));
}

#[test]
fn invalid_utf8_is_replaced_not_rejected() {
    assert_eq!(
        decoded(attr(Value::S(Bytes::from_static(b"ab\xffc")))),
        AttrValue::Str("ab\u{fffd}c".into())
    );
}

#[test]
fn types_use_ge_numbering() {
    assert_eq!(
        decoded(dtype_attr(pb::DataType::DtHalf)),
        AttrValue::DataType(DataType::Float16)
    );
    assert_eq!(
        decoded(dtype_attr(pb::DataType::DtBfloat16)),
        AttrValue::DataType(DataType::Bf16)
    );
}

#[test]
fn shapes_follow_ge_conventions() {
    assert_eq!(
        decoded(attr(Value::Shape(Box::new(shape(&[1, -1, 3]))))),
        AttrValue::ListInt(vec![1, -1, 3])
    );
    assert_eq!(
        decoded(attr(Value::Shape(Box::new(shape(&[]))))),
        AttrValue::ListInt(vec![])
    );
    let unknown = pb::TensorShapeProto {
        unknown_rank: true,
        ..shape(&[4])
    };
    assert_eq!(
        decoded(attr(Value::Shape(Box::new(unknown)))),
        AttrValue::ListInt(vec![-2])
    );
}

#[test]
fn func_becomes_named_attrs() {
    let func = pb::NameAttrList {
        name: "body".into(),
        attr: [("T".to_string(), dtype_attr(pb::DataType::DtInt32))].into(),
    };
    assert_eq!(
        decoded(attr(Value::Func(Box::new(func)))),
        AttrValue::NamedAttrs(Box::new(NamedAttrs {
            name: "body".into(),
            attrs: [("T", AttrValue::DataType(DataType::Int32))]
                .into_iter()
                .collect(),
        }))
    );
}

#[test]
fn placeholders_keep_their_name_with_a_dollar() {
    assert_eq!(
        decoded(attr(Value::Placeholder("T".into()))),
        AttrValue::Str("$T".into())
    );
}

#[test]
fn lists_of_each_kind() {
    let s = ListValue {
        s: vec![Bytes::from_static(b"loc:@a"), Bytes::from_static(b"b")],
        ..ListValue::default()
    };
    assert_eq!(
        decoded(list(s)),
        AttrValue::ListStr(vec!["loc:@a".into(), "b".into()])
    );
    let i = ListValue {
        i: vec![1, 2, 2, 1],
        ..ListValue::default()
    };
    assert_eq!(decoded(list(i)), AttrValue::ListInt(vec![1, 2, 2, 1]));
    let f = ListValue {
        f: vec![0.5, -1.0],
        ..ListValue::default()
    };
    assert_eq!(decoded(list(f)), AttrValue::ListFloat(vec![0.5, -1.0]));
    let b = ListValue {
        b: vec![true, false],
        ..ListValue::default()
    };
    assert_eq!(decoded(list(b)), AttrValue::ListBool(vec![true, false]));
    let types = ListValue {
        r#type: vec![pb::DataType::DtFloat as i32, pb::DataType::DtInt64 as i32],
        ..ListValue::default()
    };
    assert_eq!(
        decoded(list(types)),
        AttrValue::ListDataType(vec![DataType::Float, DataType::Int64])
    );
    let shapes = ListValue {
        shape: vec![
            shape(&[1, 4]),
            pb::TensorShapeProto {
                unknown_rank: true,
                ..shape(&[])
            },
        ],
        ..ListValue::default()
    };
    assert_eq!(
        decoded(list(shapes)),
        AttrValue::ListListInt(vec![vec![1, 4], vec![-2]])
    );
}

#[test]
fn list_of_functions_is_their_names() {
    let branches = ListValue {
        func: ["b0", "b1", "b2"]
            .into_iter()
            .map(|name| pb::NameAttrList {
                name: name.into(),
                attr: Default::default(),
            })
            .collect(),
        ..ListValue::default()
    };
    assert_eq!(
        decoded(list(branches)),
        AttrValue::ListStr(vec!["b0".into(), "b1".into(), "b2".into()])
    );
}

#[test]
fn list_of_tensors_is_keyed_by_position() {
    let scalar = |v: i32| pb::TensorProto {
        dtype: pb::DataType::DtInt32 as i32,
        int_val: vec![v],
        ..pb::TensorProto::default()
    };
    let tensors = ListValue {
        tensor: vec![scalar(3), scalar(-4)],
        ..ListValue::default()
    };
    let AttrValue::NamedAttrs(named) = decoded(list(tensors)) else {
        panic!("expected NamedAttrs");
    };
    let value = |key: &str| match named.attrs.get(key) {
        Some(AttrValue::Tensor(t)) => t.to_ints(),
        other => panic!("{key}: {other:?}"),
    };
    assert_eq!(value("0"), Some(vec![3]));
    assert_eq!(value("1"), Some(vec![-4]));
    assert_eq!(named.attrs.len(), 2);
}

#[test]
fn an_empty_list_is_an_empty_int_list() {
    assert_eq!(
        decoded(list(ListValue::default())),
        AttrValue::ListInt(vec![])
    );
}

#[test]
fn attrs_come_in_key_order() {
    let attrs = decoded_attrs(vec![
        ("strides", attr(Value::I(1))),
        ("T", dtype_attr(pb::DataType::DtFloat)),
        ("padding", attr(Value::I(2))),
    ]);
    let names: Vec<&str> = attrs.iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["T", "padding", "strides"]);
}
