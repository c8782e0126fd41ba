//! Compiles opgraph's TensorFlow and ONNX `.proto` schemas (rust/core/proto) with
//! protox (pure Rust, no protoc) into a descriptor set, generates the prost
//! message types from it, and leaves the encoded descriptor set in OUT_DIR
//! for the text-format parser (prost-reflect) to embed.

use std::path::PathBuf;

const PROTO_ROOT: &str = "proto";
const TENSORFLOW_FILES: &[&str] = &["tensorflow/graph.proto"];
const ONNX_FILES: &[&str] = &["onnx/onnx.proto"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed={PROTO_ROOT}");
    let mut compiler = protox::Compiler::new([PROTO_ROOT])?;
    compiler.include_imports(true);
    compiler.open_files(TENSORFLOW_FILES.iter().chain(ONNX_FILES))?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("tensorflow_descriptors.bin"),
        compiler.encode_file_descriptor_set(),
    )?;
    let descriptors = compiler.file_descriptor_set();
    prost_build::Config::new()
        // `bytes` fields slice the input buffer instead of copying it, so
        // tensor_content borrows the memory-mapped file.
        .bytes(["."])
        // Maps stay hash maps (a BTreeMap allocates a whole 11-entry node
        // even for one attr: ~5 KB per node); attrs are converted in key
        // order, so the result is the same for the binary and text encoding.
        // The large oneof variants are boxed so an AttrValue is small.
        .boxed(".tensorflow.AttrValue.value.tensor")
        .boxed(".tensorflow.AttrValue.value.list")
        .boxed(".tensorflow.AttrValue.value.shape")
        .boxed(".tensorflow.AttrValue.value.func")
        // Written by hand (strings borrowed from the file, see the module).
        .extern_path(
            ".onnx.NodeProtoSlices",
            "crate::frontend::onnx::node_slices::NodeProtoSlices",
        )
        .compile_fds(descriptors)?;
    Ok(())
}
