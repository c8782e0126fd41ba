//! TensorProto → host tensor: borrowing, TensorFlow's expansion rule, opaque
//! tensors and size checks.

use super::*;
use crate::frontend::tensorflow::{MAX_EXPANDED_BYTES, OPAQUE_TENSOR};
use crate::types::{AttrValue, DataType, HostTensor};

fn tensor(dtype: pb::DataType, dims: &[i64]) -> pb::TensorProto {
    pb::TensorProto {
        dtype: dtype as i32,
        tensor_shape: Some(shape(dims)),
        ..pb::TensorProto::default()
    }
}

fn const_graph(value: pb::TensorProto) -> pb::GraphDef {
    graph(vec![node(
        "c",
        "Const",
        &[],
        vec![("value", attr(Value::Tensor(Box::new(value))))],
    )])
}

fn value_of(decoded: &FrameworkGraph) -> &AttrValue {
    decoded.ops[0].attrs.get("value").unwrap()
}

fn host(value: pb::TensorProto) -> HostTensor {
    match value_of(&round_trip(&const_graph(value)).unwrap()) {
        AttrValue::Tensor(t) => t.clone(),
        other => panic!("expected a tensor, got {other:?}"),
    }
}

fn floats(t: &HostTensor) -> Vec<f32> {
    t.bytes()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn tensor_content_borrows_the_source_buffer() {
    let weights: Vec<u8> = (0..24).collect();
    let t = pb::TensorProto {
        tensor_content: Bytes::from(weights.clone()),
        ..tensor(pb::DataType::DtFloat, &[2, 3])
    };
    let source = encode(&const_graph(t));
    let range = source.as_ptr_range();
    let decoded = decode_binary(source.clone()).unwrap();
    let AttrValue::Tensor(value) = value_of(&decoded) else {
        panic!("expected a tensor");
    };
    assert_eq!(value.bytes().as_ref(), weights.as_slice());
    assert_eq!(value.shape().dims(), &[2, 3]);
    let start = value.bytes().as_ptr();
    assert!(
        range.contains(&start) && range.end >= start.wrapping_add(24),
        "the weights were copied instead of borrowed"
    );
}

#[test]
fn fewer_values_than_elements_repeat_the_last() {
    let t = pb::TensorProto {
        float_val: vec![1.0, 2.5],
        ..tensor(pb::DataType::DtFloat, &[2, 3])
    };
    assert_eq!(floats(&host(t)), [1.0, 2.5, 2.5, 2.5, 2.5, 2.5]);
}

#[test]
fn no_values_mean_zeros() {
    let t = tensor(pb::DataType::DtInt64, &[3]);
    let value = host(t);
    assert_eq!(value.dtype(), DataType::Int64);
    assert_eq!(value.to_ints(), Some(vec![0, 0, 0]));
    // A missing shape is a scalar.
    let scalar = pb::TensorProto {
        dtype: pb::DataType::DtFloat as i32,
        ..pb::TensorProto::default()
    };
    let value = host(scalar);
    assert_eq!(value.shape().dims(), &[] as &[i64]);
    assert_eq!(floats(&value), [0.0]);
}

#[test]
fn small_integers_are_truncated_from_int_val() {
    let t = pb::TensorProto {
        int_val: vec![-1, 300],
        ..tensor(pb::DataType::DtInt8, &[3])
    };
    // 300 = 0x12C keeps its low byte 0x2C = 44, as TensorFlow's cast does.
    assert_eq!(host(t).to_ints(), Some(vec![-1, 44, 44]));
    let t = pb::TensorProto {
        int_val: vec![65535, 7],
        ..tensor(pb::DataType::DtUint16, &[2])
    };
    assert_eq!(host(t).to_ints(), Some(vec![65535, 7]));
    let t = pb::TensorProto {
        int64_val: vec![1 << 40],
        ..tensor(pb::DataType::DtInt64, &[2])
    };
    assert_eq!(host(t).to_ints(), Some(vec![1 << 40, 1 << 40]));
}

#[test]
fn half_and_bfloat16_come_from_half_val_bits() {
    // 0x3C00 is 1.0 in IEEE half; 0x3F80 is 1.0 in bfloat16.
    let t = pb::TensorProto {
        half_val: vec![0x3C00, 0xC000],
        ..tensor(pb::DataType::DtHalf, &[3])
    };
    let value = host(t);
    assert_eq!(value.dtype(), DataType::Float16);
    assert_eq!(value.bytes().as_ref(), [0x00, 0x3C, 0x00, 0xC0, 0x00, 0xC0]);
    let t = pb::TensorProto {
        half_val: vec![0x3F80],
        ..tensor(pb::DataType::DtBfloat16, &[1])
    };
    let value = host(t);
    assert_eq!(value.dtype(), DataType::Bf16);
    assert_eq!(value.bytes().as_ref(), [0x80, 0x3F]);
}

#[test]
fn bools_unsigned_and_doubles() {
    let t = pb::TensorProto {
        bool_val: vec![true, false],
        ..tensor(pb::DataType::DtBool, &[3])
    };
    assert_eq!(host(t).bytes().as_ref(), [1, 0, 0]);
    let t = pb::TensorProto {
        uint64_val: vec![u64::MAX],
        ..tensor(pb::DataType::DtUint64, &[1])
    };
    assert_eq!(host(t).bytes().as_ref(), [0xFF; 8]);
    let t = pb::TensorProto {
        uint32_val: vec![5],
        ..tensor(pb::DataType::DtUint32, &[2])
    };
    assert_eq!(host(t).to_ints(), Some(vec![5, 5]));
    let t = pb::TensorProto {
        double_val: vec![-0.5],
        ..tensor(pb::DataType::DtDouble, &[])
    };
    assert_eq!(host(t).bytes().as_ref(), (-0.5f64).to_le_bytes());
}

#[test]
fn complex_values_are_pairs_and_repeat_as_pairs() {
    let t = pb::TensorProto {
        scomplex_val: vec![1.0, 2.0, 3.0, 4.0],
        ..tensor(pb::DataType::DtComplex64, &[3])
    };
    let value = host(t);
    assert_eq!(value.dtype(), DataType::Complex64);
    assert_eq!(floats(&value), [1.0, 2.0, 3.0, 4.0, 3.0, 4.0]);
    let t = pb::TensorProto {
        dcomplex_val: vec![1.0, -1.0],
        ..tensor(pb::DataType::DtComplex128, &[2])
    };
    assert_eq!(host(t).bytes().len(), 32);
}

#[test]
fn string_tensors_are_opaque_with_their_values() {
    let t = pb::TensorProto {
        string_val: vec![Bytes::from_static(b"hello"), Bytes::from_static(b"\xff")],
        ..tensor(pb::DataType::DtString, &[2])
    };
    let decoded = round_trip(&const_graph(t)).unwrap();
    let AttrValue::NamedAttrs(opaque) = value_of(&decoded) else {
        panic!("expected an opaque tensor");
    };
    assert_eq!(opaque.name, OPAQUE_TENSOR);
    assert_eq!(
        opaque.attrs.get("dtype"),
        Some(&AttrValue::DataType(DataType::String))
    );
    assert_eq!(
        opaque.attrs.get("shape"),
        Some(&AttrValue::ListInt(vec![2]))
    );
    assert_eq!(
        opaque.attrs.get("string_val"),
        Some(&AttrValue::ListStr(vec!["hello".into(), "\u{fffd}".into()]))
    );
}

#[test]
fn resource_and_sub_byte_tensors_are_opaque() {
    for (tf, ge) in [
        (pb::DataType::DtResource, DataType::Resource),
        (pb::DataType::DtVariant, DataType::Variant),
        (pb::DataType::DtInt4, DataType::Int4),
    ] {
        let t = pb::TensorProto {
            tensor_content: Bytes::from_static(&[1, 2]),
            ..tensor(tf, &[2])
        };
        let decoded = round_trip(&const_graph(t)).unwrap();
        let AttrValue::NamedAttrs(opaque) = value_of(&decoded) else {
            panic!("{tf:?}: expected an opaque tensor");
        };
        assert_eq!(opaque.name, OPAQUE_TENSOR);
        assert_eq!(opaque.attrs.get("dtype"), Some(&AttrValue::DataType(ge)));
        assert_eq!(opaque.attrs.get("string_val"), None);
    }
}

#[test]
fn content_of_the_wrong_size_names_the_node() {
    let t = pb::TensorProto {
        tensor_content: Bytes::from_static(&[0; 10]),
        ..tensor(pb::DataType::DtFloat, &[3])
    };
    let message = decode_error(round_trip(&const_graph(t)));
    assert!(
        message.starts_with("node 'c': attr 'value' is a tensor"),
        "{message}"
    );
    assert!(message.contains("needs 12 bytes, got 10"), "{message}");
}

#[test]
fn more_values_than_elements_is_an_error() {
    let t = pb::TensorProto {
        int_val: vec![1, 2, 3],
        ..tensor(pb::DataType::DtInt32, &[2])
    };
    let message = decode_error(round_trip(&const_graph(t)));
    assert!(message.contains("2 elements holding 3 values"), "{message}");
}

#[test]
fn odd_complex_parts_are_an_error() {
    let t = pb::TensorProto {
        scomplex_val: vec![1.0, 2.0, 3.0],
        ..tensor(pb::DataType::DtComplex64, &[2])
    };
    let message = decode_error(round_trip(&const_graph(t)));
    assert!(message.contains("3 parts"), "{message}");
}

#[test]
fn unknown_shapes_and_dtypes_are_errors() {
    let t = tensor(pb::DataType::DtFloat, &[-1, 2]);
    let message = decode_error(round_trip(&const_graph(t)));
    assert!(message.contains("needs every dim known"), "{message}");
    let t = tensor(pb::DataType::DtFloat8E5m2, &[2]);
    let message = decode_error(round_trip(&const_graph(t)));
    assert!(
        message.contains("node 'c': attr 'value'") && message.contains("DT_FLOAT8_E5M2"),
        "{message}"
    );
}

#[test]
fn huge_splats_are_refused_before_allocating() {
    // One value for 2^40 elements: 4 TiB if expanded.
    let t = pb::TensorProto {
        float_val: vec![1.0],
        ..tensor(pb::DataType::DtFloat, &[1 << 20, 1 << 20])
    };
    let message = decode_error(round_trip(&const_graph(t)));
    assert!(
        message.contains(&MAX_EXPANDED_BYTES.to_string()),
        "{message}"
    );
    // Overflowing element counts too.
    let t = tensor(pb::DataType::DtFloat, &[i64::MAX, 4]);
    let message = decode_error(round_trip(&const_graph(t)));
    assert!(message.contains("node 'c'"), "{message}");
}

/// TensorFlow's string list encoding: varint32 lengths, then the bytes.
fn string_list(strings: &[&[u8]]) -> Bytes {
    let mut out = Vec::new();
    for s in strings {
        prost::encoding::encode_varint(s.len() as u64, &mut out);
    }
    for s in strings {
        out.extend_from_slice(s);
    }
    Bytes::from(out)
}

fn string_content(content: Bytes, dims: &[i64]) -> pb::TensorProto {
    pb::TensorProto {
        tensor_content: content,
        ..tensor(pb::DataType::DtString, dims)
    }
}

#[test]
fn string_tensor_content_is_decoded_as_a_string_list() {
    let t = string_content(string_list(&[b"ab", b"", b"xyz"]), &[3]);
    let decoded = round_trip(&const_graph(t)).unwrap();
    let AttrValue::NamedAttrs(opaque) = value_of(&decoded) else {
        panic!("expected an opaque tensor");
    };
    assert_eq!(
        opaque.attrs.get("string_val"),
        Some(&AttrValue::ListStr(vec![
            "ab".into(),
            "".into(),
            "xyz".into()
        ]))
    );
}

#[test]
fn string_tensor_content_with_bad_lengths_is_an_error() {
    let mut overlong = Vec::new();
    prost::encoding::encode_varint(1000, &mut overlong);
    overlong.extend_from_slice(b"abc");
    let mut too_big = Vec::new();
    prost::encoding::encode_varint(1 << 40, &mut too_big);
    let cases: [(Bytes, &[i64], &str); 5] = [
        (
            Bytes::from(overlong),
            &[1],
            "add up to 1000 bytes but 3 follow",
        ),
        // An unterminated varint (every byte has the continuation bit).
        (Bytes::from(vec![0xffu8; 3]), &[1], "length 0"),
        (Bytes::from(too_big), &[1], "more than a varint32"),
        // Two strings promised, one length given.
        (
            string_list(&[b"a"]),
            &[2],
            "add up to 98 bytes but 0 follow",
        ),
        // Bytes left over after the strings.
        (
            Bytes::from_static(b"\x01abc"),
            &[1],
            "add up to 1 bytes but 3 follow",
        ),
    ];
    for (content, dims, want) in cases {
        let message = decode_error(round_trip(&const_graph(string_content(content, dims))));
        assert!(message.contains("node 'c'"), "{message}");
        assert!(message.contains("not a string list"), "{message}");
        assert!(message.contains(want), "{want}: {message}");
    }
}

#[test]
fn reference_dtypes_are_rejected_in_tensors_and_attrs() {
    let t = pb::TensorProto {
        float_val: vec![1.0],
        ..tensor(pb::DataType::DtFloatRef, &[2])
    };
    let message = decode_error(round_trip(&const_graph(t)));
    assert!(
        message.contains("DT_FLOAT_REF, a reference type"),
        "{message}"
    );
    for (op, attr_name) in [
        ("Cast", "DstT"),
        ("Const", "dtype"),
        ("Placeholder", "dtype"),
    ] {
        let g = graph(vec![node(
            "n",
            op,
            &[],
            vec![(attr_name, dtype_attr(pb::DataType::DtFloatRef))],
        )]);
        let message = decode_error(round_trip(&g));
        assert!(
            message.contains(&format!("attr '{attr_name}'")),
            "{message}"
        );
        assert!(message.contains("reference type"), "{message}");
    }
    // Every reference type, also in a list(type).
    for tf in [101, 103, 107, 119, 123] {
        let g = graph(vec![node(
            "n",
            "IdentityN",
            &[],
            vec![(
                "T",
                list(ListValue {
                    r#type: vec![1, tf],
                    ..ListValue::default()
                }),
            )],
        )]);
        assert!(decode_error(round_trip(&g)).contains("reference type"));
    }
}

#[test]
fn a_const_whose_dtype_differs_from_its_value_is_an_error() {
    let value = pb::TensorProto {
        int_val: vec![7],
        ..tensor(pb::DataType::DtInt32, &[])
    };
    let g = graph(vec![node(
        "c",
        "Const",
        &[],
        vec![
            ("dtype", dtype_attr(pb::DataType::DtFloat)),
            ("value", attr(Value::Tensor(Box::new(value.clone())))),
        ],
    )]);
    let message = decode_error(round_trip(&g));
    assert!(
        message.contains("has dtype DT_FLOAT but its value is a DT_INT32 tensor"),
        "{message}"
    );
    let ok = graph(vec![node(
        "c",
        "Const",
        &[],
        vec![
            ("dtype", dtype_attr(pb::DataType::DtInt32)),
            ("value", attr(Value::Tensor(Box::new(value)))),
        ],
    )]);
    assert!(round_trip(&ok).is_ok());
}

#[test]
fn one_value_for_many_elements_stays_a_splat() {
    let t = pb::TensorProto {
        float_val: vec![1.0],
        ..tensor(pb::DataType::DtFloat, &[16384, 16384])
    };
    let value = host(t);
    assert_eq!(
        value.splat_element().map(|e| e.as_ref().to_vec()),
        Some(1.0f32.to_le_bytes().to_vec())
    );
    assert!(!value.is_expanded(), "decoding expanded the splat to 1 GiB");
    assert_eq!(value.byte_len(), 1 << 30);
    // No values at all: a splat of zeros.
    let zeros = host(tensor(pb::DataType::DtInt64, &[1000, 1000]));
    assert_eq!(
        zeros.splat_element().map(|e| e.as_ref().to_vec()),
        Some(vec![0; 8])
    );
    // Several values repeat the last by expansion, as before.
    let two = pb::TensorProto {
        int_val: vec![1, 2],
        ..tensor(pb::DataType::DtInt32, &[3])
    };
    assert_eq!(host(two).splat_element(), None);
}
