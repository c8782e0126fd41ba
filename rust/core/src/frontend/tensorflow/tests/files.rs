//! Files: TensorFlow's own output (tests/tensorflow/data, written by
//! tests/tensorflow/generators/make_decode_models.py), encoding detection, file errors.

use super::*;
use crate::frontend::tensorflow::{decode_file, decode_text, ARG_OP_TYPE};
use crate::frontend::FrameworkInput;
use crate::types::{AttrValue, DataType};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/tensorflow/data")
        .join(name)
}

/// A scratch file, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, content: &[u8]) -> Scratch {
        let path =
            std::env::temp_dir().join(format!("opgraph-decode-{}-{name}", std::process::id()));
        std::fs::write(&path, content).unwrap();
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn tensorflow_binary_and_text_files_give_the_same_graph() {
    let binary = decode_file(&fixture("decode_conv_cond.pb")).unwrap();
    let text = decode_file(&fixture("decode_conv_cond.pbtxt")).unwrap();
    assert_eq!(binary, text);
    assert_eq!(binary.name, "decode_conv_cond");

    let op = |name: &str| binary.ops.iter().find(|o| o.name == name).unwrap();
    let conv = op("Conv2D");
    assert_eq!(conv.op_type, "Conv2D");
    assert_eq!(
        conv.inputs,
        [
            FrameworkInput::new("image", 0),
            FrameworkInput::new("Conv2D/ReadVariableOp", 0)
        ]
    );
    assert_eq!(
        conv.attrs.get("strides"),
        Some(&AttrValue::ListInt(vec![1, 2, 2, 1]))
    );
    assert_eq!(
        conv.attrs.get("padding"),
        Some(&AttrValue::Str("SAME".into()))
    );
    assert_eq!(
        conv.attrs.get("explicit_paddings"),
        Some(&AttrValue::ListInt(vec![]))
    );

    // The kernel: 3x3x3x4 floats from tensor_content. Its first element is
    // the bytes 6c bf 00 3e in the .pbtxt TensorFlow wrote.
    let Some(AttrValue::Tensor(kernel)) = op("Conv2D/ReadVariableOp/resource").attrs.get("value")
    else {
        panic!("the kernel has no tensor value");
    };
    assert_eq!(kernel.dtype(), DataType::Float);
    assert_eq!(kernel.shape().dims(), &[3, 3, 3, 4]);
    assert_eq!(kernel.bytes().len(), 3 * 3 * 3 * 4 * 4);
    assert_eq!(&kernel.bytes()[..4], [0x6c, 0xbf, 0x00, 0x3e]);
    // A scalar Const TensorFlow wrote without values (0.0) and one with float_val.
    let scalar = |name: &str| match op(name).attrs.get("value") {
        Some(AttrValue::Tensor(t)) => f32::from_le_bytes(t.bytes().as_ref().try_into().unwrap()),
        other => panic!("{name}: {other:?}"),
    };
    assert_eq!(scalar("Greater/y"), 0.0);
    assert_eq!(scalar("cond/input_1"), 0.5);

    let cond = op("cond");
    assert_eq!(cond.op_type, "If");
    assert_eq!(
        cond.attrs.get("Tin"),
        Some(&AttrValue::ListDataType(vec![
            DataType::Float,
            DataType::Float
        ]))
    );
    assert_eq!(
        cond.attrs.get("output_shapes"),
        Some(&AttrValue::ListListInt(vec![vec![1, 4, 4, 4]]))
    );
    let Some(AttrValue::NamedAttrs(then_branch)) = cond.attrs.get("then_branch") else {
        panic!("cond has no then_branch");
    };
    let then_name = &then_branch.name;
    assert_eq!(op("NoOp").control_inputs, ["Conv2D/ReadVariableOp", "cond"]);

    assert_eq!(binary.functions.len(), 2);
    let then = binary.function(then_name).unwrap();
    assert_eq!(then.inputs.len(), 2);
    assert_eq!(then.ops[0].op_type, ARG_OP_TYPE);
    assert_eq!(then.ops[0].name, then.inputs[0]);
    assert_eq!(
        then.ops[0].attrs.get("_output_shapes"),
        Some(&AttrValue::ListListInt(vec![vec![1, 4, 4, 4]]))
    );
    assert_eq!(then.ops[1].attrs.get("index"), Some(&AttrValue::Int(1)));
    assert_eq!(
        then.outputs,
        [FrameworkInput {
            node: "cond/Identity".into(),
            output_arg: Some("output".into()),
            index: 0
        }]
    );
}

#[test]
fn text_with_another_extension_is_sniffed() {
    let text = std::fs::read(fixture("decode_conv_cond.pbtxt")).unwrap();
    let expected = decode_text(std::str::from_utf8(&text).unwrap()).unwrap();
    for name in ["sniffed.graph", "mislabelled.pb"] {
        let file = Scratch::new(name, &text);
        let decoded = decode_file(&file.0).unwrap();
        assert_eq!(decoded.ops, expected.ops, "{name}");
        assert_eq!(decoded.functions, expected.functions, "{name}");
    }
}

#[test]
fn binary_with_a_text_extension_falls_back() {
    let binary = std::fs::read(fixture("decode_conv_cond.pb")).unwrap();
    let file = Scratch::new("binary.pbtxt", &binary);
    let decoded = decode_file(&file.0).unwrap();
    assert_eq!(
        decoded.ops.len(),
        decode_binary(Bytes::from(binary)).unwrap().ops.len()
    );
}

#[test]
fn files_that_are_no_graph_say_so() {
    let garbage = Scratch::new("garbage.pb", b"\xff\xff\xff\xff\x0f\x00");
    let message = decode_error(decode_file(&garbage.0));
    assert!(
        message
            .contains("garbage.pb' is not a TensorFlow GraphDef, binary or text (read as binary: "),
        "{message}"
    );
    let prose = Scratch::new("prose.pbtxt", b"hello world\n");
    let message = decode_error(decode_file(&prose.0));
    assert!(
        message
            .contains("prose.pbtxt' is not a TensorFlow GraphDef, binary or text (read as text: "),
        "{message}"
    );
    assert!(message.contains("line 1"), "{message}");
    // Decodes (every field unknown or absent) but holds no graph.
    let nodeless = Scratch::new("nodeless.pb", b"\x18\x05");
    let message = decode_error(decode_file(&nodeless.0));
    assert!(message.contains("without nodes"), "{message}");
    let empty = Scratch::new("empty.pb", b"");
    let message = decode_error(decode_file(&empty.0));
    assert!(
        message.contains("empty.pb") && message.contains("is empty"),
        "{message}"
    );
    let missing = std::env::temp_dir().join("opgraph-decode-no-such-file.pb");
    let message = decode_error(decode_file(&missing));
    assert!(message.starts_with("cannot read"), "{message}");
}

#[test]
fn errors_in_a_file_name_the_file_and_node() {
    let g = graph(vec![node("n", "Identity", &["a:x"], vec![])]);
    let file = Scratch::new("bad_input.pb", &encode(&g));
    let message = decode_error(decode_file(&file.0));
    assert!(
        message.contains("bad_input.pb': node 'n' has input 'a:x'"),
        "{message}"
    );
}

/// The kernel's bytes lie inside a memory mapping of the model file itself
/// (Linux's /proc/self/maps lists the mappings with their files). The file
/// is TensorFlow's, grown past the size below which files are read rather
/// than mapped by an unknown field the decoder skips.
#[cfg(target_os = "linux")]
#[test]
fn weights_of_a_file_borrow_its_memory_map() {
    let mut data = std::fs::read(fixture("decode_conv_cond.pb")).unwrap();
    prost::encoding::bytes::encode(1000, &vec![0u8; 128 * 1024], &mut data);
    let scratch = Scratch::new("mapped.pb", &data);
    let path = scratch.0.canonicalize().unwrap();
    let graph = decode_file(&path).unwrap();
    let kernel = graph
        .ops
        .iter()
        .find(|o| o.name == "Conv2D/ReadVariableOp/resource")
        .unwrap();
    let Some(AttrValue::Tensor(kernel)) = kernel.attrs.get("value") else {
        panic!("the kernel has no tensor value");
    };
    let address = kernel.bytes().as_ptr() as usize;
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let file = path.to_str().unwrap();
    let mapped = maps
        .lines()
        .filter(|line| line.ends_with(file))
        .any(|line| {
            let range = line.split_whitespace().next().unwrap_or_default();
            let (start, end) = range.split_once('-').unwrap_or_default();
            let parse = |hex: &str| usize::from_str_radix(hex, 16).unwrap_or_default();
            (parse(start)..parse(end)).contains(&address)
        });
    assert!(
        mapped,
        "the kernel at {address:#x} is not inside a mapping of {file}"
    );
}
