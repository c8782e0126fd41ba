//! Weights: caffemodel blobs as Const inputs, borrowed when packed, copied
//! when unpacked or double; legacy shapes; layers without weights.

use super::*;
use crate::frontend::caffe::{decode_weights, CaffeWeights};
use bytes::Bytes;
use prost::Message;
use prost_reflect::{DynamicMessage, Value};

/// A blob's shape and values.
type Blob = (Vec<i64>, Vec<f32>);

/// The generator's record of every blob: file → layer → blobs.
fn expected(file: &str) -> Vec<(String, Vec<Blob>)> {
    let text = std::fs::read_to_string(fixture("decode_weights.json")).unwrap();
    let all: serde_json::Value = serde_json::from_str(&text).unwrap();
    let layers = all[file].as_object().unwrap();
    layers
        .iter()
        .map(|(layer, blobs)| {
            let blobs = blobs
                .as_array()
                .unwrap()
                .iter()
                .map(|blob| {
                    let shape = blob["shape"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|d| d.as_i64().unwrap())
                        .collect();
                    let values = blob["values"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|v| v.as_f64().unwrap() as f32)
                        .collect();
                    (shape, values)
                })
                .collect();
            (layer.clone(), blobs)
        })
        .collect()
}

/// Every blob the generator wrote is the layer's Const input, same shape,
/// same float32 values.
fn check_weights(graph: &FrameworkGraph, file: &str) {
    let layers = expected(file);
    assert!(!layers.is_empty());
    for (layer, blobs) in layers {
        let op_inputs = &op(graph, &layer).inputs;
        for (i, (shape, values)) in blobs.iter().enumerate() {
            let name = format!("{layer}/blobs/{i}");
            assert!(op_inputs.contains(&input(&name, 0)), "{layer} lacks {name}");
            let value = tensor(op(graph, &name));
            assert_eq!(value.dtype(), crate::types::DataType::Float);
            assert_eq!(value.shape().dims(), shape.as_slice(), "{name}");
            assert_eq!(&floats(value), values, "{name}");
        }
    }
}

#[test]
fn v1_caffemodel_weights_with_legacy_shapes() {
    let graph = decode_fixture("decode_v1", Some("decode_v1.caffemodel"));
    // The generator wrote [1,1,5,64] and [1,1,1,5] style legacy shapes;
    // the expectations hold the shapes the layers define.
    check_weights(&graph, "decode_v1.caffemodel");
    // The caffemodel's extra layer is ignored.
    assert!(graph.ops.iter().all(|o| !o.name.starts_with("old_loss")));
}

#[test]
fn packed_weights_borrow_the_file_and_doubles_become_floats() {
    let graph = decode_fixture("decode_inplace", Some("decode_inplace.caffemodel"));
    check_weights(&graph, "decode_inplace.caffemodel");

    let data = Bytes::from(std::fs::read(fixture("decode_inplace.caffemodel")).unwrap());
    let weights = decode_weights(data.clone()).unwrap();
    let conv = weights.tensors("conv", &[]).unwrap().unwrap();
    for tensor in &conv {
        assert!(
            within(tensor.bytes(), &data),
            "packed floats are not borrowed"
        );
    }
    // double_data is converted, so not borrowed.
    let scale = weights.tensors("scale", &[]).unwrap().unwrap();
    assert!(!within(scale[0].bytes(), &data));
    assert!(within(scale[1].bytes(), &data));
}

#[test]
fn unpacked_weights_are_read_too_and_copied() {
    let graph = decode_fixture("decode_inplace", Some("decode_inplace_unpacked.caffemodel"));
    // The same values as the packed file (same seed).
    check_weights(&graph, "decode_inplace_unpacked.caffemodel");
    assert_eq!(
        expected("decode_inplace_unpacked.caffemodel"),
        expected("decode_inplace.caffemodel")
    );
    let data = Bytes::from(std::fs::read(fixture("decode_inplace_unpacked.caffemodel")).unwrap());
    let weights = decode_weights(data.clone()).unwrap();
    let conv = weights.tensors("conv", &[]).unwrap().unwrap();
    assert!(
        !within(conv[0].bytes(), &data),
        "unpacked floats cannot be borrowed"
    );
}

fn within(part: &Bytes, whole: &Bytes) -> bool {
    let start = whole.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    !part.is_empty() && at >= start && at + part.len() <= start + whole.len()
}

/// A caffemodel built with the schema itself: layers (name → blobs of
/// (shape, values)).
fn caffemodel(layers: &[(&str, Vec<Blob>)]) -> Bytes {
    let schema = CaffeSchema::builtin().unwrap();
    let mut net = DynamicMessage::new(schema.message("NetParameter").unwrap());
    let layer_desc = schema.message("LayerParameter").unwrap();
    let blob_desc = schema.message("BlobProto").unwrap();
    let shape_desc = schema.message("BlobShape").unwrap();
    let mut list = Vec::new();
    for (name, blobs) in layers {
        let mut layer = DynamicMessage::new(layer_desc.clone());
        layer.set_field_by_name("name", Value::String((*name).to_owned()));
        let blobs = blobs
            .iter()
            .map(|(dims, values)| {
                let mut shape = DynamicMessage::new(shape_desc.clone());
                shape.set_field_by_name(
                    "dim",
                    Value::List(dims.iter().map(|&d| Value::I64(d)).collect()),
                );
                let mut blob = DynamicMessage::new(blob_desc.clone());
                blob.set_field_by_name("shape", Value::Message(shape));
                blob.set_field_by_name(
                    "data",
                    Value::List(values.iter().map(|&v| Value::F32(v)).collect()),
                );
                Value::Message(blob)
            })
            .collect();
        layer.set_field_by_name("blobs", Value::List(blobs));
        list.push(Value::Message(layer));
    }
    net.set_field_by_name("layer", Value::List(list));
    Bytes::from(net.encode_to_vec())
}

fn decode_with(text: &str, weights: &CaffeWeights) -> Result<FrameworkGraph, FrontendError> {
    decode_net(CaffeSchema::builtin().unwrap(), text, Some(weights), "net")
}

const CONV_SCALE: &str = r#"
    input: "x"
    input_shape { dim: 1 dim: 1 dim: 3 dim: 3 }
    layer { name: "conv" type: "Convolution" bottom: "x" top: "y"
            convolution_param { num_output: 2 kernel_size: 1 bias_term: false } }
    layer { name: "scale" type: "Scale" bottom: "y" top: "z" }
"#;

#[test]
fn layers_missing_from_the_caffemodel_keep_weightless_blobs() {
    let weights = decode_weights(caffemodel(&[(
        "conv",
        vec![(vec![2, 1, 1, 1], vec![0.5, -2.0])],
    )]))
    .unwrap();
    let graph = decode_with(CONV_SCALE, &weights).unwrap();
    assert_eq!(floats(tensor(op(&graph, "conv/blobs/0"))), [0.5, -2.0]);
    assert_eq!(opaque_shape(op(&graph, "scale/blobs/0")), [-1]);
}

#[test]
fn the_caffemodel_decides_how_many_blobs_a_layer_has() {
    // The table says one weight for a bias-free conv; the file has two.
    let weights = decode_weights(caffemodel(&[(
        "conv",
        vec![
            (vec![2, 1, 1, 1], vec![1.0, 2.0]),
            (vec![2], vec![3.0, 4.0]),
        ],
    )]))
    .unwrap();
    let graph = decode_with(CONV_SCALE, &weights).unwrap();
    assert_eq!(op(&graph, "conv").inputs.len(), 3);
    assert_eq!(floats(tensor(op(&graph, "conv/blobs/1"))), [3.0, 4.0]);
}

#[test]
fn a_blob_whose_size_does_not_match_its_shape_names_the_layer() {
    let weights = decode_weights(caffemodel(&[(
        "conv",
        vec![(vec![2, 1, 1, 1], vec![1.0, 2.0, 3.0])],
    )]))
    .unwrap();
    let Err(FrontendError::Decode(message)) = decode_with(CONV_SCALE, &weights) else {
        panic!("expected a decode error");
    };
    assert!(
        message.contains(
            "weight blob 0 of layer 'conv' has shape [2, 1, 1, 1] (2 values) but holds 3 float values"
        ),
        "{message}"
    );
}

#[test]
fn blob_values_split_over_two_packed_records_are_joined() {
    // Two encodings of one BlobProto, concatenated: protobuf merges them,
    // so `data` arrives as two length-delimited records.
    let schema = CaffeSchema::builtin().unwrap();
    let part = |dims: &[i64], values: &[f32]| {
        let mut blob = DynamicMessage::new(schema.message("BlobProto").unwrap());
        if !dims.is_empty() {
            let mut shape = DynamicMessage::new(schema.message("BlobShape").unwrap());
            shape.set_field_by_name(
                "dim",
                Value::List(dims.iter().map(|&d| Value::I64(d)).collect()),
            );
            blob.set_field_by_name("shape", Value::Message(shape));
        }
        blob.set_field_by_name(
            "data",
            Value::List(values.iter().map(|&v| Value::F32(v)).collect()),
        );
        blob.encode_to_vec()
    };
    let mut blob = part(&[3], &[1.0, 2.0]);
    blob.extend(part(&[], &[3.0]));
    let mut layer = DynamicMessage::new(schema.message("LayerParameter").unwrap());
    layer.set_field_by_name("name", Value::String("p".into()));
    let mut layer = layer.encode_to_vec();
    prost::encoding::bytes::encode(7, &blob, &mut layer);
    let mut net = Vec::new();
    prost::encoding::bytes::encode(100, &layer, &mut net);

    let weights = decode_weights(Bytes::from(net)).unwrap();
    let tensors = weights.tensors("p", &[]).unwrap().unwrap();
    assert_eq!(tensors.len(), 1);
    assert_eq!(tensors[0].shape().dims(), [3]);
    assert_eq!(floats(&tensors[0]), [1.0, 2.0, 3.0]);
}

#[test]
fn blobs_written_in_the_prototxt_are_weights_too() {
    let graph = decode_text(
        r#"
        input: "x"
        layer { name: "prelu" type: "PReLU" bottom: "x" top: "y"
                blobs { shape { dim: 2 } data: 0.25 data: 0.5 } }
        layer { name: "shared" type: "PReLU" bottom: "y" top: "z"
                prelu_param { channel_shared: true } }
        "#,
    )
    .unwrap();
    let slope = tensor(op(&graph, "prelu/blobs/0"));
    assert_eq!(slope.shape().dims(), [2]);
    assert_eq!(floats(slope), [0.25, 0.5]);
    // Without values: Caffe's shared slope is a scalar.
    assert_eq!(
        opaque_shape(op(&graph, "shared/blobs/0")),
        Vec::<i64>::new()
    );
}

#[test]
fn a_blob_that_disagrees_with_the_layer_parameters_names_layer_and_blob() {
    // num_output 2, kernel 1: the file's [3, 1, 1, 1] filter is another net's.
    let weights = decode_weights(caffemodel(&[(
        "conv",
        vec![(vec![3, 1, 1, 1], vec![1.0, 2.0, 3.0])],
    )]))
    .unwrap();
    let Err(FrontendError::Decode(message)) = decode_with(CONV_SCALE, &weights) else {
        panic!("expected a decode error");
    };
    assert!(
        message.contains("blob 0 of layer 'conv' (Convolution) has the shape [3, 1, 1, 1]")
            && message.contains("parameters give [2, ?, 1, 1]"),
        "{message}"
    );
}

#[test]
fn a_weights_file_naming_none_of_the_weighted_layers_is_refused() {
    // Another net's .caffemodel, or a file that only decodes as an empty net.
    let weights =
        decode_weights(caffemodel(&[("other", vec![(vec![2], vec![1.0, 2.0])])])).unwrap();
    let Err(FrontendError::Decode(message)) = decode_with(CONV_SCALE, &weights) else {
        panic!("expected a decode error");
    };
    assert!(
        message.contains("none of the net's 2 weighted layers (conv, scale)"),
        "{message}"
    );
}
