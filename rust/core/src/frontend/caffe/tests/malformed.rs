//! Malformed files: decode errors that say where and what, never a panic.

use super::*;
use crate::frontend::caffe::decode_weights;
use crate::frontend::text_format::MAX_TEXT_NESTING;
use bytes::Bytes;

/// A scratch file, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, content: &[u8]) -> Scratch {
        let path =
            std::env::temp_dir().join(format!("opgraph-caffe-{}-{name}", std::process::id()));
        std::fs::write(&path, content).unwrap();
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn decode_files(prototxt: &Path, weights: Option<&Path>) -> String {
    match decode(&CaffeFiles {
        prototxt: prototxt.to_owned(),
        weights: weights.map(Path::to_owned),
        custom_protos: Vec::new(),
    }) {
        Err(FrontendError::Decode(message)) => message,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[test]
fn text_errors_name_the_file_line_and_column() {
    let file = Scratch::new(
        "bad.prototxt",
        b"name: \"x\"\nlayer {\n  name: \"a\"\n  bottom: \n}\n",
    );
    let message = decode_files(&file.0, None);
    assert!(
        message.starts_with(&format!("'{}': ", file.0.display())),
        "{message}"
    );
    assert!(message.contains("line 5, column 1"), "{message}");
    let message = decode_error("layer {\n  name: \"a\"\n  colour: 3\n}");
    assert!(
        message.contains("line 3, column 3") && message.contains("colour"),
        "{message}"
    );
}

#[test]
fn a_binary_file_given_as_the_prototxt_says_so() {
    let message = decode_files(&fixture("decode_inplace.caffemodel"), None);
    assert!(message.contains("is not a text .prototxt"), "{message}");
}

#[test]
fn missing_and_empty_files() {
    let message = decode_files(&fixture("no_such.prototxt"), None);
    assert!(message.starts_with("cannot read") && message.contains("no_such.prototxt"));
    let empty = Scratch::new("empty.prototxt", b"");
    let message = decode_files(&empty.0, None);
    assert!(
        message.contains("the file is empty; expected a Caffe net definition"),
        "{message}"
    );
    let empty = Scratch::new("empty.caffemodel", b"");
    let message = decode_files(&fixture("decode_inplace.prototxt"), Some(&empty.0));
    assert!(
        message.contains("expected a binary Caffe model"),
        "{message}"
    );
}

#[test]
fn a_text_file_given_as_the_weights_or_a_directory_as_the_net_says_so() {
    let net = fixture("decode_inplace.prototxt");
    let message = decode_files(&net, Some(&net));
    assert!(
        message.starts_with(&format!(
            "'{}' is text, not a binary .caffemodel (a .prototxt goes first): the data is not",
            net.display()
        )),
        "{message}"
    );
    let data = fixture("");
    let message = decode_files(&data, None);
    assert_eq!(
        message,
        format!(
            "cannot read '{}': it is a directory; expected a Caffe net definition (.prototxt)",
            data.display()
        )
    );
}

#[test]
fn a_truncated_caffemodel_is_a_decode_error_naming_the_file() {
    let data = std::fs::read(fixture("decode_inplace.caffemodel")).unwrap();
    let cut = Scratch::new("cut.caffemodel", &data[..data.len() - 7]);
    let message = decode_files(&fixture("decode_inplace.prototxt"), Some(&cut.0));
    assert!(
        message.starts_with(&format!(
            "'{}': the data is not a binary Caffe NetParameter",
            cut.0.display()
        )),
        "{message}"
    );
}

#[test]
fn a_weight_blob_that_disagrees_with_its_shape_names_the_caffemodel_and_the_layer() {
    let weights = fixture("decode_bad_blob.caffemodel");
    let message = decode_files(&fixture("decode_inplace.prototxt"), Some(&weights));
    assert_eq!(
        message,
        format!(
            "'{}': weight blob 0 of layer 'conv' has shape [3, 2, 3, 3] (54 values) but holds \
             53 float values",
            weights.display()
        )
    );
}

#[test]
fn every_prefix_of_the_fixtures_decodes_or_fails_cleanly() {
    for name in [
        "decode_inplace.caffemodel",
        "decode_inplace_unpacked.caffemodel",
        "decode_v1.caffemodel",
    ] {
        let data = Bytes::from(std::fs::read(fixture(name)).unwrap());
        for end in 0..data.len() {
            if let Ok(weights) = decode_weights(data.slice(..end)) {
                for layer in weights.layer_names().map(str::to_owned).collect::<Vec<_>>() {
                    let _ = weights.tensors(&layer, &[]);
                }
            }
        }
    }
    let text = std::fs::read_to_string(fixture("decode_phases.prototxt")).unwrap();
    for end in (0..text.len()).filter(|&e| text.is_char_boundary(e)) {
        if let Err(error) = decode_text(&text[..end]) {
            assert!(matches!(error, FrontendError::Decode(ref m) if !m.is_empty()));
        }
    }
}

#[test]
fn layers_need_names_and_types() {
    let message = decode_error("input: 'x' layer { type: 'ReLU' bottom: 'x' top: 'y' }");
    assert!(
        message.contains("layer #1 (type 'ReLU') has no name"),
        "{message}"
    );
    let message = decode_error("input: 'x' layer { name: 'r' bottom: 'x' top: 'y' }");
    assert!(message.contains("layer 'r' has no type"), "{message}");
    let message = decode_error("input: 'x' layers { name: 'r' bottom: 'x' top: 'y' }");
    assert!(message.contains("layer #1 has no type"), "{message}");
}

#[test]
fn an_empty_net_is_an_error() {
    let message = decode_error("name: 'nothing'");
    assert!(
        message.contains("the net has no inputs and no layers"),
        "{message}"
    );
    // Only a TRAIN layer: nothing is left for inference.
    let message =
        decode_error("layer { name: 'd' type: 'Data' top: 'y' include { phase: TRAIN } }");
    assert!(message.contains("(in phase TEST)"), "{message}");
}

#[test]
fn hostile_nesting_is_refused_before_parsing() {
    let depth = MAX_TEXT_NESTING + 1;
    let text = format!(
        "layer {{ transform_param {}{} }}",
        "{ ".repeat(depth),
        "} ".repeat(depth)
    );
    let message = decode_error(&text);
    assert!(message.contains("nest more than"), "{message}");
}

#[test]
fn bad_blobs_name_their_layer() {
    let message = decode_error(
        "input: 'x' layer { name: 'p' type: 'PReLU' bottom: 'x' top: 'y' \
         blobs { shape { dim: -3 } } }",
    );
    assert!(
        message.contains("blob 0 of layer 'p' has shape [-3] with the negative dim -3"),
        "{message}"
    );
    let message = decode_error(
        "input: 'x' layer { name: 'p' type: 'PReLU' bottom: 'x' top: 'y' \
         blobs { shape { dim: 2 } data: 1 } }",
    );
    assert!(
        message.contains("has shape [2] (2 values) but holds 1 float values"),
        "{message}"
    );
}

#[test]
fn garbage_is_not_a_caffemodel() {
    let Err(FrontendError::Decode(message)) =
        decode_weights(Bytes::from_static(b"\xff\xff\xff\xff"))
    else {
        panic!("expected an error");
    };
    assert!(
        message.contains("not a binary Caffe NetParameter"),
        "{message}"
    );
}

/// `decode_inplace.caffemodel` with blob `blob` of layer `layer` replaced by
/// one whose packed data record claims more bytes than follow: the shape,
/// then the float array's encoding cut `cut` bytes short (built with the
/// protobuf encoder, then truncated).
fn with_overlong_blob(layer: &str, blob: usize, cut: usize) -> Vec<u8> {
    use prost::Message;
    use prost_reflect::{DynamicMessage, Value};
    let skeleton = super::super::weights::skeleton_view().unwrap();
    let pool = skeleton.parent_pool();
    let layer_view = pool.get_message_by_name("caffe.LayerParameter").unwrap();
    let blob_view = pool.get_message_by_name("caffe.BlobProto").unwrap();
    let data = Bytes::from(std::fs::read(fixture("decode_inplace.caffemodel")).unwrap());
    let mut net = DynamicMessage::decode(skeleton.clone(), data).unwrap();
    let Some(Value::List(layers)) = net.get_field_by_name_mut("layer") else {
        panic!("no layers");
    };
    for record in layers.iter_mut() {
        let mut decoded =
            DynamicMessage::decode(layer_view.clone(), record.as_bytes().unwrap().clone()).unwrap();
        if decoded.get_field_by_name("name").unwrap().as_str() != Some(layer) {
            continue;
        }
        let mut shape_only = DynamicMessage::new(blob_view.clone());
        let mut data_only = DynamicMessage::new(blob_view.clone());
        let floats: Vec<u8> = (0..54).flat_map(|i| (i as f32).to_le_bytes()).collect();
        data_only.set_field_by_name("data", Value::Bytes(Bytes::from(floats)));
        let shape = DynamicMessage::decode(
            pool.get_message_by_name("caffe.BlobShape").unwrap(),
            &[][..],
        )
        .unwrap();
        shape_only.set_field_by_name("shape", Value::Message(shape));
        let mut bytes = shape_only.encode_to_vec();
        let data_record = data_only.encode_to_vec();
        bytes.extend_from_slice(&data_record[..data_record.len() - cut]);
        let Some(Value::List(blobs)) = decoded.get_field_by_name_mut("blobs") else {
            panic!("no blobs");
        };
        blobs[blob] = Value::Bytes(Bytes::from(bytes));
        *record = Value::Bytes(Bytes::from(decoded.encode_to_vec()));
    }
    net.encode_to_vec()
}

#[test]
fn an_overlong_packed_blob_names_the_layer_and_the_blob() {
    let bad = Scratch::new("overlong.caffemodel", &with_overlong_blob("conv", 1, 8));
    let message = decode_files(&fixture("decode_inplace.prototxt"), Some(&bad.0));
    assert!(
        message.starts_with(&format!(
            "'{}': weight blob 1 of layer 'conv' is malformed",
            bad.0.display()
        )),
        "{message}"
    );
    assert!(message.contains("cut short"), "{message}");
    assert!(
        !message.contains("not a binary Caffe NetParameter"),
        "{message}"
    );
}
